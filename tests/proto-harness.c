/* proto-harness.c — see proto-harness.h. */
#include "config.h"

#include "tests/proto-harness.h"

#include <stdio.h>
#include <string.h>

static guint64
pair (ProtoNodeId a, ProtoNodeId b)
{
  ProtoNodeId lo = MIN (a, b), hi = MAX (a, b);
  return ((guint64) lo << 32) | hi;
}

static gboolean
pair_in (GArray *a, guint64 p)
{
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, guint64, i) == p)
      return TRUE;
  return FALSE;
}

static void
pair_remove (GArray *a, guint64 p)
{
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, guint64, i) == p)
      {
        g_array_remove_index (a, i);
        return;
      }
}

static void
logf_ (Harness *h, ProtoNodeId node, const char *text)
{
  char b[DL_TIME_STR_LEN], who[16];
  if (node == PROTO_SERVER)
    g_strlcpy (who, "S", sizeof who);
  else
    g_snprintf (who, sizeof who, "p%u", node);
  char *line = g_strdup_printf ("%s %s %s", dl_time_format (h->now, b), who, text);
  if (h->verbose)
    fprintf (stderr, "%s\n", line);
  g_ptr_array_add (h->log, line);
}

static void apply (Harness *h, ProtoNodeId node, ProtoOutbox *out);

static void
feed_coord (Harness *h, const ProtoInput *in)
{
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_coord_handle (h->coord, h->now, in, &out);
  apply (h, PROTO_SERVER, &out);
  proto_outbox_clear (&out);
}

static void
feed_peer (Harness *h, guint i, const ProtoInput *in)
{
  ProtoOutbox out;
  proto_outbox_init (&out);
  proto_peer_handle (h->peers[i], h->now, in, &out);
  apply (h, i, &out);
  proto_outbox_clear (&out);
}

static void
apply (Harness *h, ProtoNodeId node, ProtoOutbox *out)
{
  for (guint k = 0; k < proto_outbox_len (out); k++)
    {
      ProtoAction *a = proto_outbox_get (out, k);
      switch (a->kind)
        {
        case PROTO_ACT_SEND:
          {
            HMsg m = { .from = node, .to = a->to, .via = a->via };
            proto_msg_copy (&m.msg, &a->msg);
            g_array_append_val (h->queue, m);
            break;
          }
        case PROTO_ACT_OPEN_LINK:
          break;
        case PROTO_ACT_CONNECT_LINK:
          {
            guint64 p = pair (node, a->to);
            gboolean fails = FALSE;
            for (guint f = 0; f < h->n_fail_pairs; f++)
              fails |= h->fail_pairs[f] == p;
            if (!fails && !pair_in (h->links_pending, p))
              g_array_append_val (h->links_pending, p);
            break;
          }
        case PROTO_ACT_CLOSE_LINK:
          pair_remove (h->links_up, pair (node, a->to));
          pair_remove (h->links_pending, pair (node, a->to));
          break;
        case PROTO_ACT_START_TRAINING:
          h->training[node] = TRUE;
          break;
        case PROTO_ACT_DISCONNECT:
          {
            ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = node };
            /* graceful: the coordinator sees the close at once (after this outbox) */
            HMsg m = { .from = node, .to = PROTO_SERVER, .via = PROTO_VIA_SERVER };
            proto_msg_init (&m.msg, PROTO_MSG_N_TYPES); /* marker: stream close */
            (void) in;
            g_array_append_val (h->queue, m);
            break;
          }
        case PROTO_ACT_SET_DEADLINE:
          break;
        case PROTO_ACT_RECONNECT:
        case PROTO_ACT_CLOSE_STREAM:
          break;   /* a replicated coordinator's (test-replica.c); none here */
        case PROTO_ACT_OBSERVE:
          {
            g_autofree char *s = proto_observation_to_string (&a->obs);
            logf_ (h, node, s);
            break;
          }
        }
    }
}

Harness *
h_new (const ProtoConfig *cfg, guint n_peers, gsize model_len)
{
  Harness *h = g_new0 (Harness, 1);
  h->cfg = *cfg;
  h->coord = proto_coord_new (cfg);
  h->n = n_peers;
  h->peers = g_new0 (ProtoPeer *, n_peers + 1);
  h->rngs = g_new0 (DlRandom *, n_peers + 1);
  h->training = g_new0 (gboolean, n_peers + 1);
  g_autoptr (LearnWeights) init = learn_weights_new (model_len);
  for (guint i = 1; i <= n_peers; i++)
    {
      h->rngs[i] = dl_random_new (7, "shares", i);
      h->peers[i] = proto_peer_new (cfg, init, h->rngs[i]);
    }
  h->queue = g_array_new (FALSE, FALSE, sizeof (HMsg));
  h->links_pending = g_array_new (FALSE, FALSE, sizeof (guint64));
  h->links_up = g_array_new (FALSE, FALSE, sizeof (guint64));
  h->auto_links = TRUE;
  h->auto_train = TRUE;
  h->train_step = 1.0f;
  h->log = g_ptr_array_new_with_free_func (g_free);
  h_unhold (h);
  h->verbose = g_getenv ("HARNESS_VERBOSE") != NULL;
  return h;
}

void
h_free (Harness *h)
{
  proto_coord_free (h->coord);
  for (guint i = 1; i <= h->n; i++)
    {
      proto_peer_free (h->peers[i]);
      dl_random_free (h->rngs[i]);
    }
  for (guint i = 0; i < h->queue->len; i++)
    proto_msg_clear (&g_array_index (h->queue, HMsg, i).msg);
  g_array_unref (h->queue);
  g_array_unref (h->links_pending);
  g_array_unref (h->links_up);
  g_ptr_array_unref (h->log);
  g_free (h->peers);
  g_free (h->rngs);
  g_free (h->training);
  g_free (h);
}

void
h_start (Harness *h, guint i)
{
  ProtoInput in = { .kind = PROTO_IN_START };
  feed_peer (h, i, &in);
}

static void
deliver (Harness *h, HMsg *m)
{
  if (m->msg.type == PROTO_MSG_N_TYPES)
    {
      ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = m->from };
      feed_coord (h, &in);
      return;
    }
  if (m->to == PROTO_SERVER)
    {
      ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = m->from, .via = m->via, .msg = &m->msg };
      feed_coord (h, &in);
      return;
    }
  if (m->to > h->n || !proto_peer_connected (h->peers[m->to]))
    return;  /* to a gone node: vanishes */
  if (m->via == PROTO_VIA_LINK && !pair_in (h->links_up, pair (m->from, m->to)))
    {
      char s[80];
      g_snprintf (s, sizeof s, "link message %s to p%u lost (link not up)",
                  proto_msg_type_name (m->msg.type), m->to);
      logf_ (h, m->from, s);
      return;
    }
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = m->from, .via = m->via, .msg = &m->msg };
  feed_peer (h, m->to, &in);
}

static gboolean
held (const Harness *h, const HMsg *m)
{
  for (int k = 0; k < 4; k++)
    if (h->hold_type[k] >= 0 && (int) m->msg.type == h->hold_type[k]
        && (h->hold_from[k] == PROTO_NO_NODE || m->from == h->hold_from[k])
        && (h->hold_to[k] == PROTO_NO_NODE || m->to == h->hold_to[k]))
      return TRUE;
  return FALSE;
}

static void
hold (Harness *h, ProtoMsgType type, ProtoNodeId from, ProtoNodeId to)
{
  for (int k = 0; k < 4; k++)
    if (h->hold_type[k] < 0)
      {
        h->hold_type[k] = (int) type;
        h->hold_from[k] = from;
        h->hold_to[k] = to;
        return;
      }
  g_error ("h_hold: more than four rules");
}

void
h_hold (Harness *h, ProtoMsgType type, ProtoNodeId from)
{
  hold (h, type, from, PROTO_NO_NODE);
}

void
h_hold_to (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  hold (h, type, PROTO_NO_NODE, to);
}

void
h_unhold (Harness *h)
{
  for (int k = 0; k < 4; k++)
    h->hold_type[k] = -1;
}

static gboolean
step (Harness *h)
{
  for (guint i = 0; i < h->queue->len; i++)
    {
      if (held (h, &g_array_index (h->queue, HMsg, i)))
        continue;
      HMsg m = g_array_index (h->queue, HMsg, i);
      g_array_remove_index (h->queue, i);
      deliver (h, &m);
      proto_msg_clear (&m.msg);
      return TRUE;
    }
  if (h->auto_links && h->links_pending->len > 0)
    {
      h_links_up (h);
      return TRUE;
    }
  if (h->auto_train)
    for (guint i = 1; i <= h->n; i++)
      if (h->training[i])
        {
          h_finish_training (h, i);
          return TRUE;
        }
  return FALSE;
}

void
h_settle (Harness *h)
{
  for (int guard = 0; guard < 1000000 && step (h); guard++)
    ;
}

static gboolean
matches (const HMsg *m, ProtoMsgType type, ProtoNodeId to)
{
  return m->msg.type == type && (to == PROTO_NO_NODE || m->to == to);
}

gboolean
h_deliver_one (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  for (guint i = 0; i < h->queue->len; i++)
    if (matches (&g_array_index (h->queue, HMsg, i), type, to))
      {
        HMsg m = g_array_index (h->queue, HMsg, i);
        g_array_remove_index (h->queue, i);
        deliver (h, &m);
        proto_msg_clear (&m.msg);
        return TRUE;
      }
  return FALSE;
}

guint
h_drop (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  guint n = 0;
  for (guint i = 0; i < h->queue->len;)
    if (matches (&g_array_index (h->queue, HMsg, i), type, to))
      {
        proto_msg_clear (&g_array_index (h->queue, HMsg, i).msg);
        g_array_remove_index (h->queue, i);
        n++;
      }
    else
      i++;
  return n;
}

guint
h_queued (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  guint n = 0;
  for (guint i = 0; i < h->queue->len; i++)
    n += matches (&g_array_index (h->queue, HMsg, i), type, to);
  return n;
}

void
h_advance_to (Harness *h, DlTime t)
{
  for (;;)
    {
      DlTime best = proto_coord_next_deadline (h->coord);
      guint who = 0;
      for (guint i = 1; i <= h->n; i++)
        {
          DlTime d = proto_peer_next_deadline (h->peers[i]);
          if (d < best)
            {
              best = d;
              who = i;
            }
        }
      if (best > t)
        break;
      h->now = MAX (h->now, best);
      ProtoInput in = { .kind = PROTO_IN_DEADLINE };
      if (who == 0)
        feed_coord (h, &in);
      else
        feed_peer (h, who, &in);
    }
  h->now = MAX (h->now, t);
}

void
h_advance (Harness *h, DlTime dt)
{
  h_advance_to (h, h->now + dt);
}

void
h_finish_training (Harness *h, guint i)
{
  h->training[i] = FALSE;
  g_autoptr (LearnWeights) w = learn_weights_copy (proto_peer_model (h->peers[i]));
  float *d = learn_weights_data_mut (w);
  for (gsize k = 0; k < learn_weights_len (w); k++)
    d[k] += h->train_step * (float) i * (float) (k + 1);
  ProtoInput in = { .kind = PROTO_IN_TRAINING_DONE, .weights = w };
  feed_peer (h, i, &in);
}

void
h_links_up (Harness *h)
{
  GArray *ready = g_array_copy (h->links_pending);
  g_array_set_size (h->links_pending, 0);
  for (guint k = 0; k < ready->len; k++)
    {
      guint64 p = g_array_index (ready, guint64, k);
      ProtoNodeId a = (ProtoNodeId) (p >> 32), b = (ProtoNodeId) (p & 0xffffffffu);
      g_array_append_val (h->links_up, p);
      ProtoInput in = { .kind = PROTO_IN_LINK_UP, .from = b };
      if (proto_peer_connected (h->peers[a]))
        feed_peer (h, a, &in);
      in.from = a;
      if (proto_peer_connected (h->peers[b]))
        feed_peer (h, b, &in);
    }
  g_array_unref (ready);
}

void
h_fail_link (Harness *h, ProtoNodeId a, ProtoNodeId b)
{
  g_assert (h->n_fail_pairs < G_N_ELEMENTS (h->fail_pairs));
  h->fail_pairs[h->n_fail_pairs++] = pair (a, b);
}

void
h_leave (Harness *h, guint i)
{
  ProtoInput in = { .kind = PROTO_IN_LEAVE };
  feed_peer (h, i, &in);
  h->training[i] = FALSE;
  /* deliver the close now: graceful leaves are seen at once */
  for (guint k = 0; k < h->queue->len; k++)
    {
      HMsg *m = &g_array_index (h->queue, HMsg, k);
      if (m->from == i && m->msg.type == PROTO_MSG_N_TYPES)
        {
          HMsg copy = *m;
          g_array_remove_index (h->queue, k);
          deliver (h, &copy);
          break;
        }
    }
}

void
h_to_coord (Harness *h, ProtoNodeId from, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = from, .msg = &m };
  feed_coord (h, &in);
}

void
h_to_peer (Harness *h, guint i, ProtoNodeId from, const ProtoMsg *msg)
{
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = from,
                    .via = from == PROTO_SERVER ? PROTO_VIA_SERVER : PROTO_VIA_LINK, .msg = msg };
  feed_peer (h, i, &in);
}

guint
h_count_log (Harness *h, const char *needle)
{
  guint n = 0;
  for (guint i = 0; i < h->log->len; i++)
    n += strstr (g_ptr_array_index (h->log, i), needle) != NULL;
  return n;
}

void
h_dump (Harness *h)
{
  for (guint i = 0; i < h->log->len; i++)
    fprintf (stderr, "  %s\n", (char *) g_ptr_array_index (h->log, i));
}

ProtoConfig
h_cfg (ProtoVersion v, guint min, guint rounds)
{
  ProtoConfig c;
  proto_config_init (&c, v);
  c.min_participants = min;
  c.rounds = rounds;
  return c;
}

gboolean
h_state_is (Harness *h, guint i, ProtoPeerState s)
{
  if (proto_peer_state (h->peers[i]) == s)
    return TRUE;
  h_dump (h);
  return FALSE;
}

Harness *
h_pair_training (const ProtoConfig *c, guint n_peers)
{
  Harness *h = h_new (c, n_peers, 4);
  h->auto_train = FALSE;
  h_start (h, 1);
  h_start (h, 2);
  h_settle (h);
  return h;
}

Harness *
h_two_training (ProtoVersion v, guint rounds)
{
  ProtoConfig c = h_cfg (v, 2, rounds);
  return h_pair_training (&c, 2);
}
