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

/* A member's answer: the model w (HierResult), to itself without a message. */
static void
answer (HierPeer *p, ProtoOutbox *out, ProtoNodeId to, uint32_t round, LearnWeights *w)
{
  if (to == p->id)
    {
      hp_take_result (p, out, round, w);
      return;
    }
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_RESULT);
  m.round = round;
  m.degree = 1;
  proto_msg_set_weights (&m, w);
  hp_send_link (p, out, to, &m);
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
  answer (p, out, from, p->async_version, p->async_model);
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
  for (guint i = 0; i < p->async_in->len; i++)
    learn_weights_unref (g_array_index (p->async_in, AsyncIn, i).w);
  g_array_set_size (p->async_in, 0);
}

/* ---- straggler_policy = mixed ----
 *
 * Synchronous rounds among the members of similar speed, asynchronous for
 * the slow: at a round's end the head judges its members as drop-slowest
 * does (an update later than drop_factor x the round's median); a slow
 * member is no longer waited for, and its updates are taken
 * asynchronously: the head answers it at once with the latest global model
 * (it trains again without waiting for the round), and mixes the update
 * into its next cluster mean with the staleness weight
 * async_mix x (1 + s)^-staleness_exponent, s = the rounds since the global
 * it trained from.  An update that comes within drop_factor x the last
 * median of the model the head last sent it makes it synchronous again (as
 * the gossip family's mixed). */

static gboolean
slow_now (const HierPeer *p, ProtoNodeId m)
{
  gpointer v = g_hash_table_lookup (p->dropped, GUINT_TO_POINTER (m + 1));
  return v && p->hr < GPOINTER_TO_UINT (v) - 1;
}

gboolean
hh_mixed_update (HierPeer *p, ProtoOutbox *out, ProtoNodeId from, uint32_t base, LearnWeights *w)
{
  if (p->cfg.straggler_policy != PROTO_STRAGGLER_MIXED || !p->is_head || !slow_now (p, from) || w == NULL)
    return FALSE;
  gpointer sent = g_hash_table_lookup (p->async_sent, GUINT_TO_POINTER (from + 1));
  if (sent && p->last_median > 0)
    {
      DlTime took = p->now - ((DlTime) GPOINTER_TO_SIZE (sent) - 1);
      if ((double) took <= p->cfg.drop_factor * (double) p->last_median)
        {
          /* fast again: synchronous from this update on */
          g_hash_table_remove (p->dropped, GUINT_TO_POINTER (from + 1));
          g_hash_table_remove (p->async_sent, GUINT_TO_POINTER (from + 1));
          char d[96];
          g_snprintf (d, sizeof d, "mixed: fast again (%.3f s from its last model): synchronous", dl_time_to_s (took));
          hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, -1, d);
          return FALSE;
        }
    }
  g_hash_table_insert (p->async_sent, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) p->now + 1));
  guint s = p->hr > base + 1 ? p->hr - base - 1 : 0;
  AsyncIn a = { .from = from, .stale = s, .w = learn_weights_ref (w) };
  g_array_append_val (p->async_in, a);
  char detail[96];
  g_snprintf (detail, sizeof detail, "mixed: a slow member's update, %u rounds stale, for the next cluster mean", s);
  hp_observe (p, out, PROTO_OBS_NOTE, from, PROTO_MSG_HIER_UPDATE, s, detail);
  /* the latest global at once: it trains again without waiting for the round */
  uint32_t round = p->hr > 0 ? p->hr - 1 : 0;
  LearnWeights *g = p->last_global ? p->last_global : p->initial;
  answer (p, out, from, round, g);
  return TRUE;
}

LearnWeights *
hh_mixed_blend (HierPeer *p, ProtoOutbox *out, LearnWeights *mean)
{
  for (guint i = 0; i < p->async_in->len; i++)
    {
      AsyncIn *a = &g_array_index (p->async_in, AsyncIn, i);
      if (mean)
        {
          double wt = p->cfg.async_mix * pow (1.0 + a->stale, -p->cfg.staleness_exponent);
          LearnWeights *x = blend (mean, a->w, wt);
          learn_weights_unref (mean);
          mean = x;
          char detail[80];
          g_snprintf (detail, sizeof detail, "mixed: mixed in at staleness %u, weight %.3f", a->stale, wt);
          hp_observe (p, out, PROTO_OBS_NOTE, a->from, PROTO_MSG_HIER_UPDATE, a->stale, detail);
        }
      else
        mean = learn_weights_ref (a->w);   /* only slow members this round */
      learn_weights_unref (a->w);
    }
  g_array_set_size (p->async_in, 0);
  return mean;
}
