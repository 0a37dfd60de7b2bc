/* explore-shrink.c — one run of a plan and its failure signature, ddmin
 * and size shrinking, and the scenario file a failure is written as
 * (explore/explore.h).  `dlsim explore` and `dlsim shrink` (cli/) call
 * it; it prints nothing. */
#include "config.h"

#include "explore/explore.h"
#include "runner/runner.h"
#include "host/sim-props.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- one run */


static void
obs_violation (gpointer ud, DlTime t, const char *property, ProtoNodeId node, const char *explanation)
{
  ExploreObs *o = ud;
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

/* --guided's features: a message dropped in a state, "A!M" (the
 * coordinator's as "S:A!M"); state changes are tracked to know the state,
 * not counted: as features too they found S10 and S18 sooner but S9 and
 * S12's timeout later (docs/found.md, "Findability") */
static void
obs_feature (ExploreObs *o, ProtoNodeId node, const ProtoObservation *obs)
{
  gpointer key = GUINT_TO_POINTER (node + 1);
  const char *at = g_hash_table_lookup (o->last_state, key);
  const char *who = node == PROTO_SERVER ? "S:" : "";
  g_autofree char *f = NULL;
  if (obs->kind == PROTO_OBS_PHASE)
    g_hash_table_insert (o->last_state, key, (gpointer) g_intern_string (obs->detail));
  else if (obs->kind == PROTO_OBS_DROPPED && obs->msg_type >= 0)
    f = g_strdup_printf ("%s%s!%s", who, at ? at : "", proto_msg_type_name ((ProtoMsgType) obs->msg_type));
  if (f)
    g_hash_table_add (o->features, (gpointer) g_intern_string (f));
}

static void
obs_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *obs)
{
  ExploreObs *o = ud;
  if (node != PROTO_SERVER && obs->kind == PROTO_OBS_PHASE)
    g_hash_table_add (o->states, (gpointer) g_intern_string (obs->detail));
  else if (obs->kind == PROTO_OBS_DROPPED && obs->msg_type >= 0)
    g_hash_table_add (o->dropped, (gpointer) proto_msg_type_name ((ProtoMsgType) obs->msg_type));
  if (o->features)
    obs_feature (o, node, obs);
  (void) t;
}

static void
obs_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  ExploreObs *o = ud;
  if (g_strcmp0 (kind, "drop") == 0 && detail)
    g_hash_table_add (o->rules, (gpointer) g_intern_string (detail));
  (void) t;
  (void) node;
  (void) other;
}

/* The signature of a failure: the property, the state its first violation
 * names ("waits in X" / "(in X"), and the message the peer dropped last
 * there ("; dropped M"), if any: "progress in linking (dropped
 * ConnectionFail)". */
char *
explore_signature (const ExploreObs *o)
{
  const char *e = o->first_explanation;
  const char *in = e ? strstr (e, "waits in ") : NULL;
  gsize skip = 9;
  if (!in && e && (in = strstr (e, "(in ")))
    skip = 4;
  if (in)
    {
      g_autofree char *state = g_strndup (in + skip, strcspn (in + skip, ";)"));
      const char *d = strstr (in, "; dropped ");
      if (d)
        {
          g_autofree char *msg = g_strndup (d + 10, strcspn (d + 10, ")"));
          return g_strdup_printf ("%s in %s (dropped %s)", o->first_property, state, msg);
        }
      return g_strdup_printf ("%s in %s", o->first_property, state);
    }
  /* sync-served: why the sync failed ("p5's model sync failed (WHY) ...") */
  const char *why = e ? strstr (e, "sync failed (") : NULL;
  if (why)
    {
      g_autofree char *w = g_strndup (why + 13, strcspn (why + 13, ")"));
      return g_strdup_printf ("%s (%s)", o->first_property, w);
    }
  return g_strdup (o->first_property);
}

SimScenario *
explore_load (const char *path, char **sets, GPtrArray *plan, GError **error)
{
  g_autoptr (GPtrArray) over = g_ptr_array_new ();
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (over, *s);
  for (guint i = 0; i < plan->len; i++)
    g_ptr_array_add (over, plan->pdata[i]);
  g_ptr_array_add (over, NULL);
  return sim_scenario_load (path, (const char *const *) over->pdata, error);
}

/* Runs the base file with the plan; *sig: the failure's signature or NULL. */
gboolean
explore_run_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, ExploreObs *o, char **sig,
                  GError **error)
{
  g_autoptr (SimScenario) s = explore_load (path, sets, plan, error);
  if (!s)
    return FALSE;
  SimRecorder rec = { obs_observation, obs_fact, NULL, NULL, o, obs_violation };
  RunnerOptions ro = { .recorder = &rec };
  RunnerResult rr;
  gboolean ok = runner_run_point (s, s->points->pdata[0], seed, &ro, &rr, error);
  if (ok && rr.result.outcome == SIM_OUTCOME_ERROR)
    {
      /* a guest that broke under this plan (docs/guest.md): a failure of
       * its own, whatever was violated before it */
      g_free (o->first_property);
      g_free (o->first_explanation);
      o->first_property = g_strdup ("guest-error");
      o->first_explanation = g_strdup (rr.result.error);
    }
  runner_result_clear (&rr);
  if (!ok)
    return FALSE;
  *sig = o->first_property ? explore_signature (o) : NULL;
  return TRUE;
}

void
explore_obs_init (ExploreObs *o, GHashTable *states, GHashTable *dropped, GHashTable *rules)
{
  memset (o, 0, sizeof *o);
  o->states = states;
  o->dropped = dropped;
  o->rules = rules;
}

void
explore_obs_clear (ExploreObs *o)
{
  g_free (o->first_property);
  g_free (o->first_explanation);
  g_clear_pointer (&o->last_state, g_hash_table_unref);
}

/* Does the plan (a subset) still fail with this signature? */
gboolean
explore_still_fails (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs)
{
  g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
  ExploreObs o;
  explore_obs_init (&o, scratch, scratch, scratch);
  g_autofree char *sig = NULL;
  (*runs)++;
  gboolean ok = explore_run_plan (path, sets, plan, seed, &o, &sig, NULL) && g_strcmp0 (sig, want) == 0;
  explore_obs_clear (&o);
  return ok;
}

/* ddmin (Zeller and Hildebrandt, "Simplifying and isolating
 * failure-inducing input", 2002) over lines: the complements of n chunks
 * first, n halved back (at least 2) on a success, doubled when none
 * fails. */
GPtrArray *
explore_ddmin (GPtrArray *lines, ExploreFailsFn fails, gpointer data)
{
  GPtrArray *cur = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < lines->len; i++)
    g_ptr_array_add (cur, g_strdup (lines->pdata[i]));
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
          if (comp->len && fails (comp, data))
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
      if (fails (none, data))
        g_ptr_array_set_size (cur, 0);
    }
  return cur;
}

typedef struct {
  const char *path;
  char **sets;
  guint64 seed;
  const char *want;
  guint *runs;
  GPtrArray *pinned;   /* lines every subset keeps (the heal: explore_plan_is_heal) */
} PlanFails;

static gboolean
plan_fails (GPtrArray *subset, gpointer data)
{
  PlanFails *p = data;
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  for (guint i = 0; i < subset->len; i++)
    g_ptr_array_add (all, subset->pdata[i]);
  for (guint i = 0; i < p->pinned->len; i++)
    g_ptr_array_add (all, p->pinned->pdata[i]);
  return explore_still_fails (p->path, p->sets, all, p->seed, p->want, p->runs);
}

GPtrArray *
explore_ddmin_plan (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs)
{
  /* ddmin over the fault lines; the heal stays, so that the found file
   * keeps its liveness phase */
  g_autoptr (GPtrArray) faults = g_ptr_array_new ();
  g_autoptr (GPtrArray) pinned = g_ptr_array_new ();
  for (guint i = 0; i < plan->len; i++)
    g_ptr_array_add (explore_plan_is_heal (plan->pdata[i]) ? pinned : faults, plan->pdata[i]);
  PlanFails p = { path, sets, seed, want, runs, pinned };
  GPtrArray *min = explore_ddmin (faults, plan_fails, &p);
  for (guint i = 0; i < pinned->len; i++)
    g_ptr_array_add (min, g_strdup (pinned->pdata[i]));
  return min;
}

/* After ddmin: fewer peers, then fewer rounds, keeping the signature (the
 * smallest that still fails, as overrides added to the plan). */
void
explore_shrink_size (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want,
                     guint n_peers, guint rounds, guint *runs)
{
  const char *keys[2] = { "peers.count", "training.rounds" };
  guint from[2] = { 2, 1 }, to[2] = { n_peers, rounds };
  for (int k = 0; k < 2; k++)
    for (guint v = from[k]; v < to[k]; v++)
      {
        g_ptr_array_add (plan, g_strdup_printf ("%s=%u", keys[k], v));
        if (explore_still_fails (path, sets, plan, seed, want, runs))
          break;
        g_ptr_array_remove_index (plan, plan->len - 1);
      }
}

/* A duration as a scenario writes it: whole seconds, else milliseconds. */
static char *
fmt_dur (DlTime t)
{
  if (t % DL_S == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "s", t / DL_S);
  return g_strdup_printf ("%" G_GINT64_FORMAT "ms", t / DL_MS);
}

/* Rounder versions of a duration, simplest first: 0 (if zero_ok), whole
 * seconds down and up, tenths of a second down.  Only those that differ. */
static GPtrArray *
rounder (DlTime t, gboolean zero_ok)
{
  GPtrArray *c = g_ptr_array_new_with_free_func (g_free);
  DlTime v[4] = { 0, t / DL_S * DL_S, (t + DL_S - 1) / DL_S * DL_S, t / (100 * DL_MS) * (100 * DL_MS) };
  for (int i = zero_ok ? 0 : 1; i < 4; i++)
    {
      if (v[i] == t || (v[i] == 0 && !zero_ok))
        continue;
      gboolean dup = FALSE;
      for (int k = zero_ok ? 0 : 1; k < i; k++)
        dup |= v[k] == v[i];
      if (!dup)
        g_ptr_array_add (c, fmt_dur (v[i]));
    }
  return c;
}

/* The candidates for one plan line, simplest first: its time (`round R +
 * D` without D, or D rounder; an absolute time rounder) and an action's
 * `by D` rounder. */
static GPtrArray *
line_candidates (const char *line)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  if (!g_str_has_prefix (line, "timeline."))
    return out;
  const char *eq = strchr (line, '=');
  if (!eq)
    return out;
  g_autofree char *when = g_strndup (line + 9, (gsize) (eq - line - 9));
  const char *action = eq + 1;
  const char *plus = strstr (when, " + ");
  DlTime t;
  if (plus)
    {
      g_autofree char *head = g_strndup (when, (gsize) (plus - when));
      g_ptr_array_add (out, g_strdup_printf ("timeline.%s=%s", head, action));
      if (dl_parse_duration (plus + 3, &t, NULL))
        {
          g_autoptr (GPtrArray) r = rounder (t, FALSE);
          for (guint i = 0; i < r->len; i++)
            g_ptr_array_add (out, g_strdup_printf ("timeline.%s + %s=%s", head, (char *) r->pdata[i], action));
        }
    }
  else if (dl_parse_duration (when, &t, NULL))
    {
      g_autoptr (GPtrArray) r = rounder (t, TRUE);
      for (guint i = 0; i < r->len; i++)
        g_ptr_array_add (out, g_strdup_printf ("timeline.%s=%s", (char *) r->pdata[i], action));
    }
  const char *by = strstr (action, " by ");
  if (by)
    {
      gsize dlen = strcspn (by + 4, " ");
      g_autofree char *d = g_strndup (by + 4, dlen);
      if (dl_parse_duration (d, &t, NULL))
        {
          g_autoptr (GPtrArray) r = rounder (t, FALSE);
          for (guint i = 0; i < r->len; i++)
            g_ptr_array_add (out, g_strdup_printf ("timeline.%s=%.*s by %s%s", when, (int) (by - action), action,
                                                   (char *) r->pdata[i], by + 4 + dlen));
        }
    }
  return out;
}

/* TRUE if `line` is a timeline line whose WHEN another line of the plan
 * (not the i-th) already has. */
static gboolean
when_taken (GPtrArray *plan, guint i, const char *line)
{
  const char *eq = strchr (line, '=');
  if (!g_str_has_prefix (line, "timeline.") || !eq)
    return FALSE;
  gsize klen = (gsize) (eq - line);
  for (guint j = 0; j < plan->len; j++)
    {
      const char *o = plan->pdata[j];
      if (j != i && strncmp (o, line, klen) == 0 && o[klen] == '=')
        return TRUE;
    }
  return FALSE;
}

/* After the sizes: each line's times and sizes made rounder (towards 0 or
 * whole seconds), one line at a time, keeping the signature. */
void
explore_shrink_values (const char *path, char **sets, GPtrArray *plan, guint64 seed, const char *want, guint *runs)
{
  for (guint i = 0; i < plan->len; i++)
    for (gboolean again = TRUE; again;)
      {
        again = FALSE;
        g_autoptr (GPtrArray) cands = line_candidates (plan->pdata[i]);
        for (guint k = 0; k < cands->len; k++)
          {
            if (when_taken (plan, i, cands->pdata[k]))
              continue;   /* one action per WHEN: a second would override the first */
            char *old = plan->pdata[i];
            plan->pdata[i] = cands->pdata[k];
            if (explore_still_fails (path, sets, plan, seed, want, runs))
              {
                cands->pdata[k] = old;   /* freed with cands */
                again = TRUE;             /* the new line may get rounder still */
                break;
              }
            plan->pdata[i] = old;
          }
      }
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

/* The plan's overrides by section: add maps "[timeline]" to its lines
 * "WHEN = ACTION\n"..., order lists the sections as the plan first names
 * them, and replaced holds the keys they replace ("[network]latency"). */
typedef struct {
  GHashTable *add;
  GHashTable *replaced;
  GPtrArray *order;
} PlanSections;

static void
plan_sections_init (PlanSections *ps, GPtrArray *plan)
{
  ps->add = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, gstring_free);
  ps->replaced = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ps->order = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < plan->len; i++)
    {
      const char *l = plan->pdata[i];
      const char *dot = strchr (l, '.'), *eq = strchr (l, '=');
      if (!dot || !eq || eq < dot)
        continue;
      g_autofree char *sec = g_strdup_printf ("[%.*s]", (int) (dot - l), l);
      g_autofree char *key = g_strndup (dot + 1, (gsize) (eq - dot - 1));
      GString *body = g_hash_table_lookup (ps->add, sec);
      if (!body)
        {
          g_hash_table_insert (ps->add, g_strdup (sec), body = g_string_new (NULL));
          g_ptr_array_add (ps->order, g_strdup (sec));
        }
      g_string_append_printf (body, "%s = %s\n", key, eq + 1);
      /* as --set does, a timeline line of the plan replaces the base's at the same WHEN */
      g_hash_table_add (ps->replaced, g_strdup_printf ("%s%s", sec, key));
    }
}

static void
plan_sections_clear (PlanSections *ps)
{
  g_clear_pointer (&ps->add, g_hash_table_unref);
  g_clear_pointer (&ps->replaced, g_hash_table_unref);
  g_clear_pointer (&ps->order, g_ptr_array_unref);
}

/* The base file's lines into o: without its [expect], [scenario]'s name
 * and seed set to `name` and `seed` and the keys the plan replaces; the
 * plan's lines of a section after its header, that section added to
 * `seen`.  TRUE if the base has a [scenario]. */
static gboolean
copy_base (GString *o, char **lines, const PlanSections *ps, const char *name, guint64 seed, GHashTable *seen)
{
  const char *section = "";
  gboolean seen_scenario = FALSE;
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
          GString *body = g_hash_table_lookup (ps->add, section);
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
      if (sk && g_hash_table_contains (ps->replaced, sk))
        continue;
      g_string_append_printf (o, "%s\n", *l);
    }
  return seen_scenario;
}

/* After the base's lines: a [scenario] if it had none, the plan's sections
 * it lacks (`seen` holds the ones it has), and the [expect] that pins the
 * violations counted. */
static void
append_end (GString *o, const PlanSections *ps, gboolean seen_scenario, const char *name, guint64 seed,
                GHashTable *seen, const guint *counts)
{
  while (o->len >= 2 && o->str[o->len - 1] == '\n' && o->str[o->len - 2] == '\n')
    g_string_truncate (o, o->len - 1);
  if (!seen_scenario)
    g_string_append_printf (o, "\n[scenario]\nname = %s\nseed = %" G_GUINT64_FORMAT "\n", name, seed);
  for (guint i = 0; i < ps->order->len; i++)
    if (!g_hash_table_contains (seen, g_intern_string (ps->order->pdata[i])))
      g_string_append_printf (o, "\n%s\n%s", (char *) ps->order->pdata[i],
                              ((GString *) g_hash_table_lookup (ps->add, ps->order->pdata[i]))->str);
  g_string_append (o, "\n[expect]\n");
  static const char *const props[] = { SIM_PROP_NAMES };
  for (guint i = 0; i < SIM_N_PROPS; i++)
    if (counts[i])
      g_string_append_printf (o, "violations.%s = %u\n", props[i], counts[i]);
}

/* The base file's text with: its [expect] replaced by one that pins the
 * violations counted (counts), [scenario] seed set to the seed found, the
 * plan's timeline lines in [timeline] and its network overrides in
 * [network].  A header says what was found and how it was shrunk. */
char *
explore_scenario_text (const char *path, const ExploreFoundInfo *info, GPtrArray *plan, guint shrunk_to,
                       const guint *counts, const char *signature, guint64 seed, const char *explanation)
{
  g_autofree char *text = NULL;
  g_file_get_contents (path, &text, NULL, NULL);
  g_auto (GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  PlanSections ps;
  plan_sections_init (&ps, plan);
  GString *o = g_string_new (NULL);
  g_string_append_printf (o, "# Found by `%s`: %u failing run%s with the signature\n"
                          "#   %s\n# first violation: %s\n"
                          "# Shrunk by ddmin over the plan's lines (%u -> %u), %s.\n"
                          "# The seed is the run's.\n",
                          info->origin, info->found_in, info->found_in == 1 ? "" : "s", signature, explanation,
                          info->shrunk_from, shrunk_to, info->then);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean seen_scenario = copy_base (o, lines, &ps, info->name, seed, seen);
  append_end (o, &ps, seen_scenario, info->name, seed, seen, counts);
  plan_sections_clear (&ps);
  return g_string_free (o, FALSE);
}

/* The path from folder `from` to folder `to`, both absolute and canonical
 * ("../examples"); "" if they are one. */
static char *
relative_dir (const char *from, const char *to)
{
  g_auto (GStrv) a = g_strsplit (from, G_DIR_SEPARATOR_S, -1);
  g_auto (GStrv) b = g_strsplit (to, G_DIR_SEPARATOR_S, -1);
  guint i = 0;
  while (a[i] && b[i] && strcmp (a[i], b[i]) == 0)
    i++;
  GString *r = g_string_new (NULL);
  for (guint k = i; a[k]; k++)
    if (*a[k])
      g_string_append (r, r->len ? "/.." : "..");
  for (guint k = i; b[k]; k++)
    if (*b[k])
      g_string_append_printf (r, "%s%s", r->len ? "/" : "", b[k]);
  return g_string_free (r, FALSE);
}

/* The folder of a file, absolute and canonical. */
static char *
folder_of (const char *file)
{
  g_autofree char *dir = g_path_get_dirname (file);
  return g_canonicalize_filename (dir, NULL);
}

/* Writes the shrunk failure as a scenario file: the base's text with the
 * base overrides (sets) and the shrunk plan, an [expect] that pins the
 * violations counted on that plan's run, then runs the file on its own.
 * FALSE with error if it cannot be written; *reproduces: the file's run has
 * the same signature. */
gboolean
explore_write_found (const char *base, char **sets, GPtrArray *min, guint64 seed, const char *sig,
                     const ExploreFoundInfo *info, const char *fname, gboolean *reproduces, GError **error)
{
  g_autoptr (GHashTable) sc = g_hash_table_new (g_direct_hash, g_direct_equal);
  ExploreObs m;
  explore_obs_init (&m, sc, sc, sc);
  g_autofree char *msig = NULL;
  explore_run_plan (base, sets, min, seed, &m, &msig, NULL);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (all, *s);
  for (guint i = 0; i < min->len; i++)
    g_ptr_array_add (all, min->pdata[i]);
  /* written in another folder than the base's: its relative paths (traces,
   * data, a guest's command) are still the base folder's ([scenario] dir,
   * relative, so that the two folders can move together); a base with
   * absolute paths (an exported run's, in a temporary folder) gets none */
  g_autofree char *base_dir = folder_of (base), *found_dir = folder_of (fname);
  g_autofree char *rel = info->base_relative ? relative_dir (found_dir, base_dir) : g_strdup ("");
  g_autofree char *dir_line = *rel ? g_strdup_printf ("scenario.dir=%s", rel) : NULL;
  if (dir_line)
    g_ptr_array_insert (all, 0, dir_line);
  g_autofree char *text = explore_scenario_text (base, info, all, min->len, m.counts, sig, seed,
                                                 m.first_explanation ? m.first_explanation : "?");
  explore_obs_clear (&m);
  if (!g_file_set_contents (fname, text, -1, error))
    return FALSE;
  ExploreObs v;
  explore_obs_init (&v, sc, sc, sc);
  g_autofree char *vsig = NULL;
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  *reproduces = explore_run_plan (fname, NULL, none, seed, &v, &vsig, NULL) && g_strcmp0 (vsig, sig) == 0;
  explore_obs_clear (&v);
  return TRUE;
}
