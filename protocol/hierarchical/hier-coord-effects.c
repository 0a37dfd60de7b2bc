/* hier-coord-effects.c — what the hierarchical coordinator (hier-coord.c)
 * does to the outside, through hier-coord-private.h: observations named by
 * its phase, sends (observed), and the messages it encodes (a cluster's
 * HierCluster, the heads tree's HierHeads, the latency probes).  A leaf:
 * it decides no transition and calls nothing of hier-coord.c; it reads its
 * records (hier-coord-records.c, which calls nothing of it). */
#include "config.h"

#include "protocol/hierarchical/hier-coord-private.h"
#include "protocol/hierarchical/hier-msgs.h"

void
_hier_coord_observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *fmt, ...)
{
  char detail[PROTO_OBS_DETAIL_LEN] = "";
  if (fmt)
    {
      va_list ap;
      va_start (ap, fmt);
      g_vsnprintf (detail, sizeof detail, fmt, ap);
      va_end (ap);
    }
  proto_outbox_observe (out, kind, _hier_coord_phase_names[c->base.state], -1, other, type, value, "%s", detail);
}

void
_hier_coord_send_msg (HierCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  _hier_coord_observe (c, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, m);
}

/* The members whose updates the head awaits: all but the resting; to
 * every member, or to `only` (PROTO_NO_NODE: all). */
void
_hier_coord_send_cluster_to (HierCoord *c, ProtoOutbox *out, Cluster *k, ProtoNodeId only)
{
  g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < k->members->len; i++)
    {
      Member *m = _hier_coord_find_member (c, g_array_index (k->members, ProtoNodeId, i), NULL);
      if (m && !m->resting)
        g_array_append_val (active, m->id);
    }
  for (guint i = 0; i < k->members->len; i++)
    {
      if (only != PROTO_NO_NODE && g_array_index (k->members, ProtoNodeId, i) != only)
        continue;
      ProtoMsg msg;
      proto_msg_init (&msg, PROTO_MSG_HIER_CLUSTER);
      msg.round = k->epoch;
      msg.node = k->head;
      proto_msg_set_peers (&msg, (const ProtoNodeId *) (const void *) active->data, active->len);
      _hier_coord_send_msg (c, out, g_array_index (k->members, ProtoNodeId, i), &msg);
    }
}

void
_hier_coord_send_cluster (HierCoord *c, ProtoOutbox *out, Cluster *k)
{
  _hier_coord_send_cluster_to (c, out, k, PROTO_NO_NODE);
}

/* send_heads_to's steps: the heads of the clusters that still work into
 * `heads` (a cluster whose members all finished has no more rounds:
 * nobody waits for its head); FALSE if an election is on */
static gboolean
working_heads (const HierCoord *c, GArray *heads)
{
  for (guint i = 0; i < c->clusters->len; i++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, i);
      gboolean working = FALSE;
      for (guint j = 0; j < k->members->len && !working; j++)
        {
          Member *m = _hier_coord_find_member (c, g_array_index (k->members, ProtoNodeId, j), NULL);
          working = m && !m->resting;
        }
      if (!working)
        continue;
      if (k->head == PROTO_NO_NODE)
        return FALSE;
      g_array_append_val (heads, k->head);
    }
  return TRUE;
}

/* ... the tree over `heads` (sorted): groups of `fanin` heads, level by
 * level, each under its first, until at most fanin are left at the top;
 * each head's parent into parent[] (PROTO_NO_NODE at the top), and
 * (transfer full) the top level, as indices into heads */
static GArray *
heads_tree (const GArray *heads, guint fanin, ProtoNodeId *parent)
{
  guint n = heads->len;
  for (guint i = 0; i < n; i++)
    parent[i] = PROTO_NO_NODE;
  GArray *level = g_array_new (FALSE, FALSE, sizeof (guint));   /* indices into heads */
  for (guint i = 0; i < n; i++)
    g_array_append_val (level, i);
  while (level->len > fanin)
    {
      g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint g = 0; g < level->len; g += fanin)
        {
          guint leader = g_array_index (level, guint, g);
          g_array_append_val (next, leader);
          for (guint j = g + 1; j < MIN (g + fanin, level->len); j++)
            parent[g_array_index (level, guint, j)] = g_array_index (heads, ProtoNodeId, leader);
        }
      g_array_set_size (level, 0);
      g_array_append_vals (level, next->data, next->len);
    }
  return level;
}

/* The heads tree: up to fanin heads exchange all-to-all; above, the heads
 * in id order form groups of fanin, each reporting to its first (lowest id)
 * head, and those first heads form the next level, until at most fanin are
 * left at the top.  Each head gets its parent, its children, and (at the
 * top) the top heads.  Sent once every working cluster has a head; to
 * every head, or to `only` (PROTO_NO_NODE: all). */
void
_hier_coord_send_heads_to (HierCoord *c, ProtoOutbox *out, ProtoNodeId only)
{
  g_autoptr (GArray) heads = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  if (!working_heads (c, heads))
    return;   /* an election is on: the tree goes out when it is over */
  g_array_sort (heads, hier_cmp_id);
  guint n = heads->len, fanin = MAX (hier_config (&c->cfg)->fanin, 2);
  g_autofree ProtoNodeId *parent = g_new (ProtoNodeId, MAX (n, 1));
  g_autoptr (GArray) level = heads_tree (heads, fanin, parent);
  g_autofree ProtoNodeId *top = g_new (ProtoNodeId, MAX (level->len, 1));
  for (guint i = 0; i < level->len; i++)
    top[i] = g_array_index (heads, ProtoNodeId, g_array_index (level, guint, i));
  c->heads_version++;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId h = g_array_index (heads, ProtoNodeId, i);
      if (only != PROTO_NO_NODE && h != only)
        continue;
      g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint j = 0; j < n; j++)
        if (parent[j] == h)
          g_array_append_val (kids, g_array_index (heads, ProtoNodeId, j));
      ProtoMsg msg;
      proto_msg_init (&msg, PROTO_MSG_HIER_HEADS);
      msg.round = c->heads_version;
      msg.degree = n;
      msg.node = parent[i];
      /* for a late joiner heading a cluster of its own: any other head, a
       * finished cluster's included (it keeps the last global model) */
      msg.key = PROTO_NO_NODE;
      for (guint q = 0; q < c->clusters->len && msg.key == PROTO_NO_NODE; q++)
        {
          ProtoNodeId hh = ((Cluster *) g_ptr_array_index (c->clusters, q))->head;
          if (hh != PROTO_NO_NODE && hh != h)
            msg.key = hh;
        }
      if (parent[i] == PROTO_NO_NODE)
        proto_msg_set_peers (&msg, top, level->len);
      guint nk = kids->len;
      proto_msg_take_indices (&msg, (guint32 *) (void *) g_array_free (g_steal_pointer (&kids), FALSE), nk);
      _hier_coord_send_msg (c, out, h, &msg);
    }
  if (level->len < n && only == PROTO_NO_NODE)
    _hier_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, level->len, "%u heads: %u at the top (fanin %u)", n,
             level->len, fanin);
}

void
_hier_coord_send_heads (HierCoord *c, ProtoOutbox *out)
{
  _hier_coord_send_heads_to (c, out, PROTO_NO_NODE);
}

void
_hier_coord_probe (HierCoord *c, ProtoOutbox *out, ProtoNodeId prober, guint32 group, ProtoNodeId landmark)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_set_peers (&m, &landmark, 1);
  _hier_coord_send_msg (c, out, prober, &m);
}

void
_hier_coord_probe_landmark (HierCoord *c, ProtoOutbox *out, guint32 group, ProtoNodeId landmark, const ProtoNodeId *probers,
                guint n)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_take_indices (&m, g_memdup2 (probers, n * sizeof *probers), n);
  _hier_coord_send_msg (c, out, landmark, &m);
}
