/* sim-flows.h — flows sharing capacity max-min fairly (a leaf of sim-net.c).
 *
 * A flow is a transfer of a number of bytes over one or two resources (a
 * sender's uplink, a receiver's downlink).  Concurrent flows share every
 * resource max-min fairly, as SimGrid's fluid models (CM02) do: a flow's
 * rate is the fair share of its bottleneck, and what a flow bottlenecked
 * elsewhere leaves unused goes to the others.
 *
 * The caller owns time.  It adds flows at `now`, then calls
 * sim_flows_update (now) once for everything that changed at that instant
 * (adds batched), asks sim_flows_next for the earliest completion and calls
 * back then; sim_flows_pop hands over the flows that are done.  Only the
 * resources whose saturation a change can move are re-solved (with
 * windows or without); completions are kept in a heap, so a sparse
 * pattern costs what it touches (SimGrid's lazy LMM keeps a "modified
 * set" for the same reason).
 *
 * Shape: sim_flows_new / sim_flows_free. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "base/dl-time.h"

G_BEGIN_DECLS

typedef struct SimFlows SimFlows;

/* "no resource": a side that is not rate-limited */
#define SIM_FLOWS_NONE G_MAXUINT32

SimFlows *sim_flows_new (void);
void sim_flows_free (SimFlows *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimFlows, sim_flows_free)

/* Resource res's capacity in bit/s (more than 0): set before the first
 * flow that uses it, and changed at any instant (a bandwidth trace).  A
 * change with flows over res re-solves their component at the next
 * sim_flows_update, which the caller makes at the same instant: what each
 * flow sent up to then was at its old rate, its completion moves. */
void sim_flows_set_capacity (SimFlows *f, guint32 res, uint64_t bps);
gboolean sim_flows_has_capacity (const SimFlows *f, guint32 res);

/* A hint, no effect on the flows: res's record is loaded into the cache
 * ahead of a flow that will use it (res past the last resource, or
 * SIM_FLOWS_NONE: nothing).  At 100 000 nodes the records are 25 MB,
 * and the first read of one (sim_flows_has_capacity) missed every time. */
void sim_flows_prefetch (const SimFlows *f, guint32 res);

/* A flow of `bytes` (more than 0) over res_a and res_b (either may be
 * SIM_FLOWS_NONE, not both), started at now; `user` (at most
 * G_MAXUINT32: a flow keeps 32 bits of it) comes back from
 * sim_flows_pop.  Its rate is set by the next sim_flows_update. */
void sim_flows_add (SimFlows *f, DlTime now, guint32 res_a, guint32 res_b, guint64 bytes, guint64 user);

/* A flow's slow start (sim_flows_add_window). */
typedef struct {
  DlTime rtt_ns;        /* its round trip */
  guint64 cwnd_bytes;   /* the window it starts with */
  double growth;        /* the window's factor every round trip (0: 2, doubling) */
  guint64 lag_bytes;    /* then taken off it (a round's last ACK, delayed: 0 none) */
  guint64 hystart_seg;  /* CUBIC's HyStart with segments of this many bytes (0: none) */
} SimFlowsWindow;

/* sim_flows_add with slow start: the flow's rate is also capped at
 * cwnd_bytes / rtt_ns (win NULL, or either 0: as sim_flows_add), it weighs
 * (1 s / rtt_ns)^(1/2) in the sharing (a flow without a window weighs 1:
 * where round trips differ, the shorter one gets more, as ns-3's CUBIC
 * gives; with one round trip for all, the shares are as without), and the
 * window grows every rtt_ns from now (to cwnd x growth - lag_bytes, at
 * least cwnd) until the flow gets less than that cap (it has reached its
 * share) or its bytes left fit in the window (with hystart_seg, from the
 * round where CUBIC's HyStart would end slow start, by x 1.05 a round, as
 * ns-3's CUBIC before any loss); from then on it has no
 * cap.  Each growth is an event of its own (sim_flows_next counts it,
 * sim_flows_pop handles it). */
void sim_flows_add_window (SimFlows *f, DlTime now, guint32 res_a, guint32 res_b, guint64 bytes, guint64 user,
                           const SimFlowsWindow *win);

/* Re-solves the shares that the changes since the last update can move
 * (flows added, popped or grown by their window, a capacity changed):
 * from the resources they changed, or their whole components when that
 * costs less (sim-flows.c). */
void sim_flows_update (SimFlows *f, DlTime now);

/* The earliest completion time, or a window's doubling, DL_TIME_NEVER
 * when no flow is in progress (a flow added since the last update is not
 * counted). */
DlTime sim_flows_next (const SimFlows *f);

/* A flow that completes at or before now, if any (TRUE, *user set): in the
 * order of completion time, then of adding.  The windows' doublings due
 * by now are made on the way (their flows are re-solved by the next
 * sim_flows_update). */
gboolean sim_flows_pop (SimFlows *f, DlTime now, guint64 *user);

/* sim_flows_pop, and (cwnd_bytes, if not NULL) the flow's window at its
 * end: its last window, or once it had reached its share that share's
 * bytes per round trip if more (0: a flow without a window). */
gboolean sim_flows_pop_window (SimFlows *f, DlTime now, guint64 *user, guint64 *cwnd_bytes);

/* Ends every flow over res at once, finished or not (a crashed sender's
 * uplink), and appends their users to `users` (guint64), in the order they
 * were added.  The others' shares are re-solved by the next
 * sim_flows_update.  Returns how many ended. */
guint sim_flows_cancel (SimFlows *f, guint32 res, GArray *users);

/* Timeouts where flows converge: where two or more flows with a window
 * (sim_flows_add_window) have crossed one res_b (the receiver's side) at
 * once, and (its capacity x the round trip of the last of them x (1 +
 * queue_bdp)) / seg_bytes / that number is under 32 segments, the last of
 * them to end there comes back from sim_flows_pop_window min_rto later,
 * with a window of seg_bytes; it takes no capacity meanwhile, and
 * sim_flows_cancel on one of its resources ends it.  min_rto 0 (the
 * default): none.  Set before the first flow. */
void sim_flows_set_timeouts (SimFlows *f, DlTime min_rto, double queue_bdp, guint64 seg_bytes);

/* Flows in progress (added and not popped; held ones too). */
guint sim_flows_count (const SimFlows *f);

/* The number of flows whose rate was computed so far: by a solve of their
 * component, or by an incremental solve that visited them (moved_next,
 * sim-flows-solve.c), counted there without windows only if its rate
 * moved, with windows whether or not it moved (what the solver has
 * cost; the flows not visited are not counted).  A flow whose rate does
 * not move keeps its completion: it depends on the flow's own rates
 * only.  Read by tests alone. */
guint64 sim_flows_solved (const SimFlows *f);

/* For tests: whether the rates of the solved flows are max-min fair (no
 * resource over its capacity; every flow has a bottleneck, a saturated
 * resource where no flow goes faster per unit of weight, or its window's
 * cap), each one's completion the one its bytes left and its rate give,
 * and (once everything added is solved) every flow's rate the very one a
 * solve of every component from scratch gives, bit for bit.  If not,
 * FALSE and why. */
gboolean sim_flows_check (SimFlows *f, GString *why);

/* Tests only: the next flow's seq (the order of adding), to reach the
 * counter's wrap at 2^32 (the live flows' seqs are then renumbered). */
void _sim_flows_set_next_seq (SimFlows *f, guint64 seq);

/* Tests and sim-flows-heap.c only: a[0..n) ascending, in place, as the
 * completion heap's tie is sorted; past depth levels of quicksort, by
 * heapsort (depth 0: heapsort alone). */
void _sim_flows_sort_keys (guint64 *a, gsize n, guint depth);

G_END_DECLS
