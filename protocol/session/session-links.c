/* session-links.c — a peer's links for any family (session-links.h). */
#include "config.h"

#include "protocol/session/session-links.h"
#include "protocol/session/session-msgs.h"

typedef struct {
  ProtoNodeId to;
  ProtoMsg msg;
} Queued;

gint
proto_node_id_cmp (gconstpointer a, gconstpointer b)
{
  ProtoNodeId x = *(const ProtoNodeId *) a, y = *(const ProtoNodeId *) b;
  return (x > y) - (x < y);
}

void
proto_links_init (ProtoLinks *l, const ProtoLinksHost *host)
{
  l->self = PROTO_NO_NODE;
  l->n_near = 0;
  dl_id_map_init_narrow (&l->phase);
  l->queued = g_array_new (FALSE, TRUE, sizeof (Queued));
  l->host = *host;
}

static void
drop_queue (ProtoLinks *l, ProtoNodeId to, guint *lost)
{
  for (guint i = l->queued->len; i > 0; i--)
    {
      Queued *q = &g_array_index (l->queued, Queued, i - 1);
      if (to != PROTO_NO_NODE && q->to != to)
        continue;
      proto_msg_clear (&q->msg);
      g_array_remove_index (l->queued, i - 1);
      if (lost)
        (*lost)++;
    }
}

void
proto_links_clear (ProtoLinks *l)
{
  if (!l->queued)
    return;
  drop_queue (l, PROTO_NO_NODE, NULL);
  g_clear_pointer (&l->queued, g_array_unref);
  dl_id_map_clear (&l->phase);
}

/* id's index in l->near, l->n_near if it is not there */
static guint
near_index (const ProtoLinks *l, ProtoNodeId id)
{
  guint i = 0;
  while (i < l->n_near && l->near[i].id != id)
    i++;
  return i;
}

/* id's phase + 1, 0 if we hold no link to it */
static guint32
phase_of (const ProtoLinks *l, ProtoNodeId id)
{
  guint i = near_index (l, id);
  if (i < l->n_near)
    return l->near[i].phase;
  return dl_id_map_size (&l->phase) ? dl_id_map_lookup32 (&l->phase, id) : 0;
}

gboolean
proto_links_get (const ProtoLinks *l, ProtoNodeId id, ProtoLinkPhase *ph)
{
  guint32 v = phase_of (l, id);
  if (v && ph)
    *ph = (ProtoLinkPhase) (v - 1);
  return v != 0;
}

gboolean
proto_links_is_up (const ProtoLinks *l, ProtoNodeId id)
{
  ProtoLinkPhase ph;
  return proto_links_get (l, id, &ph) && ph == PROTO_LINKS_UP;
}

static void
set_phase (ProtoLinks *l, ProtoNodeId id, ProtoLinkPhase ph)
{
  guint i = near_index (l, id);
  if (i < l->n_near)
    l->near[i].phase = (guint32) ph + 1;
  else if (l->n_near < PROTO_LINKS_NEAR && !(dl_id_map_size (&l->phase) && dl_id_map_lookup32 (&l->phase, id)))
    l->near[l->n_near++] = (ProtoLinkSlot) { .id = id, .phase = (guint32) ph + 1 };
  else
    dl_id_map_insert32 (&l->phase, id, (guint32) ph + 1);
}

/* Forgets id's link: TRUE if we held one. */
static gboolean
steal_phase (ProtoLinks *l, ProtoNodeId id)
{
  guint i = near_index (l, id);
  if (i < l->n_near)
    {
      l->near[i] = l->near[--l->n_near];
      return TRUE;
    }
  return dl_id_map_steal32 (&l->phase, id) != 0;
}

static void
make_object (ProtoOutbox *out, ProtoNodeId other, gboolean initiator)
{
  proto_outbox_simple (out, PROTO_ACT_OPEN_LINK, other);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = initiator;
}

static void
signal_to (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other, ProtoSignal sig)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SIGNAL);
  m.node = other;
  m.signal = sig;
  l->host.send (l->host.ud, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

void
proto_links_open (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other)
{
  gboolean initiator = l->opener_offers || l->self > other;
  set_phase (l, other, initiator ? PROTO_LINKS_WAIT_ANSWER : PROTO_LINKS_WAIT_OFFER);
  make_object (out, other, initiator);
  if (initiator)
    signal_to (l, out, other, PROTO_SIGNAL_OFFER);
}

void
proto_links_signal (ProtoLinks *l, ProtoOutbox *out, const ProtoMsg *msg)
{
  ProtoNodeId other = msg->node;
  ProtoLinkPhase ph;
  gboolean known = proto_links_get (l, other, &ph);
  if (msg->signal == PROTO_SIGNAL_OFFER)
    {
      if (known && ph != PROTO_LINKS_WAIT_OFFER)
        {
          /* the other side made a new link: ours is stale */
          l->host.observe (l->host.ud, out, PROTO_OBS_LINK, other, -1, "offer for a link we hold: replaced");
          proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, other);
          known = FALSE;
        }
      if (!known)
        make_object (out, other, FALSE);
      signal_to (l, out, other, PROTO_SIGNAL_ANSWER);
      set_phase (l, other, PROTO_LINKS_CONNECTING);
    }
  else if (known && ph == PROTO_LINKS_WAIT_ANSWER)
    {
      set_phase (l, other, PROTO_LINKS_CONNECTING);
      proto_outbox_simple (out, PROTO_ACT_CONNECT_LINK, other);
    }
  else
    l->host.observe (l->host.ud, out, PROTO_OBS_REJECTED, other, PROTO_MSG_SIGNAL,
                     "answer for no offer of ours");
}

void
proto_links_send (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  if (proto_links_is_up (l, to))
    {
      l->host.send (l->host.ud, out, to, PROTO_VIA_LINK, m);
      return;
    }
  if (!proto_links_get (l, to, NULL))
    proto_links_open (l, out, to);
  Queued q = { .to = to, .msg = *m };
  proto_msg_init (m, m->type);
  g_array_append_val (l->queued, q);
}

gboolean
proto_links_up (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other)
{
  if (!proto_links_get (l, other, NULL))
    {
      l->host.observe (l->host.ud, out, PROTO_OBS_NOTE, other, -1, "link up for a link we no longer hold");
      return FALSE;
    }
  set_phase (l, other, PROTO_LINKS_UP);
  l->host.observe (l->host.ud, out, PROTO_OBS_LINK, other, -1, "up");
  for (guint i = 0; i < l->queued->len;)
    {
      Queued *q = &g_array_index (l->queued, Queued, i);
      if (q->to != other)
        {
          i++;
          continue;
        }
      ProtoMsg m = q->msg;
      g_array_remove_index (l->queued, i);
      l->host.send (l->host.ud, out, other, PROTO_VIA_LINK, &m);
    }
  return TRUE;
}

guint
proto_links_lost (ProtoLinks *l, ProtoOutbox *out, ProtoNodeId other)
{
  guint lost = 0;
  if (steal_phase (l, other))
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, other);
  drop_queue (l, other, &lost);
  if (lost)
    l->host.observe (l->host.ud, out, PROTO_OBS_NOTE, other, -1, "messages waiting for the link are lost with it");
  return lost;
}

void
proto_links_close_all (ProtoLinks *l, ProtoOutbox *out)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  uint32_t id;
  guint32 v;
  for (guint i = 0; i < l->n_near; i++)
    g_array_append_val (ids, l->near[i].id);
  for (guint i = 0; dl_id_map_next32 (&l->phase, &i, &id, &v);)
    g_array_append_val (ids, id);
  /* in id order: the outbox must not follow the hash table's order */
  g_array_sort (ids, proto_node_id_cmp);
  for (guint i = 0; i < ids->len; i++)
    proto_outbox_simple (out, PROTO_ACT_CLOSE_LINK, g_array_index (ids, ProtoNodeId, i));
  l->n_near = 0;
  dl_id_map_remove_all (&l->phase);
  drop_queue (l, PROTO_NO_NODE, NULL);
}
