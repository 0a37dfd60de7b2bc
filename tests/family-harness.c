/* family-harness.c — the other families' rules for the hand-held world
 * (family-harness.h over harness.c), and the checks tests/'s programs
 * and the families' share (fh_*). */
#include "config.h"

#include "tests/family-harness.h"

#include "protocol/proto-message.h"
#include "scenario/sim-scenario.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

/* every connected link comes up, one at a time, the connecting peer told
 * first; training ends in the order it started; a peer's end of session
 * is not the coordinator's business here (a crash: g->alive) */
static const HarnessRules family_rules = {
  .seed = 1,
};

GW *
gw_new (const ProtoConfig *cfg, guint n, gsize model_len)
{
  return harness_new (cfg, n, model_len, NULL, &family_rules);
}

GW *
gw_new_env (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs)
{
  return harness_new (cfg, n, model_len, envs, &family_rules);
}

void
gw_start_all (GW *g)
{
  for (guint i = 1; i <= g->n; i++)
    harness_feed (g, i, &(ProtoInput) { .kind = PROTO_IN_START });
}

void
gw_hold (GW *g, ProtoMsgType type)
{
  harness_hold (g, type, PROTO_NO_NODE, PROTO_NO_NODE);
}

guint
gw_start_losing (GW *g, ProtoMsgType type, ProtoNodeId to)
{
  harness_hold (g, type, PROTO_NO_NODE, to);
  gw_start_all (g);
  harness_settle (g);
  guint n = harness_drop (g, type, to);
  harness_unhold (g);
  return n;
}

ProtoMachine *
gw_peer (GW *g, guint i)
{
  return g->m[i];
}

/* ---------------------------------------------------------------- fh_* */

void
fh_cov_init (FhCov *v, const char *family)
{
  memset (v, 0, sizeof *v);
  v->s.states = g_hash_table_new (g_direct_hash, g_direct_equal);
  v->s.dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  v->s.rules = g_hash_table_new (g_direct_hash, g_direct_equal);
  v->sp.family = proto_family_lookup (family);
  v->sp.msgs = proto_msg_family_named (family);
  ck_assert (v->sp.family && v->sp.msgs);
}

void
fh_cov_add (GHashTable *set, const char *name)
{
  g_hash_table_add (set, (gpointer) g_intern_string (name));
}

void
fh_cov_clear (FhCov *v)
{
  explore_coverage_clear (&v->c);
  g_hash_table_unref (v->s.states);
  g_hash_table_unref (v->s.dropped);
  g_hash_table_unref (v->s.rules);
}

void
fh_assert_refused (const char *text, const char *where, const char *range)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-refused-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.ini", NULL);
  ck_assert (dir && g_file_set_contents (path, text, -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  g_unlink (path);
  g_rmdir (dir);
  ck_assert_msg (s == NULL, "'%s' loaded", text);
  ck_assert_msg (strstr (e->message, "s.ini: ") && strstr (e->message, where) && strstr (e->message, range), "%s",
                 e->message);
}
