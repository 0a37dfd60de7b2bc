/* gossip-members-private.h — the gossip coordinator's member table
 * (gossip-coord.c), a leaf: it never calls the coordinator back.
 *
 * The members, ascending id, and an id map over the same members; the
 * model provider a late joiner takes the model from, kept between joins;
 * and what a step's contact graph (gossip-graph-private.h) is built from:
 * the listed members' slots and their draws as pairs of slots.  The
 * coordinator decides every field a member's steps change (ready, listed,
 * period, drops); the table only holds them, finds them and reads them.
 *
 * Shape: _gossip_members_init / _gossip_members_clear on caller memory. */
#pragma once

#include "base/dl-idmap.h"
#include "base/dl-time.h"
#include "protocol/proto-message.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  ProtoNodeId id;
  gboolean ready;
  gboolean helper;      /* finished and stays: mixes when listed, no longer waited for */
  gboolean listed;      /* in the current step's list */
  gboolean answered;    /* its GossipTargets came */
  GArray *targets;      /* ProtoNodeId */
  GArray *last_nbrs;    /* its neighbours in the last graph (ProtoNodeId), for a repeat */
  uint32_t last_step;   /* that graph's step (G_MAXUINT32: none) */
  /* straggler policies */
  DlTime since;         /* when its last step ended for it (Neighbors or GossipSample sent), or it connected */
  DlTime period;        /* its last step's period: since -> PeerIsReady (0: none yet) */
  uint32_t dropped_until; /* drop-slowest: not waited for before this step */
  gboolean async_member;  /* async, or mixed and slow: steps of its own (GossipSample) */
  guint slot;             /* while try_graph builds the graph: its place among the listed */
} GossipMember;

typedef struct {
  GPtrArray *list;      /* GossipMember*, ascending id */
  DlIdMap by_id;        /* id -> GossipMember*, the same members: a lookup is one load, where a
                           binary search of 100 000 members missed the cache at each level */
  /* _gossip_members_sync_provider's answer with nobody excluded (NULL:
   * nobody has trained), kept from join to join while provider_known
   * (_gossip_members_provider_update) */
  const GossipMember *provider;
  gboolean provider_known;
} GossipMembers;

void _gossip_members_init (GossipMembers *t);
void _gossip_members_clear (GossipMembers *t);

/* id's member, or NULL (inline, as it was when the coordinator held the
 * table: it looks up the sender of every message) */
static inline GossipMember *
_gossip_members_lookup (const GossipMembers *t, ProtoNodeId id)
{
  return dl_id_map_lookup (&t->by_id, id);
}
/* Binary search; *at is where id is or would go (at NULL: a lookup). */
GossipMember *_gossip_members_find (const GossipMembers *t, ProtoNodeId id, guint *at);
/* A new member id (not one yet), in both indexes: no targets, no graph
 * yet (last_step G_MAXUINT32), every other field 0. */
GossipMember *_gossip_members_add (GossipMembers *t, ProtoNodeId id);
/* The member at `at` leaves both indexes and is freed. */
void _gossip_members_remove (GossipMembers *t, guint at);

/* m's last_step or period changed, or m leaves (gone): the kept provider
 * follows */
void _gossip_members_provider_update (GossipMembers *t, const GossipMember *m, gboolean gone);
/* A late joiner's model provider, never newcomer itself (PROTO_NO_NODE:
 * nobody else has trained); gossip-members.c says which */
ProtoNodeId _gossip_members_sync_provider (GossipMembers *t, ProtoNodeId newcomer);

/* The listed members take slots 0..n-1, in order: their ids (transfer
 * full) */
GArray *_gossip_members_listed_slots (GossipMembers *t);
/* The step's edges as pairs of slots (guint; transfer full) */
GArray *_gossip_members_graph_edges (const GossipMembers *t);

G_END_DECLS
