/* hier-peer-effects.c — what the hierarchical peer (hier-peer.c) does to
 * the outside, through hier-peer-private.h: observations named by the
 * state it is in, sends (observed), its links' host, and the messages it
 * encodes (probes, hellos, aggregates and results going out).  A leaf: it
 * decides no transition and calls nothing of hier-peer.c; it reads its
 * records (hier-peer-records.c, which calls nothing of it). */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

void
_hier_peer_observe (HierPeer *p, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *detail)
{
  proto_outbox_observe (out, kind, _hier_peer_state_names[p->base.state], (int32_t) p->base.rounds_done, other, type, value, "%s",
                        detail ? detail : "");
}

void
_hier_peer_set_state (HierPeer *p, ProtoOutbox *out, HierPeerState s)
{
  if (p->base.state == s)
    return;
  p->base.state = s;
  _hier_peer_observe (p, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, _hier_peer_state_names[s]);
}

void
_hier_peer_send_msg (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _hier_peer_observe (p, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, via, m);
}

static void
host_send (void *ud, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m)
{
  _hier_peer_send_msg (ud, out, to, via, m);
}

static void
host_observe (void *ud, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, const char *detail)
{
  _hier_peer_observe (ud, out, kind, other, type, -1, detail);
}

void
_hier_peer_send_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  proto_links_send (&p->links, out, to, m);
}

void
_hier_peer_open_link (HierPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  if (!proto_links_get (&p->links, id, NULL))
    proto_links_open (&p->links, out, id);
}

void
_hier_peer_probe_ping (HierPeer *p, ProtoOutbox *out, Probe *q)
{
  q->sent = p->now;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PING);
  m.round = q->index;
  _hier_peer_send_link (p, out, q->landmark, &m);
}

/* The i-th probe is over: its round trip (G_MAXUINT64: no link) to the coordinator. */
void
_hier_peer_probe_report (HierPeer *p, ProtoOutbox *out, guint i, guint64 rtt)
{
  Probe q = g_array_index (p->probes, Probe, i);
  g_array_remove_index (p->probes, i);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RTT);
  m.round = q.index;
  m.node = q.landmark;
  m.key = rtt;
  _hier_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

/* Its subtree of round hr to top head h, once a round (top_sent). */
void
_hier_peer_send_top (HierPeer *p, ProtoOutbox *out, ProtoNodeId h, LearnWeights *subtree, guint32 count)
{
  if (h == p->id || _hier_peer_listed (p->top_sent, h))
    return;
  g_array_append_val (p->top_sent, h);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_AGG);
  m.round = p->hr;
  m.degree = count;
  proto_msg_set_weights (&m, subtree);
  _hier_peer_send_link (p, out, h, &m);
}

/* distribute's steps: the global model of `round` down to its children:
 * those of the tree now, and those that sent it their subtree this round
 * (the tree may have changed since) */
void
_hier_peer_send_to_children (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t round)
{
  g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_array_append_vals (kids, p->children->data, p->children->len);
  for (guint i = 0; i < p->child_aggs->len; i++)
    if (g_array_index (p->child_aggs, Agg, i).round == round && !_hier_peer_listed (p->children, g_array_index (p->child_aggs, Agg, i).head))
      g_array_append_val (kids, g_array_index (p->child_aggs, Agg, i).head);
  for (guint i = 0; i < kids->len && global; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = round;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, global);
      _hier_peer_send_link (p, out, g_array_index (kids, ProtoNodeId, i), &m);
    }
}

/* ... and to the members whose updates it took, in id order; TRUE if it
 * is one of them itself (it takes the result last: it may start a round) */
gboolean
_hier_peer_send_to_members (HierPeer *p, ProtoOutbox *out, LearnWeights *global, guint64 total, uint32_t round)
{
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, p->updates);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      ProtoNodeId id = GPOINTER_TO_UINT (k) - 1;
      g_array_append_val (to, id);
    }
  g_array_sort (to, hier_cmp_id);
  gboolean self = FALSE;
  for (guint i = 0; i < to->len && global; i++)
    {
      ProtoNodeId id = g_array_index (to, ProtoNodeId, i);
      if (id == p->id)
        {
          self = TRUE;
          continue;
        }
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = round;
      m.degree = (guint32) MIN (total, G_MAXUINT32);
      proto_msg_set_weights (&m, global);
      _hier_peer_send_link (p, out, id, &m);
    }
  return self;
}

/* x to every head it knows in the tree */
void
_hier_peer_push (HierPeer *p, ProtoOutbox *out)
{
  p->async_since_push = 0;
  g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_array_append_vals (to, p->heads->data, p->heads->len);
  g_array_append_vals (to, p->children->data, p->children->len);
  if (p->parent != PROTO_NO_NODE)
    g_array_append_val (to, p->parent);
  for (guint i = 0; i < to->len; i++)
    {
      ProtoNodeId h = g_array_index (to, ProtoNodeId, i);
      if (h == p->id || h == PROTO_NO_NODE)
        continue;
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_AGG);
      m.round = p->async_version;
      m.degree = 1;
      proto_msg_set_weights (&m, p->async_model);
      _hier_peer_send_link (p, out, h, &m);
    }
}

/* HierHello to the coordinator, and again head_timeout later while no
 * HierCluster came: the hello may have been lost (a partition; with it
 * uncounted the clusters never form) or the announcement of its cluster
 * (it would wait for a head for good); the coordinator takes a repeat
 * before the clusters form as the first and answers one after with the
 * cluster as it is (hier-coord.c) */
void
_hier_peer_say_hello (HierPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_HELLO);
  m.degree = p->score;
  m.signal_data = g_strdup (p->region);
  m.helper = p->nat;
  _hier_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  p->hello_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
}

/* ClientConnected to the coordinator, and again head_timeout later while
 * no NewNodeInfo came (connecting): the answer may have been lost, and the
 * coordinator answers a repeat as the first (hier-coord.c) */
void
_hier_peer_say_connected (HierPeer *p, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HELLO);
  _hier_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  p->admit_deadline = dl_time_add (p->now, hier_config (&p->cfg)->head_timeout);
}

/* its links' host: sends and observations through the peer (session-links.h) */
void
_hier_peer_links_init (HierPeer *p)
{
  ProtoLinksHost h = { .ud = p, .send = host_send, .observe = host_observe };
  proto_links_init (&p->links, &h);
}
