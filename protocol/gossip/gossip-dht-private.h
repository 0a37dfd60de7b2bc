/* gossip-dht-private.h — Kademlia's routing table and lookup bookkeeping for
 * the gossip peer (gossip-dht.c), a leaf: it never calls the peer back.
 *
 * Every entry point that acts queues what it decided as effects
 * (GossipDhtEffect): a message to send over a peer link, or an observation;
 * the peer (gossip-peer-effects.c) takes them (gossip_dht_effects) and carries them
 * out in order, so the outbox is the same as if the table sent and
 * observed itself.  Every entry point takes a NULL table (no discovery =
 * kademlia) and then does nothing.
 *
 * Shape: gossip_dht_new / gossip_dht_free. */
#pragma once

#include "protocol/proto-message.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

typedef struct GossipDht GossipDht;

typedef enum {
  GOSSIP_DHT_SEND,      /* msg to `to` over a peer link (or queued until it is up) */
  GOSSIP_DHT_OBSERVE,   /* an observation: obs, about `to`, of type, value, detail */
} GossipDhtEffectKind;

typedef struct {
  GossipDhtEffectKind kind;
  ProtoNodeId to;
  ProtoMsg msg;                        /* SEND: owned until it is sent */
  ProtoObsKind obs;                    /* OBSERVE */
  int32_t type;
  int64_t value;
  char detail[PROTO_OBS_DETAIL_LEN];
} GossipDhtEffect;

/* (transfer full) an empty routing table of the peer `self`; buckets of at
 * most k contacts, lookups with alpha calls in flight, a call unanswered
 * for rpc_timeout fails. */
GossipDht *gossip_dht_new (ProtoNodeId self, guint k, guint alpha, DlTime rpc_timeout);
void gossip_dht_free (GossipDht *d);
/* (transfer none) the effects queued since the last gossip_dht_effects_done,
 * in order (*n of them; NULL if none); the caller may move a SEND's msg out. */
GossipDhtEffect *gossip_dht_effects (GossipDht *d, guint *n);
/* The queue emptied (messages not moved out released). */
void gossip_dht_effects_done (GossipDht *d);

/* A DhtNodes from `from`: the bootstrap (from the coordinator, call 0) or an answer. */
void gossip_dht_handle_nodes (GossipDht *d, DlTime now, ProtoNodeId from, const ProtoMsg *msg);
/* A DhtFindNode from `from`: the contacts closest to its key go back. */
void gossip_dht_handle_find (GossipDht *d, ProtoNodeId from, const ProtoMsg *msg);
/* A lookup for `target` (a bucket refresh: a random key). */
void gossip_dht_refresh (GossipDht *d, DlTime now, guint64 target);
/* The link to `other` is lost: its calls fail. */
void gossip_dht_link_lost (GossipDht *d, DlTime now, ProtoNodeId other);
/* The calls whose deadline passed fail. */
void gossip_dht_deadline (GossipDht *d, DlTime now);
/* The earliest call deadline (NEVER: none). */
DlTime gossip_dht_next_deadline (const GossipDht *d);
/* (transfer full) every contact, in id order. */
guint gossip_dht_contacts (const GossipDht *d, ProtoNodeId **out);

G_END_DECLS
