/* harness.c — the tests' hand-held world (harness.h): a SimTransport whose
 * callbacks queue what the host layer carries out of a machine's outbox,
 * and the functions that let a test deliver it.  The outbox itself is
 * walked only by host/sim-host.c. */
#include "config.h"

#include "tests/harness.h"
#include "host/sim-host.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- pairs */

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
log_line (Harness *h, ProtoNodeId node, const char *text)
{
  char *line;
  if (h->rules.log_times)
    {
      char b[DL_TIME_STR_LEN], who[16];
      if (node == PROTO_SERVER)
        g_strlcpy (who, "S", sizeof who);
      else
        g_snprintf (who, sizeof who, "p%u", node);
      line = g_strdup_printf ("%s %s %s", dl_time_format (h->now, b), who, text);
    }
  else
    line = g_strdup_printf ("%u %s", node, text);
  if (h->verbose)
    fprintf (stderr, "%s\n", line);
  g_ptr_array_add (h->log, line);
}

static gboolean
connected (Harness *h, ProtoNodeId i)
{
  ProtoPeerView v;
  proto_machine_view (h->m[i], &v);
  return v.connected;
}

/* ---------------------------------------------------------------- the transport */

static void
tr_send (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  Harness *h = ud;
  HarnessMsg q = { .from = from, .to = to, .via = via, .msg = *msg };
  proto_msg_init (msg, msg->type);   /* the contents moved to the queue */
  g_array_append_val (h->queue, q);
}

static void
tr_open_link (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator)
{
  (void) ud, (void) self, (void) other, (void) initiator;
}

static void
tr_connect_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  Harness *h = ud;
  if (!h->rules.pair_links)
    {
      guint64 p = ((guint64) self << 32) | other;
      g_array_append_val (h->links_pending, p);
      return;
    }
  guint64 p = pair (self, other);
  for (guint f = 0; f < h->n_fail_pairs; f++)
    if (h->fail_pairs[f] == p)
      return;
  if (!pair_in (h->links_pending, p))
    g_array_append_val (h->links_pending, p);
}

static void
tr_close_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  Harness *h = ud;
  if (!h->rules.pair_links)
    return;
  pair_remove (h->links_up, pair (self, other));
  pair_remove (h->links_pending, pair (self, other));
}

static void
tr_start_training (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round)
{
  Harness *h = ud;
  h->training[self] = TRUE;
  if (!h->rules.train_lowest_first)
    g_array_append_val (h->train, self);
  (void) weights, (void) round;
}

static void
tr_disconnect (gpointer ud, ProtoNodeId self)
{
  Harness *h = ud;
  if (!h->rules.close_on_disconnect)
    return;
  /* graceful: the coordinator sees the close after this outbox */
  HarnessMsg q = { .from = self, .to = PROTO_SERVER, .via = PROTO_VIA_SERVER, .closes = TRUE };
  proto_msg_init (&q.msg, PROTO_MSG_N_TYPES);
  g_array_append_val (h->queue, q);
}

static void
tr_observed (gpointer ud, ProtoNodeId self, const ProtoObservation *obs)
{
  g_autofree char *s = proto_observation_to_string (obs);
  log_line (ud, self, s);
}

static void
tr_arm (gpointer ud, ProtoNodeId self, DlTime deadline)
{
  Harness *h = ud;
  h->deadline[self] = deadline;
}

static void
tr_broken (gpointer ud, ProtoNodeId self, const char *why)
{
  Harness *h = ud;
  if (!h->broken)
    h->broken = g_strdup (why);
  (void) self;
}

/* no replicated coordinator here (test-replica.c has its own group) */
static const SimTransport hand_held = {
  .send = tr_send,
  .open_link = tr_open_link,
  .connect_link = tr_connect_link,
  .close_link = tr_close_link,
  .start_training = tr_start_training,
  .disconnect = tr_disconnect,
  .observed = tr_observed,
  .arm = tr_arm,
  .broken = tr_broken,
};

void
harness_feed (Harness *h, ProtoNodeId id, const ProtoInput *in)
{
  if (!h->alive[id])
    return;
  sim_host_feed (h->m[id], id, h->now, in, &hand_held, h);
}

/* ---------------------------------------------------------------- the world */

Harness *
harness_new (const ProtoConfig *cfg, guint n, gsize model_len, const ProtoPeerEnv *envs,
             const HarnessRules *rules)
{
  Harness *h = g_new0 (Harness, 1);
  h->cfg = *cfg;
  h->rules = *rules;
  h->n = n;
  h->m = g_new0 (ProtoMachine *, n + 1);
  h->peers = g_new0 (gpointer, n + 1);
  h->deadline = g_new0 (DlTime, n + 1);
  h->rng = g_new0 (DlRandom *, n + 1);
  h->alive = g_new0 (gboolean, n + 1);
  h->training = g_new0 (gboolean, n + 1);
  const ProtoFamily *f = proto_family_of (cfg);
  h->m[0] = f->new_coordinator (cfg);
  h->coord = h->m[0]->impl;
  h->alive[0] = TRUE;
  g_autoptr (LearnWeights) init = learn_weights_new (model_len);
  for (guint i = 1; i <= n; i++)
    {
      h->rng[i] = dl_random_new (rules->seed, "shares", i);
      ProtoPeerEnv env = { .region = "", .speed = 1, .uplink_bps = 20000000 };
      if (envs)
        env = envs[i - 1];
      if (env.id == 0)
        env.id = i;
      env.initial = init;
      env.rng = h->rng[i];
      h->m[i] = f->new_peer (cfg, &env);
      h->peers[i] = h->m[i]->impl;
      h->alive[i] = TRUE;
    }
  for (guint i = 0; i <= n; i++)
    h->deadline[i] = proto_machine_next_deadline (h->m[i]);
  h->queue = g_array_new (FALSE, FALSE, sizeof (HarnessMsg));
  h->links_pending = g_array_new (FALSE, FALSE, sizeof (guint64));
  h->links_up = g_array_new (FALSE, FALSE, sizeof (guint64));
  h->train = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  h->auto_links = TRUE;
  h->auto_train = TRUE;
  h->train_step = 1.0f;
  h->log = g_ptr_array_new_with_free_func (g_free);
  harness_unhold (h);
  h->verbose = g_getenv ("HARNESS_VERBOSE") != NULL;
  return h;
}

void
harness_free (Harness *h)
{
  for (guint i = 0; i <= h->n; i++)
    {
      proto_machine_free (h->m[i]);
      if (h->rng[i])
        dl_random_free (h->rng[i]);
    }
  for (guint i = 0; i < h->queue->len; i++)
    proto_msg_clear (&g_array_index (h->queue, HarnessMsg, i).msg);
  g_array_unref (h->queue);
  g_array_unref (h->links_pending);
  g_array_unref (h->links_up);
  g_array_unref (h->train);
  g_ptr_array_unref (h->log);
  g_free (h->m);
  g_free (h->peers);
  g_free (h->deadline);
  g_free (h->rng);
  g_free (h->alive);
  g_free (h->training);
  g_free (h->broken);
  g_free (h);
}

/* ---------------------------------------------------------------- delivery */

static void
deliver (Harness *h, HarnessMsg *q)
{
  if (!h->alive[q->from])
    return;   /* a crashed sender's messages vanish */
  if (q->closes)
    {
      harness_feed (h, PROTO_SERVER, &(ProtoInput) { .kind = PROTO_IN_STREAM_CLOSED, .from = q->from });
      return;
    }
  if (q->to != PROTO_SERVER)
    {
      if (q->to > h->n || (h->rules.needs_connected && !connected (h, q->to)))
        return;   /* to a gone node: vanishes */
      if (h->rules.pair_links && q->via == PROTO_VIA_LINK && !pair_in (h->links_up, pair (q->from, q->to)))
        {
          char s[80];
          g_snprintf (s, sizeof s, "link message %s to p%u lost (link not up)",
                      proto_msg_type_name (q->msg.type), q->to);
          log_line (h, q->from, s);
          return;
        }
    }
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = q->from, .via = q->via, .msg = &q->msg };
  harness_feed (h, q->to, &in);
}

/* Takes the queue's k-th entry out and delivers it. */
static void
deliver_at (Harness *h, guint k)
{
  HarnessMsg q = g_array_index (h->queue, HarnessMsg, k);
  g_array_remove_index (h->queue, k);
  deliver (h, &q);
  proto_msg_clear (&q.msg);
}

static gboolean
held (const Harness *h, const HarnessMsg *q)
{
  if (q->closes)
    return FALSE;
  for (int k = 0; k < HARNESS_HOLD_RULES; k++)
    if (h->hold_type[k] >= 0 && (int) q->msg.type == h->hold_type[k]
        && (h->hold_from[k] == PROTO_NO_NODE || q->from == h->hold_from[k])
        && (h->hold_to[k] == PROTO_NO_NODE || q->to == h->hold_to[k]))
      return TRUE;
  return FALSE;
}

void
harness_hold (Harness *h, ProtoMsgType type, ProtoNodeId from, ProtoNodeId to)
{
  for (int k = 0; k < HARNESS_HOLD_RULES; k++)
    if (h->hold_type[k] < 0)
      {
        h->hold_type[k] = (int) type;
        h->hold_from[k] = from;
        h->hold_to[k] = to;
        return;
      }
  g_error ("harness_hold: more than %d rules", HARNESS_HOLD_RULES);
}

void
harness_unhold (Harness *h)
{
  for (int k = 0; k < HARNESS_HOLD_RULES; k++)
    h->hold_type[k] = -1;
}

static void
bring_up (Harness *h, guint64 p)
{
  ProtoNodeId a = (ProtoNodeId) (p >> 32), b = (ProtoNodeId) (p & 0xffffffffu);
  if (h->rules.pair_links)
    g_array_append_val (h->links_up, p);
  ProtoInput in = { .kind = PROTO_IN_LINK_UP, .from = b };
  if (!h->rules.needs_connected || connected (h, a))
    harness_feed (h, a, &in);
  in.from = a;
  if (!h->rules.needs_connected || connected (h, b))
    harness_feed (h, b, &in);
}

void
harness_links_up (Harness *h)
{
  GArray *ready = g_array_copy (h->links_pending);
  g_array_set_size (h->links_pending, 0);
  for (guint k = 0; k < ready->len; k++)
    bring_up (h, g_array_index (ready, guint64, k));
  g_array_unref (ready);
}

void
harness_fail_link (Harness *h, ProtoNodeId a, ProtoNodeId b)
{
  g_assert (h->n_fail_pairs < G_N_ELEMENTS (h->fail_pairs));
  h->fail_pairs[h->n_fail_pairs++] = pair (a, b);
}

void
harness_finish_training (Harness *h, ProtoNodeId i)
{
  h->training[i] = FALSE;
  g_autoptr (LearnWeights) w = learn_weights_copy (proto_machine_model (h->m[i]));
  float *d = learn_weights_data_mut (w);
  for (gsize k = 0; k < learn_weights_len (w); k++)
    d[k] += h->train_step * (float) i * (h->rules.train_by_index ? (float) (k + 1) : 1.0f);
  harness_feed (h, i, &(ProtoInput) { .kind = PROTO_IN_TRAINING_DONE, .weights = w });
}

/* One move: a message, the pending links, one training. */
static gboolean
step (Harness *h)
{
  for (guint i = 0; i < h->queue->len; i++)
    if (!held (h, &g_array_index (h->queue, HarnessMsg, i)))
      {
        deliver_at (h, i);
        return TRUE;
      }
  if (h->auto_links && h->links_pending->len > 0)
    {
      if (h->rules.links_at_once)
        harness_links_up (h);
      else
        {
          guint64 p = g_array_index (h->links_pending, guint64, 0);
          g_array_remove_index (h->links_pending, 0);
          bring_up (h, p);
        }
      return TRUE;
    }
  if (!h->auto_train)
    return FALSE;
  if (h->rules.train_lowest_first)
    {
      for (guint i = 1; i <= h->n; i++)
        if (h->training[i])
          {
            harness_finish_training (h, i);
            return TRUE;
          }
      return FALSE;
    }
  if (h->train->len == 0)
    return FALSE;
  ProtoNodeId id = g_array_index (h->train, ProtoNodeId, 0);
  g_array_remove_index (h->train, 0);
  harness_finish_training (h, id);
  return TRUE;
}

void
harness_settle (Harness *h)
{
  for (guint guard = 0; guard < 1000000; guard++)
    if (!step (h))
      return;
  ck_abort_msg ("the hand-held world never settled");
}

static gboolean
matches (const HarnessMsg *q, ProtoMsgType type, ProtoNodeId to)
{
  return !q->closes && q->msg.type == type && (to == PROTO_NO_NODE || q->to == to);
}

gboolean
harness_deliver_one (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  for (guint i = 0; i < h->queue->len; i++)
    if (matches (&g_array_index (h->queue, HarnessMsg, i), type, to))
      {
        deliver_at (h, i);
        return TRUE;
      }
  return FALSE;
}

void
harness_deliver_close (Harness *h, ProtoNodeId from)
{
  for (guint i = 0; i < h->queue->len; i++)
    {
      const HarnessMsg *q = &g_array_index (h->queue, HarnessMsg, i);
      if (q->closes && q->from == from)
        {
          deliver_at (h, i);
          return;
        }
    }
}

guint
harness_drop (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  guint n = 0;
  for (guint i = 0; i < h->queue->len;)
    if (matches (&g_array_index (h->queue, HarnessMsg, i), type, to))
      {
        proto_msg_clear (&g_array_index (h->queue, HarnessMsg, i).msg);
        g_array_remove_index (h->queue, i);
        n++;
      }
    else
      i++;
  return n;
}

guint
harness_queued (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  guint n = 0;
  for (guint i = 0; i < h->queue->len; i++)
    n += matches (&g_array_index (h->queue, HarnessMsg, i), type, to);
  return n;
}

void
harness_advance_to (Harness *h, DlTime t)
{
  for (;;)
    {
      DlTime best = DL_TIME_NEVER;
      guint who = 0;
      for (guint i = 0; i <= h->n; i++)
        ck_assert_msg (!h->alive[i] || h->deadline[i] == proto_machine_next_deadline (h->m[i]),
                       "node %u was fed around the harness: the deadline armed for it is stale", i);
      for (guint i = 0; i <= h->n; i++)
        if (h->alive[i] && h->deadline[i] < best)
          {
            best = h->deadline[i];
            who = i;
          }
      if (best > t)
        break;
      h->now = MAX (h->now, best);
      harness_feed (h, who, &(ProtoInput) { .kind = PROTO_IN_DEADLINE });
    }
  h->now = MAX (h->now, t);
}

guint
harness_count_log (Harness *h, const char *needle)
{
  guint n = 0;
  for (guint i = 0; i < h->log->len; i++)
    n += strstr (g_ptr_array_index (h->log, i), needle) != NULL;
  return n;
}

void
harness_dump (Harness *h)
{
  for (guint i = 0; i < h->log->len; i++)
    fprintf (stderr, "  %s\n", (char *) g_ptr_array_index (h->log, i));
}
