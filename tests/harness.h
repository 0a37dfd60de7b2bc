/* harness.h — the tests' one hand-held world: a coordinator and peers
 * 1..n of any family (through protocol/proto-machine.h), each fed only
 * through the host layer (sim_host_feed), with this world as a third
 * SimTransport beside the simulated network and the testbed.  Its
 * callbacks put messages in a FIFO the test delivers (all, selectively, or
 * held back by rules), links that come up when the test says (or at once),
 * training that ends when the test says (or at once), deadlines as the host
 * re-arms them (`arm`), and time that moves only by hand.  No network
 * model, no clock: just explicit orderings.
 *
 * DISCO's tests (proto-harness.h, h_*) and the other families' (family-
 * harness.h, gw_*) are thin layers over it; they differ only in the
 * HarnessRules they start with.
 *
 * Shape: harness_new / harness_free.  Feed a machine only through
 * harness_feed (or the functions that call it): a machine fed directly
 * keeps the deadline the host armed last. */
#pragma once

#include "learn/learn-weights.h"
#include "protocol/proto-machine.h"

G_BEGIN_DECLS

/* A message in flight, or a peer's graceful stream close. */
typedef struct {
  ProtoNodeId from, to;
  ProtoVia via;
  gboolean closes;   /* not a message: `from` closed its stream (the coordinator sees STREAM_CLOSED) */
  ProtoMsg msg;      /* closes: type PROTO_MSG_N_TYPES, matched by nothing */
} HarnessMsg;

/* How the world answers the actions it cannot leave to the test. */
typedef struct {
  guint64 seed;               /* the peers' streams: dl_random_new (seed, "shares", i) */
  /* CONNECT_LINK names an unordered pair: one pending entry per pair (the
   * lower id told LINK_UP first), a pair given to harness_fail_link never
   * comes up, CLOSE_LINK takes it down, and a link message on a pair that
   * is not up is lost (and logged).  FALSE: every CONNECT_LINK is an entry
   * (the connecting peer told first) that comes up, and nothing is tracked. */
  gboolean pair_links;
  gboolean links_at_once;     /* harness_settle brings every pending link up in one step (else one) */
  /* outstanding training is one flag per peer, ended lowest id first
   * (else a FIFO of START_TRAINING actions, one ending per action) */
  gboolean train_lowest_first;
  /* ended training adds train_step * id * (k + 1) to weight k (else train_step * id) */
  gboolean train_by_index;
  gboolean close_on_disconnect;   /* DISCONNECT queues a stream close to the coordinator */
  gboolean needs_connected;   /* messages and LINK_UPs to a peer out of session (its view) vanish */
  gboolean log_times;         /* log lines "<time> S|pN text" (else "<id> text") */
} HarnessRules;

#define HARNESS_HOLD_RULES 4

typedef struct {
  DlTime now;
  ProtoConfig cfg;
  HarnessRules rules;
  guint n;
  ProtoMachine **m;         /* [0] the coordinator, [1..n] peers */
  gpointer coord;           /* m[0]->impl: the family's own coordinator */
  gpointer *peers;          /* [1..n] m[i]->impl */
  DlTime *deadline;         /* [0..n] as the host armed it */
  DlRandom **rng;
  gboolean *alive;          /* [0..n] FALSE: crashed, fed nothing, its messages in flight vanish */
  GArray *queue;            /* HarnessMsg in flight */
  GArray *links_pending;    /* guint64 a<<32|b, signalled, not up yet (a told first) */
  GArray *links_up;         /* pairs up (pair_links) */
  gboolean auto_links;      /* harness_settle brings links up */
  gboolean auto_train;      /* harness_settle ends training */
  gboolean *training;       /* [1..n] a START_TRAINING is outstanding */
  GArray *train;            /* ProtoNodeId, START_TRAINING in order (not train_lowest_first) */
  float train_step;
  guint64 fail_pairs[16];   /* link pairs that never come up (pair_links) */
  guint n_fail_pairs;
  int hold_type[HARNESS_HOLD_RULES];   /* messages held in flight (-1: no rule) */
  ProtoNodeId hold_from[HARNESS_HOLD_RULES];
  ProtoNodeId hold_to[HARNESS_HOLD_RULES];
  GPtrArray *log;           /* observations (and lost link messages), as text */
  char *broken;             /* the first reason a machine gave for proto_machine_broken, or NULL */
  gboolean verbose;         /* $HARNESS_VERBOSE: the log goes to stderr as it grows */
} Harness;

/* envs: NULL, or envs[0..n) each peer's host (its initial model and rng are
 * the harness's). */
Harness *harness_new (const ProtoConfig *cfg, guint n_peers, gsize model_len, const ProtoPeerEnv *envs,
                      const HarnessRules *rules);
void harness_free (Harness *h);
/* Feeds node id (PROTO_SERVER: the coordinator) one input at h->now
 * through sim_host_feed; nothing if it is not alive. */
void harness_feed (Harness *h, ProtoNodeId id, const ProtoInput *in);
/* Delivers queued messages, brings links up, ends training (as auto_links
 * and auto_train say) until nothing moves; fails the test if that never
 * happens. */
void harness_settle (Harness *h);
/* Delivers (or drops, or counts) the queued messages of `type` to `to`
 * (PROTO_NO_NODE: anyone); deliver_one takes the first, FALSE if none. */
gboolean harness_deliver_one (Harness *h, ProtoMsgType type, ProtoNodeId to);
guint harness_drop (Harness *h, ProtoMsgType type, ProtoNodeId to);
guint harness_queued (Harness *h, ProtoMsgType type, ProtoNodeId to);
/* Delivers the first queued stream close from `from`, if any. */
void harness_deliver_close (Harness *h, ProtoNodeId from);
/* Moves time to t, feeding the armed deadlines in time order (the
 * coordinator first at ties, then the lower id); fails the test if a
 * machine's deadline is not the one armed for it (it was fed around the
 * harness). */
void harness_advance_to (Harness *h, DlTime t);
/* Ends peer i's training: its model plus the rules' step. */
void harness_finish_training (Harness *h, ProtoNodeId i);
/* Brings every pending link up. */
void harness_links_up (Harness *h);
void harness_fail_link (Harness *h, ProtoNodeId a, ProtoNodeId b);
/* Keeps messages of `type` from `from` to `to` (PROTO_NO_NODE: any) in
 * flight: settling passes them over until harness_unhold (which releases
 * every rule).  Up to HARNESS_HOLD_RULES rules at once. */
void harness_hold (Harness *h, ProtoMsgType type, ProtoNodeId from, ProtoNodeId to);
void harness_unhold (Harness *h);
/* Log lines that contain needle. */
guint harness_count_log (Harness *h, const char *needle);
void harness_dump (Harness *h);

G_END_DECLS
