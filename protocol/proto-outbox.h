/* proto-outbox.h — what a protocol machine asks its driver to do, and what
 * it reports having seen.  Machines append; the driver reads the actions in
 * order, carries them out, then resets the outbox.
 *
 * Shape: proto_outbox_init / proto_outbox_clear on caller memory. */
#pragma once

#include "protocol/proto-message.h"
#include "base/dl-time.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PROTO_ACT_SEND,           /* msg to `to`, over the coordinator stream or a peer link */
  PROTO_ACT_OPEN_LINK,      /* a link object to `to` was created (initiator: we offer) */
  PROTO_ACT_CONNECT_LINK,   /* signalling with `to` is complete: the transport may come up */
  PROTO_ACT_CLOSE_LINK,     /* the link to `to` was destroyed */
  PROTO_ACT_START_TRAINING, /* train locally from `weights` for round `round` */
  PROTO_ACT_DISCONNECT,     /* close the coordinator stream and every link */
  PROTO_ACT_SET_DEADLINE,   /* the machine's next deadline is now `deadline` (NEVER: none) */
  PROTO_ACT_OBSERVE,        /* an observation for the record */
  /* the replicated coordinator's session layer (protocol/replica/) */
  PROTO_ACT_RECONNECT,      /* peer: open a new stream to the coordinator service (its leader) */
  PROTO_ACT_CLOSE_STREAM,   /* coordinator replica: close peer `to`'s stream (it leads no more) */
} ProtoActionKind;

typedef enum {
  PROTO_OBS_SENT,
  PROTO_OBS_RECEIVED,
  PROTO_OBS_DROPPED,          /* drop rule: nobody listening in this state */
  PROTO_OBS_REJECTED,         /* listened for, but refused (invalid, unknown peer, ...) */
  PROTO_OBS_PHASE,            /* state change; detail = new state */
  PROTO_OBS_TIMER_SET,
  PROTO_OBS_TIMER_FIRED,
  PROTO_OBS_TIMER_CLEARED,
  PROTO_OBS_RETRY,            /* value = retry counter after the increment */
  PROTO_OBS_EXCLUDED,         /* other = the excluded peer */
  PROTO_OBS_SOURCE_CHOSEN,    /* the coordinator chose `other` to serve others a model (DISCO: a
                                 model sync's provider; hierarchical: a cluster's head) */
  PROTO_OBS_SOURCE_REPLACED,  /* ... and chose `other` in place of one that could not */
  PROTO_OBS_SYNC_STARTED,     /* a peer asked `other` for a model (a late joiner's sync) */
  PROTO_OBS_SYNC_SERVED,      /* a node sent `other` a model it asked for; value 1: a stale one
                                 (a previous round's, DISCO's S13), else 0 or -1 */
  PROTO_OBS_SYNC_DONE,        /* a peer took the model it asked for */
  PROTO_OBS_SYNC_FAILED,
  PROTO_OBS_ROUND_LIST,       /* the coordinator named a round's participants (DISCO's
                                 PeersForRound, a gossip step's members); value = how many */
  PROTO_OBS_ROUND_START,      /* the coordinator started a round's exchange (DISCO's
                                 StartWeightSharing, FedAvg's selection); value = participants */
  PROTO_OBS_ROUND_END,        /* peer finished aggregation; value = nodes aggregated */
  PROTO_OBS_LINK,             /* link up / failed / closed */
  PROTO_OBS_PAUSE,            /* a peer paused or resumed for want of participants */
  PROTO_OBS_ERROR,            /* the peer failed: training failed, or an error its protocol
                                 raises (DISCO: an exception it would throw) */
  PROTO_OBS_FINISHED,         /* peer finished all its rounds */
  PROTO_OBS_RESET,            /* coordinator reset: everybody left */
  PROTO_OBS_NOTE,             /* a fact for the trace alone (what the protocol would only log) */
  PROTO_OBS_FOREIGN_ROUND,    /* a contribution tagged with another round was aggregated;
                                 round = the aggregator's, value = the contribution's */
  PROTO_OBS_METRIC,           /* a measurement for the metrics table and the summary: detail = its
                                 name, value = the amount (a name ending in _s: nanoseconds, recorded
                                 as seconds), round = the round or step it belongs to */
} ProtoObsKind;
#define PROTO_OBS_N_KINDS (PROTO_OBS_METRIC + 1)

const char *proto_obs_kind_name (ProtoObsKind kind);

#define PROTO_OBS_DETAIL_LEN 112

typedef struct {
  ProtoObsKind kind;
  const char *state;       /* static name of the machine state it happened in */
  int32_t round;           /* aggregation round, -1 if none */
  ProtoNodeId other;       /* the other node, PROTO_NO_NODE if none */
  int32_t msg_type;        /* a ProtoMsgType, -1 if none */
  int64_t value;           /* a counter, -1 if none */
  char detail[PROTO_OBS_DETAIL_LEN];
} ProtoObservation;

/* A METRIC observation's value in its recorded unit: seconds for a name
 * ending in _s (the observation holds nanoseconds), else the value. */
double proto_obs_metric_value (const ProtoObservation *obs);

typedef struct {
  ProtoActionKind kind;
  ProtoNodeId to;
  ProtoVia via;
  gboolean initiator;      /* OPEN_LINK */
  ProtoMsg msg;            /* SEND (owned by the outbox) */
  LearnWeights *weights;   /* START_TRAINING (a reference owned by the outbox) */
  uint32_t round;          /* START_TRAINING */
  DlTime deadline;         /* SET_DEADLINE */
  ProtoObservation obs;    /* OBSERVE */
} ProtoAction;

typedef struct {
  ProtoAction *actions;  /* len of them, room for cap (an own array, not a GArray: its
                            append divides by the element size, 2.4 % of a 3 000-peer
                            run, docs/performance.md, nt22) */
  guint len, cap;
} ProtoOutbox;

void proto_outbox_init (ProtoOutbox *out);
void proto_outbox_clear (ProtoOutbox *out);
/* Releases the actions (and what they own); keeps the storage. */
void proto_outbox_reset (ProtoOutbox *out);
guint proto_outbox_len (const ProtoOutbox *out);
ProtoAction *proto_outbox_get (const ProtoOutbox *out, guint i);

/* Appends a SEND; takes ownership of *msg (it is left empty). */
void proto_outbox_send (ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *msg);
void proto_outbox_simple (ProtoOutbox *out, ProtoActionKind kind, ProtoNodeId to);
void proto_outbox_observe (ProtoOutbox *out, ProtoObsKind kind, const char *state, int32_t round,
                           ProtoNodeId other, int32_t msg_type, int64_t value,
                           const char *fmt, ...) G_GNUC_PRINTF (8, 9);

/* Appends action i of src to out, moving what it owns (src's is left
 * empty: a message with no fields, no weights). */
void proto_outbox_move (ProtoOutbox *out, ProtoOutbox *src, guint i);

/* Counting helpers for drivers and tests. */
guint proto_outbox_count_sends (const ProtoOutbox *out, ProtoMsgType type, ProtoNodeId to);
guint proto_outbox_count_obs (const ProtoOutbox *out, ProtoObsKind kind);
/* Formats one observation as a line (for traces and test failures). */
char *proto_observation_to_string (const ProtoObservation *obs);

G_END_DECLS
