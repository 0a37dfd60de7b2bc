/* explore-localize.c — when did the failure become likely?  (`dlsim
 * explore --localize FOUND.ini`, FoundationDB's bug-probability graph.)
 *
 * The found run is the file run with its own seed.  A cut at time t runs
 * it again with a `reseed SALT` timeline action at t: up to t it is the
 * found run, event for event; after t every random stream of the world
 * draws anew (sim/sim-churn.c, reseed_all).  Over many salts the share of
 * runs that fail with the found run's signature is the failure ratio at
 * t: near 0 while the failure still depends on luck, 1 once something
 * that happened before t made it certain.
 *
 * The cuts: a grid (0, a cut just after every (n/points)-th recorded
 * event of the found run, the first violation), then a bisection over
 * the found run's recorded events between the last uncertain grid cut
 * and the first certain one, each probe cut just after an event.  The
 * decisive instant is the last recorded event before the first cut after
 * which every cut's ratio is at least `certain`: its events are named.
 *
 * Deterministic: run k of the cut at t re-seeds with a salt drawn from
 * (t, k); the jobs change the wall time only.  It prints nothing; the
 * curve is stored through results/ (res-localize.c). */
#include "config.h"

#include "explore/explore.h"
#include "results/res-localize.h"
#include "runner/runner.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- the found run's events */

static char *
node_name (ProtoNodeId n)
{
  if (n == PROTO_NO_NODE)
    return g_strdup ("world");
  return n == PROTO_SERVER ? g_strdup ("server") : g_strdup_printf ("p%u", (guint) n);
}

static void
add_event (GArray *events, DlTime t, char *what)
{
  ExploreEvent e = { t, what };
  g_array_append_val (events, e);
}

static void
ev_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *obs)
{
  if (obs->kind == PROTO_OBS_METRIC || obs->kind == PROTO_OBS_TIMER_SET || obs->kind == PROTO_OBS_TIMER_CLEARED)
    return;   /* bookkeeping, not something that happened between the nodes */
  g_autofree char *who = node_name (node);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s %s", who, proto_obs_kind_name (obs->kind));
  if (obs->msg_type >= 0)
    g_string_append_printf (s, " %s", proto_msg_type_name ((ProtoMsgType) obs->msg_type));
  if (obs->other != PROTO_NO_NODE)
    {
      g_autofree char *other = node_name (obs->other);
      g_string_append_printf (s, " %s %s", obs->kind == PROTO_OBS_SENT ? "to" : "from", other);
    }
  if (obs->detail[0])
    g_string_append_printf (s, " (%s)", obs->detail);
  add_event (ud, t, g_string_free (s, FALSE));
}

static void
ev_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  g_autofree char *who = node_name (node);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s %s", who, kind);
  if (other != PROTO_NO_NODE)
    {
      g_autofree char *o = node_name (other);
      g_string_append_printf (s, " %s", o);
    }
  if (detail && *detail)
    g_string_append_printf (s, " (%s)", detail);
  add_event (ud, t, g_string_free (s, FALSE));
}

static void
event_clear (gpointer p)
{
  g_free (((ExploreEvent *) p)->what);
}

/* The found run's events (ExploreEvent, by time; transfer full), into db
 * as a run of its own if db is given (*run_id its id). */
static GArray *
found_events (const char *path, char **sets, guint64 seed, ResDb *db, gint64 *run_id, GError **error)
{
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  g_autoptr (SimScenario) s = explore_load (path, sets, none, error);
  if (!s)
    return NULL;
  GArray *events = g_array_new (FALSE, FALSE, sizeof (ExploreEvent));
  g_array_set_clear_func (events, event_clear);
  SimRecorder rec = { ev_observation, ev_fact, NULL, NULL, events, NULL };
  RunnerOptions ro = { .recorder = &rec };
  RunnerResult rr;
  gboolean ok = runner_run_point (s, s->points->pdata[0], seed, &ro, &rr, error);
  runner_result_clear (&rr);
  if (ok && db)
    {
      RunnerOptions rdb = { .db = db };
      ok = runner_run_point (s, s->points->pdata[0], seed, &rdb, &rr, error);
      *run_id = rr.run_id;
      runner_result_clear (&rr);
    }
  if (!ok)
    {
      g_array_unref (events);
      return NULL;
    }
  return events;
}

/* ---------------------------------------------------------------- a batch of cuts */

typedef struct {
  const ExploreLocalizeOptions *o;
  const char *want;
  guint64 seed;
  const DlTime *cuts;
  guint n_cuts;
  guint *failing;        /* [cut]: runs with the signature */
  gint next;             /* the next task, cut * runs + k (atomic) */
  GMutex lock;
} Batch;

/* The salt of run k at cut t: the same cut and run re-seed alike. */
static guint64
cut_salt (DlTime t, guint k)
{
  return dl_mix64 (dl_mix64 ((guint64) t ^ UINT64_C (0x9b05688c2b3e6c1f)) ^ (guint64) (k + 1));
}

static gpointer
batch_worker (gpointer data)
{
  Batch *b = data;
  guint total = b->n_cuts * b->o->runs;
  for (guint i; (i = (guint) g_atomic_int_add (&b->next, 1)) < total;)
    {
      guint c = i / b->o->runs, k = i % b->o->runs;
      g_autoptr (GPtrArray) plan = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (plan, g_strdup_printf ("timeline.%" G_GINT64_FORMAT "ns=reseed %" G_GUINT64_FORMAT,
                                              (gint64) b->cuts[c], cut_salt (b->cuts[c], k)));
      guint tries = 0;
      gboolean fails = explore_still_fails (b->o->path, b->o->sets, plan, b->seed, b->want, &tries);
      g_mutex_lock (&b->lock);
      b->failing[c] += fails;
      g_mutex_unlock (&b->lock);
    }
  return NULL;
}

/* Runs o->runs runs at each of the cuts and adds them to out->cuts. */
static void
run_cuts (const ExploreLocalizeOptions *o, ExploreLocalized *out, const DlTime *cuts, guint n)
{
  g_autofree guint *failing = g_new0 (guint, n);
  Batch b = { .o = o, .want = out->signature, .seed = out->seed, .cuts = cuts, .n_cuts = n,
              .failing = failing };
  g_mutex_init (&b.lock);
  guint jobs = MAX (o->jobs, 1);
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  for (guint j = 1; j < jobs; j++)
    g_ptr_array_add (threads, g_thread_new ("localize", batch_worker, &b));
  batch_worker (&b);
  for (guint j = 0; j < threads->len; j++)
    g_thread_join (threads->pdata[j]);
  g_mutex_clear (&b.lock);
  for (guint c = 0; c < n; c++)
    {
      ExploreCut cut = { cuts[c], o->runs, failing[c] };
      guint at = 0;
      while (at < out->cuts->len && g_array_index (out->cuts, ExploreCut, at).t < cut.t)
        at++;
      if (at < out->cuts->len && g_array_index (out->cuts, ExploreCut, at).t == cut.t)
        continue;   /* a probe on a grid point: measured already */
      g_array_insert_val (out->cuts, at, cut);
    }
}

static gboolean
certain_at (const ExploreLocalizeOptions *o, const ExploreCut *c)
{
  return c->failing >= o->certain * c->runs;
}

/* The first cut after which every cut is certain (cuts->len: none). */
static guint
first_certain (const ExploreLocalizeOptions *o, GArray *cuts)
{
  guint b = cuts->len;
  while (b > 0 && certain_at (o, &g_array_index (cuts, ExploreCut, b - 1)))
    b--;
  return b;
}

/* The grid: 0, the cut just after every (len/points)-th event of the found
 * run, and the failure: its points are where the run's events are, not
 * spread over a stall window in which nothing happens. */
static GArray *
grid_cuts (GArray *events, guint points, DlTime failed_at)
{
  GArray *g = g_array_new (FALSE, FALSE, sizeof (DlTime));
  DlTime zero = 0;
  g_array_append_val (g, zero);
  for (guint k = 1; k < points && events->len; k++)
    {
      DlTime t = g_array_index (events, ExploreEvent, (gsize) events->len * k / points).t + 1;
      if (t > g_array_index (g, DlTime, g->len - 1) && t < failed_at)
        g_array_append_val (g, t);
    }
  if (failed_at > g_array_index (g, DlTime, g->len - 1))
    g_array_append_val (g, failed_at);
  return g;
}

/* ---------------------------------------------------------------- the decisive event */

/* The distinct event times in [from, to), each cut just after them. */
static GArray *
probe_times (GArray *events, DlTime from, DlTime to)
{
  GArray *ts = g_array_new (FALSE, FALSE, sizeof (DlTime));
  for (guint i = 0; i < events->len; i++)
    {
      DlTime t = g_array_index (events, ExploreEvent, i).t + 1;
      if (t > from && t < to && (ts->len == 0 || g_array_index (ts, DlTime, ts->len - 1) != t))
        g_array_append_val (ts, t);
    }
  return ts;
}

/* Bisects the events between the last uncertain grid cut and the first
 * certain one: the earliest cut just after an event that is certain. */
static void
refine (const ExploreLocalizeOptions *o, ExploreLocalized *out)
{
  guint b = first_certain (o, out->cuts);
  if (b == 0 || b == out->cuts->len)
    return;
  g_autoptr (GArray) ts = probe_times (out->events, g_array_index (out->cuts, ExploreCut, b - 1).t,
                                      g_array_index (out->cuts, ExploreCut, b).t);
  gint lo = -1, hi = (gint) ts->len;   /* lo: uncertain, hi: certain */
  while (hi - lo > 1)
    {
      gint mid = (lo + hi) / 2;
      DlTime t = g_array_index (ts, DlTime, mid);
      run_cuts (o, out, &t, 1);
      guint at = 0;
      while (g_array_index (out->cuts, ExploreCut, at).t != t)
        at++;
      if (certain_at (o, &g_array_index (out->cuts, ExploreCut, at)))
        hi = mid;
      else
        lo = mid;
    }
}

/* Names the events at the last event time before the first certain cut. */
static void
name_decisive (const ExploreLocalizeOptions *o, ExploreLocalized *out)
{
  guint b = first_certain (o, out->cuts);
  out->decisive = b < out->cuts->len ? (gint) b : -1;
  if (out->decisive < 0)
    return;
  DlTime cut = g_array_index (out->cuts, ExploreCut, b).t;
  out->decisive_t = DL_TIME_NEVER;
  for (guint i = 0; i < out->events->len; i++)
    {
      const ExploreEvent *e = &g_array_index (out->events, ExploreEvent, i);
      if (e->t < cut)
        out->decisive_t = e->t;
    }
  for (guint i = 0; out->decisive_t != DL_TIME_NEVER && i < out->events->len; i++)
    {
      const ExploreEvent *e = &g_array_index (out->events, ExploreEvent, i);
      if (e->t == out->decisive_t)
        g_ptr_array_add (out->decisive_events, g_strdup (e->what));
    }
}

/* ---------------------------------------------------------------- the whole */

/* The found run: its signature, first violation, seed; FALSE if it
 * breaks nothing. */
static gboolean
found_run (const ExploreLocalizeOptions *o, ExploreLocalized *out, GError **error)
{
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  g_autoptr (SimScenario) s = explore_load (o->path, o->sets, none, error);
  if (!s)
    return FALSE;
  out->seed = s->seed;
  g_autoptr (GHashTable) scratch = g_hash_table_new (g_direct_hash, g_direct_equal);
  ExploreObs obs;
  explore_obs_init (&obs, scratch, scratch, scratch);
  gboolean ok = explore_run_plan (o->path, o->sets, none, out->seed, &obs, &out->signature, error);
  out->failed_at = obs.first_t;
  explore_obs_clear (&obs);
  if (ok && !out->signature)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                   "%s: its run (seed %" G_GUINT64_FORMAT ") breaks no property: nothing to localize", o->path,
                   out->seed);
      return FALSE;
    }
  return ok;
}

gboolean
explore_localize (const ExploreLocalizeOptions *o, ExploreLocalized *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->cuts = g_array_new (FALSE, FALSE, sizeof (ExploreCut));
  out->decisive_events = g_ptr_array_new_with_free_func (g_free);
  out->decisive = -1;
  if (!found_run (o, out, error))
    return FALSE;
  out->events = found_events (o->path, o->sets, out->seed, o->db, &out->run_id, error);
  if (!out->events)
    return FALSE;
  g_autoptr (GArray) grid = grid_cuts (out->events, MAX (o->points, 1), out->failed_at);
  run_cuts (o, out, (const DlTime *) grid->data, grid->len);
  refine (o, out);
  name_decisive (o, out);
  if (!o->db)
    return TRUE;
  g_autoptr (GString) named = g_string_new (NULL);
  for (guint i = 0; i < out->decisive_events->len; i++)
    g_string_append_printf (named, "%s%s", i ? "; " : "", (char *) out->decisive_events->pdata[i]);
  g_autofree ResLocalizePoint *pts = g_new (ResLocalizePoint, MAX (out->cuts->len, 1));
  for (guint i = 0; i < out->cuts->len; i++)
    {
      const ExploreCut *c = &g_array_index (out->cuts, ExploreCut, i);
      pts[i] = (ResLocalizePoint) { dl_time_to_s (c->t), c->runs, c->failing };
    }
  double decisive_s = out->decisive >= 0 && out->decisive_t != DL_TIME_NEVER ? dl_time_to_s (out->decisive_t)
                                                                              : NAN;
  return res_localize_write (o->db, out->run_id, pts, out->cuts->len, o->certain, decisive_s,
                             out->decisive >= 0 ? named->str : NULL, error);
}

void
explore_localized_clear (ExploreLocalized *l)
{
  g_free (l->signature);
  g_clear_pointer (&l->cuts, g_array_unref);
  g_clear_pointer (&l->events, g_array_unref);
  g_clear_pointer (&l->decisive_events, g_ptr_array_unref);
}
