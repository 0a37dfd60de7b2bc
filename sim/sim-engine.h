/* sim-engine.h — the discrete-event core.
 *
 * Events are ordered by (time, seq); seq is a counter taken when the event is
 * scheduled, so events at the same instant run in scheduling order, on every
 * run.  Events are only scheduled relative to now (or at an absolute time not
 * before now): the past is refused.  The queue is a radix heap (the past
 * being refused makes it monotone); event records live in an engine-owned
 * pool with a free list, so a steady-state simulation allocates nothing per
 * event.  An event id stays valid for cancel until the event runs or is
 * cancelled; a stale id is harmless (cancel returns FALSE).
 *
 * Shape: sim_engine_new / sim_engine_free (g_autoptr). */
#pragma once

#include "base/dl-time.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct SimEngine SimEngine;

/* An event's action.  It may schedule, cancel and stop freely. */
typedef void (*SimHandler) (SimEngine *engine, void *ctx, uint64_t arg);

typedef uint64_t SimEventId;
#define SIM_EVENT_NONE ((SimEventId) 0)

typedef enum {
  SIM_RUN_EMPTY,         /* no event left */
  SIM_RUN_TIME_REACHED,  /* next event is after the end time; now == end */
  SIM_RUN_STOPPED,       /* a handler called sim_engine_stop */
} SimRunResult;

SimEngine *sim_engine_new (void);
void sim_engine_free (SimEngine *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimEngine, sim_engine_free)

DlTime sim_engine_now (const SimEngine *engine);

/* Schedules handler(ctx, arg) at now + delay.  delay < 0 is refused
 * (returns SIM_EVENT_NONE); so is a time past DL_TIME_NEVER - 1. */
SimEventId sim_engine_schedule_in (SimEngine *engine, DlTime delay,
                                   SimHandler handler, void *ctx, uint64_t arg);
/* Schedules at an absolute time >= now; earlier times are refused. */
SimEventId sim_engine_schedule_at (SimEngine *engine, DlTime when,
                                   SimHandler handler, void *ctx, uint64_t arg);

/* Removes a pending event.  FALSE if it already ran, was cancelled, or the id
 * is SIM_EVENT_NONE. */
gboolean sim_engine_cancel (SimEngine *engine, SimEventId id);
gboolean sim_engine_is_pending (const SimEngine *engine, SimEventId id);
/* TRUE if id is pending and no event has been scheduled since it was:
 * whatever is scheduled now at its time would run right after it, so the
 * caller may let id's handler do that work instead (one event, not two). */
gboolean sim_engine_is_last (const SimEngine *engine, SimEventId id);
/* Time of a pending event, DL_TIME_NEVER if it is not pending.  O(pending):
 * for tests and diagnostics. */
DlTime sim_engine_event_time (const SimEngine *engine, SimEventId id);

/* Runs events whose time is <= end (DL_TIME_NEVER: until empty or stopped). */
SimRunResult sim_engine_run_until (SimEngine *engine, DlTime end);
/* Runs at most one event; FALSE if there was none. */
gboolean sim_engine_step (SimEngine *engine);
/* Makes the running sim_engine_run_until return after the current event. */
void sim_engine_stop (SimEngine *engine);
/* TRUE once a handler has called sim_engine_stop in the event running:
 * a handler doing the work of several events stops there too. */
gboolean sim_engine_stopping (const SimEngine *engine);
/* Asked between events, every `every` events run by sim_engine_run_until
 * (NULL: never): TRUE makes it return SIM_RUN_STOPPED after the current
 * event.  It must change nothing the events see: it is for what lives
 * outside simulated time (a Ctrl-C flag, the wall clock), so that a run
 * whose simulated time hardly moves still hears them. */
typedef gboolean (*SimPollFn) (void *ctx);
void sim_engine_set_poll (SimEngine *engine, uint32_t every, SimPollFn poll, void *ctx);

DlTime sim_engine_next_time (const SimEngine *engine);
/* A hint, which changes no result: handler's events carry in arg a pointer
 * to a record whose bytes [offset, offset + bytes) it reads first, so the
 * engine starts loading them one event ahead (at large queue sizes, where
 * they are most likely cache misses).  At most four handlers. */
void sim_engine_prefetch_arg (SimEngine *engine, SimHandler handler, size_t offset, size_t bytes);
uint64_t sim_engine_pending (const SimEngine *engine);
uint64_t sim_engine_events_run (const SimEngine *engine);

/* For tests of the tie-break counter's wrap: jumps the next sequence number
 * forward (at most to its limit, 2^36).  Event order is unchanged by it. */
void sim_engine_debug_set_next_seq (SimEngine *engine, uint64_t seq);
/* For tests: checks the queue's invariants (every key in its bucket, none
 * below the last key run, the counts) and aborts with a message if one
 * fails.  O(pending). */
void sim_engine_debug_check (const SimEngine *engine);

G_END_DECLS
