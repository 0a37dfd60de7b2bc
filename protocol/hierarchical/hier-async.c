/* hier-async.c — `straggler_policy = async` at a hierarchical head
 * (hier-peer-private.h): FedAsync at each head (Xie, Koyejo and Gupta,
 * "Asynchronous Federated Optimization", 2019) and asynchronous gossip
 * among the heads.  Nobody waits for anybody.
 *
 * - The head keeps its cluster's model x and a version (how many
 *   contributions it has mixed in).  A member's HierUpdate carries the
 *   version of the model it trained from (its last HierResult's round).
 * - The head mixes it in at once, x <- x + w (x_m - x), with the gossip
 *   family's weight w = async_mix x (1 + s)^-staleness_exponent, s = the
 *   head's version - the member's; the version goes up, and that member
 *   alone gets HierResult(version, x): its round ends and it trains again
 *   from x.
 * - After as many mixed updates as its cluster has active members (about
 *   one per member), the head pushes x as HierAgg to every head it knows in
 *   the tree (the top heads, its parent, its children); a head mixes a
 *   pushed model in with weight async_mix (heads' versions do not compare:
 *   no staleness between heads).
 * - A late joiner syncs x.
 * Models differ between clusters and within them over time, so the family
 * promises no agreement under async (hier-family.c). */
#include "config.h"

#include "protocol/hierarchical/hier-peer-private.h"

#include <math.h>

gboolean
hh_async (const HierPeer *p)
{
  return p->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC;
}

/* x + w (y - x), a new model */
static LearnWeights *
blend (LearnWeights *x, LearnWeights *y, double w)
{
  LearnWeights *r = learn_weights_copy (x);
  if (learn_weights_len (y) != learn_weights_len (x))
    return r;
  learn_weights_scal (r, (float) (1.0 - w));
  learn_weights_axpy (r, (float) w, y);
  return r;
}

static LearnWeights *
model_of (HierPeer *p)
{
  if (!p->async_model)
    p->async_model = learn_weights_ref (p->last_global ? p->last_global : p->model);
  return p->async_model;
}

static void
take (HierPeer *p, LearnWeights *y, double w)
{
  LearnWeights *x = blend (model_of (p), y, w);
  learn_weights_unref (p->async_model);
  p->async_model = x;
  p->async_version++;
}

/* x to every head it knows in the tree */
static void
push (HierPeer *p, ProtoOutbox *out)
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
      hp_send_link (p, out, h, &m);
    }
}

void
hh_async_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  model_of (p);
  guint s = p->async_version > base ? p->async_version - base : 0;
  double weight = p->cfg.async_mix * pow (1.0 + s, -p->cfg.staleness_exponent);
  take (p, w, weight);
  char detail[96];
  g_snprintf (detail, sizeof detail, "async: mixed in at staleness %u, weight %.3f: version %u", s, weight,
              p->async_version);
  hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
  if (from == p->id)
    hp_take_result (p, out, p->async_version, p->async_model);
  else
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
      m.round = p->async_version;
      m.degree = 1;
      proto_msg_set_weights (&m, p->async_model);
      hp_send_link (p, out, from, &m);
    }
  if (++p->async_since_push >= MAX (p->members->len, 1))
    push (p, out);
}

void
hh_async_agg (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, LearnWeights *w)
{
  if (!p->is_head || w == NULL)
    return;
  take (p, w, p->cfg.async_mix);
  char detail[80];
  g_snprintf (detail, sizeof detail, "async: another head's model mixed in: version %u", p->async_version);
  hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_AGG, -1, detail);
  g_clear_pointer (&p->last_global, learn_weights_unref);
  p->last_global = learn_weights_ref (p->async_model);
}

void
hh_async_clear (HierPeer *p)
{
  g_clear_pointer (&p->async_model, learn_weights_unref);
  p->async_version = 0;
  p->async_since_push = 0;
}
