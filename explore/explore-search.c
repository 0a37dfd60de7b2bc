/* explore-search.c — the search of `dlsim explore` and the shrinking of a
 * recorded run for `dlsim shrink` (explore/explore.h): the fault space a
 * scenario gives, batches of runs made by worker threads and taken in run
 * order, failures grouped by signature, what the batch never reached, the
 * failing runs recorded again into a database, and each failure shrunk.
 * It calls explore-plan.c and explore-shrink.c, which never call it; it
 * prints nothing (cli/cmd-explore.c and cli/cmd-shrink.c print). */
#include "config.h"

#include <pthread.h>

#include "explore/explore.h"
#include "protocol/proto-machine.h"
#include "runner/runner.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the space */

gboolean
explore_space_load (ExploreSpace *sp, const char *path, char **sets, guint64 *seed, GError **error)
{
  g_autoptr (SimScenario) s = sim_scenario_load (path, (const char *const *) sets, error);
  if (!s)
    return FALSE;
  SimBuilt b;
  if (!sim_scenario_build (s, s->points->pdata[0], s->seed, &b, error))
    return FALSE;
  sp->n_peers = MAX (b.cfg.n_peers, 2);
  sp->rounds = b.cfg.proto.rounds;
  sp->family = proto_family_of (&b.cfg.proto);
  sp->msgs = proto_msg_family_named (sp->family->name);
  sim_built_clear (&b);
  *seed = s->seed;
  return TRUE;
}

/* ---------------------------------------------------------------- runs */

/* One run of the search, made by a worker: its plan, its failure signature
 * and what it reached, in tables of its own (merged in run order after). */
typedef struct {
  guint index;
  GPtrArray *plan;
  gboolean ok;
  char *sig, *property, *explanation;
  GHashTable *states, *dropped, *rules;
  GHashTable *features;   /* --guided, or NULL */
} Job;

static void
job_run (Job *j, const ExploreSearchOptions *o)
{
  g_autoptr (GString) kinds = g_string_new (NULL);
  if (!j->plan)
    j->plan = explore_plan_make (o->sp, o->base + j->index, 0, kinds);
  ExploreObs obs;
  explore_obs_init (&obs, j->states, j->dropped, j->rules);
  if (j->features)
    {
      obs.features = j->features;
      obs.last_state = g_hash_table_new (g_direct_hash, g_direct_equal);
    }
  j->ok = explore_run_plan (o->path, o->sets, j->plan, o->base + j->index, &obs, &j->sig, NULL);
  j->property = g_strdup (obs.first_property);
  j->explanation = g_strdup (obs.first_explanation);
  explore_obs_clear (&obs);
}

/* One worker thread: jobs first, first + stride, ... of the batch.  Plain
 * pthreads (joined before the batch is read), which ThreadSanitizer follows;
 * GLib's thread pool synchronises with futexes it cannot see. */
typedef struct {
  Job *jobs;
  guint n, first, stride;
  const ExploreSearchOptions *o;
} Worker;

static void *
worker_main (void *data)
{
  Worker *w = data;
  for (guint k = w->first; k < w->n; k += w->stride)
    job_run (&w->jobs[k], w->o);
  return NULL;
}

static void
job_clear (Job *j)
{
  g_clear_pointer (&j->plan, g_ptr_array_unref);
  g_free (j->sig);
  g_free (j->property);
  g_free (j->explanation);
  g_hash_table_unref (j->states);
  g_hash_table_unref (j->dropped);
  g_hash_table_unref (j->rules);
  g_clear_pointer (&j->features, g_hash_table_unref);
}

static void
merge_set (GHashTable *into, GHashTable *from)
{
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, from);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_hash_table_add (into, k);
}

static void
failure_free (gpointer data)
{
  ExploreFailure *f = data;
  g_free (f->signature);
  g_free (f->property);
  g_free (f->explanation);
  g_array_unref (f->seeds);
  g_ptr_array_unref (f->plan);
  g_ptr_array_unref (f->plans);
  g_free (f);
}

/* --guided: a run that reached a feature (or a signature) no earlier run
 * had gives its plan to the corpus */
static void
guide_take (ExploreSearch *s, Job *j)
{
  gboolean novel = FALSE;
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, j->features);
  while (g_hash_table_iter_next (&it, &k, NULL))
    novel |= g_hash_table_add (s->features, k);
  if (j->sig)
    {
      g_autofree char *f = g_strconcat ("sig:", j->sig, NULL);
      novel |= g_hash_table_add (s->features, (gpointer) g_intern_string (f));
    }
  if (novel)
    g_ptr_array_add (s->corpus, g_ptr_array_ref (j->plan));
}

/* --guided: the odds that a run mutates a plan of the corpus.  On the
 * findability table (docs/found.md) 1/4 did better than 1/2: fresh
 * draws still find the common failures as soon as without --guided. */
#define GUIDE_MUTATE_ODDS 0.25

/* --guided: run index's plan, made before its batch runs (from the corpus
 * as it stood then): with GUIDE_MUTATE_ODDS, and a corpus, a mutation of
 * one of its plans; otherwise the plan of the run's seed, as without
 * --guided.  Every draw comes from the run's own seed (base + index), so
 * a fresh run is reproduced by --seed SEED --runs 1; a mutation also
 * depends on the corpus, and is reproduced from its --found/-o plan. */
static GPtrArray *
guide_plan (const ExploreSearch *s, const ExploreSearchOptions *o, guint index)
{
  guint64 seed = o->base + index;
  g_autoptr (DlRandom) r = dl_random_new (seed, "explore-guide", 0);
  if (s->corpus->len > 0 && dl_random_bernoulli (r, GUIDE_MUTATE_ODDS))
    {
      GPtrArray *parent = s->corpus->pdata[dl_random_below (r, s->corpus->len)];
      return explore_plan_mutate (o->sp, seed, 0, parent, r);
    }
  g_autoptr (GString) kinds = g_string_new (NULL);
  return explore_plan_make (o->sp, seed, 0, kinds);
}

/* takes job j's result into s, in run order */
static void
search_take (ExploreSearch *s, const ExploreSearchOptions *o, Job *j)
{
  s->done++;
  merge_set (s->states, j->states);
  merge_set (s->dropped, j->dropped);
  merge_set (s->rules, j->rules);
  if (!j->ok)
    {
      s->invalid++;   /* a plan the scenario refuses (e.g. a peer beyond max_peers) */
      return;
    }
  if (o->guided)
    guide_take (s, j);
  if (!j->sig)
    return;
  s->failing++;
  ExploreFailure *f = g_hash_table_lookup (s->by_sig, j->sig);
  if (!f)
    {
      f = g_new0 (ExploreFailure, 1);
      f->signature = g_strdup (j->sig);
      f->property = g_strdup (j->property);
      f->explanation = g_strdup (j->explanation);
      f->seeds = g_array_new (FALSE, FALSE, sizeof (guint64));
      f->plan = g_ptr_array_ref (j->plan);
      f->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      g_ptr_array_add (s->failures, f);
      g_hash_table_insert (s->by_sig, f->signature, f);
    }
  guint64 sd = o->base + j->index;
  g_array_append_val (f->seeds, sd);
  if (o->keep_plans)
    g_ptr_array_add (f->plans, g_ptr_array_ref (j->plan));
}

/* makes the n runs of a batch, with up to jobs threads */
static void
batch_run (Job *js, guint n, guint jobs, const ExploreSearchOptions *o)
{
  if (jobs == 1 || n == 1)
    {
      for (guint k = 0; k < n; k++)
        job_run (&js[k], o);
      return;
    }
  guint nt = MIN (jobs, n);
  g_autofree pthread_t *tids = g_new (pthread_t, nt);
  g_autofree Worker *ws = g_new (Worker, nt);
  for (guint t = 0; t < nt; t++)
    {
      ws[t] = (Worker) { js, n, t, nt, o };
      if (pthread_create (&tids[t], NULL, worker_main, &ws[t]) != 0)
        g_error ("explore: cannot start a worker thread");
    }
  for (guint t = 0; t < nt; t++)
    pthread_join (tids[t], NULL);
}

/* the batches of --guided: a fixed size, whatever jobs is, so that its
 * plans (made from the corpus as each batch begins) do not depend on it */
#define GUIDED_BATCH 32

ExploreSearch *
explore_search_run (const ExploreSearchOptions *o)
{
  ExploreSearch *s = g_new0 (ExploreSearch, 1);
  s->failures = g_ptr_array_new_with_free_func (failure_free);
  s->by_sig = g_hash_table_new (g_str_hash, g_str_equal);
  s->states = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->rules = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->features = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->corpus = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  gint64 t0 = g_get_monotonic_time ();
  guint jobs = MAX (o->jobs, 1);
  /* batches of runs, each made by up to `jobs` threads and then taken in run
   * order, so that jobs changes nothing but the wall time; the time budget is
   * checked between batches (with one job, between runs) */
  guint batch = o->guided ? GUIDED_BATCH : jobs == 1 ? 1 : 16 * jobs;
  for (guint i0 = 0; i0 < o->runs; i0 += batch)
    {
      if (o->budget > 0 && (g_get_monotonic_time () - t0) * 1000 >= o->budget)
        break;   /* the wall clock decides here, and only here */
      guint n = MIN (batch, o->runs - i0);
      g_autofree Job *js = g_new0 (Job, n);
      for (guint k = 0; k < n; k++)
        {
          js[k].index = i0 + k;
          js[k].states = g_hash_table_new (g_direct_hash, g_direct_equal);
          js[k].dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
          js[k].rules = g_hash_table_new (g_direct_hash, g_direct_equal);
          if (o->guided)
            {
              js[k].features = g_hash_table_new (g_direct_hash, g_direct_equal);
              js[k].plan = guide_plan (s, o, i0 + k);
            }
        }
      batch_run (js, n, jobs, o);
      for (guint k = 0; k < n; k++)
        {
          search_take (s, o, &js[k]);
          job_clear (&js[k]);
          if (o->progress)
            o->progress (s, i0 + k, o->progress_data);
        }
    }
  return s;
}

void
explore_search_free (ExploreSearch *s)
{
  if (!s)
    return;
  g_ptr_array_unref (s->failures);
  g_hash_table_unref (s->by_sig);
  g_hash_table_unref (s->states);
  g_hash_table_unref (s->dropped);
  g_hash_table_unref (s->rules);
  g_hash_table_unref (s->features);
  g_ptr_array_unref (s->corpus);
  g_free (s);
}

/* ---------------------------------------------------------------- coverage */

static void
append (GString *s, const char *word)
{
  g_string_append_printf (s, "%s%s", s->len ? ", " : "", word);
}

static char *
or_dash (GString *s)
{
  if (s->len == 0)
    g_string_append (s, "-");
  return g_string_free (s, FALSE);
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The peer states: those of the family's list never reached; a family
 * whose peers name their states as they run (a guest) has no list, and
 * the states reached are named instead, sorted. */
static void
cover_states (const ExploreSearch *s, const ProtoFamily *family, ExploreCoverage *c)
{
  GString *never = g_string_new (NULL);
  c->n_states = family->n_peer_states;
  c->states_reached = 0;
  for (guint st = 0; st < family->n_peer_states; st++)
    {
      if (g_hash_table_contains (s->states, g_intern_string (family->peer_state_names[st])))
        c->states_reached++;
      else
        append (never, family->peer_state_names[st]);
    }
  c->states_never = or_dash (never);
  GString *seen = g_string_new (NULL);
  if (family->n_peer_states == 0)
    {
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (s->states, &c->states_reached);
      qsort (keys, c->states_reached, sizeof *keys, cmp_str);
      for (guint i = 0; i < c->states_reached; i++)
        append (seen, keys[i]);
    }
  c->states_seen = or_dash (seen);
}

static gboolean
declares (const ProtoMsgFamily *f, ProtoMsgType t)
{
  for (guint i = 0; f && i < f->n_types; i++)
    if (f->types[i].type == t)
      return TRUE;
  return FALSE;
}

/* The running family's own types: its table's, in its order; or, where it
 * counts the session layer's as its own (session_types), both by type
 * byte. */
static void
own_types (const ProtoMsgFamily *f, GPtrArray *names, GHashTable *seen)
{
  if (!f->session_types)
    {
      for (guint i = 0; i < f->n_types; i++)
        if (g_hash_table_add (seen, (gpointer) f->types[i].name))
          g_ptr_array_add (names, (gpointer) f->types[i].name);
      return;
    }
  const ProtoMsgFamily *session = proto_msg_family_named ("session");
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    if ((declares (f, t) || declares (session, t)) && g_hash_table_add (seen, (gpointer) proto_msg_type_name (t)))
      g_ptr_array_add (names, (gpointer) proto_msg_type_name (t));
}

/* The running family's message types (the registry's table for it: its
 * own types, then the types of its fault targets it does not declare, as
 * gossip speaks the session layer's), each once; NULL table: none. */
static GPtrArray *
family_types (const ExploreSpace *sp)
{
  GPtrArray *names = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  if (!sp->msgs)
    return names;
  own_types (sp->msgs, names, seen);
  for (guint i = 0; i < proto_msg_family_n_fault_targets (sp->msgs); i++)
    {
      const char *type, *dir;
      proto_msg_family_fault_target (sp->msgs, i, &type, &dir);
      if (g_hash_table_add (seen, (gpointer) type))
        g_ptr_array_add (names, (gpointer) type);
    }
  return names;
}

/* Did a drop rule on target fire?  The world names a drop by the type,
 * and by TYPE:KIND where the type has kinds (a guest's Guest:Token), which
 * a rule on the bare type also catches. */
static gboolean
rule_fired (GHashTable *rules, const char *target)
{
  if (g_hash_table_contains (rules, g_intern_string (target)))
    return TRUE;
  if (strchr (target, ':'))
    return FALSE;
  gsize n = strlen (target);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, rules);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (strncmp (key, target, n) == 0 && ((const char *) key)[n] == ':')
      return TRUE;
  return FALSE;
}

void
explore_coverage (const ExploreSearch *s, const ExploreSpace *sp, ExploreCoverage *c)
{
  cover_states (s, sp->family, c);
  GString *nd = g_string_new (NULL), *nr = g_string_new (NULL);
  /* the running family's types only: another family's never reach its peers */
  g_autoptr (GPtrArray) types = family_types (sp);
  for (guint i = 0; i < types->len; i++)
    if (!g_hash_table_contains (s->dropped, types->pdata[i]))
      append (nd, types->pdata[i]);
  /* each target type once, though it is a target both ways */
  g_autoptr (GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint m = 0; m < explore_n_msgs (sp); m++)
    {
      const char *type, *dir;
      explore_msg_at (sp, m, &type, &dir);
      if (!rule_fired (s->rules, type) && g_hash_table_add (listed, (gpointer) type))
        append (nr, type);
    }
  c->dropped_never = or_dash (nd);
  c->rules_never = or_dash (nr);
}

void
explore_coverage_clear (ExploreCoverage *c)
{
  g_free (c->states_never);
  g_free (c->states_seen);
  g_free (c->dropped_never);
  g_free (c->rules_never);
}

/* ---------------------------------------------------------------- -o DB */

gboolean
explore_record_failures (const ExploreSearch *s, const char *path, char **sets, ResDb *db, guint *recorded,
                         GError **error)
{
  *recorded = 0;
  for (guint i = 0; i < s->failures->len; i++)
    {
      const ExploreFailure *f = s->failures->pdata[i];
      for (guint k = 0; k < f->plans->len; k++)
        {
          /* the run again (runs are deterministic: the same run), with its
           * events; the plan is in its params as timeline.* and the
           * overridden keys, the violations in its violations rows */
          g_autoptr (SimScenario) sc = explore_load (path, sets, f->plans->pdata[k], error);
          if (!sc)
            return FALSE;
          RunnerOptions ro = { .db = db };
          RunnerResult rr;
          gboolean ok = runner_run_point (sc, sc->points->pdata[0], g_array_index (f->seeds, guint64, k), &ro, &rr,
                                          error);
          runner_result_clear (&rr);
          if (!ok)
            return FALSE;
          (*recorded)++;
        }
    }
  return TRUE;
}

/* ---------------------------------------------------------------- shrinking */

GPtrArray *
explore_shrink_failure (const ExploreFailure *f, const char *path, char **sets, const ExploreSpace *sp, guint *tries)
{
  guint64 sd = g_array_index (f->seeds, guint64, 0);
  GPtrArray *min = explore_ddmin_plan (path, sets, f->plan, sd, f->signature, tries);
  explore_shrink_size (path, sets, min, sd, f->signature, sp->n_peers, sp->rounds, tries);
  explore_shrink_values (path, sets, min, sd, f->signature, tries);
  return min;
}

/* path's file name without its extension */
static char *
stem_of (const char *path)
{
  char *stem = g_path_get_basename (path);
  char *dot = strrchr (stem, '.');
  if (dot)
    *dot = '\0';
  return stem;
}

char *
explore_found_name (const char *path, const char *signature)
{
  GString *s = g_string_new (NULL);
  g_autofree char *stem = stem_of (path);
  g_string_append_printf (s, "%s-", stem);
  gsize start = s->len;
  for (const char *c = signature; *c; c++)
    if (g_ascii_isalnum (*c))
      g_string_append_c (s, *c);
    else if (s->len > start && s->str[s->len - 1] != '-')
      g_string_append_c (s, '-');
  while (s->len > start && s->str[s->len - 1] == '-')
    g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}

gboolean
explore_shrink_recorded (const char *base, GPtrArray *timeline, const char *origin, const char *out,
                         ExploreShrunk *r, GError **error)
{
  memset (r, 0, sizeof *r);
  r->from = timeline->len;
  g_autoptr (SimScenario) s = sim_scenario_load (base, NULL, error);
  if (!s)
    {
      g_prefix_error (error, "the run's scenario: ");
      return FALSE;
    }
  guint64 seed = s->seed;
  g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
  ExploreObs o;
  explore_obs_init (&o, scratch, scratch, scratch);
  gboolean ok = explore_run_plan (base, NULL, timeline, seed, &o, &r->signature, error);
  explore_obs_clear (&o);
  if (!ok || !r->signature)
    return ok;
  g_autoptr (GPtrArray) min = explore_ddmin_plan (base, NULL, timeline, seed, r->signature, &r->tries);
  explore_shrink_values (base, NULL, min, seed, r->signature, &r->tries);
  r->to = min->len;
  g_autofree char *stem = stem_of (out);
  ExploreFoundInfo info = { .origin = origin, .name = stem, .found_in = 1, .shrunk_from = timeline->len,
                            .then = EXPLORE_SHRINK_RECORDED_THEN, .base_relative = FALSE };
  return explore_write_found (base, NULL, min, seed, r->signature, &info, out, &r->reproduces, error);
}

void
explore_shrunk_clear (ExploreShrunk *r)
{
  g_clear_pointer (&r->signature, g_free);
}
