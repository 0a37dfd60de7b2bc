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

/* the kind of [protocol] key in rows, or -1 */
static gint
rows_key_kind (const ProtoKey *rows, guint n, const char *key)
{
  for (guint j = 0; j < n; j++)
    if (!rows[j].group && strcmp (rows[j].section, "protocol") == 0 && strcmp (rows[j].key, key) == 0)
      return rows[j].kind;
  return -1;
}

/* the kind of [protocol] key a registered family or a group of
 * protocol/ declares, or -1 */
static gint
protocol_key_kind (const char *key)
{
  gint kind = -1;
  for (guint i = 0; kind < 0 && proto_family_at (i); i++)
    {
      const ProtoFamilyKeys *k = proto_family_at (i)->keys;
      if (k)
        kind = rows_key_kind (k->rows, k->n_rows, key);
    }
  for (guint g = 0; kind < 0 && proto_key_groups[g]; g++)
    kind = rows_key_kind (proto_key_groups[g]->rows, proto_key_groups[g]->n_rows, key);
  return kind;
}

/* every [protocol] duration of rows at 1000h */
static void
append_waits (GString *text, const ProtoKey *rows, guint n)
{
  for (guint j = 0; j < n; j++)
    if (!rows[j].group && strcmp (rows[j].section, "protocol") == 0 && rows[j].kind == PROTO_KEY_DUR)
      g_string_append_printf (text, "%s = 1000h\n", rows[j].key);
}

/* family = NAME and every [protocol] duration the family declares or
 * takes from another (or a group) at 1000h, its largest */
static void
append_family_waits (GString *text, const ProtoFamily *f)
{
  g_string_append_printf (text, "family = %s\n", f->name);
  const ProtoFamilyKeys *k = f->keys;
  if (k)
    append_waits (text, k->rows, k->n_rows);
  for (guint g = 0; k && k->groups && k->groups[g]; g++)
    append_waits (text, k->groups[g]->rows, k->groups[g]->n_rows);
  for (guint j = 0; k && k->shared && k->shared[j]; j++)
    if (g_str_has_prefix (k->shared[j], "protocol.")
        && protocol_key_kind (k->shared[j] + strlen ("protocol.")) == PROTO_KEY_DUR)
      g_string_append_printf (text, "%s = 1000h\n", k->shared[j] + strlen ("protocol."));
}

/* the scenario text of f with every wait at its largest (extra: more
 * [protocol] lines, or NULL) */
static char *
largest_text (const ProtoFamily *f, const char *extra)
{
  GString *text = g_string_new ("[scenario]\ntime_limit = 100000h\n[protocol]\n");
  /* the guest's waits are wall-clock bounds (guest_timeout: at most
   * 1h); its stall window is guest_stall alone */
  if (strcmp (f->name, "guest") == 0)
    g_string_append (text, "family = guest\nguest_command = true\nguest_stall = 1000h\n");
  else
    append_family_waits (text, f);
  if (extra)
    g_string_append (text, extra);
  if (!strstr (text->str, "\npayload_timeout ="))
    g_string_append (text, "payload_timeout = 1000h\n");
  g_string_append (text, "resume_timeout = 1000h\n[network]\nlink_setup = 1000h\n"
                         "[compute]\nsample_cost = 1000h\n");
  return g_string_free (text, FALSE);
}

void
fh_build_largest (const ProtoFamily *f, const char *extra, SimBuilt *b)
{
  g_autofree char *text = largest_text (f, extra);
  g_autofree char *dir = g_dir_make_tmp ("dlsim-largest-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.ini", NULL);
  ck_assert (dir && g_file_set_contents (path, text, -1, NULL));
  g_autoptr (GError) e = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (path, NULL, &e);
  g_unlink (path);
  g_rmdir (dir);
  ck_assert_msg (s != NULL, "%s: %s\n%s", f->name, e ? e->message : "", text);
  ck_assert (sim_scenario_build (s, s->points->pdata[0], 1, b, NULL));
  DlTime stall = f->stall_window (&b->cfg.proto);
  ck_assert_msg (stall >= 1000 * DL_H && stall < DL_TIME_NEVER, "%s", f->name);
}
