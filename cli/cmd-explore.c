/* cmd-explore.c — `dlsim explore FILE --runs N`: randomized fault search.
 *
 * Every run derives a fault plan from its seed, swarm-testing style: it
 * turns on a random subset of the fault kinds and draws their targets,
 * rates and times, then adds the plan to the base scenario as timeline
 * lines (the same `--set timeline.WHEN=ACTION` overrides a user can give, so
 * a plan is a scenario file's text).  Each run checks the properties of
 * sim/sim-props.c; a run that breaks one is a failure, grouped by its
 * signature: the first violation's property and the state the node was in.
 * At the end: a table of distinct failures with their seeds, and which peer
 * states, dropped messages and drop rules the batch never reached.
 *
 * Each distinct failure is then shrunk (unless --no-shrink): delta debugging
 * (ddmin) over the plan's lines, keeping the signature, and written with
 * --found DIR as a standalone scenario file whose [expect] pins the
 * violation; the file is run once more to check that it reproduces.
 *
 * Deterministic: the plans come from (seed, "explore", run index); the same
 * command gives the same table. */
#include "config.h"

#include "cli/cli.h"
#include "protocol/proto-peer.h"
#include "results/res-db.h"
#include "sim/sim-props.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
  F_DROP, F_DELAY, F_CRASH, F_LEAVE, F_JOIN, F_PARTITION, F_LINK_FAIL, F_LINK_DOWN, F_LINK_SLOW, F_SLOW, F_JITTER,
  F_N
};
static const char *const fault_names[F_N] = {
  "drop", "delay", "crash", "leave", "join", "partition", "link-fail", "link-down", "link-slow", "slow", "jitter",
};

/* the messages a drop or delay picks from, and their direction */
static const struct { const char *type; const char *dir; } msgs[] = {
  { "PeersForRound", "to" },        { "StartWeightSharing", "to" }, { "RetryPeerConnections", "to" },
  { "ConnectionFail", "to" },       { "Payload", "to" },            { "Payload", "from" },
  { "PeerIsReady", "from" },        { "ConnectionsReady", "from" }, { "SignalForPeer", "to" },
  { "EnoughParticipants", "to" },   { "WaitingForMoreParticipants", "to" }, { "JoinRound", "from" },
  { "NewNodeInfo", "to" },          { "SharedModel", "to" },        { "SignalModelProvider", "to" },
};

typedef struct {
  guint n_peers, rounds;
  gboolean kinds[F_N];   /* the fault kinds the search may turn on */
} Space;

/* uniform in [lo, hi] */
static guint64
uniform_int (DlRandom *r, guint64 lo, guint64 hi)
{
  return lo + dl_random_below (r, hi - lo + 1);
}

/* A timeline WHEN: `round R + D` (R > 0) or an absolute time (R = 0). */
typedef struct {
  guint round, ms;
} When;

static When
when (DlRandom *r, const Space *sp)
{
  When w = { 0, 0 };
  if (dl_random_bernoulli (r, 0.2))
    w.ms = (guint) uniform_int (r, 0, 3000);
  else
    {
      w.round = (guint) uniform_int (r, 1, MAX (sp->rounds, 1));
      w.ms = (guint) uniform_int (r, 0, 1500);
    }
  return w;
}

static char *
when_text (When w)
{
  if (w.round == 0)
    return g_strdup_printf ("%ums", w.ms);
  return w.ms ? g_strdup_printf ("round %u + %ums", w.round, w.ms) : g_strdup_printf ("round %u", w.round);
}

static guint
peer (DlRandom *r, const Space *sp)
{
  return (guint) uniform_int (r, 1, sp->n_peers);
}

static const char *const delays[] = { "200ms", "2s", "20s", "70s" };

/* The plan of one run: "WHEN=ACTION" lines (one action each, distinct WHENs). */
static GPtrArray *
make_plan (const Space *sp, guint64 seed, guint index, GString *kinds_out)
{
  g_autoptr (DlRandom) r = dl_random_new (seed, "explore", index);
  GPtrArray *plan = g_ptr_array_new_with_free_func (g_free);
  gboolean on[F_N] = { 0 };
  guint n_on = 0;
  for (int k = 0; k < F_N; k++)
    if (sp->kinds[k] && dl_random_bernoulli (r, 0.5))
      on[k] = TRUE, n_on++;
  if (n_on == 0)
    {
      guint pick = (guint) uniform_int (r, 0, F_N - 1);
      for (guint k = 0; k < F_N; k++)
        if (sp->kinds[(pick + k) % F_N])
          {
            on[(pick + k) % F_N] = TRUE;
            break;
          }
    }
  GHashTable *used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint next_join = sp->n_peers + 1;
  for (int k = 0; k < F_N; k++)
    {
      if (!on[k])
        continue;
      g_string_append_printf (kinds_out, "%s%s", kinds_out->len ? "," : "", fault_names[k]);
      guint n = (guint) uniform_int (r, 1, k == F_JITTER ? 1 : 2);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *action = NULL;
          guint a = peer (r, sp), b = peer (r, sp);
          if (b == a)
            b = a % sp->n_peers + 1;
          switch (k)
            {
            case F_DROP:
              {
                guint m = (guint) uniform_int (r, 0, G_N_ELEMENTS (msgs) - 1);
                action = g_strdup_printf ("drop %s %s p%u", msgs[m].type, msgs[m].dir, a);
                break;
              }
            case F_DELAY:
              {
                guint m = (guint) uniform_int (r, 0, G_N_ELEMENTS (msgs) - 1);
                action = g_strdup_printf ("delay %s %s p%u by %s", msgs[m].type, msgs[m].dir, a,
                                          delays[uniform_int (r, 0, G_N_ELEMENTS (delays) - 1)]);
                break;
              }
            case F_CRASH: action = g_strdup_printf ("crash p%u", a); break;
            case F_LEAVE: action = g_strdup_printf ("leave p%u", a); break;
            case F_JOIN: action = g_strdup_printf ("join p%u", next_join++); break;
            case F_PARTITION: action = g_strdup_printf ("partition p%u | server", a); break;
            case F_LINK_FAIL: action = g_strdup_printf ("link-fail p%u p%u", a, b); break;
            case F_LINK_DOWN: action = g_strdup_printf ("link-down p%u p%u", a, b); break;
            case F_LINK_SLOW:
              action = g_strdup_printf ("link-slow p%u p%u by %s", a, b,
                                        delays[uniform_int (r, 0, G_N_ELEMENTS (delays) - 1)]);
              break;
            case F_SLOW: action = g_strdup_printf ("slow p%u x%u", a, (guint) uniform_int (r, 2, 50)); break;
            case F_JITTER:
              g_ptr_array_add (plan, g_strdup_printf ("network.latency=uniform(%ums, %ums)",
                                                      (guint) uniform_int (r, 1, 20),
                                                      (guint) uniform_int (r, 50, 400)));
              continue;
            }
          When at = when (r, sp);
          if (k == F_JOIN)
            at = (When) { 0, (guint) uniform_int (r, 0, 5000) };
          g_autofree char *w = when_text (at);
          if (!g_hash_table_add (used, g_strdup (w)))
            continue;   /* one action per WHEN */
          g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=%s", w, action));
          if (k == F_PARTITION)
            {
              /* healed 30 s later */
              g_autofree char *h = when_text ((When) { at.round, at.ms + 30000 });
              if (g_hash_table_add (used, g_strdup (h)))
                g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=heal", h));
            }
        }
    }
  g_hash_table_unref (used);
  return plan;
}

/* ---------------------------------------------------------------- one run */

typedef struct {
  char *first_property;
  char *first_explanation;
  DlTime first_t;
  guint counts[SIM_N_PROPS];
  GHashTable *states;     /* peer states reached (interned) */
  GHashTable *dropped;    /* message types dropped by the drop rule (not listened for) */
  GHashTable *rules;      /* drop rules that fired */
} Obs;

static void
obs_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  Obs *o = ud;
  static const char *const props[] = { SIM_PROP_NAMES };
  for (guint i = 0; i < SIM_N_PROPS; i++)
    if (strcmp (props[i], property) == 0)
      o->counts[i]++;
  if (o->first_property)
    return;
  o->first_property = g_strdup (property);
  o->first_explanation = g_strdup (explanation);
  o->first_t = t;
  (void) node;
}

static void
obs_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *obs)
{
  Obs *o = ud;
  if (node != PROTO_SERVER && obs->kind == PROTO_OBS_PHASE)
    g_hash_table_add (o->states, (gpointer) g_intern_string (obs->detail));
  else if (obs->kind == PROTO_OBS_DROPPED && obs->msg_type >= 0)
    g_hash_table_add (o->dropped, (gpointer) proto_msg_type_name ((ProtoMsgType) obs->msg_type));
  (void) t;
}

static void
obs_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  Obs *o = ud;
  if (g_strcmp0 (kind, "drop") == 0 && detail)
    g_hash_table_add (o->rules, (gpointer) g_intern_string (detail));
  (void) t;
  (void) node;
  (void) other;
}

/* The signature of a failure: the property and the state its first
 * violation names ("waits in X" / "(in X)"), if any. */
static char *
signature_of (const Obs *o)
{
  const char *e = o->first_explanation;
  const char *in = e ? strstr (e, "waits in ") : NULL;
  gsize skip = 9;
  if (!in && e && (in = strstr (e, "(in ")))
    skip = 4;
  if (in)
    {
      g_autofree char *state = g_strndup (in + skip, strcspn (in + skip, ")"));
      return g_strdup_printf ("%s in %s", o->first_property, state);
    }
  return g_strdup (o->first_property);
}

/* Runs the base file with the plan; *sig: the failure's signature or NULL. */
static gboolean
run_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, Obs *o, char **sig, GError **error)
{
  g_autoptr (GPtrArray) over = g_ptr_array_new ();
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (over, *s);
  for (guint i = 0; i < plan->len; i++)
    g_ptr_array_add (over, plan->pdata[i]);
  g_ptr_array_add (over, NULL);
  g_autoptr (SimScenario) s = sim_scenario_load (path, (const char *const *) over->pdata, error);
  if (!s)
    return FALSE;
  SimBuilt built;
  if (!sim_scenario_build (s, s->points->pdata[0], seed, &built, error))
    return FALSE;
  SimRecorder rec = { obs_observation, obs_fact, NULL, NULL, o, obs_violation };
  SimWorld *w = sim_world_new (&built.cfg, &rec, error);
  if (!w)
    {
      sim_built_clear (&built);
      return FALSE;
    }
  sim_world_run (w);
  *sig = o->first_property ? signature_of (o) : NULL;
  sim_world_free (w);
  sim_built_clear (&built);
  return TRUE;
}

static void
obs_init (Obs *o, GHashTable *states, GHashTable *dropped, GHashTable *rules)
{
  memset (o, 0, sizeof *o);
  o->states = states;
  o->dropped = dropped;
  o->rules = rules;
}

static void
obs_clear (Obs *o)
{
  g_free (o->first_property);
  g_free (o->first_explanation);
}

/* Does the plan (a subset) still fail with this signature? */
static gboolean
still_fails (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs)
{
  g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
  Obs o;
  obs_init (&o, scratch, scratch, scratch);
  g_autofree char *sig = NULL;
  (*runs)++;
  gboolean ok = run_plan (path, sets, plan, seed, &o, &sig, NULL) && g_strcmp0 (sig, want) == 0;
  obs_clear (&o);
  return ok;
}

/* ddmin (Zeller and Hildebrandt) over the plan's lines. */
static GPtrArray *
ddmin (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs)
{
  GPtrArray *cur = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < plan->len; i++)
    g_ptr_array_add (cur, g_strdup (plan->pdata[i]));
  guint n = 2;
  while (cur->len >= 2)
    {
      guint chunk = (cur->len + n - 1) / n;
      gboolean reduced = FALSE;
      for (guint start = 0; start < cur->len && !reduced; start += chunk)
        {
          /* try the complement of [start, start + chunk) */
          g_autoptr (GPtrArray) comp = g_ptr_array_new ();
          for (guint i = 0; i < cur->len; i++)
            if (i < start || i >= start + chunk)
              g_ptr_array_add (comp, cur->pdata[i]);
          if (comp->len && still_fails (path, sets, comp, seed, want, runs))
            {
              GPtrArray *next = g_ptr_array_new_with_free_func (g_free);
              for (guint i = 0; i < comp->len; i++)
                g_ptr_array_add (next, g_strdup (comp->pdata[i]));
              g_ptr_array_unref (cur);
              cur = next;
              n = MAX (n - 1, 2);
              reduced = TRUE;
            }
        }
      if (!reduced)
        {
          if (n >= cur->len)
            break;
          n = MIN (n * 2, cur->len);
        }
    }
  /* a single line may not be needed at all */
  if (cur->len == 1)
    {
      g_autoptr (GPtrArray) none = g_ptr_array_new ();
      if (still_fails (path, sets, none, seed, want, runs))
        g_ptr_array_set_size (cur, 0);
    }
  return cur;
}

/* After ddmin: fewer peers, then fewer rounds, keeping the signature (the
 * smallest that still fails, as overrides added to the plan). */
static void
shrink_size (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint n_peers,
             guint rounds, guint *runs)
{
  const char *keys[2] = { "peers.count", "training.rounds" };
  guint from[2] = { 2, 1 }, to[2] = { n_peers, rounds };
  for (int k = 0; k < 2; k++)
    for (guint v = from[k]; v < to[k]; v++)
      {
        g_ptr_array_add (plan, g_strdup_printf ("%s=%u", keys[k], v));
        if (still_fails (path, sets, plan, seed, want, runs))
          break;
        g_ptr_array_remove_index (plan, plan->len - 1);
      }
}

/* ---------------------------------------------------------------- -o DB */

/* Runs the plan again (runs are deterministic: the same run) into db, with
 * its events; the plan is in the run's params as timeline.* and the
 * overridden keys, and the violations in its violations rows. */
static gboolean
record_run (const char *path, char **sets, GPtrArray *plan, guint64 seed, ResDb *db, GError **error)
{
  g_autoptr (GPtrArray) over = g_ptr_array_new ();
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (over, *s);
  for (guint i = 0; i < plan->len; i++)
    g_ptr_array_add (over, plan->pdata[i]);
  g_ptr_array_add (over, NULL);
  g_autoptr (SimScenario) s = sim_scenario_load (path, (const char *const *) over->pdata, error);
  if (!s)
    return FALSE;
  SimBuilt built;
  if (!sim_scenario_build (s, s->points->pdata[0], seed, &built, error))
    return FALSE;
  ResRun *run = res_run_begin (db, 0, s, s->points->pdata[0], seed, error);
  if (!run)
    {
      sim_built_clear (&built);
      return FALSE;
    }
  SimRecorder rec = res_run_recorder (run);
  gint64 t0 = g_get_monotonic_time ();
  SimWorld *w = sim_world_new (&built.cfg, &rec, error);
  gboolean ok = w != NULL;
  if (w)
    {
      res_run_set_world (run, w);
      const SimResult *res = sim_world_run (w);
      res_run_drain (run);
      ok = res_run_finish (run, res, (double) (g_get_monotonic_time () - t0) / 1e6, NULL, NULL, error);
      sim_world_free (w);
    }
  else
    res_run_abort (run, "error");
  sim_built_clear (&built);
  return ok;
}

/* ---------------------------------------------------------------- files */

static void
gstring_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* The key of a "key = value" line, or NULL. */
static char *
line_key (const char *l)
{
  const char *eq = strchr (l, '=');
  if (!eq || *l == '#' || *l == ';')
    return NULL;
  return g_strstrip (g_strndup (l, (gsize) (eq - l)));
}

/* The base file's text with: its [expect] replaced by one that pins the
 * violations counted (counts), [scenario] seed set to the seed found, the
 * plan's timeline lines in [timeline] and its network overrides in
 * [network].  A header says what was found and how it was shrunk. */
static char *
scenario_text (const char *path, const char *origin, const char *name, GPtrArray *plan, const guint *counts,
               const char *signature, guint64 seed, guint found_in, guint shrunk_from, const char *explanation)
{
  g_autofree char *text = NULL;
  g_file_get_contents (path, &text, NULL, NULL);
  g_auto (GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  /* the plan's overrides by section: "[timeline]" -> "WHEN = ACTION\n"..., and
   * the keys they replace ("[network]" -> {latency}) */
  g_autoptr (GHashTable) add = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, gstring_free);
  g_autoptr (GHashTable) replaced = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < plan->len; i++)
    {
      const char *l = plan->pdata[i];
      const char *dot = strchr (l, '.'), *eq = strchr (l, '=');
      if (!dot || !eq || eq < dot)
        continue;
      g_autofree char *sec = g_strdup_printf ("[%.*s]", (int) (dot - l), l);
      g_autofree char *key = g_strndup (dot + 1, (gsize) (eq - dot - 1));
      GString *body = g_hash_table_lookup (add, sec);
      if (!body)
        {
          g_hash_table_insert (add, g_strdup (sec), body = g_string_new (NULL));
          g_ptr_array_add (order, g_strdup (sec));
        }
      g_string_append_printf (body, "%s = %s\n", key, eq + 1);
      if (strcmp (sec, "[timeline]") != 0)
        g_hash_table_add (replaced, g_strdup_printf ("%s%s", sec, key));
    }
  GString *o = g_string_new (NULL);
  g_string_append_printf (o, "# Found by `%s`: %u failing runs with the signature\n"
                          "#   %s\n# first violation: %s\n"
                          "# Shrunk by ddmin over the plan's lines (%u -> %u), then peers and rounds.\n"
                          "# The seed is the run's.\n",
                          origin, found_in, signature, explanation, shrunk_from, plan->len);
  const char *section = "";
  gboolean seen_scenario = FALSE;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (char **l = lines; *l; l++)
    {
      g_autofree char *t = g_strstrip (g_strdup (*l));
      if (*t == '[')
        {
          section = g_intern_string (t);
          if (strcmp (t, "[expect]") == 0)
            continue;
          g_string_append_printf (o, "%s\n", *l);
          if (strcmp (t, "[scenario]") == 0)
            {
              seen_scenario = TRUE;
              g_string_append_printf (o, "name = %s\nseed = %" G_GUINT64_FORMAT "\n", name, seed);
            }
          GString *body = g_hash_table_lookup (add, section);
          if (body)
            {
              g_string_append (o, body->str);
              g_hash_table_add (seen, (gpointer) section);
            }
          continue;
        }
      if (strcmp (section, "[expect]") == 0)
        continue;
      g_autofree char *key = line_key (t);
      if (key && strcmp (section, "[scenario]") == 0 && (strcmp (key, "seed") == 0 || strcmp (key, "name") == 0))
        continue;
      g_autofree char *sk = key ? g_strdup_printf ("%s%s", section, key) : NULL;
      if (sk && g_hash_table_contains (replaced, sk))
        continue;
      g_string_append_printf (o, "%s\n", *l);
    }
  while (o->len >= 2 && o->str[o->len - 1] == '\n' && o->str[o->len - 2] == '\n')
    g_string_truncate (o, o->len - 1);
  if (!seen_scenario)
    g_string_append_printf (o, "\n[scenario]\nname = %s\nseed = %" G_GUINT64_FORMAT "\n", name, seed);
  for (guint i = 0; i < order->len; i++)
    if (!g_hash_table_contains (seen, g_intern_string (order->pdata[i])))
      g_string_append_printf (o, "\n%s\n%s", (char *) order->pdata[i],
                              ((GString *) g_hash_table_lookup (add, order->pdata[i]))->str);
  g_string_append (o, "\n[expect]\n");
  static const char *const props[] = { SIM_PROP_NAMES };
  for (guint i = 0; i < SIM_N_PROPS; i++)
    if (counts[i])
      g_string_append_printf (o, "violations.%s = %u\n", props[i], counts[i]);
  return g_string_free (o, FALSE);
}

typedef struct {
  char *signature, *property, *explanation;
  GArray *seeds;          /* guint64 */
  GPtrArray *plan;        /* the first failing run's */
  GPtrArray *plans;       /* every failing run's (GPtrArray*), for -o */
} Failure;

static void
failure_free (gpointer data)
{
  Failure *f = data;
  g_free (f->signature);
  g_free (f->property);
  g_free (f->explanation);
  g_array_unref (f->seeds);
  g_ptr_array_unref (f->plan);
  g_ptr_array_unref (f->plans);
  g_free (f);
}

static gboolean
parse_faults (const char *list, Space *sp, GError **error)
{
  if (!list)
    {
      for (int k = 0; k < F_N; k++)
        sp->kinds[k] = TRUE;
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);
  for (char **p = parts; *p; p++)
    {
      gboolean known = FALSE;
      for (int k = 0; k < F_N; k++)
        if (strcmp (g_strstrip (*p), fault_names[k]) == 0)
          sp->kinds[k] = known = TRUE;
      if (!known)
        {
          g_autofree char *all = g_strjoinv (", ", (char **) fault_names);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--faults: unknown kind '%s' (known: %s)",
                       *p, all);
          return FALSE;
        }
    }
  return TRUE;
}

static char *
file_name (const char *signature)
{
  GString *s = g_string_new (NULL);
  for (const char *c = signature; *c; c++)
    g_string_append_c (s, g_ascii_isalnum (*c) ? *c : '-');
  return g_string_free (s, FALSE);
}

int
cli_cmd_explore (int argc, char **argv)
{
  gint runs = 100;
  gint64 seed = -1;
  gboolean no_shrink = FALSE;
  g_autofree char *faults = NULL, *version = NULL, *found = NULL, *budget = NULL, *out = NULL;
  g_auto (GStrv) sets = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "runs", 'n', 0, G_OPTION_ARG_INT, &runs, "runs to make (default 100)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "base seed (default the scenario's); run i uses seed + i", "S" },
    { "faults", 0, 0, G_OPTION_ARG_STRING, &faults,
      "fault kinds the search may turn on (default all): drop, delay, crash, leave, join, partition, link-fail, "
      "link-down, link-slow, slow, jitter", "KIND,..." },
    { "version", 0, 0, G_OPTION_ARG_STRING, &version, "protocol version (protocol.version)", "V" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a base value", "section.key=value" },
    { "found", 0, 0, G_OPTION_ARG_FILENAME, &found, "write each shrunk failure as a scenario file in DIR", "DIR" },
    { "no-shrink", 0, 0, G_OPTION_ARG_NONE, &no_shrink, "do not shrink the failures", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "record every failing run (its plan in params, its violations, its events) in DB", "DB" },
    { "time-budget", 0, 0, G_OPTION_ARG_STRING, &budget,
      "stop starting runs after this much wall time (the table then depends on the machine)", "D" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE - randomized fault search");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Runs FILE (its first sweep point) N times, each with a fault plan drawn from\n"
      "its seed: a random subset of the fault kinds, with targets, times (absolute or\n"
      "`round R + D`) and sizes drawn at random, added as timeline lines.  Every run\n"
      "checks the properties (agreement, own-round-only, monotone-rounds, progress,\n"
      "excluded-was-told).  Prints the distinct failures (signature: the first\n"
      "violation's property and the state it names) with their seeds, and the peer\n"
      "states, dropped messages and drop rules no run reached.  Each failure is\n"
      "shrunk by ddmin over its plan's lines; --found DIR writes it as a scenario file\n"
      "whose [expect] pins the violation, checked to reproduce.\n"
      "\n"
      "Shrinking also tries fewer peers and rounds.  -o DB records every failing run\n"
      "(its fault plan as timeline params, its violations, its events).  Not yet: -j.\n"
      "\n"
      "Exit status: 0 the search ran (failures found or not); 1 a file could not be\n"
      "written or a shrunk file did not reproduce; 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || runs < 1)
    {
      cli_error ("explore", "expected one scenario FILE and --runs N >= 1 (dlsim explore --help)");
      return CLI_EXIT_USAGE;
    }
  const char *path = rest[0];
  DlTime budget_ns = 0;
  if (budget && !dl_parse_duration (budget, &budget_ns, &error))
    {
      cli_error ("explore", "--time-budget %s: %s", budget, error->message);
      return CLI_EXIT_USAGE;
    }
  Space sp = { 0 };
  if (!parse_faults (faults, &sp, &error))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  /* the base: its overrides (and --version) come first */
  g_autoptr (GPtrArray) base_sets = g_ptr_array_new_with_free_func (g_free);
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (base_sets, g_strdup (*s));
  if (version)
    g_ptr_array_add (base_sets, g_strdup_printf ("protocol.version=%s", version));
  g_ptr_array_add (base_sets, NULL);
  char **bsets = (char **) base_sets->pdata;
  g_autoptr (SimScenario) s = sim_scenario_load (path, (const char *const *) bsets, &error);
  if (!s)
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  {
    SimBuilt b;
    if (!sim_scenario_build (s, s->points->pdata[0], s->seed, &b, &error))
      {
        cli_error ("explore", "%s", error->message);
        return CLI_EXIT_USAGE;
      }
    sp.n_peers = MAX (b.cfg.n_peers, 2);
    sp.rounds = b.cfg.proto.rounds;
    sim_built_clear (&b);
  }
  guint64 base = seed >= 0 ? (guint64) seed : s->seed;
  g_autoptr (GHashTable) states = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) rules = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GPtrArray) failures = g_ptr_array_new_with_free_func (failure_free);
  g_autoptr (GHashTable) by_sig = g_hash_table_new (g_str_hash, g_str_equal);
  guint failing = 0, invalid = 0;
  gint64 t0 = g_get_monotonic_time ();
  guint done_runs = 0;
  for (guint i = 0; i < (guint) runs; i++)
    {
      if (budget_ns > 0 && (g_get_monotonic_time () - t0) * 1000 >= budget_ns)
        break;   /* the wall clock decides here, and only here */
      done_runs++;
      g_autoptr (GString) kinds = g_string_new (NULL);
      g_autoptr (GPtrArray) plan = make_plan (&sp, base, i, kinds);
      Obs o;
      obs_init (&o, states, dropped, rules);
      g_autofree char *sig = NULL;
      g_autoptr (GError) e = NULL;
      if (!run_plan (path, bsets, plan, base + i, &o, &sig, &e))
        invalid++;   /* a plan the scenario refuses (e.g. a peer beyond max_peers) */
      else if (sig)
        {
          failing++;
          Failure *f = g_hash_table_lookup (by_sig, sig);
          if (!f)
            {
              f = g_new0 (Failure, 1);
              f->signature = g_strdup (sig);
              f->property = g_strdup (o.first_property);
              f->explanation = g_strdup (o.first_explanation);
              f->seeds = g_array_new (FALSE, FALSE, sizeof (guint64));
              f->plan = g_ptr_array_ref (plan);
              f->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
              g_ptr_array_add (failures, f);
              g_hash_table_insert (by_sig, f->signature, f);
            }
          guint64 sd = base + i;
          g_array_append_val (f->seeds, sd);
          if (out)
            g_ptr_array_add (f->plans, g_ptr_array_ref (plan));
        }
      obs_clear (&o);
      if (isatty (1) && (i + 1) % 50 == 0)
        {
          fprintf (stdout, "\r[%u/%d] %u failing, %u distinct", i + 1, runs, failing, failures->len);
          fflush (stdout);
        }
    }
  if (isatty (1))
    fputc ('\n', stdout);
  double secs = (double) (g_get_monotonic_time () - t0) / 1e6;
  printf ("%s: %u runs in %.1f s, %u failing, %u distinct failures%s\n\n", path, done_runs, secs, failing,
          failures->len, done_runs < (guint) runs ? " (time budget reached)" : "");
  if (invalid)
    printf ("(%u plans refused by the scenario and not run)\n", invalid);
  printf ("%-44s %6s  %s\n", "signature", "runs", "seeds");
  for (guint i = 0; i < failures->len; i++)
    {
      Failure *f = failures->pdata[i];
      g_autoptr (GString) sd = g_string_new (NULL);
      for (guint k = 0; k < f->seeds->len && k < 6; k++)
        g_string_append_printf (sd, "%s%" G_GUINT64_FORMAT, k ? " " : "", g_array_index (f->seeds, guint64, k));
      if (f->seeds->len > 6)
        g_string_append (sd, " ...");
      printf ("%-44s %6u  %s\n", f->signature, f->seeds->len, sd->str);
    }
  /* coverage: what the batch never reached */
  g_autoptr (GString) never = g_string_new (NULL);
  for (int st = 0; st < PROTO_PEER_N_STATES; st++)
    if (!g_hash_table_contains (states, g_intern_string (proto_peer_state_name ((ProtoPeerState) st))))
      g_string_append_printf (never, "%s%s", never->len ? ", " : "", proto_peer_state_name ((ProtoPeerState) st));
  printf ("\ncoverage: %u of %d peer states reached; never: %s\n", g_hash_table_size (states), PROTO_PEER_N_STATES,
          never->len ? never->str : "-");
  g_autoptr (GString) nd = g_string_new (NULL), nr = g_string_new (NULL);
  for (int t = 0; t < PROTO_MSG_N_TYPES; t++)
    {
      const char *name = proto_msg_type_name ((ProtoMsgType) t);
      if (!g_hash_table_contains (dropped, name))
        g_string_append_printf (nd, "%s%s", nd->len ? ", " : "", name);
    }
  for (gsize m = 0; m < G_N_ELEMENTS (msgs); m++)
    if (!g_hash_table_contains (rules, g_intern_string (msgs[m].type)) && !strstr (nr->str, msgs[m].type))
      g_string_append_printf (nr, "%s%s", nr->len ? ", " : "", msgs[m].type);
  printf ("messages never dropped for want of a listener: %s\n", nd->len ? nd->str : "-");
  printf ("drop rules that never fired: %s\n", nr->len ? nr->str : "-");

  if (out)
    {
      g_autoptr (ResDb) db = res_db_open (out, &error);
      if (!db)
        {
          cli_error ("explore", "%s", error->message);
          return CLI_EXIT_FAILURE;
        }
      guint recorded = 0;
      for (guint i = 0; i < failures->len; i++)
        {
          Failure *f = failures->pdata[i];
          for (guint k = 0; k < f->plans->len; k++)
            {
              if (!record_run (path, bsets, f->plans->pdata[k], g_array_index (f->seeds, guint64, k), db, &error))
                {
                  cli_error ("explore", "%s", error->message);
                  return CLI_EXIT_FAILURE;
                }
              recorded++;
            }
        }
      printf ("\n%u failing runs recorded in %s (plans in params timeline.*, violations in violations)\n", recorded,
              out);
    }
  if (no_shrink || failures->len == 0)
    return CLI_EXIT_OK;
  if (found && g_mkdir_with_parents (found, 0755) != 0)
    {
      cli_error ("explore", "%s: %s", found, g_strerror (errno));
      return CLI_EXIT_FAILURE;
    }
  int rc = CLI_EXIT_OK;
  printf ("\nshrunk (ddmin over the plan's lines):\n");
  for (guint i = 0; i < failures->len; i++)
    {
      Failure *f = failures->pdata[i];
      guint64 sd = g_array_index (f->seeds, guint64, 0);
      guint tries = 0;
      g_autoptr (GPtrArray) min = ddmin (path, bsets, f->plan, sd, f->signature, &tries);
      shrink_size (path, bsets, min, sd, f->signature, sp.n_peers, sp.rounds, &tries);
      printf ("  %s (seed %" G_GUINT64_FORMAT "): %u lines -> %u in %u runs\n", f->signature, sd, f->plan->len,
              min->len, tries);
      for (guint k = 0; k < min->len; k++)
        printf ("      %s\n", (char *) min->pdata[k]);
      if (!found)
        continue;
      /* the counts of the shrunk plan's run, which the file pins */
      g_autoptr (GHashTable) sc = g_hash_table_new (g_direct_hash, g_direct_equal);
      Obs m;
      obs_init (&m, sc, sc, sc);
      g_autofree char *msig = NULL;
      run_plan (path, bsets, min, sd, &m, &msig, NULL);
      g_autofree char *stem = g_path_get_basename (path);
      char *dot = strrchr (stem, '.');
      if (dot)
        *dot = '\0';
      g_autofree char *base_name = file_name (f->signature);
      g_autofree char *sname = g_strdup_printf ("%s-%s", stem, base_name);
      g_autofree char *fname = g_strdup_printf ("%s/%s.ini", found, sname);
      g_autofree char *origin = g_strdup_printf ("dlsim explore %s", path);
      g_autofree char *text = scenario_text (path, origin, sname, min, m.counts, f->signature, sd, f->seeds->len,
                                             f->plan->len, m.first_explanation ? m.first_explanation : f->explanation);
      obs_clear (&m);
      if (!g_file_set_contents (fname, text, -1, &error))
        {
          cli_error ("explore", "%s", error->message);
          return CLI_EXIT_FAILURE;
        }
      /* it must reproduce on its own, at the seed it was found with */
      g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
      Obs o;
      obs_init (&o, scratch, scratch, scratch);
      g_autofree char *sig = NULL;
      g_autoptr (GPtrArray) none = g_ptr_array_new ();
      gboolean ok = run_plan (fname, NULL, none, sd, &o, &sig, &error) && g_strcmp0 (sig, f->signature) == 0;
      obs_clear (&o);
      printf ("    -> %s: %s\n", fname, ok ? "reproduces" : "DOES NOT reproduce");
      if (!ok)
        rc = CLI_EXIT_FAILURE;
    }
  return rc;
}

/* ---------------------------------------------------------------- dlsim shrink */

/* Shrinks the failing run whose scenario (without its timeline) is in
 * base, its timeline lines in timeline. */
static int
shrink_run (const char *db, gint64 run, const char *out, const char *base, GPtrArray *timeline)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) s = sim_scenario_load (base, NULL, &error);
  if (!s)
    {
      cli_error ("shrink", "the run's scenario: %s", error->message);
      return CLI_EXIT_FAILURE;
    }
  guint64 seed = s->seed;
  g_autoptr (GHashTable) sc = g_hash_table_new (g_direct_hash, g_direct_equal);
  Obs o;
  obs_init (&o, sc, sc, sc);
  g_autofree char *sig = NULL;
  if (!run_plan (base, NULL, timeline, seed, &o, &sig, &error))
    {
      cli_error ("shrink", "%s", error->message);
      obs_clear (&o);
      return CLI_EXIT_FAILURE;
    }
  if (!sig)
    {
      cli_error ("shrink", "%s: run %" G_GINT64_FORMAT " breaks no property: nothing to shrink", db, run);
      obs_clear (&o);
      return CLI_EXIT_FAILURE;
    }
  obs_clear (&o);
  guint tries = 0;
  g_autoptr (GPtrArray) min = ddmin (base, NULL, timeline, seed, sig, &tries);
  Obs m;
  obs_init (&m, sc, sc, sc);
  g_autofree char *msig = NULL;
  run_plan (base, NULL, min, seed, &m, &msig, NULL);
  g_autofree char *origin = g_strdup_printf ("dlsim shrink %s --run %" G_GINT64_FORMAT, db, run);
  g_autofree char *stem = g_path_get_basename (out);
  char *dot = strrchr (stem, '.');
  if (dot)
    *dot = '\0';
  g_autofree char *shrunk = scenario_text (base, origin, stem, min, m.counts, sig, seed, 1, timeline->len,
                                           m.first_explanation ? m.first_explanation : "?");
  obs_clear (&m);
  if (!g_file_set_contents (out, shrunk, -1, &error))
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  Obs v;
  obs_init (&v, sc, sc, sc);
  g_autofree char *vsig = NULL;
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  gboolean ok = run_plan (out, NULL, none, seed, &v, &vsig, NULL) && g_strcmp0 (vsig, sig) == 0;
  obs_clear (&v);
  printf ("%s: %s: %u timeline lines -> %u in %u runs; %s\n", out, sig, timeline->len, min->len, tries,
          ok ? "reproduces" : "DOES NOT reproduce");
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}


int
cli_cmd_shrink (int argc, char **argv)
{
  gint64 run = 0;
  g_autofree char *out = NULL;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, &run, "the failing run (required)", "ID" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the shrunk scenario file (required)", "FILE.ini" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("DB --run ID -o FILE.ini - shrink a recorded failing run");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Rebuilds the run's scenario (as dlsim export-scenario), runs it to find its\n"
      "first property violation, shrinks its timeline with ddmin keeping that\n"
      "signature (property and state), and writes the result with an [expect]\n"
      "that pins the violations; the file is run again to check it reproduces.\n"
      "Not yet: shrinking peers, rounds, sizes and times.\n"
      "\n"
      "Exit status: 0 written and reproduced; 1 the run broke no property, or the\n"
      "file does not reproduce; 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || run <= 0 || !out)
    {
      cli_error ("shrink", "expected DB, --run ID and -o FILE.ini (dlsim shrink --help)");
      return CLI_EXIT_USAGE;
    }
  g_autoptr (GPtrArray) timeline = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = cli_export_scenario_text (rest[0], run, timeline, FALSE);
  if (!text)
    return CLI_EXIT_FAILURE;
  g_autofree char *dir = g_dir_make_tmp ("dlsim-shrink-XXXXXX", &error);
  if (!dir)
    {
      cli_error ("shrink", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  g_autofree char *base = g_build_filename (dir, "base.ini", NULL);
  int rc = CLI_EXIT_FAILURE;
  if (!g_file_set_contents (base, text, -1, &error))
    {
      cli_error ("shrink", "%s", error->message);
      goto done;
    }
  rc = shrink_run (rest[0], run, out, base, timeline);
done:
  g_remove (base);
  g_rmdir (dir);
  return rc;
}
