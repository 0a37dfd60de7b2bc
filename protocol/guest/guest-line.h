/* guest-line.h — the guest line protocol's words (docs/guest.md): dlsim's
 * input lines written, the guest's action lines read.  A leaf of
 * guest-family.c: pure text in and out, no process, no machine.
 *
 * Nodes are named as in the timeline: S (the coordinator), p1, p2, ...;
 * times are integer nanoseconds of simulated time. */
#pragma once

#include "protocol/proto-input.h"
#include "base/dl-time.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PROTO_GUEST_SEND,        /* send TO stream|link TYPE SIZE DATA */
  PROTO_GUEST_OPEN,        /* open TO [initiator] */
  PROTO_GUEST_CONNECT,     /* connect TO */
  PROTO_GUEST_CLOSE,       /* close TO */
  PROTO_GUEST_DISCONNECT,  /* disconnect */
  PROTO_GUEST_TRAIN,       /* train ROUND */
  PROTO_GUEST_DEADLINE,    /* deadline T|never */
  PROTO_GUEST_STATE,       /* state NAME */
  PROTO_GUEST_ROUND,       /* round N [K] (a peer: aggregation round N done, its K-th; K in `count`, 0: N) */
  PROTO_GUEST_LIST,        /* list N K (the coordinator: round N begins with K peers) */
  PROTO_GUEST_FINISHED,    /* finished */
  PROTO_GUEST_FAILED,      /* failed TEXT */
  PROTO_GUEST_NOTE,        /* note TEXT */
  PROTO_GUEST_METRIC,      /* metric NAME VALUE [ROUND]: VALUE an integer (NAME ending in _s: ns) */
  PROTO_GUEST_MODEL,       /* model V1,V2,...: a peer's model (or a digest of it) as numbers */
  /* the facts dlsim counts for its own machines (docs/guest.md) */
  PROTO_GUEST_START,       /* start N K (the coordinator: round N's exchange starts with K peers) */
  PROTO_GUEST_RETRY,       /* retry [N] (the coordinator: its connection barrier timed out; N its
                              retry counter after the increment, in `value`, -1: not said) */
  PROTO_GUEST_EXCLUDED,    /* excluded PEER (the coordinator), excluded (a peer: it was) */
  PROTO_GUEST_SYNCED,      /* synced PEER (a peer: it took its model from PEER) */
  PROTO_GUEST_RESET,       /* reset (the coordinator: its session reset) */
  PROTO_GUEST_SERVED,      /* served PEER [stale] (a peer: it sent its model to PEER, a late joiner;
                              stale: the previous round's, a round in its connection phase) */
  PROTO_GUEST_FOREIGN,     /* foreign PEER N (a peer: it aggregated PEER's contribution of round N
                              into another round) */
} ProtoGuestActKind;

typedef struct {
  ProtoGuestActKind kind;
  ProtoNodeId to;          /* SEND, OPEN, CONNECT, CLOSE; EXCLUDED, SYNCED, SERVED, FOREIGN (NO_NODE: none) */
  ProtoVia via;            /* SEND */
  gboolean initiator;      /* OPEN */
  guint64 size;            /* SEND: the bytes it costs (0: its text's length) */
  guint64 n;               /* TRAIN, ROUND, LIST, START, FOREIGN: the round; LIST, ROUND, START: K in `count` */
  guint64 count;
  DlTime t;                /* DEADLINE (DL_TIME_NEVER: none) */
  gint64 value;            /* METRIC; RETRY: the counter (-1: not said); SERVED: 1 stale, 0 not */
  int32_t round;           /* METRIC: -1 if none */
  char *text;              /* SEND: "TYPE DATA"; STATE, METRIC: the name; FAILED, NOTE: the text (owned) */
  float *values;           /* MODEL: n_values numbers (owned) */
  guint n_values;
} ProtoGuestAct;

/* most values a `model` line may give */
#define PROTO_GUEST_MODEL_MAX (1u << 20)

void proto_guest_act_clear (ProtoGuestAct *a);

/* "S", "p1", ... */
char *proto_guest_node_name (ProtoNodeId id);
gboolean proto_guest_node_parse (const char *s, ProtoNodeId *out);

/* TRUE if a Guest message's text is as a guest writes it: "TYPE DATA",
 * TYPE a name, DATA one word (no space, newline or control byte). */
gboolean proto_guest_msg_text_ok (const char *text);

/* The input line for `in` at `node` (NULL for an input kind a guest is not
 * told of, or a Guest message whose text is not as a guest writes it). */
char *proto_guest_line_input (ProtoNodeId node, DlTime now, const ProtoInput *in);

/* Parses one of the guest's action lines; FALSE and why if it is none. */
gboolean proto_guest_line_parse (const char *line, ProtoGuestAct *out, GError **error);

/* The longest type name and data of a message, and the most a SEND may say
 * it costs (2^40 bytes). */
/* The largest round number a guest may say (train, round, list, metric):
 * training.rounds' own bound.  The recorder keeps a row per round number
 * up to the largest seen, so a larger one is refused, not allocated. */
#define PROTO_GUEST_MAX_ROUND 1000000u
#define PROTO_GUEST_MAX_TYPE 32
#define PROTO_GUEST_MAX_SIZE (G_GUINT64_CONSTANT (1) << 40)

G_END_DECLS
