/* test-sim.c — sim/: the event engine's ordering, cancel and time
 * properties, the PHOLD model agreeing with its reference loop, and the
 * flows' max-min sharing (sim-flows.c) against hand-worked cases and a
 * naive re-solve of everything at every event. */
#include "config.h"

#include "sim/sim-engine.h"
#include "sim/sim-flows.h"
#include "base/dl-random.h"
#include "bench/phold.h"
#include "tests/slow-start-bound.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  DlTime time;
  uint64_t order;  /* index in scheduling order */
} Ran;

typedef struct {
  GArray *ran;      /* of Ran */
  uint64_t count;
} Log;

static void
log_event (SimEngine *e, void *ctx, uint64_t arg)
{
  Log *log = ctx;
  Ran r = { sim_engine_now (e), arg };
  g_array_append_val (log->ran, r);
  log->count++;
}

START_TEST (test_ties_in_scheduling_order)
{
  /* Shuffled times with many ties: events come out in (time, seq) order, all
   * of them, exactly once. */
  const int n = 20000;
  g_autoptr (SimEngine) e = sim_engine_new ();
  g_autoptr (DlRandom) r = dl_random_new ((uint64_t) _i, "shuffle", 0);
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  GArray *times = g_array_new (FALSE, FALSE, sizeof (DlTime));
  for (int i = 0; i < n; i++)
    {
      DlTime t = (DlTime) dl_random_below (r, 50) * DL_MS;  /* ~400 events per instant */
      g_array_append_val (times, t);
      ck_assert_uint_ne (sim_engine_schedule_at (e, t, log_event, &log, (uint64_t) i), SIM_EVENT_NONE);
    }
  ck_assert_uint_eq (sim_engine_pending (e), n);
  ck_assert_int_eq (sim_engine_run_until (e, DL_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (log.count, n);
  ck_assert_uint_eq (sim_engine_events_run (e), n);
  gboolean *seen = g_new0 (gboolean, n);
  for (int i = 0; i < n; i++)
    {
      Ran *cur = &g_array_index (log.ran, Ran, i);
      ck_assert_int_eq (cur->time, g_array_index (times, DlTime, cur->order));
      ck_assert (!seen[cur->order]);
      seen[cur->order] = TRUE;
      if (i > 0)
        {
          Ran *prev = &g_array_index (log.ran, Ran, i - 1);
          ck_assert (prev->time < cur->time || (prev->time == cur->time && prev->order < cur->order));
        }
    }
  g_free (seen);
  g_array_unref (times);
  g_array_unref (log.ran);
}
END_TEST

typedef struct {
  Log *log;
  uint64_t next_order;
} Chain;

static void
schedule_zero_delay (SimEngine *e, void *ctx, uint64_t arg)
{
  Chain *c = ctx;
  log_event (e, c->log, arg);
  if (arg == 0)
    sim_engine_schedule_in (e, 0, log_event, c->log, 100);
}

/* an event that reschedules itself at the same instant forever: the poll,
 * asked every 1000 events, stops the run though time never moves */
static void
ev_spin (SimEngine *e, void *ctx, uint64_t arg)
{
  (*(guint64 *) ctx)++;
  sim_engine_schedule_in (e, 0, ev_spin, ctx, arg);
}

static gboolean
poll_after (void *ctx)
{
  guint *polls = ctx;
  return ++*polls == 5;
}

START_TEST (test_poll_stops_a_spin)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  guint64 ran = 0;
  guint polls = 0;
  sim_engine_schedule_in (e, 0, ev_spin, &ran, 0);
  sim_engine_set_poll (e, 1000, poll_after, &polls);
  ck_assert_int_eq (sim_engine_run_until (e, DL_TIME_NEVER), SIM_RUN_STOPPED);
  ck_assert_uint_eq (polls, 5);
  ck_assert_uint_eq (ran, 5000);
  ck_assert_int_eq (sim_engine_now (e), 0);
  /* without a poll, only a handler's stop ends it; the poll can be taken away */
  sim_engine_set_poll (e, 0, NULL, NULL);
  ck_assert (sim_engine_step (e));
}
END_TEST

/* stops the engine, then asks whether it is stopping */
static void
ev_stop_and_ask (SimEngine *e, void *ctx, uint64_t arg)
{
  gboolean *seen = ctx;
  seen[0] = sim_engine_stopping (e);
  sim_engine_stop (e);
  seen[1] = sim_engine_stopping (e);
  (void) arg;
}

/* is_last: pending and nothing scheduled after it; stopping: this
 * event's own stop only */
START_TEST (test_is_last_and_stopping)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  ck_assert (!sim_engine_is_last (e, SIM_EVENT_NONE));
  SimEventId a = sim_engine_schedule_at (e, DL_S, log_event, &log, 1);
  ck_assert (sim_engine_is_last (e, a));
  SimEventId b = sim_engine_schedule_at (e, DL_S, log_event, &log, 2);
  ck_assert (!sim_engine_is_last (e, a));
  ck_assert (sim_engine_is_last (e, b));
  ck_assert (sim_engine_cancel (e, b));
  ck_assert (!sim_engine_is_last (e, b));
  ck_assert (!sim_engine_is_last (e, a));
  SimEventId c = sim_engine_schedule_at (e, 2 * DL_S, log_event, &log, 3);
  ck_assert (sim_engine_step (e));   /* a ran */
  ck_assert (sim_engine_is_last (e, c));
  ck_assert (sim_engine_step (e));   /* c ran: no longer pending */
  ck_assert (!sim_engine_is_last (e, c));
  ck_assert_uint_eq (log.ran->len, 2);
  gboolean seen[2] = { TRUE, FALSE };
  sim_engine_schedule_in (e, 0, ev_stop_and_ask, seen, 0);
  sim_engine_schedule_in (e, 0, ev_stop_and_ask, seen, 0);
  ck_assert (sim_engine_step (e));
  ck_assert (!seen[0] && seen[1]);
  seen[0] = TRUE;
  ck_assert (sim_engine_step (e));   /* the stop of the step before is not this one's */
  ck_assert (!seen[0] && seen[1]);
  g_array_free (log.ran, TRUE);
}
END_TEST

START_TEST (test_zero_delay_runs_after_existing_ties)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  Chain c = { &log, 0 };
  sim_engine_schedule_at (e, DL_S, schedule_zero_delay, &c, 0);
  sim_engine_schedule_at (e, DL_S, log_event, &log, 1);
  sim_engine_schedule_at (e, DL_S, log_event, &log, 2);
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_uint_eq (log.count, 4);
  uint64_t expect[] = { 0, 1, 2, 100 };
  for (int i = 0; i < 4; i++)
    {
      ck_assert_uint_eq (g_array_index (log.ran, Ran, i).order, expect[i]);
      ck_assert_int_eq (g_array_index (log.ran, Ran, i).time, DL_S);
    }
  g_array_unref (log.ran);
}
END_TEST

static void
noop_event (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e, (void) ctx, (void) arg;
}

/* The process's resident bytes (/proc/self/statm): the engine's large
 * buckets are mappings of their own, which malloc's counters do not see. */
static size_t
resident_bytes (void)
{
  g_autofree char *statm = NULL;
  if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    return 0;
  unsigned long size = 0, resident = 0;
  if (sscanf (statm, "%lu %lu", &size, &resident) != 2)
    return 0;
  return (size_t) resident * (size_t) sysconf (_SC_PAGESIZE);
}

START_TEST (test_buckets_shrink_after_burst)
{
  /* issue 44: a burst of 400 000 pending events, run to the end, leaves
   * the engine holding its records (a free list: 8 MiB) and little else
   * resident; the radix heap's buckets used to keep the largest size each
   * had */
  g_autoptr (SimEngine) e = sim_engine_new ();
  size_t before = resident_bytes ();
  guint64 x = 12345;
  for (guint i = 0; i < 400000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      sim_engine_schedule_at (e, (DlTime) ((x >> 20) % (100 * DL_S)), noop_event, NULL, i);
    }
  ck_assert_int_eq (sim_engine_run_until (e, DL_TIME_NEVER), SIM_RUN_EMPTY);
  size_t records = (size_t) 524288 * 16;   /* 1 024 doubled to hold 400 000 */
  size_t left = resident_bytes () - before;
#ifdef __SANITIZE_ADDRESS__
  left = 0;   /* ASan keeps freed blocks resident (its quarantine): no bound to check */
#endif
  ck_assert_msg (left <= records + 2 * 1024 * 1024, "%zu bytes left after the burst (records %zu)", left, records);
}
END_TEST

START_TEST (test_cancel)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  SimEventId ids[300];
  for (int i = 0; i < 300; i++)
    ids[i] = sim_engine_schedule_at (e, (DlTime) ((i * 7919) % 300) * DL_MS, log_event, &log, (uint64_t) i);
  int cancelled = 0;
  for (int i = 0; i < 300; i += 3)
    {
      ck_assert (sim_engine_cancel (e, ids[i]));
      ck_assert (!sim_engine_cancel (e, ids[i]));   /* twice: refused */
      ck_assert (!sim_engine_is_pending (e, ids[i]));
      cancelled++;
    }
  ck_assert_uint_eq (sim_engine_pending (e), 300 - cancelled);
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_uint_eq (log.count, 300 - cancelled);
  for (guint i = 0; i < log.ran->len; i++)
    ck_assert_uint_ne (g_array_index (log.ran, Ran, i).order % 3, 0);
  /* after it ran, an id cannot cancel */
  ck_assert (!sim_engine_cancel (e, ids[1]));
  ck_assert (!sim_engine_cancel (e, SIM_EVENT_NONE));
  g_array_unref (log.ran);
}
END_TEST

START_TEST (test_cancel_next_event)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  SimEventId first = sim_engine_schedule_at (e, 1 * DL_S, log_event, &log, 1);
  sim_engine_schedule_at (e, 2 * DL_S, log_event, &log, 2);
  sim_engine_schedule_at (e, 3 * DL_S, log_event, &log, 3);
  ck_assert_int_eq (sim_engine_next_time (e), DL_S);
  ck_assert_int_eq (sim_engine_event_time (e, first), DL_S);
  ck_assert (sim_engine_cancel (e, first));
  ck_assert_int_eq (sim_engine_next_time (e), 2 * DL_S);
  ck_assert_int_eq (sim_engine_event_time (e, first), DL_TIME_NEVER);
  ck_assert (sim_engine_step (e));
  ck_assert_uint_eq (g_array_index (log.ran, Ran, 0).order, 2);
  ck_assert_int_eq (sim_engine_now (e), 2 * DL_S);
  g_array_unref (log.ran);
}
END_TEST

typedef struct {
  SimEventId victim;
  gboolean cancelled;
  Log *log;
} Canceller;

static void
cancel_other (SimEngine *e, void *ctx, uint64_t arg)
{
  Canceller *c = ctx;
  c->cancelled = sim_engine_cancel (e, c->victim);
  log_event (e, c->log, arg);
}

START_TEST (test_cancel_from_handler_same_instant)
{
  /* A handler cancels the event that would run next, at the same time. */
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  Canceller c = { .log = &log };
  sim_engine_schedule_at (e, DL_S, cancel_other, &c, 0);
  c.victim = sim_engine_schedule_at (e, DL_S, log_event, &log, 1);
  sim_engine_schedule_at (e, DL_S, log_event, &log, 2);
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert (c.cancelled);
  ck_assert_uint_eq (log.count, 2);
  ck_assert_uint_eq (g_array_index (log.ran, Ran, 1).order, 2);
  g_array_unref (log.ran);
}
END_TEST

/* Slots come from the free list first (the last released on top), then
 * never-used ones in slot order, across the pool's growth: untaken slots
 * are not written before they are taken (issue 44), and the order is the
 * one a free list threaded at growth gave. */
START_TEST (test_slots_reused_then_fresh)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  const uint64_t slot_mask = (UINT64_C (1) << 28) - 1;
  for (guint i = 0; i < 3000; i++)   /* past two doublings (1 024, 2 048) */
    {
      SimEventId id = sim_engine_schedule_at (e, (DlTime) (i + 1) * DL_MS, log_event, &log, i);
      ck_assert_uint_eq (id & slot_mask, i);
      ck_assert_uint_eq (id >> 28, 1);
    }
  ck_assert (!sim_engine_is_pending (e, (UINT64_C (1) << 28) | 3000));   /* never taken */
  for (guint i = 0; i < 3; i++)
    ck_assert (sim_engine_step (e));   /* slots 0, 1, 2 released, 2 last */
  const uint64_t want[] = { 2, 1, 0, 3000, 3001 };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      SimEventId id = sim_engine_schedule_in (e, DL_S, log_event, &log, 0);
      ck_assert_uint_eq (id & slot_mask, want[k]);
      ck_assert_uint_eq (id >> 28, want[k] < 3 ? 2 : 1);
    }
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_uint_eq (log.count, 3005);
  g_array_unref (log.ran);
}
END_TEST

START_TEST (test_stale_id_after_reuse)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  SimEventId old = sim_engine_schedule_in (e, DL_S, log_event, &log, 1);
  ck_assert (sim_engine_cancel (e, old));
  SimEventId fresh = sim_engine_schedule_in (e, DL_S, log_event, &log, 2);
  ck_assert_uint_ne (old, fresh);
  ck_assert (!sim_engine_cancel (e, old));
  ck_assert (sim_engine_is_pending (e, fresh));
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_uint_eq (log.count, 1);
  g_array_unref (log.ran);
}
END_TEST

static void
try_past (SimEngine *e, void *ctx, uint64_t arg)
{
  int *refusals = ctx;
  if (sim_engine_schedule_at (e, sim_engine_now (e) - 1, log_event, NULL, 0) == SIM_EVENT_NONE)
    (*refusals)++;
  if (sim_engine_schedule_in (e, -DL_MS, log_event, NULL, 0) == SIM_EVENT_NONE)
    (*refusals)++;
}

START_TEST (test_past_refused)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  int refusals = 0;
  sim_engine_schedule_at (e, 10 * DL_S, try_past, &refusals, 0);
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_int_eq (refusals, 2);
  ck_assert_uint_eq (sim_engine_pending (e), 0);
  ck_assert_uint_eq (sim_engine_schedule_at (e, 5 * DL_S, try_past, &refusals, 0), SIM_EVENT_NONE);
  ck_assert_uint_eq (sim_engine_schedule_at (e, DL_TIME_NEVER, try_past, &refusals, 0), SIM_EVENT_NONE);
  ck_assert_uint_eq (sim_engine_schedule_in (e, DL_TIME_NEVER, try_past, &refusals, 0), SIM_EVENT_NONE);
  ck_assert_uint_eq (sim_engine_pending (e), 0);
}
END_TEST

static void
stopper (SimEngine *e, void *ctx, uint64_t arg)
{
  log_event (e, ctx, arg);
  sim_engine_stop (e);
}

START_TEST (test_run_until_and_stop)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  for (int i = 1; i <= 10; i++)
    sim_engine_schedule_at (e, i * DL_S, i == 7 ? stopper : log_event, &log, (uint64_t) i);
  ck_assert_int_eq (sim_engine_run_until (e, 4500 * DL_MS), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (log.count, 4);
  ck_assert_int_eq (sim_engine_now (e), 4500 * DL_MS);
  ck_assert_int_eq (sim_engine_run_until (e, 5 * DL_S), SIM_RUN_TIME_REACHED);
  ck_assert_uint_eq (log.count, 5);   /* events at exactly `end` run */
  ck_assert_int_eq (sim_engine_run_until (e, DL_TIME_NEVER), SIM_RUN_STOPPED);
  ck_assert_uint_eq (log.count, 7);
  ck_assert_int_eq (sim_engine_now (e), 7 * DL_S);
  ck_assert_int_eq (sim_engine_run_until (e, DL_TIME_NEVER), SIM_RUN_EMPTY);
  ck_assert_uint_eq (log.count, 10);
  g_array_unref (log.ran);
}
END_TEST

START_TEST (test_many_pending_with_cancels)
{
  /* 300 000 pending events, a third cancelled at random: order holds. */
  const int n = 300000;
  g_autoptr (SimEngine) e = sim_engine_new ();
  g_autoptr (DlRandom) r = dl_random_new (5, "big", 0);
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  SimEventId *ids = g_new (SimEventId, n);
  for (int i = 0; i < n; i++)
    ids[i] = sim_engine_schedule_at (e, (DlTime) dl_random_below (r, 1000000), log_event, &log, (uint64_t) i);
  int cancelled = 0;
  for (int i = 0; i < n; i++)
    if (dl_random_below (r, 3) == 0)
      {
        ck_assert (sim_engine_cancel (e, ids[i]));
        cancelled++;
      }
  sim_engine_run_until (e, DL_TIME_NEVER);
  ck_assert_uint_eq (log.count, (uint64_t) (n - cancelled));
  for (guint i = 1; i < log.ran->len; i++)
    {
      Ran *p = &g_array_index (log.ran, Ran, i - 1), *c = &g_array_index (log.ran, Ran, i);
      ck_assert (p->time < c->time || (p->time == c->time && p->order < c->order));
    }
  g_free (ids);
  g_array_unref (log.ran);
}
END_TEST


/* The engine against a naive model: a list of live events popped by
 * smallest (time, scheduling order).  Random schedules (many ties, delay 0),
 * cancels (the next event's too), mass cancels that trigger the sweep, and
 * steps; after each action the next time and the pending count agree, and
 * each step runs the model's next event. */
typedef struct {
  DlTime time;
  uint64_t order;
  SimEventId id;
} ModelEv;

static int
model_min (GArray *m)
{
  int best = -1;
  for (guint i = 0; i < m->len; i++)
    {
      ModelEv *x = &g_array_index (m, ModelEv, i);
      ModelEv *b = best < 0 ? NULL : &g_array_index (m, ModelEv, best);
      if (!b || x->time < b->time || (x->time == b->time && x->order < b->order))
        best = (int) i;
    }
  return best;
}

static void
model_check_run (uint64_t seed, uint64_t start_seq)
{
  g_autoptr (SimEngine) e = sim_engine_new ();
  if (start_seq)
    sim_engine_debug_set_next_seq (e, start_seq);
  g_autoptr (DlRandom) r = dl_random_new (seed, "engine-model", 0);
  Log log = { g_array_new (FALSE, FALSE, sizeof (Ran)), 0 };
  GArray *model = g_array_new (FALSE, FALSE, sizeof (ModelEv));
  uint64_t order = 0;
  for (int step = 0; step < 20000; step++)
    {
      uint64_t action = dl_random_below (r, 10);
      if (action < 4)
        {
          DlTime d = dl_random_below (r, 4) == 0 ? 0 : (DlTime) dl_random_below (r, 20) * DL_MS;
          ModelEv ev = { sim_engine_now (e) + d, order, SIM_EVENT_NONE };
          ev.id = sim_engine_schedule_in (e, d, log_event, &log, order++);
          ck_assert_uint_ne (ev.id, SIM_EVENT_NONE);
          g_array_append_val (model, ev);
        }
      else if (action < 6 && model->len > 0)
        {
          int i = dl_random_below (r, 2) ? model_min (model) : (int) dl_random_below (r, model->len);
          ck_assert (sim_engine_cancel (e, g_array_index (model, ModelEv, i).id));
          ck_assert (!sim_engine_is_pending (e, g_array_index (model, ModelEv, i).id));
          g_array_remove_index_fast (model, (guint) i);
        }
      else if (action == 6 && dl_random_below (r, 200) == 0)
        {
          /* mass cancel: all but a few */
          while (model->len > 3)
            {
              ck_assert (sim_engine_cancel (e, g_array_index (model, ModelEv, model->len - 1).id));
              g_array_set_size (model, model->len - 1);
            }
        }
      else
        {
          int i = model_min (model);
          guint before = log.ran->len;
          ck_assert_int_eq (sim_engine_step (e), i >= 0);
          if (i >= 0)
            {
              ModelEv *want = &g_array_index (model, ModelEv, i);
              Ran *got = &g_array_index (log.ran, Ran, before);
              ck_assert_uint_eq (got->order, want->order);
              ck_assert_int_eq (got->time, want->time);
              ck_assert (!sim_engine_is_pending (e, want->id));
              g_array_remove_index_fast (model, (guint) i);
            }
        }
      sim_engine_debug_check (e);
      int i = model_min (model);
      ck_assert_int_eq (sim_engine_next_time (e), i >= 0 ? g_array_index (model, ModelEv, i).time : DL_TIME_NEVER);
      ck_assert_uint_eq (sim_engine_pending (e), model->len);
      for (guint k = 0; k < model->len && k < 3; k++)
        ck_assert_int_eq (sim_engine_event_time (e, g_array_index (model, ModelEv, k).id),
                          g_array_index (model, ModelEv, k).time);
    }
  g_array_unref (model);
  g_array_unref (log.ran);
}

START_TEST (test_against_naive_model)
{
  model_check_run ((uint64_t) _i + 1, 0);
}
END_TEST

START_TEST (test_tie_counter_wrap_keeps_order)
{
  /* 2^36 - 5000: the counter runs out within the run and the pending events
   * are renumbered; ties, ids and cancels keep working. */
  model_check_run (77, (UINT64_C (1) << 36) - 5000);
}
END_TEST

START_TEST (test_phold_matches_reference)
{
  BenchPholdParams p;
  bench_phold_params_init (&p);
  p.n_lps = 50;
  p.events_per_lp = 4;
  p.end = 20 * DL_S;
  p.seed = (uint64_t) _i + 1;
  BenchPholdResult a = bench_phold_run_engine (&p);
  BenchPholdResult b = bench_phold_run_reference (&p);
  ck_assert_uint_gt (a.events, 50 * 4 * 10);
  ck_assert_uint_eq (a.events, b.events);
  ck_assert_uint_eq (a.checksum, b.checksum);
  BenchPholdResult again = bench_phold_run_engine (&p);
  ck_assert_uint_eq (again.checksum, a.checksum);
  /* another seed gives another run */
  p.seed += 1000;
  ck_assert_uint_ne (bench_phold_run_engine (&p).checksum, a.checksum);
}
END_TEST


/* ---------------------------------------------------------------- flows */

/* Runs f from now until every flow is done: each flow's completion time
 * by its user value (< n), the shares checked max-min fair after every
 * solve; and, if t0 is not DL_TIME_NEVER, resource res's capacity set to
 * bps at t0 (a bandwidth trace's row), which must come before the last
 * completion. */
static void
flows_run (SimFlows *f, DlTime now, guint32 res, DlTime t0, uint64_t bps, DlTime *done, guint n)
{
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_update (f, now);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  DlTime t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      ck_assert_int_ge (t, now);
      if (t > t0)
        {
          now = t0;
          t0 = DL_TIME_NEVER;
          sim_flows_set_capacity (f, res, bps);
        }
      else
        {
          now = t;
          guint64 u;
          while (sim_flows_pop (f, now, &u))
            {
              ck_assert_uint_lt (u, n);
              done[u] = now;
            }
        }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_int_eq (t0, DL_TIME_NEVER);
  ck_assert_uint_eq (sim_flows_count (f), 0);
}

static void
flows_drain (SimFlows *f, DlTime now, DlTime *done, guint n)
{
  flows_run (f, now, 0, DL_TIME_NEVER, 0, done, n);
}

#define MBPS 1000000u

/* One flow alone takes bytes / rate, rounded up to the ns. */
START_TEST (test_flows_alone)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  sim_flows_set_capacity (f, 1, 100 * MBPS);
  sim_flows_add (f, 5, 0, 1, 4000025, 0);
  DlTime done[1] = { 0 };
  flows_drain (f, 5, done, 1);
  /* 4 000 025 bytes at 20 Mbit/s: 1.60001 s */
  ck_assert_int_eq (done[0], 5 + 1600010000);
}
END_TEST

/* Max-min, worked by hand: A up1->down1, B up1->down2, C up2->down2;
 * up1 10 MB/s, down1 1 MB/s, up2 and down2 100 MB/s.  down1 holds A to
 * 1 MB/s, B takes the 9 MB/s up1 has left, C the 91 MB/s down2 has left;
 * when B is done (9 MB at 1 s) C gets all 100 MB/s. */
START_TEST (test_flows_max_min_by_hand)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 80 * MBPS);    /* up1 */
  sim_flows_set_capacity (f, 1, 8 * MBPS);     /* down1 */
  sim_flows_set_capacity (f, 2, 800 * MBPS);   /* up2 */
  sim_flows_set_capacity (f, 3, 800 * MBPS);   /* down2 */
  sim_flows_add (f, 0, 0, 1, 2000000, 0);      /* A: 2 MB at 1 MB/s: 2 s */
  sim_flows_add (f, 0, 0, 3, 9000000, 1);      /* B: 9 MB at 9 MB/s: 1 s */
  sim_flows_add (f, 0, 2, 3, 182000000, 2);    /* C: 91 MB in 1 s, 91 MB at 100 MB/s: 1.91 s */
  DlTime done[3] = { 0 };
  flows_drain (f, 0, done, 3);
  ck_assert_int_le (llabs (done[0] - 2 * DL_S), 2);
  ck_assert_int_le (llabs (done[1] - DL_S), 2);
  ck_assert_int_le (llabs (done[2] - 1910 * DL_MS), 2);
}
END_TEST

/* Two flows on one uplink: the short one ends at twice its time alone,
 * then the long one has the whole link (processor sharing). */
START_TEST (test_flows_share_then_speed_up)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 8 * MBPS);     /* 1 MB/s */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 3000000, 1);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  ck_assert_int_le (llabs (done[0] - 2 * DL_S), 2);
  ck_assert_int_le (llabs (done[1] - 4 * DL_S), 2);
}
END_TEST

/* A capacity that changes mid-flow (a bandwidth trace): the flow keeps what
 * it sent at the old rate and sends the rest at the new one.  The analytic
 * bound for one transfer of B bytes whose rate goes from R1 to R2 at t0
 * (B > R1 t0 / 8) is closed-form: T = t0 + (8 B - R1 t0) / R2.  4 MB at
 * 62.5 Mbit/s, 7.8125 Mbit/s (8x less) from 0.2 s: 12.5 Mbit sent by then,
 * 19.5 Mbit left take 2.496 s: T = 2.696 s.  The other way, 7.8125 then
 * 62.5 Mbit/s from 2 s: 15.625 Mbit sent, 16.375 Mbit left take 0.262 s:
 * T = 2.262 s.  (The rates are 2^-7 and 2^-10 bytes per ns, exact in a
 * double: the solver's arithmetic gives the hand's ns.) */
START_TEST (test_flows_capacity_change_one_flow)
{
  static const struct { uint64_t r1, r2; DlTime t0, want; } cases[] = {
    { 62500000, 7812500, 200 * DL_MS, 2696 * DL_MS },
    { 7812500, 62500000, 2 * DL_S, 2262 * DL_MS },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (SimFlows) f = sim_flows_new ();
      sim_flows_set_capacity (f, 0, cases[i].r1);
      sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 0);
      DlTime done[1] = { 0 };
      flows_run (f, 0, 0, cases[i].t0, cases[i].r2, done, 1);
      double t0_s = (double) cases[i].t0 / 1e9;
      double closed_form = t0_s + (8 * 4e6 - (double) cases[i].r1 * t0_s) / (double) cases[i].r2;
      ck_assert_int_eq (done[0], cases[i].want);
      ck_assert_int_eq (done[0], (DlTime) llround (closed_form * 1e9));
    }
}
END_TEST

/* Two flows sharing one uplink whose capacity drops 8x mid-flow: A (1 MB)
 * and B (4 MB) have 31.25 Mbit/s each; at 0.2 s each has sent 781 250 B,
 * then 3.90625 Mbit/s each: A's 218 750 B left take 0.448 s (A done at
 * 0.648 s), by when B has sent as much again; B's 3 000 000 B left, alone
 * at 7.8125 Mbit/s, take 3.072 s: B done at 3.72 s.  (The uplink never
 * idles: 5 MB = 1.5625 MB at 62.5 Mbit/s in 0.2 s and 3.4375 MB at
 * 7.8125 Mbit/s in 3.52 s.)  A flow on another uplink keeps its rate. */
START_TEST (test_flows_capacity_change_two_flows)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 62500000);
  sim_flows_set_capacity (f, 1, 62500000);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);   /* A */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 1);   /* B */
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 5000000, 2);   /* C, elsewhere: 0.64 s */
  DlTime done[3] = { 0 };
  flows_run (f, 0, 0, 200 * DL_MS, 7812500, done, 3);
  ck_assert_int_eq (done[0], 648 * DL_MS);
  ck_assert_int_eq (done[1], 3720 * DL_MS);
  ck_assert_int_eq (done[2], 640 * DL_MS);
}
END_TEST

/* A crashed sender's uplink: its flows end at once and the receiver's
 * downlink goes to the flow left.  A: up1->down1 and B: up1->down2 (up1
 * 8 MB/s), C: up2->down1; down1 is 2 MB/s, so A and C get 1 MB/s, B 7.
 * At 1 s up1 is cancelled: A and B end there, C has 2 MB/s for its 3 MB
 * left (4 MB): done at 2.5 s.  Then a flow that reuses A's or B's record
 * must not be taken for a stale heap entry: D up2->down2, 2 MB from 1 s. */
START_TEST (test_flows_cancel_frees_the_receiver)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 64 * MBPS);    /* up1 */
  sim_flows_set_capacity (f, 1, 16 * MBPS);    /* down1 */
  sim_flows_set_capacity (f, 2, 64 * MBPS);    /* up2 */
  sim_flows_set_capacity (f, 3, 64 * MBPS);    /* down2 */
  sim_flows_add (f, 0, 0, 1, 100000000, 0);    /* A */
  sim_flows_add (f, 0, 0, 3, 100000000, 1);    /* B */
  sim_flows_add (f, 0, 2, 1, 4000000, 2);      /* C */
  sim_flows_update (f, 0);
  ck_assert_int_le (llabs (sim_flows_next (f) - 4 * DL_S), 2);   /* C alone would end at 4 s */
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 2);
  ck_assert_uint_eq (users->len, 2);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 0);
  ck_assert_uint_eq (g_array_index (users, guint64, 1), 1);
  ck_assert_uint_eq (sim_flows_count (f), 1);
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 0);   /* nothing left on up1 */
  sim_flows_add (f, DL_S, 2, 3, 2000000, 3);   /* D, in a freed record */
  DlTime done[4] = { 0 };
  flows_drain (f, DL_S, done, 4);
  ck_assert_int_eq (done[0], 0);
  ck_assert_int_eq (done[1], 0);
  /* C: 1 MB by 1 s, then up2 shared with D: C is held to 2 MB/s by
   * down1, D gets the 6 MB/s up2 has left: D done at 1 s + 2/6 s, C at
   * 1 s + 3/2 s */
  ck_assert_int_le (llabs (done[2] - 2500 * DL_MS), 2);
  ck_assert_int_le (llabs (done[3] - (DL_S + DL_S / 3)), 2);
}
END_TEST

/* Ties at one completion go by the order of adding across the seq
 * counter's wrap at 2^32: the flows added before it (with their heap
 * entries) are renumbered below the ones added after, so four flows
 * ending at one instant come out in the order they were added. */
START_TEST (test_flows_seq_wrap)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 4; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  _sim_flows_set_next_seq (f, (guint64) G_MAXUINT32 - 1);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);   /* seq 2^32 - 2 */
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 1000000, 1);   /* seq 2^32 - 1 */
  sim_flows_update (f, 0);                               /* (their heap entries) */
  sim_flows_add (f, 0, 2, SIM_FLOWS_NONE, 1000000, 2);   /* at the wrap */
  sim_flows_add (f, 0, 3, SIM_FLOWS_NONE, 1000000, 3);
  sim_flows_update (f, 0);
  g_autoptr (GString) why = g_string_new (NULL);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  ck_assert_int_eq (sim_flows_next (f), DL_S);
  guint64 u = G_MAXUINT64;
  for (guint64 want = 0; want < 4; want++)
    {
      ck_assert (sim_flows_pop (f, DL_S, &u));
      ck_assert_uint_eq (u, want);
    }
  ck_assert (!sim_flows_pop (f, DL_S, &u) && sim_flows_count (f) == 0);
}
END_TEST

/* A cancelled flow's entry in the completion heap stays stale when its
 * record is reused: the new flow, not solved yet, never completes in its
 * place. */
START_TEST (test_flows_cancel_then_reuse)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 8 * MBPS);
  sim_flows_set_capacity (f, 1, 8 * MBPS);
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 500000, 0);    /* 0.5 s: the heap's top */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 1);   /* 1 s: below it */
  sim_flows_update (f, 0);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 1);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 1);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 2);   /* in flow 1's freed record */
  /* before the next update only flow 0 can complete, at 0.5 s */
  guint64 u;
  ck_assert (sim_flows_pop (f, 2 * DL_S, &u));
  ck_assert_uint_eq (u, 0);
  ck_assert (!sim_flows_pop (f, 2 * DL_S, &u));
  DlTime done[3] = { 0 };
  flows_drain (f, 500 * DL_MS, done, 3);
  ck_assert_int_le (llabs (done[2] - 4500 * DL_MS), 2);
}
END_TEST

/* A resource's flows stay in the order they were added (the order of
 * every sum over them) through the holes flows leave and the compaction
 * of those holes: cancel hands them back in that order.  Users 0-11 on
 * resource 0, each to a receiver of its own; 7 of them end early (the
 * holes outnumber the flows: compacted), then 12-14 join and 13 ends
 * (a hole again). */
START_TEST (test_flows_order_through_holes)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  for (guint32 r = 0; r <= 15; r++)
    sim_flows_set_capacity (f, r, 64 * MBPS);
  static const gboolean small[15] = { 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0 };
  for (guint64 u = 0; u < 12; u++)
    sim_flows_add (f, 0, 0, (guint32) u + 1, small[u] ? 1000 : 100000000, u);
  sim_flows_update (f, 0);
  guint64 u;
  for (int n = 0; n < 7; n++)
    ck_assert (sim_flows_pop (f, 100 * DL_MS, &u) && small[u]);
  sim_flows_update (f, 100 * DL_MS);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  for (u = 12; u < 15; u++)
    sim_flows_add (f, 100 * DL_MS, 0, (guint32) u + 1, small[u] ? 1000 : 100000000, u);
  sim_flows_update (f, 100 * DL_MS);
  ck_assert (sim_flows_pop (f, 200 * DL_MS, &u));
  ck_assert_uint_eq (u, 13);
  sim_flows_update (f, 200 * DL_MS);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  static const guint64 want[] = { 2, 5, 7, 9, 11, 12, 14 };
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    ck_assert_uint_eq (g_array_index (users, guint64, i), want[i]);
  ck_assert_uint_eq (sim_flows_count (f), 0);
}
END_TEST

/* A change re-solves only its component: flows on other resources keep
 * their rates and are not visited. */
START_TEST (test_flows_only_the_component)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 6; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  for (guint i = 0; i < 10; i++)
    sim_flows_add (f, 0, 0, 1, 1000000, i);   /* component {0, 1} */
  sim_flows_update (f, 0);
  guint64 before = sim_flows_solved (f);
  ck_assert_uint_eq (before, 10);
  sim_flows_add (f, 10, 2, 3, 1000000, 10);   /* component {2, 3} */
  sim_flows_add (f, 10, 4, SIM_FLOWS_NONE, 1000000, 11);
  sim_flows_update (f, 10);
  ck_assert_uint_eq (sim_flows_solved (f) - before, 2);
  DlTime done[12] = { 0 };
  flows_drain (f, 10, done, 12);
  /* ten flows of 1 MB at 0.1 MB/s each: 10 s; the others alone: 1 s */
  ck_assert_int_le (llabs (done[0] - 10 * DL_S), 2);
  ck_assert_int_le (llabs (done[10] - (DL_S + 10)), 2);
}
END_TEST

/* A change re-solves only the resources it can move: ten uplinks of
 * 1 Mbit/s, each sending to two of ten downlinks of 1 Gbit/s (i to i and
 * i + 1), which none of them fills: one component.  One more flow from
 * the first uplink halves that uplink's share; what the other uplinks
 * send does not move, and only the three flows whose rates move count
 * (a solve of the component computes all 21). */
START_TEST (test_flows_only_what_moves)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  for (guint32 r = 0; r < 10; r++)
    {
      sim_flows_set_capacity (f, r, 1 * MBPS);
      sim_flows_set_capacity (f, 10 + r, 1000 * MBPS);
    }
  for (guint32 r = 0; r < 10; r++)
    {
      sim_flows_add (f, 0, r, 10 + r, 125000, 2 * r);             /* 2 s at half the uplink */
      sim_flows_add (f, 0, r, 10 + (r + 1) % 10, 125000, 2 * r + 1);
    }
  sim_flows_update (f, 0);
  guint64 before = sim_flows_solved (f);
  ck_assert_uint_eq (before, 20);
  sim_flows_add (f, DL_S, 0, 10, 62500, 20);
  sim_flows_update (f, DL_S);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  /* uplink 0's three flows: the others into downlinks 10 and 11 are
   * looked at, but their rates do not move */
  ck_assert_uint_eq (sim_flows_solved (f) - before, 3);
  DlTime done[21] = { 0 };
  flows_drain (f, DL_S, done, 21);
  ck_assert_int_eq (done[2], 2 * DL_S);
  ck_assert_int_le (llabs (done[0] - 5 * DL_S / 2), 2);   /* half its bytes left, a third of 1 Mbit/s */
}
END_TEST

/* A flow's completion depends only on its own rates: A (up1 -> down1,
 * held to down1's 1 Mbit/s, 1.25e-4 bytes per ns, not exact in a double)
 * shares up1 with B (up1 -> down2); short flows from up2 into down2 start
 * and end at odd instants, moving B's rate, never A's (up1 is never
 * full).  A ends where its first solve put it, t0 + bytes / rate rounded
 * up to the ns, however many times its component is solved again.  Loop
 * 1 adds a flow with a window elsewhere, so that every update solves the
 * components whole: the same holds there. */
START_TEST (test_flows_unmoved_keeps_its_end)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_set_capacity (f, 0, 80 * MBPS);   /* up1 */
  sim_flows_set_capacity (f, 1, 1 * MBPS);    /* down1 */
  sim_flows_set_capacity (f, 2, 80 * MBPS);   /* up2 */
  sim_flows_set_capacity (f, 3, 16 * MBPS);   /* down2 */
  sim_flows_set_capacity (f, 4, 1 * MBPS);
  const guint64 bytes = 999991;   /* (a recount's rounding moves its ceiling now and then) */
  sim_flows_add (f, 0, 0, 1, bytes, 0);            /* A */
  sim_flows_add (f, 0, 0, 3, 100000000, 1);        /* B: 50 s at least */
  if (_i == 1)
    {
      SimFlowsWindow w = { .rtt_ns = 10 * DL_MS, .cwnd_bytes = 1000000000 };
      sim_flows_add_window (f, 0, 4, SIM_FLOWS_NONE, 10000000, 2, &w);   /* 80 s, never ramping */
    }
  sim_flows_update (f, 0);
  const DlTime want = (DlTime) ceil ((double) bytes / ((double) (1 * MBPS) / 8e9));
  DlTime now = 0, done[3 + 40] = { 0 };
  for (guint k = 0; k < 40; k++)
    {
      now += 20 * DL_MS + 123457 * (DlTime) k + 7;   /* (all before A's end, 8 s) */
      sim_flows_add (f, now, 2, 3, 1000 + 777 * k, 3 + k);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
      DlTime t = sim_flows_next (f);
      ck_assert_int_lt (t, want);   /* (the short flow ends first) */
      now = t;
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        done[u] = now;
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
      ck_assert_int_eq (sim_flows_next (f), want);   /* (A is next: B and the window's flow end later) */
    }
  ck_assert_int_lt (now, want);
  flows_drain (f, now, done, G_N_ELEMENTS (done));
  ck_assert_int_eq (done[0], want);
}
END_TEST

/* The incremental solve against a solve from scratch (sim_flows_check
 * compares every rate, bit for bit): gossip-like traffic, a few flows
 * starting and ending at each instant between 24 senders and 24
 * receivers, capacities from a few values (ties between resources at one
 * share), now and then a capacity changed, or a sender's flows cancelled. */
START_TEST (test_flows_incremental_against_scratch)
{
  g_autoptr (DlRandom) rng = dl_random_new (991 + (guint64) _i, "flows-incr", 0);
  enum { NPEER = 24, STEPS = 400 };
  static const guint64 caps[] = { 4 * MBPS, 8 * MBPS, 10 * MBPS, 24 * MBPS, 100 * MBPS };
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint32 r = 0; r < 2 * NPEER; r++)
    sim_flows_set_capacity (f, r, caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
  DlTime now = 0;
  guint64 user = 0, added = 0;
  for (guint step = 0; step < STEPS; step++)
    {
      DlTime next = sim_flows_next (f);
      now = next != DL_TIME_NEVER && dl_random_below (rng, 2) ? next : now + (DlTime) dl_random_below (rng, 50 * DL_MS);
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        ;
      for (guint n = dl_random_below (rng, 4); n > 0; n--, added++)
        {
          guint32 up = 2 * dl_random_below (rng, NPEER), down = 2 * dl_random_below (rng, NPEER) + 1;
          guint32 a = dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : up;
          guint32 b = a != SIM_FLOWS_NONE && dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : down;
          sim_flows_add (f, now, a, b, 10000 + dl_random_below (rng, 400000), user++);
        }
      if (dl_random_below (rng, 8) == 0)
        sim_flows_set_capacity (f, dl_random_below (rng, 2 * NPEER), caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
      if (dl_random_below (rng, 40) == 0)
        sim_flows_cancel (f, 2 * dl_random_below (rng, NPEER), users);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "step %u: %s", step, why->str);
    }
  ck_assert_uint_gt (added, STEPS);
}
END_TEST

/* The incremental solve with windows (sim-flows.c, incr_windowed): a
 * random sequence of starts, ends, window growths, capacity changes and
 * cancels, most flows in slow start (100 to 400 000 bytes from windows
 * of 14 480: some fit in their first), one round trip for all (loop 1:
 * HyStart, growth x 2 - 1448; loop 2: a fifth of the flows without a
 * window; loop 3: 80 ms instead of 40 into 4 of the 24 receivers, so that
 * some resources mix round trips), every rate and key checked bit for
 * bit against a solve from scratch after each update; and the solves
 * re-computed fewer flows than whole ones would have (each update's flows
 * in flight). */
START_TEST (test_flows_incremental_windows)
{
  g_autoptr (DlRandom) rng = dl_random_new (4401 + (guint64) _i, "flows-incr-win", 0);
  enum { NPEER = 24, STEPS = 600 };
  static const guint64 caps[] = { 4 * MBPS, 8 * MBPS, 10 * MBPS, 24 * MBPS, 100 * MBPS };
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  SimFlowsWindow win = { 40 * DL_MS, 14480, 2, _i == 1 ? 1448 : 0, _i == 1 ? 1448 : 0 };
  SimFlowsWindow win2 = { 80 * DL_MS, 14480, 2, 0, 0 };
  for (guint32 r = 0; r < 2 * NPEER; r++)
    sim_flows_set_capacity (f, r, caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
  DlTime now = 0;
  guint64 user = 0, in_flight = 0;
  for (guint step = 0; step < STEPS; step++)
    {
      DlTime next = sim_flows_next (f);
      now = next != DL_TIME_NEVER && dl_random_below (rng, 3) ? next : now + (DlTime) dl_random_below (rng, 30 * DL_MS);
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        ;
      for (guint n = dl_random_below (rng, 3); n > 0; n--)
        {
          guint32 up = 2 * dl_random_below (rng, NPEER), down = 2 * dl_random_below (rng, NPEER) + 1;
          guint32 a = dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : up;
          guint32 b = a != SIM_FLOWS_NONE && dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : down;
          gboolean fluid = _i == 2 && dl_random_below (rng, 5) == 0;
          gboolean other = _i == 3 && down < 8;
          sim_flows_add_window (f, now, a, b, 100 + dl_random_below (rng, 400000), user++,
                                fluid ? NULL : other ? &win2 : &win);
        }
      if (dl_random_below (rng, 10) == 0)
        sim_flows_set_capacity (f, dl_random_below (rng, 2 * NPEER), caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
      if (dl_random_below (rng, 60) == 0)
        sim_flows_cancel (f, 2 * dl_random_below (rng, NPEER), users);
      in_flight += sim_flows_count (f);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "step %u: %s", step, why->str);
    }
  ck_assert_uint_gt (user, STEPS / 2);
  ck_assert_uint_lt (sim_flows_solved (f), in_flight / 2);
}
END_TEST

/* A ramping flow A (100 Mbit/s up 0, down 1; 100 ms round trip, windows
 * of 14 480, 28 960, 57 920 bytes) of 54 480 bytes: 40 000 left at its
 * first growth, more than its window; 11 040 left at its second, where
 * they fit in its window of 57 920, and the last round goes at the share.
 * A flow C (1 000 bytes from up 0 into a 1 Mbit/s downlink 2: its rate
 * there, 8 ms) starts during A's ramp and ends before A's next growth, in
 * A's component at a rate that leaves A's cap its bottleneck.  A's end is
 * the same to the ns with C as without, wherever C falls: A's bytes left
 * and the end of its slow start are counted at A's own events, not at the
 * solves of C's start and end (at 150 ms A's bytes left already fit in
 * its window of 28 960; a solve that counted them there ended A's slow
 * start 50 ms early). */
static DlTime
ramp_with_other (DlTime t_c)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_set_capacity (f, 0, 100 * MBPS);
  sim_flows_set_capacity (f, 1, 100 * MBPS);
  sim_flows_set_capacity (f, 2, 1 * MBPS);
  SimFlowsWindow win = { 100 * DL_MS, 14480, 2, 0, 0 };
  sim_flows_add_window (f, 0, 0, 1, 54480, 0, &win);
  sim_flows_update (f, 0);
  DlTime now = 0, done[2] = { DL_TIME_NEVER, DL_TIME_NEVER }, t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      if (t_c >= 0 && t_c < t)
        {
          now = t_c;
          t_c = -1;
          sim_flows_add_window (f, now, 0, 2, 1000, 1, &win);
        }
      else
        {
          now = t;
          guint64 u;
          while (sim_flows_pop (f, now, &u))
            done[u] = now;
        }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_int_lt (t_c, 0);
  if (done[1] != DL_TIME_NEVER)
    ck_assert_int_lt (done[1], done[0]);
  return done[0];
}

static const DlTime ramp_other_at[] = { 60 * DL_MS, 123456789, 150 * DL_MS, 190 * DL_MS + 7 };

START_TEST (test_flows_ramp_own_events)
{
  DlTime alone = ramp_with_other (-1);
  ck_assert_int_gt (alone, 200 * DL_MS);   /* (two rounds in slow start, then the rest) */
  ck_assert_int_eq (ramp_with_other (ramp_other_at[_i]), alone);
}
END_TEST

/* Slow start, the analytic bound (tests/slow-start-bound.h), doubling. */
static double
slow_start_ns (double S, double C, double R, double W)
{
  return slow_start_bound_ns (S, C, R, W, 2, 0);
}

static const struct {
  guint64 bytes, bps;
  DlTime rtt;
  double growth;
  guint64 lag;
} ss_cases[] = {
  { 1000000, 100 * MBPS, 100 * DL_MS, 2, 0 },    /* 6 rounds, then 87 760 bytes at line rate */
  { 40000000, 100 * MBPS, 100 * DL_MS, 2, 0 },   /* reaches the link's share after 7 rounds */
  { 10000, 10 * MBPS, 2 * DL_MS, 2, 0 },         /* fits in the initial window: line rate */
  { 4000000, 1000 * MBPS, 200 * DL_MS, 2, 0 },
  { 100000, 10 * MBPS, 20 * DL_MS, 2, 0 },       /* BDP 25 000 bytes: 1 round, then line rate */
  { 100000, 100 * MBPS, 100 * DL_MS, 2, 1448 },  /* 10, 19, 37 segments: 3 rounds where doubling takes 2 */
  { 1000000, 100 * MBPS, 100 * DL_MS, 1.5, 0 },  /* SCTP's growth with a SACK every second packet */
};

/* One flow with a window takes the analytic slow-start time, and its ramp
 * costs at most one event per doubling (log2 of size over window). */
START_TEST (test_flows_slow_start_alone)
{
  const guint64 iw = 10 * 1448;
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, ss_cases[_i].bps);
  SimFlowsWindow win = { ss_cases[_i].rtt, iw, ss_cases[_i].growth, ss_cases[_i].lag };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, ss_cases[_i].bytes, 0, &win);
  sim_flows_update (f, 0);
  DlTime now = 0, t, done = DL_TIME_NEVER;
  guint events = 0;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      now = t;
      events++;
      guint64 u, cwnd;
      while (sim_flows_pop_window (f, now, &u, &cwnd))
        {
          done = now;
          ck_assert_uint_ge (cwnd, iw);
        }
      sim_flows_update (f, now);
    }
  double want = slow_start_bound_ns ((double) ss_cases[_i].bytes, (double) ss_cases[_i].bps / 8e9,
                                    (double) ss_cases[_i].rtt, (double) iw, ss_cases[_i].growth, (double) ss_cases[_i].lag);
  ck_assert_msg (fabs ((double) done - want) <= 2, "%" G_GUINT64_FORMAT " bytes: %" G_GINT64_FORMAT " ns, want %.0f",
                 ss_cases[_i].bytes, done, want);
  ck_assert_uint_le (events, 2 + (guint) ceil (log ((double) ss_cases[_i].bytes / (double) iw) / log (ss_cases[_i].growth - 0.1)));
}
END_TEST

/* CUBIC's HyStart as ns-3 3.37 runs it, written out from its rule
 * (docs/world.md, "HyStart"): a round's ACKs come one every 2 segments at
 * the link's rate, t = seg / C apart, over (W - 2) t; a round lasts R + 2 t;
 * slow start (2W - 1 segment a round) ends with the next window in the
 * first round where 2 t <= 2 ms, that window less 2 segments is at least
 * 16 segments, and the gap to the next round's first ACK, R + 2 t - (W -
 * 2) t, is at most 2 ms; the window then grows one segment per 20
 * acknowledged: the same window for one round (its 20th segment is
 * acknowledged in the next), then x 1.05 a round; all in rounds of R while
 * what is left does not fit in the window and it is below C R; the rest
 * goes at C. */
static double
hystart_bound_ns (double S, double C, double R, double seg)
{
  double W = 10 * seg, t = 2 * (seg / C), time = 0, left = S;
  gboolean ss = TRUE, train = t <= 2e6, held = FALSE;
  while (left > W && W < C * R)
    {
      double next = ss ? 2 * W - seg : held ? W * 1.05 : W;
      held = !ss;
      if (ss && train && next / seg - 2 >= 16 && R + t - (W / seg - 2) * (t / 2) <= 2e6)
        ss = FALSE;
      left -= W;
      W = next;
      time += R;
    }
  return time + left / C;
}

static const struct {
  guint64 bytes, bps;
  DlTime rtt;
} hy_cases[] = {
  { 100000, 1000 * MBPS, 2 * DL_MS },     /* 1 Gbit/s, 1 ms one way: out at 19 segments */
  { 1000000, 1000 * MBPS, 2 * DL_MS },
  { 4000000, 1000 * MBPS, 2 * DL_MS },
  { 40000000, 1000 * MBPS, 2 * DL_MS },   /* reaches the link's share at x 1.05 a round */
  { 4000000, 1000 * MBPS, 20 * DL_MS },   /* 10 ms one way: rounds 18 ms apart, no train */
  { 1000000, 10 * MBPS, 2 * DL_MS },      /* ACKs 2.4 ms apart: no train */
};

/* A TCP flow with HyStart (hystart_seg) takes the time of HyStart's rule,
 * and its ramp stops once it is at the link's share. */
START_TEST (test_flows_hystart)
{
  const guint64 seg = 1502;
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, hy_cases[_i].bps);
  sim_flows_set_capacity (f, 1, hy_cases[_i].bps);
  SimFlowsWindow win = { hy_cases[_i].rtt, 10 * seg, 2, seg, seg };
  sim_flows_add_window (f, 0, 0, 1, hy_cases[_i].bytes, 0, &win);
  sim_flows_update (f, 0);
  DlTime t, done = DL_TIME_NEVER;
  guint events = 0;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      events++;
      guint64 u;
      while (sim_flows_pop (f, t, &u))
        done = t;
      sim_flows_update (f, t);
    }
  double C = (double) hy_cases[_i].bps / 8e9, R = (double) hy_cases[_i].rtt;
  double want = hystart_bound_ns ((double) hy_cases[_i].bytes, C, R, (double) seg);
  ck_assert_msg (fabs ((double) done - want) <= 1e-6 * want, "%" G_GUINT64_FORMAT " bytes: %" G_GINT64_FORMAT " ns, want %.0f",
                 hy_cases[_i].bytes, done, want);
  ck_assert_uint_le (events, 3 + (guint) ceil (log (C * R / (10.0 * (double) seg)) / log (1.05)));
}
END_TEST

/* A plain flow beside a ramping one gets what the window leaves: the link
 * is never idle, so the plain flow, which ends last, ends when both
 * flows' bytes have crossed it at its rate; the ramping one takes longer
 * than alone (it shares once at its share); the shares are max-min with
 * the window as a limit after every solve (flows_run). */
START_TEST (test_flows_window_leaves_the_rest)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 100 * MBPS);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 10000000, 0);
  SimFlowsWindow win = { 100 * DL_MS, 14480, 2, 0 };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, 1000000, 1, &win);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  double c = 100.0 * MBPS / 8e9;
  ck_assert_int_le (llabs (done[0] - (DlTime) ceil (11000000 / c)), 2);
  ck_assert_int_lt (done[1], done[0]);
  ck_assert_int_gt (done[1], (DlTime) slow_start_ns (1000000, c, 100 * DL_MS, 14480));
}
END_TEST

/* Timeouts where flows converge (sim_flows_set_timeouts): three flows
 * with windows that hold all their bytes (no slow start), each from its
 * own 100 Mbit/s uplink, into one 20 Mbit/s downlink, 1, 1 and 2 MB.
 * They share it evenly: the two 1 MB ones end at 3 MB / 2.5 MB/s = 1.2
 * s, the 2 MB one alone at 1.6 s.  With a 2 ms round trip the pipe into
 * the downlink is 5 000 B x (1 + 4 BDP of queue) = 16.5 segments of 1 514
 * B, 5.5 each, under 32: the last to end is held one min_rto (200 ms),
 * to 1.8 s, and comes back with a window of one segment.  Loop: 0 no
 * timeouts set; 1 set, 2 ms; 2 set, 100 ms (825 segments of pipe, 275
 * each: no hold); 3 set, flows without windows (fluid: no hold). */
START_TEST (test_flows_converge_timeout)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  if (_i != 0)
    sim_flows_set_timeouts (f, 200 * DL_MS, 4, 1514);
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  DlTime rtt = _i == 2 ? 100 * DL_MS : 2 * DL_MS;
  SimFlowsWindow win = { rtt, 4000000, 2, 0 };
  for (guint32 k = 1; k <= 3; k++)
    {
      sim_flows_set_capacity (f, k, 100 * MBPS);
      guint64 bytes = k == 3 ? 2000000 : 1000000;
      sim_flows_add_window (f, 0, k, 0, bytes, k, _i == 3 ? NULL : &win);
    }
  sim_flows_update (f, 0);
  DlTime done[4] = { 0 };
  guint64 cwnd[4] = { 0 };
  DlTime t;
  while ((t = sim_flows_next (f)) != DL_TIME_NEVER)
    {
      guint64 u, c;
      while (sim_flows_pop_window (f, t, &u, &c))
        {
          done[u] = t;
          cwnd[u] = c;
        }
      sim_flows_update (f, t);
      if (_i == 1 && t == done[1])
        ck_assert_uint_eq (sim_flows_count (f), 1);   /* the 2 MB one, not yet held */
    }
  ck_assert_int_le (llabs (done[1] - 1200 * DL_MS), 2);
  ck_assert_int_le (llabs (done[2] - 1200 * DL_MS), 2);
  DlTime last = _i == 1 ? 1800 * DL_MS : 1600 * DL_MS;
  ck_assert_msg (llabs (done[3] - last) <= 2, "loop %d: the last flow at %" G_GINT64_FORMAT " ns, want %" G_GINT64_FORMAT,
                 _i, done[3], last);
  if (_i == 1)
    ck_assert_uint_eq (cwnd[3], 1514);
}
END_TEST

/* A flow held for its timeout (test_flows_converge_timeout's, at 1.6 s)
 * whose sender's uplink is cancelled (a crash) ends then, with the
 * others: it is not handed back at 1.8 s. */
START_TEST (test_flows_converge_timeout_cancel)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_timeouts (f, 200 * DL_MS, 4, 1514);
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  SimFlowsWindow win = { 2 * DL_MS, 4000000, 2, 0 };
  for (guint32 k = 1; k <= 3; k++)
    {
      sim_flows_set_capacity (f, k, 100 * MBPS);
      sim_flows_add_window (f, 0, k, 0, k == 3 ? 2000000 : 1000000, k, &win);
    }
  sim_flows_update (f, 0);
  guint64 u;
  DlTime t;
  guint popped = 0;
  while ((t = sim_flows_next (f)) < 1700 * DL_MS)
    {
      while (sim_flows_pop (f, t, &u))
        popped++;
      sim_flows_update (f, t);
    }
  ck_assert_uint_eq (popped, 2);
  ck_assert_uint_eq (sim_flows_count (f), 1);   /* the held one */
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 3, users), 1);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 3);
  ck_assert_uint_eq (sim_flows_count (f), 0);
  ck_assert_int_eq (sim_flows_next (f), DL_TIME_NEVER);
}
END_TEST

/* Round trips in the sharing: two flows with windows past slow start
 * (their windows hold all their bytes), round trips of 10 and 100 ms, on
 * one 20 Mbit/s link: the 10 ms one gets 10^(1/2) times the other's
 * rate (weights (1 s / round trip)^(1/2)), so it ends at S / (C x
 * w1 / (w1 + w2)); the other ends when both have crossed, at 2 S / C
 * (the link is never idle); the shares are weighted max-min after every
 * solve.  With one round trip for both, they share evenly (loop 1). */
START_TEST (test_flows_round_trips_weigh)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  const double S = 4000000;
  DlTime rtt2 = _i == 0 ? 100 * DL_MS : 10 * DL_MS;
  SimFlowsWindow a = { 10 * DL_MS, (guint64) S, 2, 0 }, b = { rtt2, (guint64) S, 2, 0 };
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, (guint64) S, 0, &a);
  sim_flows_add_window (f, 0, 0, SIM_FLOWS_NONE, (guint64) S, 1, &b);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  double c = 20.0 * MBPS / 8e9;
  double w1 = sqrt (1e9 / 10e6), w2 = sqrt (1e9 / (double) rtt2);
  ck_assert_int_le (llabs (done[0] - (DlTime) ceil (S / (c * w1 / (w1 + w2)))), 2);
  ck_assert_int_le (llabs (done[1] - (DlTime) ceil (2 * S / c)), 2);
}
END_TEST

/* The naive model: every flow's max-min rate re-solved from scratch at
 * every event (progressive filling over all resources, scanning for the
 * smallest share), in doubles. */
typedef struct {
  double start, bytes, rem, rate, done;
  int res[2];
} NaiveFlow;

static void
naive_rates (NaiveFlow *fl, guint n, double now, const double *cap, guint nres)
{
  g_autofree double *left = g_new (double, nres);
  g_autofree guint *cnt = g_new0 (guint, nres);
  g_autofree gboolean *fixed = g_new0 (gboolean, n);
  memcpy (left, cap, nres * sizeof (double));
  guint unfixed = 0;
  for (guint i = 0; i < n; i++)
    if (fl[i].start <= now && fl[i].done < 0)
      {
        unfixed++;
        for (int k = 0; k < 2; k++)
          if (fl[i].res[k] >= 0)
            cnt[fl[i].res[k]]++;
      }
    else
      fixed[i] = TRUE;
  while (unfixed)
    {
      int best = -1;
      for (guint r = 0; r < nres; r++)
        if (cnt[r] && (best < 0 || left[r] / cnt[r] < left[best] / cnt[best]))
          best = (int) r;
      double share = left[best] / cnt[best];
      for (guint i = 0; i < n; i++)
        if (!fixed[i] && (fl[i].res[0] == best || fl[i].res[1] == best))
          {
            fixed[i] = TRUE;
            unfixed--;
            fl[i].rate = share;
            for (int k = 0; k < 2; k++)
              if (fl[i].res[k] >= 0)
                {
                  left[fl[i].res[k]] -= share;
                  cnt[fl[i].res[k]]--;
                }
          }
    }
}

/* Runs flows fl[0..n) through dlsim's SimFlows f, as sim-net.c drives
 * them (starts and pops at each instant, one update), checking f after
 * each update; done[i]: when flow i ended. */
static void
drive_flows (SimFlows *f, NaiveFlow *fl, guint n, DlTime *done)
{
  g_autoptr (GString) why = g_string_new (NULL);
  DlTime now = 0;
  guint added = 0, finished = 0;
  while (finished < n)
    {
      DlTime next_add = DL_TIME_NEVER;
      for (guint i = 0; i < n; i++)
        if (fl[i].done == -1 && (DlTime) fl[i].start < next_add)
          next_add = (DlTime) fl[i].start;
      DlTime t = MIN (next_add, sim_flows_next (f));
      ck_assert_int_ne (t, DL_TIME_NEVER);
      now = t;
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        {
          done[u] = now;
          finished++;
        }
      for (guint i = 0; i < n; i++)
        if ((DlTime) fl[i].start == now && fl[i].done == -1)
          {
            sim_flows_add (f, now, fl[i].res[0] < 0 ? SIM_FLOWS_NONE : (guint32) fl[i].res[0],
                           fl[i].res[1] < 0 ? SIM_FLOWS_NONE : (guint32) fl[i].res[1], (guint64) fl[i].bytes, i);
            fl[i].done = -2;   /* added */
            added++;
          }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_uint_eq (added, n);
}

/* The same flows in the naive model (naive_rates at each event): fl[i].done. */
static void
naive_run (NaiveFlow *fl, guint n, const double *cap, guint nres)
{
  for (guint i = 0; i < n; i++)
    fl[i].done = -1;
  double tn = 0;
  guint left = n;
  while (left)
    {
      naive_rates (fl, n, tn, cap, nres);
      double next = INFINITY;
      for (guint i = 0; i < n; i++)
        if (fl[i].done < 0)
          next = MIN (next, fl[i].start > tn ? fl[i].start : tn + fl[i].rem / fl[i].rate);
      for (guint i = 0; i < n; i++)
        if (fl[i].done < 0 && fl[i].start <= tn)
          {
            fl[i].rem -= fl[i].rate * (next - tn);
            if (fl[i].rem <= 1e-6 * fl[i].bytes)
              {
                fl[i].done = next;
                left--;
              }
          }
      tn = next;
    }
}

START_TEST (test_flows_against_naive)
{
  g_autoptr (DlRandom) rng = dl_random_new (77 + (guint64) _i, "flows", 0);
  enum { NRES = 16, NFLOWS = 120 };
  double cap[NRES];
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint r = 0; r < NRES; r++)
    {
      guint64 bps = (1 + dl_random_below (rng, 100)) * MBPS;
      sim_flows_set_capacity (f, r, bps);
      cap[r] = (double) bps / 8e9;
    }
  NaiveFlow fl[NFLOWS];
  for (guint i = 0; i < NFLOWS; i++)
    {
      /* starts in batches (ties at one instant), senders 0..7, receivers 8..15,
       * a fifth of them to or from the unlimited coordinator */
      fl[i].start = (double) (dl_random_below (rng, 12) * 250 * DL_MS);
      fl[i].bytes = fl[i].rem = (double) (1000 + dl_random_below (rng, 2000000));
      fl[i].res[0] = dl_random_below (rng, 5) == 0 ? -1 : (int) dl_random_below (rng, 8);
      fl[i].res[1] = fl[i].res[0] >= 0 && dl_random_below (rng, 4) == 0 ? -1 : 8 + (int) dl_random_below (rng, 8);
      fl[i].done = -1;
    }
  DlTime done[NFLOWS];
  drive_flows (f, fl, NFLOWS, done);
  naive_run (fl, NFLOWS, cap, NRES);
  for (guint i = 0; i < NFLOWS; i++)
    ck_assert_msg (fabs ((double) done[i] - fl[i].done) <= 1e-6 * fl[i].done + 1000,
                   "flow %u: %" G_GINT64_FORMAT " ns, naive %.0f ns", i, done[i], fl[i].done);
}
END_TEST

static Suite *
sim_suite (void)
{
  Suite *s = suite_create ("sim");
  TCase *tc = tcase_create ("engine");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_ties_in_scheduling_order, 0, 4);
  tcase_add_test (tc, test_zero_delay_runs_after_existing_ties);
  tcase_add_test (tc, test_is_last_and_stopping);
  tcase_add_test (tc, test_poll_stops_a_spin);
  tcase_add_test (tc, test_cancel);
  tcase_add_test (tc, test_buckets_shrink_after_burst);
  tcase_add_test (tc, test_cancel_next_event);
  tcase_add_test (tc, test_cancel_from_handler_same_instant);
  tcase_add_test (tc, test_stale_id_after_reuse);
  tcase_add_test (tc, test_slots_reused_then_fresh);
  tcase_add_test (tc, test_past_refused);
  tcase_add_test (tc, test_run_until_and_stop);
  tcase_add_test (tc, test_many_pending_with_cancels);
  tcase_add_loop_test (tc, test_phold_matches_reference, 0, 3);
  tcase_add_loop_test (tc, test_against_naive_model, 0, 3);
  tcase_add_test (tc, test_tie_counter_wrap_keeps_order);
  suite_add_tcase (s, tc);
  TCase *tf = tcase_create ("flows");
  tcase_add_test (tf, test_flows_alone);
  tcase_add_test (tf, test_flows_max_min_by_hand);
  tcase_add_test (tf, test_flows_share_then_speed_up);
  tcase_add_test (tf, test_flows_capacity_change_one_flow);
  tcase_add_test (tf, test_flows_capacity_change_two_flows);
  tcase_add_test (tf, test_flows_only_the_component);
  tcase_add_test (tf, test_flows_only_what_moves);
  tcase_add_loop_test (tf, test_flows_unmoved_keeps_its_end, 0, 2);
  tcase_add_loop_test (tf, test_flows_incremental_against_scratch, 0, 8);
  tcase_add_loop_test (tf, test_flows_incremental_windows, 0, 4);
  tcase_add_loop_test (tf, test_flows_ramp_own_events, 0, G_N_ELEMENTS (ramp_other_at));
  tcase_add_test (tf, test_flows_cancel_frees_the_receiver);
  tcase_add_test (tf, test_flows_cancel_then_reuse);
  tcase_add_test (tf, test_flows_seq_wrap);
  tcase_add_test (tf, test_flows_order_through_holes);
  tcase_add_loop_test (tf, test_flows_slow_start_alone, 0, G_N_ELEMENTS (ss_cases));
  tcase_add_loop_test (tf, test_flows_hystart, 0, G_N_ELEMENTS (hy_cases));
  tcase_add_test (tf, test_flows_window_leaves_the_rest);
  tcase_add_loop_test (tf, test_flows_round_trips_weigh, 0, 2);
  tcase_add_loop_test (tf, test_flows_converge_timeout, 0, 4);
  tcase_add_test (tf, test_flows_converge_timeout_cancel);
  tcase_add_loop_test (tf, test_flows_against_naive, 0, 8);
  suite_add_tcase (s, tf);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sim_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
