/* session-links.h — a peer's links to other peers, set up by the session
 * layer's signalling through the coordinator (SignalForPeer,
 * session-msgs.h), for any family's peer machine: the
 * larger id creates its link object as initiator and offers (SignalForPeer
 * offer via the coordinator), the other answers, the initiator connects
 * (discojs/src/client/decentralized/peer_pool.ts and peer.ts).  Messages for
 * a link that is not up yet wait in its queue and go when it comes up.
 * DISCO's own peer keeps its pool (protocol/disco/disco-peer-pool.c): its
 * failure modes are DISCO's to reproduce.
 *
 * Shape: ProtoLinks on caller memory, proto_links_init / proto_links_clear;
 * the host callbacks send (observing the send) and observe. */
#pragma once

#include "base/dl-idmap.h"

#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

typedef enum {
  PROTO_LINKS_WAIT_OFFER,    /* ours is made; the other side offers */
  PROTO_LINKS_WAIT_ANSWER,   /* we offered */
  PROTO_LINKS_CONNECTING,    /* signalling done, the transport comes up */
  PROTO_LINKS_UP,
} ProtoLinkPhase;

typedef struct {
  void *ud;
  /* send m to `to` over via, observing it (the machine's own send) */
  void (*send) (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);
  void (*observe) (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                   const char *detail);
} ProtoLinksHost;

/* The first links a peer holds are kept in ProtoLinks itself, in the
 * peer's record: a lookup reads the record's own line rather than the
 * map's header and then its slots, two cache misses a message for
 * gossip at 2 000 peers (docs/performance.md, "Issue 44: gossip's hot
 * fields together", gp26).  Eight: gossip's fanout 4 gives a peer about
 * eight neighbours. */
#define PROTO_LINKS_NEAR 8

typedef struct {
  ProtoNodeId id;
  guint32 phase;             /* ProtoLinkPhase + 1 */
} ProtoLinkSlot;

typedef struct {
  ProtoNodeId self;          /* set once the peer knows its id */
  gboolean opener_offers;    /* the side that opens a link offers, whatever the ids (a family where
                                only one side knows it wants the link: the pipeline's pushes);
                                FALSE: the larger id offers, as DISCO's both-sides-open pools */
  guint n_near;
  ProtoLinkSlot near[PROTO_LINKS_NEAR];   /* links, in no order; an id is here or in phase */
  DlIdMap phase;             /* the links past near: id -> ProtoLinkPhase + 1 (narrow) */
  GArray *queued;            /* messages waiting for their link */
  ProtoLinksHost host;
} ProtoLinks;

void proto_links_init (ProtoLinks *l, const ProtoLinksHost *host);
void proto_links_clear (ProtoLinks *l);

/* TRUE if we hold a link to id (its phase in *ph, if not NULL). */
gboolean proto_links_get (const ProtoLinks *l, ProtoNodeId id, ProtoLinkPhase *ph);
gboolean proto_links_is_up (const ProtoLinks *l, ProtoNodeId id);
/* Our link object to `other` (offering if we are the larger id). */
void proto_links_open (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other);
/* A SignalForPeer from the coordinator (msg->node: the other peer). */
void proto_links_signal (ProtoLinks *l, ProtoOutbox *out, const ProtoMsg *msg);
/* Over the link if it is up, else queued (opening it if need be); takes *m. */
void proto_links_send (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m);
/* The link came up: its queue goes.  FALSE if we hold no such link. */
gboolean proto_links_up (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other);
/* The link failed or closed: our side is destroyed with its queue; the
 * number of queued messages lost. */
guint proto_links_lost (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other);
/* Every link destroyed (in id order), every queue dropped. */
void proto_links_close_all (ProtoLinks *l, ProtoOutbox *out);

gint proto_node_id_cmp (gconstpointer a, gconstpointer b);

G_END_DECLS
