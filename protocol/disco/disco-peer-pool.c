/* disco-peer-pool.c — the peer's link pool as a data structure: PeerPool
 * (discojs/src/client/decentralized/peer_pool.ts) and the per-link receive
 * loops.  getPeers creates links only for unknown ids and records the new
 * ones as pending (the peer waits for them, with no timeout); shutdown
 * destroys them all; signals are applied to the pool's peers (peer.ts).
 * robust replaces closed or failed links and drops single links
 * (proto-config.h).  A leaf of disco-peer.c (disco-peer-private.h): the
 * peer decides what a link coming up or a bad signal leads to; this file
 * keeps the pool, sends through disco-peer-effects.c and calls nothing of
 * disco-peer.c. */
#include "config.h"

#include "protocol/disco/disco-peer.h"
#include "protocol/disco/disco-aggregator.h"
#include "protocol/disco/disco-peer-private.h"
#include "protocol/disco/disco-msgs.h"

#include <string.h>

/* The pool is a table of link records indexed by the other peer's id
 * (the ids are dense from 1), so that the lookup on each Payload and
 * signal loads the record and nothing before it.  The record's place was
 * first read from an id map of 4 bytes an id, a load the record's waited
 * for (_disco_peer_find_link was 6.2 % of `bench scale` at 3 000 peers:
 * docs/performance.md, issue 44).  The table spans the ids below a bound that grows with the
 * pool (4 ids a link, at least DL_ID_MAP_DENSE_MIN, as base/dl-idmap.c's
 * array); the records of the ids past it are kept apart, in `far` with
 * an id map to their places (a round of 10 among 10 000 peers).  `order`
 * keeps the ids in creation order (the order of PeerPool's `peers`, which
 * clientHandle and shutdown go through: peer_pool.ts). */
Link *
_disco_peer_pool_at (const DiscoPeer *p, guint i)
{
  return _disco_peer_find_link (p, p->order[i]);
}

gboolean
_disco_peer_loop_active (const Link *l)
{
  return l->active > 0;
}

/* One reception of a receive loop is used up, by a Payload or by its 60 s
 * wait running out: the next wait starts now. */
static void
loop_use (DiscoPeer *p, Link *l, RecvLoop *rl, DlTime now)
{
  rl->remaining--;
  rl->deadline = rl->remaining ? dl_time_add (now, p->cfg.payload_timeout) : DL_TIME_NEVER;
  if (rl->remaining == 0)
    l->active--;
}

/* A Payload from l's peer: each of l's loops with receptions left takes it. */
void
_disco_peer_loops_received (DiscoPeer *p, Link *l, DlTime now)
{
  RecvLoop *loops = _disco_peer_link_loops (l);
  for (guint i = 0; i < l->n_loops; i++)
    {
      RecvLoop *rl = &loops[i];
      if (rl->remaining > 0)
        loop_use (p, l, rl, now);
    }
}

/* The loops whose wait ran out use up one reception each; loops_deadline
 * becomes exact again. */
void
_disco_peer_loops_expire (DiscoPeer *p, DlTime now, ProtoOutbox *out)
{
  DlTime next = DL_TIME_NEVER;
  for (guint i = 0; i < p->pool_len; i++)
    {
      Link *l = _disco_peer_pool_at (p, i);
      RecvLoop *loops = _disco_peer_link_loops (l);
      for (guint k = 0; k < l->n_loops; k++)
        {
          RecvLoop *rl = &loops[k];
          if (rl->remaining > 0 && rl->deadline <= now)
            {
              loop_use (p, l, rl, now);
              _disco_peer_observe (p, out, PROTO_OBS_TIMER_FIRED, l->peer, DISCO_MSG_PAYLOAD, -1,
                          "payload receive timeout: one reception used up");
            }
          if (rl->remaining > 0)
            next = MIN (next, rl->deadline);
        }
    }
  p->loops_deadline = next;
}

/* The table's records are 64-byte aligned, so that a record is half a
 * cache line (each Payload reads its sender's: with malloc's 16-byte
 * alignment half of them straddled two). */
#define LINK_ALIGN 64

/* The table grows to span `id` if it is within the bound for a pool
 * about to hold `coming` more links; it moves every record it holds. */
static void
pool_cover (DiscoPeer *p, ProtoNodeId id, guint coming)
{
  guint limit = MAX (DL_ID_MAP_DENSE_MIN, 4 * (p->pool_len + coming));
  if (id < p->pool_span || id >= limit)
    return;
  guint span = MIN (MAX (id + 1, 2 * p->pool_span), limit);
  Link *grown = g_aligned_alloc0 (span, sizeof (Link), LINK_ALIGN);
  if (p->pool_span)
    memcpy (grown, p->pool, p->pool_span * sizeof (Link));
  g_aligned_free (p->pool);
  p->pool = grown;
  p->pool_span = span;
}

/* Is l in the table (else in `far`)? */
static gboolean
in_table (const DiscoPeer *p, const Link *l)
{
  return l->peer < p->pool_span && &p->pool[l->peer] == l;
}

/* A zeroed record for `id` (not in the pool), its id last in `order`. */
static Link *
link_new (DiscoPeer *p, ProtoNodeId id)
{
  pool_cover (p, id, 1);
  Link *l;
  if (id < p->pool_span)
    l = &p->pool[id];
  else
    {
      if (p->far_len == p->far_cap)
        {
          p->far_cap = MAX (16, 2 * p->far_cap);
          p->far = g_renew (Link, p->far, p->far_cap);
        }
      l = &p->far[p->far_len++];
      dl_id_map_insert32 (&p->far_index, id, p->far_len);
    }
  if (p->pool_len == p->order_cap)
    {
      p->order_cap = MAX (16, 2 * p->order_cap);
      p->order = g_renew (ProtoNodeId, p->order, p->order_cap);
    }
  p->order[p->pool_len++] = id;
  memset (l, 0, sizeof *l);
  l->peer = id;
  l->used = TRUE;
  return l;
}

/* Frees what l holds apart (not l: its place is the pool's). */
static void
link_release (Link *l)
{
  if (l->cap_log)
    g_free (l->heap);
}

void
_disco_peer_links_init (DiscoPeer *p)
{
  p->pool = p->far = NULL;
  p->order = NULL;
  p->pool_span = p->far_len = p->far_cap = p->pool_len = p->order_cap = 0;
  p->n_pending = 0;
  dl_id_map_init_narrow (&p->far_index);
}

void
_disco_peer_links_clear (DiscoPeer *p)
{
  for (guint i = 0; i < p->pool_len; i++)
    link_release (_disco_peer_pool_at (p, i));
  g_clear_pointer (&p->pool, g_aligned_free);
  g_clear_pointer (&p->far, g_free);
  g_clear_pointer (&p->order, g_free);
  p->pool_span = p->far_len = p->far_cap = p->pool_len = p->order_cap = 0;
  dl_id_map_clear (&p->far_index);
}

/* PeerPool.shutdown(): destroy every link; a fresh, empty pool (the
 * storage kept). */
void
_disco_peer_shutdown_pool (DiscoPeer *p, ProtoOutbox *out)
{
  for (guint i = 0; i < p->pool_len; i++)
    {
      Link *l = _disco_peer_pool_at (p, i);
      proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, l->peer);
      link_release (l);
    }
  if (p->pool_span)
    memset (p->pool, 0, p->pool_span * sizeof (Link));
  dl_id_map_remove_all (&p->far_index);
  p->far_len = 0;
  p->pool_len = 0;
  p->n_pending = 0;
}

/* l, a record of `far`, leaves it: the later ones move up a place. */
static void
far_remove (DiscoPeer *p, ProtoNodeId id)
{
  guint at = dl_id_map_steal32 (&p->far_index, id);
  g_assert (at > 0);
  memmove (&p->far[at - 1], &p->far[at], (p->far_len - at) * sizeof (Link));
  p->far_len--;
  for (guint i = at - 1; i < p->far_len; i++)
    dl_id_map_insert32 (&p->far_index, p->far[i].peer, i + 1);
}

/* robust: one link leaves the pool (closed), pending included.  The
 * later ids move up one place in `order`, keeping the pool's order. */
void
_disco_peer_drop_link (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  Link *l = _disco_peer_find_link (p, other);
  if (l == NULL)
    return;
  proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, other);
  _disco_peer_pending_remove (p, other);   /* reads the link's `pending` */
  link_release (l);
  if (in_table (p, l))
    memset (l, 0, sizeof *l);
  else
    far_remove (p, other);
  guint i = 0;
  while (p->order[i] != other)
    i++;
  memmove (&p->order[i], &p->order[i + 1], (p->pool_len - i - 1) * sizeof (ProtoNodeId));
  p->pool_len--;
}

/* setAggregatorNodes(peers + self): the list's order, then self. */
void
_disco_peer_set_nodes (DiscoPeer *p, const ProtoNodeId *peers, guint n)
{
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n + 1);
  if (n)
    memcpy (ids, peers, n * sizeof *ids);
  ids[n] = p->id;
  disco_aggregator_set_nodes (p->agg, ids, n + 1);
}

void
_disco_peer_set_nodes_self_only (DiscoPeer *p)
{
  _disco_peer_set_nodes (p, NULL, 0);
}

/* The links getPeers waits for: those with `pending` set, n_pending of
 * them.  Only the set's size and members are read (getPeers'
 * newPeersConnections, awaited whole: peer_pool.ts), so a flag in the
 * record is the set.  (It was a list of ids with each link's place in
 * it: 1 024 places a peer at 1 000 peers, kept after it emptied, 4.1 B
 * per message in flight; before that a map per peer from id to place,
 * 8 bytes an id: issue 44.) */
static void
pending_add (DiscoPeer *p, Link *l)
{
  g_assert (!l->pending);
  l->pending = TRUE;
  p->n_pending++;
}

/* getPeers starts a new set: no link is waited for. */
void
_disco_peer_pending_clear (DiscoPeer *p)
{
  if (p->n_pending == 0)
    return;   /* no link has the flag: nothing to walk */
  for (guint i = 0; i < p->pool_len; i++)
    _disco_peer_pool_at (p, i)->pending = FALSE;
  p->n_pending = 0;
}

/* Room in l for one more receive loop: the one in `own`, then the heap's,
 * doubled when full. */
static void
link_room (Link *l)
{
  guint cap = 1u << l->cap_log;
  if (l->n_loops < cap)
    return;
  g_assert (l->cap_log < 15);   /* n_loops is 16 bits */
  if (l->cap_log == 0)
    {
      RecvLoop first = l->own;   /* `heap` is written over it */
      l->heap = g_new (RecvLoop, 2 * cap);
      l->heap[0] = first;
    }
  else
    l->heap = g_renew (RecvLoop, l->heap, 2 * cap);
  l->cap_log++;
}

/* A link to `id` unless the pool has one (robust: one not closed or
 * failed), as PeerPool.getPeers does for each id.  The new link is
 * waited for if `wait`, or if it replaces one that was (S15: the new
 * link stands for the old in the set). */
static void
get_peer (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId id, gboolean wait)
{
  Link *known = _disco_peer_find_link (p, id);
  if (known && disco_config (&p->cfg)->robust_links
      && (known->state == DISCO_LINK_CLOSED || known->state == DISCO_LINK_FAILED))
    {
      /* S15: robust opens a new link in place of one that closed or failed */
      _disco_peer_observe (p, out, PROTO_OBS_LINK, id, -1, -1, "closed or failed: replaced");
      wait |= known->pending;
      _disco_peer_drop_link (p, out, id);
      known = NULL;
    }
  if (known)
    return;
  Link *l = link_new (p, id);
  l->initiator = p->id > id;
  l->state = l->initiator ? DISCO_LINK_WAIT_ANSWER : DISCO_LINK_WAIT_OFFER;
  if (wait)
    pending_add (p, l);
  proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, id);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = l->initiator;
  if (l->initiator)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL);
      m.node = id;
      m.signal = PROTO_SIGNAL_OFFER;
      _disco_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
    }
}

/* A sync getPeers for a newcomer (disco-peer-sync.c) that leaves the
 * links the peer waits for as they were (a link S15 replaces keeps its
 * place among them). */
void
_disco_peer_get_peer_aside (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId id)
{
  get_peer (p, out, id, FALSE);
}

/* Creates links for the ids not in the pool (they, and only they, are
 * waited for), as PeerPool.getPeers does.  With loops, starts receive
 * loops for the whole pool (the handle gets every pool peer, not only
 * `ids`). */
void
_disco_peer_get_peers (DiscoPeer *p, DlTime now, ProtoOutbox *out, const ProtoNodeId *ids, guint n, gboolean loops)
{
  _disco_peer_pending_clear (p);
  ProtoNodeId top = 0;
  for (guint i = 0; i < n; i++)
    top = MAX (top, ids[i]);
  pool_cover (p, top, n);   /* once for the list, not as it grows */
  for (guint i = 0; i < n; i++)
    get_peer (p, out, ids[i], TRUE);
  if (loops)
    for (guint i = 0; i < p->pool_len; i++)
      {
        Link *l = _disco_peer_pool_at (p, i);
        /* exhausted loops are gone: the last takes the place of each (the
         * order g_array_remove_index_fast gave, which timeouts follow) */
        RecvLoop *rls = _disco_peer_link_loops (l);
        for (guint k = l->n_loops; k > 0; k--)
          if (rls[k - 1].remaining == 0)
            rls[k - 1] = rls[--l->n_loops];
        RecvLoop rl = { .remaining = disco_aggregator_n_comm_rounds (p->agg),
                        .deadline = dl_time_add (now, p->cfg.payload_timeout) };
        link_room (l);
        _disco_peer_link_loops (l)[l->n_loops++] = rl;
        if (rl.remaining > 0)
          l->active++;
        p->loops_deadline = MIN (p->loops_deadline, rl.deadline);
      }
}

/* A pending link came up (or left the pool): TRUE if `id` was pending.
 * Constant time (with 1 000 peers all-to-all, a scan of a list at each
 * of a peer's 999 link-ups was a cost per link that grew with the peers:
 * issue 44). */
gboolean
_disco_peer_pending_remove (DiscoPeer *p, ProtoNodeId id)
{
  Link *l = _disco_peer_find_link (p, id);
  if (l == NULL || !l->pending)
    return FALSE;
  l->pending = FALSE;
  p->n_pending--;
  return TRUE;
}

/* robust: a link to `other` that is not up leaves the pool. */
void
_disco_peer_drop_link_unless_up (DiscoPeer *p, ProtoOutbox *out, ProtoNodeId other)
{
  Link *old = _disco_peer_find_link (p, other);
  if (old && old->state != DISCO_LINK_UP)
    _disco_peer_drop_link (p, out, other);
}

/* SignalForPeer: an offer answered or an answer taken.  NULL if it applied,
 * else the uncaught error it raises in DISCO (the signal is observed as
 * rejected). */
const char *
_disco_peer_pool_signal (DiscoPeer *p, const ProtoMsg *msg, ProtoOutbox *out)
{
  Link *l = _disco_peer_find_link (p, msg->node);
  if (l == NULL)
    {
      /* PeerPool.signal throws inside the SignalForPeer listener */
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, msg->node, PROTO_MSG_SIGNAL, -1,
               "received signal for unknown peer");
      return "uncaught 'received signal for unknown peer'";
    }
  if (msg->signal == PROTO_SIGNAL_OFFER && l->state == DISCO_LINK_WAIT_OFFER)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SIGNAL);
      m.node = msg->node;
      m.signal = PROTO_SIGNAL_ANSWER;
      _disco_peer_send_msg (p, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
      l->state = DISCO_LINK_CONNECTING;
    }
  else if (msg->signal == PROTO_SIGNAL_ANSWER && l->state == DISCO_LINK_WAIT_ANSWER)
    {
      l->state = DISCO_LINK_CONNECTING;
      proto_outbox_simple (out, PROTO_ACT_CONNECT_LINK, msg->node);
    }
  else
    {
      /* Peer.signal (peer.ts) throws inside the same listener */
      _disco_peer_observe (p, out, PROTO_OBS_REJECTED, msg->node, PROTO_MSG_SIGNAL, -1,
               "unexpected offer/answer (buffer size set twice)");
      return "uncaught 'buffer size set twice'";
    }
  return NULL;
}

/* Does the pool hold a link already destroyed (closed by the other side, or
 * failed)?  Then PeerPool.shutdown waits its 1 s cap (disco-peer.c). */
gboolean
_disco_peer_pool_has_destroyed (const DiscoPeer *p)
{
  gboolean slow = FALSE;
  for (guint i = 0; i < p->pool_len; i++)
    slow |= _disco_peer_pool_at (p, i)->state == DISCO_LINK_CLOSED
            || _disco_peer_pool_at (p, i)->state == DISCO_LINK_FAILED;
  return slow;
}

/* The machine interface's hint (ProtoMachineClass.prefetch): what handling
 * a message of `type` from `from` naming `node` reads, where one peer of
 * thousands is out of the cache (docs/performance.md, nt22, hn23): stage
 * 0 the peer's lines every message reads (its state, the type's counter,
 * the connected flag, the fields a Payload reads after `base`, DISCO's
 * flags at the head of its config: disco-peer-private.h); stage 1 the
 * link record of the sender (a Payload: _disco_peer_listens,
 * handle_payload) or of the peer a signal names
 * (_disco_peer_pool_signal), and a Payload's aggregator record and own
 * model's (the exchange's add compares the weights' lengths); stage 2
 * the aggregator's places of the sender. */
void
_disco_peer_prefetch (const void *impl, ProtoMsgType type, ProtoNodeId from, ProtoNodeId node, guint stage)
{
  const DiscoPeer *p = impl;
  gboolean payload = type == DISCO_MSG_PAYLOAD;
  switch (stage)
    {
    case 0:
      __builtin_prefetch (p);
      if ((unsigned) type < PROTO_MSG_N_TYPES)
        __builtin_prefetch (&p->base.received[type]);
      __builtin_prefetch (&p->base.connected);
      for (uintptr_t c = (uintptr_t) &p->pool & ~(uintptr_t) 63; c < (uintptr_t) &p->cfg; c += 64)
        __builtin_prefetch ((const void *) c);
      __builtin_prefetch (disco_config (&p->cfg));
      return;
    case 1:
      {
        ProtoNodeId other = payload ? from : node;
        if (other < p->pool_span)
          __builtin_prefetch (&p->pool[other]);
        if (payload && p->agg)
          disco_aggregator_prefetch (p->agg, from, 0);
        if (payload && p->model)
          __builtin_prefetch (p->model);
        return;
      }
    default:
      if (payload && p->agg)
        disco_aggregator_prefetch (p->agg, from, 1);
      return;
    }
}
