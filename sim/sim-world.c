/* sim-world.c — hosts, network, links, compute, timeline, churn, outcome.
 *
 * Network: a message occupies the sender's uplink (FIFO, at its rate), then
 * propagation latency (sampled per message), then the receiver's downlink
 * (FIFO, at its rate).  Per (sender, receiver, channel) delivery is ordered:
 * a later message never arrives before an earlier one, whatever the jitter.
 * The coordinator's own links are not rate-limited.  Weight messages are
 * charged their real wire size.
 *
 * Links: after the initiator has the answer, a link comes up after
 * link_setup, or never (connect_failure, both ends behind symmetric NAT, a
 * partition, a link-fail action): the machines are told LINK_FAILED, which
 * DISCO ignores.  A link a side closes is closed for the other side too; an
 * open link hit by link-down dies silently (what is sent on it is lost).
 *
 * Compute: samples x epochs x sample_cost / speed; stragglers are slower by
 * their factor; `slow` divides the speed.  The model really trains; the wall
 * time it takes is not simulated time.
 *
 * Departures: a graceful close reaches the coordinator as a close frame
 * behind what the peer already sent (same stream, its latency); a crash
 * loses what had not fully left the uplink, and the coordinator sees it
 * after a sampled crash_detection, or never.  docs/world.md has the table.
 *
 * Hang detector: the world is quiet when no message is in flight, nobody
 * trains, no link is being set up, no timed action or churn event is
 * pending and no peer waits on a sync timeout.  Coordinator timers may
 * still cycle; that is not progress.  A world quiet with no peer progress for
 * (M + 2) x T + model_sync_timeout + payload_timeout has stalled.
 *
 * Not modelled: packet loss or TCP dynamics (streams are reliable with a
 * rate), coordinator bandwidth, trickled ICE, a partition closing a stream
 * (messages across a partition are lost; streams stay open). */
#include "config.h"

#include "sim/sim-world.h"
#include "sim/sim-host.h"
#include "protocol/proto-coord.h"
#include "protocol/proto-peer.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sim-error-quark, sim_error)

typedef enum { NODE_ABSENT, NODE_ONLINE, NODE_LEFT, NODE_CRASHED } NodeStatus;

typedef struct {
  ProtoNodeId id;
  NodeStatus status;
  ProtoPeer *peer;
  DlRandom *rng_net;      /* latency samples of messages it sends */
  DlRandom *rng_train;    /* minibatch order */
  DlRandom *rng_shares;   /* secure aggregation shares */
  double speed;
  double slow;            /* divisor from `slow` actions */
  gboolean straggler;
  gboolean nat_symmetric;
  DlTime up_free, down_free;
  SimEventId deadline_ev;
  SimEventId train_ev;
  LearnWeights *train_result;
  LearnDataset *shard;
  gboolean coord_closed;  /* the coordinator has processed its stream close */
  DlTime joined, left;
  DlTime progress;        /* last phase change */
  double accuracy, loss;
  gboolean in_sync_wait;
} Node;

typedef struct {
  gboolean obj[2];        /* each side holds a link object */
  gboolean up, dead, never, pending, failed;
  DlTime extra_setup;     /* link-slow */
  SimEventId setup_ev;
} Link;

typedef struct Msg Msg;
struct Msg {
  ProtoNodeId from, to;
  ProtoVia via;
  ProtoMsg msg;
  gsize bytes;
  DlTime wire_done;   /* its last byte left the sender's uplink */
  gboolean close;     /* not a message: the stream's close frame (graceful close) */
  Msg *prev, *next;   /* the world's list of messages in flight */
};

typedef struct {
  int msg_type;
  ProtoNodeId node;
  gboolean from;      /* drop rules: match the sender instead of the receiver */
  guint count;
  DlTime delay;
} Rule;

struct SimWorld {
  SimWorldConfig cfg;
  SimRecorder rec;
  SimEngine *engine;
  ProtoCoord *coord;
  SimEventId coord_deadline_ev;
  GPtrArray *nodes;         /* Node*, index = id; [0] unused */
  GHashTable *links;        /* pair -> Link* */
  GHashTable *channels;     /* (from, to, via) -> last arrival time (boxed) */
  DlRandom *rng_links, *rng_churn;
  LearnPartition *partition;
  LearnWeights *initial;
  GArray *drop_rules, *delay_rules;   /* Rule */
  GArray *groups;                     /* current partition, NULL when healed */
  guint next_id;
  guint64 in_flight, training, link_setups, timed_pending, churn_pending;
  DlTime progress;
  guint round_started;                /* coordinator rounds started (1-based count) */
  SimTally tally;                     /* counters from the observations */
  gboolean finished;
  SimResult result;
  GArray *peer_results;               /* SimPeerResult */
  Msg *flight;                        /* messages in flight (freed with the world) */
  GHashTable *wire_sizes;             /* (type, weight bytes) -> wire size of weight messages */
  DlTime last_arrival;                /* last message delivery */
  DlTime completed_at;                /* DL_TIME_NEVER unless completed */
  const volatile int *interrupt;
};

void
sim_world_set_interrupt (SimWorld *w, const volatile int *flag)
{
  w->interrupt = flag;
}

static Node *
node_at (const SimWorld *w, ProtoNodeId id)
{
  return id < w->nodes->len ? g_ptr_array_index (w->nodes, id) : NULL;
}

const char *
sim_outcome_name (SimOutcome o)
{
  switch (o)
    {
    case SIM_OUTCOME_COMPLETED: return "completed";
    case SIM_OUTCOME_STALLED: return "stalled";
    case SIM_OUTCOME_TIME_LIMIT: return "time_limit";
    case SIM_OUTCOME_INTERRUPTED: return "interrupted";
    }
  return "?";
}

const char *
sim_peer_outcome_name (SimPeerOutcome o)
{
  switch (o)
    {
    case SIM_PEER_FINISHED: return "finished";
    case SIM_PEER_FAILED: return "failed";
    case SIM_PEER_EXCLUDED: return "excluded";
    case SIM_PEER_HUNG: return "hung";
    case SIM_PEER_LEFT: return "left";
    case SIM_PEER_CRASHED: return "crashed";
    case SIM_PEER_RUNNING: return "running";
    case SIM_PEER_ABSENT: return "absent";
    }
  return "?";
}

void
sim_world_config_init (SimWorldConfig *c)
{
  memset (c, 0, sizeof *c);
  c->seed = 1;
  c->time_limit = 2 * DL_H;
  proto_config_init (&c->proto, PROTO_VERSION_DISCO_1110);
  c->proto.min_participants = 2;
  c->n_peers = 3;
  c->speed = dl_dist_constant (DL_UNIT_NUMBER, 1);
  c->straggler_slowdown = 1;
  c->sample_cost = DL_MS;
  c->epochs_per_round = 1;
  c->latency = dl_dist_constant (DL_UNIT_DURATION, 40e6);
  c->server_latency = dl_dist_constant (DL_UNIT_DURATION, 20e6);
  c->uplink_bps = 20000000;
  c->downlink_bps = 100000000;
  c->link_setup = 200 * DL_MS;
  c->crash_detection = dl_dist_constant (DL_UNIT_DURATION, 30.0 * DL_S);
  c->session = dl_dist_constant (DL_UNIT_DURATION, 30 * 60e9);
  c->crash_fraction = 0.5;
  c->max_peers = 100;
  c->model = (LearnModel) { .kind = LEARN_MODEL_NONE, .size = 1000, .learning_rate = 0.1f, .batch_size = 32 };
  c->partition.kind = LEARN_PARTITION_IID;
  c->none_samples = 100;
  c->actions = g_array_new (FALSE, TRUE, sizeof (SimAction));
}

void
sim_world_config_clear (SimWorldConfig *c)
{
  if (c->actions)
    {
      for (guint i = 0; i < c->actions->len; i++)
        g_clear_pointer (&g_array_index (c->actions, SimAction, i).groups, g_array_unref);
      g_clear_pointer (&c->actions, g_array_unref);
    }
  g_clear_pointer (&c->trace, g_array_unref);
}

/* ---------------------------------------------------------------- helpers */

/* g_int64_hash keeps only the low 32 bits; our keys put ids in both halves. */
static guint
hash64 (gconstpointer k)
{
  return (guint) dl_mix64 (*(const guint64 *) k);
}

static guint64
pair_key (ProtoNodeId a, ProtoNodeId b)
{
  return ((guint64) MIN (a, b) << 32) | MAX (a, b);
}

static Link *
link_get (SimWorld *w, ProtoNodeId a, ProtoNodeId b, gboolean create)
{
  guint64 k = pair_key (a, b);
  Link *l = g_hash_table_lookup (w->links, &k);
  if (!l && create)
    {
      guint64 *key = g_new (guint64, 1);
      *key = k;
      l = g_new0 (Link, 1);
      g_hash_table_insert (w->links, key, l);
    }
  return l;
}

static int
side (ProtoNodeId self, ProtoNodeId other)
{
  return self < other ? 0 : 1;
}

static void
fact (SimWorld *w, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  if (w->rec.fact)
    w->rec.fact (w->rec.user_data, sim_engine_now (w->engine), node, other, kind, detail ? detail : "");
}

static gboolean
partitioned (const SimWorld *w, ProtoNodeId a, ProtoNodeId b)
{
  if (!w->groups)
    return FALSE;
  guint ga = a < w->groups->len ? g_array_index (w->groups, guint, a) : 0;
  guint gb = b < w->groups->len ? g_array_index (w->groups, guint, b) : 0;
  return ga != gb;
}

static DlTime
tx_time (gsize bytes, uint64_t bps)
{
  if (bps == 0)
    return 0;
  /* ceil(bytes * 8 * 1e9 / bps) in integer ns */
  __uint128_t num = (__uint128_t) bytes * 8u * 1000000000u;
  return (DlTime) ((num + bps - 1) / bps);
}

static void dispatch_coord (SimWorld *w, const ProtoInput *in);
static void dispatch_peer (SimWorld *w, Node *n, const ProtoInput *in);

/* ---------------------------------------------------------------- network */

static void ev_arrive (SimEngine *e, void *ctx, uint64_t arg);
static void ev_deliver (SimEngine *e, void *ctx, uint64_t arg);

static void
msg_free (SimWorld *w, Msg *m)
{
  if (m->prev)
    m->prev->next = m->next;
  else if (w->flight == m)
    w->flight = m->next;
  if (m->next)
    m->next->prev = m->prev;
  proto_msg_clear (&m->msg);
  g_free (m);
}

static DlTime
take_delay_rule (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoMsgType type)
{
  for (guint i = 0; i < w->delay_rules->len; i++)
    {
      Rule *r = &g_array_index (w->delay_rules, Rule, i);
      /* delay rules: `from` FALSE matches the sender, TRUE the receiver */
      if (r->count > 0 && r->node == (r->from ? to : from) && r->msg_type == (int) type)
        {
          r->count--;
          return r->delay;
        }
    }
  return 0;
}

static void schedule_msg (SimWorld *w, Msg *m, DlTime extra);

static void
send_msg (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  Msg *m = g_new0 (Msg, 1);
  m->from = from;
  m->to = to;
  m->via = via;
  m->msg = *msg;
  proto_msg_init (msg, msg->type);
  if (m->msg.weights && (m->msg.type == PROTO_MSG_PAYLOAD || m->msg.type == PROTO_MSG_SHARED_MODEL))
    {
      /* these carry fixed-size fields besides the weights: the size depends
       * only on the type and the weights' length */
      gint64 key = ((gint64) m->msg.type << 48) | (gint64) learn_weights_byte_size (m->msg.weights);
      gpointer v = g_hash_table_lookup (w->wire_sizes, &key);
      if (v)
        m->bytes = (gsize) *(gint64 *) v;
      else
        {
          m->bytes = proto_msg_wire_size (&m->msg);
          gint64 *k = g_new (gint64, 1), *val = g_new (gint64, 1);
          *k = key;
          *val = (gint64) m->bytes;
          g_hash_table_insert (w->wire_sizes, k, val);
        }
    }
  else
    m->bytes = proto_msg_wire_size (&m->msg);
  w->result.messages++;
  w->result.bytes += m->bytes;
  if (w->rec.traffic)
    w->rec.traffic (w->rec.user_data, m->msg.type, m->bytes);

  if (via == PROTO_VIA_LINK)
    {
      Link *l = link_get (w, from, to, FALSE);
      if (!l || !l->up || l->dead)
        {
          fact (w, from, to, "lost", l && l->dead ? "link died (link-down)" : "link not open");
          proto_msg_clear (&m->msg);
          g_free (m);
          return;
        }
    }
  if (partitioned (w, from, to))
    {
      fact (w, from, to, "lost", "partition");
      proto_msg_clear (&m->msg);
      g_free (m);
      return;
    }
  schedule_msg (w, m, take_delay_rule (w, from, to, m->msg.type));
}

/* Puts m on the wire: the sender's uplink (FIFO), the latency, the extra
 * delay of a delay rule, and the channel's order. */
static void
schedule_msg (SimWorld *w, Msg *m, DlTime extra)
{
  DlTime now = sim_engine_now (w->engine);
  ProtoNodeId from = m->from, to = m->to;
  ProtoVia via = m->via;
  Node *src = node_at (w, from);
  DlTime t = now;
  if (src)
    {
      DlTime start = MAX (now, src->up_free);
      src->up_free = dl_time_add (start, tx_time (m->bytes, w->cfg.uplink_bps));
      t = src->up_free;
    }
  m->wire_done = t;
  DlRandom *r = src ? src->rng_net : w->rng_links;
  const DlDist *lat = via == PROTO_VIA_LINK ? &w->cfg.latency : &w->cfg.server_latency;
  t = dl_time_add (t, dl_dist_sample_time (lat, r));
  t = dl_time_add (t, extra);
  /* reliable, ordered per channel: never before the previous arrival */
  guint64 ckey = ((guint64) from << 33) | ((guint64) to << 1) | (via == PROTO_VIA_LINK);
  DlTime *last = g_hash_table_lookup (w->channels, &ckey);
  if (!last)
    {
      guint64 *k = g_new (guint64, 1);
      *k = ckey;
      last = g_new (DlTime, 1);
      *last = 0;
      g_hash_table_insert (w->channels, k, last);
    }
  t = MAX (t, *last);
  *last = t;
  w->in_flight++;
  m->next = w->flight;
  if (w->flight)
    w->flight->prev = m;
  w->flight = m;
  sim_engine_schedule_at (w->engine, t, ev_arrive, w, (uint64_t) (uintptr_t) m);
}

/* A WebSocket close frame: the coordinator sees a graceful close only after
 * everything the peer sent before it, in order, with the stream's latency
 * (RFC 6455 §1.4: the close frame follows the data on the same stream). */
#define CLOSE_FRAME_BYTES 8
static void
close_stream (SimWorld *w, Node *n)
{
  Msg *m = g_new0 (Msg, 1);
  m->from = n->id;
  m->to = PROTO_SERVER;
  m->via = PROTO_VIA_SERVER;
  m->close = TRUE;
  proto_msg_init (&m->msg, PROTO_MSG_CLIENT_CONNECTED);  /* unused */
  m->bytes = CLOSE_FRAME_BYTES;
  schedule_msg (w, m, 0);
}

static void
ev_arrive (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Msg *m = (Msg *) (uintptr_t) arg;
  Node *dst = node_at (w, m->to);
  DlTime t = sim_engine_now (e);
  if (dst)
    {
      DlTime start = MAX (t, dst->down_free);
      dst->down_free = dl_time_add (start, tx_time (m->bytes, w->cfg.downlink_bps));
      t = dst->down_free;
    }
  sim_engine_schedule_at (e, t, ev_deliver, w, arg);
}

static gboolean
take_drop_rule (SimWorld *w, ProtoNodeId from, ProtoNodeId to, ProtoMsgType type)
{
  for (guint i = 0; i < w->drop_rules->len; i++)
    {
      Rule *r = &g_array_index (w->drop_rules, Rule, i);
      if (r->count > 0 && r->node == (r->from ? from : to) && r->msg_type == (int) type)
        {
          r->count--;
          return TRUE;
        }
    }
  return FALSE;
}

static void
ev_deliver (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Msg *m = (Msg *) (uintptr_t) arg;
  w->in_flight--;
  w->last_arrival = sim_engine_now (e);
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = m->from, .via = m->via, .msg = &m->msg };
  Node *src = node_at (w, m->from);
  if (m->close)
    {
      src->coord_closed = TRUE;
      fact (w, m->from, PROTO_SERVER, "stream-closed", "close frame delivered");
      ProtoInput ci = { .kind = PROTO_IN_STREAM_CLOSED, .from = m->from };
      dispatch_coord (w, &ci);
    }
  else if (src && src->status == NODE_CRASHED && m->wire_done > src->left)
    /* a crash loses what had not fully left the sender's uplink */
    fact (w, m->from, m->to, "lost", "the sender crashed before it was sent");
  else if (m->to == PROTO_SERVER)
    {
      if (take_drop_rule (w, m->from, m->to, m->msg.type))
        fact (w, m->from, PROTO_SERVER, "drop", proto_msg_type_name (m->msg.type));
      else if (src && !src->coord_closed)
        dispatch_coord (w, &in);
    }
  else
    {
      Node *dst = node_at (w, m->to);
      if (!dst || dst->status != NODE_ONLINE)
        ;  /* to a gone node: vanishes */
      else if (take_drop_rule (w, m->from, m->to, m->msg.type))
        fact (w, m->to, m->from, "drop", proto_msg_type_name (m->msg.type));
      else if (m->via == PROTO_VIA_LINK)
        {
          /* what was sent on an open link arrives unless the receiver has
           * destroyed its end meanwhile (a close flushes what was sent) */
          Link *l = link_get (w, m->from, m->to, FALSE);
          if (!l || !l->obj[side (m->to, m->from)])
            fact (w, m->from, m->to, "lost", "the receiver closed the link");
          else
            dispatch_peer (w, dst, &in);
        }
      else
        dispatch_peer (w, dst, &in);
    }
  msg_free (w, m);
  (void) e;
}

/* ---------------------------------------------------------------- links */

static void
ev_link_up (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  ProtoNodeId a = (ProtoNodeId) (arg >> 32), b = (ProtoNodeId) (arg & 0xffffffffu);
  Link *l = link_get (w, a, b, FALSE);
  w->link_setups--;
  if (!l)
    return;
  l->pending = FALSE;
  l->setup_ev = SIM_EVENT_NONE;
  Node *na = node_at (w, a), *nb = node_at (w, b);
  if (!l->obj[0] || !l->obj[1] || na->status != NODE_ONLINE || nb->status != NODE_ONLINE)
    return;
  l->up = TRUE;
  fact (w, a, b, "link-up", NULL);
  ProtoInput in = { .kind = PROTO_IN_LINK_UP, .from = b };
  dispatch_peer (w, na, &in);
  if (nb->status == NODE_ONLINE)
    {
      in.from = a;
      dispatch_peer (w, nb, &in);
    }
  (void) e;
}

static void
link_failed (SimWorld *w, ProtoNodeId a, ProtoNodeId b, const char *why)
{
  Link *l = link_get (w, a, b, TRUE);
  l->failed = TRUE;
  fact (w, a, b, "link-failed", why);
  ProtoInput in = { .kind = PROTO_IN_LINK_FAILED, .from = b };
  Node *na = node_at (w, a), *nb = node_at (w, b);
  if (na && na->status == NODE_ONLINE && l->obj[side (a, b)])
    dispatch_peer (w, na, &in);
  in.from = a;
  if (nb && nb->status == NODE_ONLINE && l->obj[side (b, a)])
    dispatch_peer (w, nb, &in);
}

static void
connect_link (SimWorld *w, ProtoNodeId a, ProtoNodeId b)
{
  Link *l = link_get (w, a, b, TRUE);
  Node *na = node_at (w, a), *nb = node_at (w, b);
  const char *why = NULL;
  if (l->never)
    why = "link-fail action";
  else if (partitioned (w, a, b))
    why = "partition";
  else if (na->nat_symmetric && nb->nat_symmetric)
    why = "both behind symmetric NAT";
  else if (dl_random_bernoulli (w->rng_links, w->cfg.connect_failure))
    why = "connect_failure";
  if (why)
    {
      link_failed (w, a, b, why);
      return;
    }
  l->pending = TRUE;
  w->link_setups++;
  l->setup_ev = sim_engine_schedule_in (w->engine, dl_time_add (w->cfg.link_setup, l->extra_setup), ev_link_up, w,
                                        ((uint64_t) MIN (a, b) << 32) | MAX (a, b));
}

static void
close_link (SimWorld *w, ProtoNodeId self, ProtoNodeId other, gboolean notify)
{
  Link *l = link_get (w, self, other, FALSE);
  if (!l)
    return;
  l->obj[side (self, other)] = FALSE;
  gboolean was_up = l->up && !l->dead;
  l->up = FALSE;
  l->dead = FALSE;
  l->failed = FALSE;
  if (l->pending)
    {
      sim_engine_cancel (w->engine, l->setup_ev);
      l->pending = FALSE;
      w->link_setups--;
    }
  Node *o = node_at (w, other);
  if (was_up && notify && o && o->status == NODE_ONLINE && l->obj[side (other, self)])
    {
      ProtoInput in = { .kind = PROTO_IN_LINK_CLOSED, .from = self };
      dispatch_peer (w, o, &in);
    }
}

/* ---------------------------------------------------------------- compute */

static void
ev_train_done (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = node_at (w, (ProtoNodeId) arg);
  w->training--;
  n->train_ev = SIM_EVENT_NONE;
  g_autoptr (LearnWeights) result = g_steal_pointer (&n->train_result);
  if (n->status != NODE_ONLINE)
    return;
  ProtoInput in = { .kind = PROTO_IN_TRAINING_DONE, .weights = result };
  dispatch_peer (w, n, &in);
  (void) e;
}

static void
start_training (SimWorld *w, Node *n, LearnWeights *weights)
{
  gsize samples = w->cfg.model.kind == LEARN_MODEL_NONE ? w->cfg.none_samples
                                                          : (n->shard ? n->shard->n : 0);
  double speed = n->speed / n->slow / (n->straggler ? w->cfg.straggler_slowdown : 1.0);
  double work = (double) samples * w->cfg.epochs_per_round * (double) w->cfg.sample_cost;
  DlTime dur = speed > 0 ? (DlTime) llround (work / speed) : DL_TIME_NEVER - 1;
  g_clear_pointer (&n->train_result, learn_weights_unref);
  n->train_result = learn_model_train (&w->cfg.model, weights, n->shard, w->cfg.epochs_per_round,
                                       n->rng_train);
  w->training++;
  n->train_ev = sim_engine_schedule_in (w->engine, dur, ev_train_done, w, n->id);
}

/* ---------------------------------------------------------------- hosts */

static void ev_peer_deadline (SimEngine *e, void *ctx, uint64_t arg);
static void ev_coord_deadline (SimEngine *e, void *ctx, uint64_t arg);
static void on_coord_round_start (SimWorld *w, guint round);

static void
rearm (SimWorld *w, SimEventId *ev, DlTime when, SimHandler h, uint64_t arg)
{
  if (*ev != SIM_EVENT_NONE && sim_engine_event_time (w->engine, *ev) == when)
    return;
  sim_engine_cancel (w->engine, *ev);
  *ev = SIM_EVENT_NONE;
  if (when != DL_TIME_NEVER)
    *ev = sim_engine_schedule_at (w->engine, MAX (when, sim_engine_now (w->engine)), h, w, arg);
}

static void
evaluate (SimWorld *w, Node *n, int round)
{
  if (w->cfg.model.kind == LEARN_MODEL_NONE || !w->cfg.test)
    return;
  learn_model_evaluate (&w->cfg.model, proto_peer_model (n->peer), w->cfg.test, &n->accuracy, &n->loss);
  if (w->rec.metric)
    {
      DlTime t = sim_engine_now (w->engine);
      w->rec.metric (w->rec.user_data, t, round, n->id, "accuracy", n->accuracy);
      w->rec.metric (w->rec.user_data, t, round, n->id, "loss", n->loss);
    }
}

static void
note_observation (SimWorld *w, ProtoNodeId node, const ProtoObservation *o)
{
  DlTime now = sim_engine_now (w->engine);
  if (w->rec.observation)
    w->rec.observation (w->rec.user_data, now, node, o);
  sim_tally_observe (&w->tally, node, o);
  switch (o->kind)
    {
    case PROTO_OBS_PHASE:
      if (node != PROTO_SERVER)
        {
          w->progress = now;
          node_at (w, node)->progress = now;
        }
      break;
    case PROTO_OBS_ROUND_START:
      if (node == PROTO_SERVER && w->cfg.proto.connect_barrier)
        on_coord_round_start (w, (guint) o->round + 1);
      break;
    case PROTO_OBS_ROUND_LIST:
      if (node == PROTO_SERVER && !w->cfg.proto.connect_barrier)
        on_coord_round_start (w, (guint) o->round + 1);
      break;
    default:
      break;
    }
}

/* ---- the simulated network as the host layer's transport ---- */

static void
tr_send (gpointer ud, ProtoNodeId from, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  send_msg (ud, from, to, via, msg);
}

static void
tr_open_link (gpointer ud, ProtoNodeId self, ProtoNodeId other, gboolean initiator)
{
  SimWorld *w = ud;
  Link *l = link_get (w, self, other, TRUE);
  l->obj[side (self, other)] = TRUE;
  (void) initiator;
}

static void
tr_connect_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  connect_link (ud, self, other);
}

static void
tr_close_link (gpointer ud, ProtoNodeId self, ProtoNodeId other)
{
  close_link (ud, self, other, TRUE);
}

static void
tr_start_training (gpointer ud, ProtoNodeId self, LearnWeights *weights, guint round)
{
  SimWorld *w = ud;
  start_training (w, node_at (w, self), weights);
  (void) round;
}

static void
tr_disconnect (gpointer ud, ProtoNodeId self)
{
  SimWorld *w = ud;
  Node *n = node_at (w, self);
  if (n->status != NODE_ONLINE)
    return;
  n->status = NODE_LEFT;
  n->left = sim_engine_now (w->engine);
  fact (w, self, PROTO_NO_NODE, "disconnect", NULL);
  close_stream (w, n);
}

static void
tr_observed (gpointer ud, ProtoNodeId self, const ProtoObservation *obs)
{
  SimWorld *w = ud;
  note_observation (w, self, obs);
  if (obs->kind == PROTO_OBS_ROUND_END && self != PROTO_SERVER)
    evaluate (w, node_at (w, self), obs->round);
}

static void
tr_arm (gpointer ud, ProtoNodeId self, DlTime deadline)
{
  SimWorld *w = ud;
  if (self == PROTO_SERVER)
    rearm (w, &w->coord_deadline_ev, deadline, ev_coord_deadline, 0);
  else
    rearm (w, &node_at (w, self)->deadline_ev, deadline, ev_peer_deadline, self);
}

static const SimTransport sim_network = {
  .send = tr_send,
  .open_link = tr_open_link,
  .connect_link = tr_connect_link,
  .close_link = tr_close_link,
  .start_training = tr_start_training,
  .disconnect = tr_disconnect,
  .observed = tr_observed,
  .arm = tr_arm,
};

static void
dispatch_coord (SimWorld *w, const ProtoInput *in)
{
  sim_host_feed_coord (w->coord, sim_engine_now (w->engine), in, &sim_network, w);
}

static void
dispatch_peer (SimWorld *w, Node *n, const ProtoInput *in)
{
  sim_host_feed_peer (n->peer, n->id, sim_engine_now (w->engine), in, &sim_network, w);
  ProtoPeerState s = proto_peer_state (n->peer);
  n->in_sync_wait = proto_peer_connected (n->peer)
                    && (s == PROTO_PEER_SYNC_WAIT_PROVIDER || s == PROTO_PEER_SYNC_WAIT_MODEL);
}

static void
ev_peer_deadline (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = node_at (w, (ProtoNodeId) arg);
  n->deadline_ev = SIM_EVENT_NONE;
  if (n->status != NODE_ONLINE)
    return;
  if (proto_peer_next_deadline (n->peer) > sim_engine_now (e))
    {
      rearm (w, &n->deadline_ev, proto_peer_next_deadline (n->peer), ev_peer_deadline, n->id);
      return;  /* stale wake-up */
    }
  ProtoInput in = { .kind = PROTO_IN_DEADLINE };
  dispatch_peer (w, n, &in);
}

static void
ev_coord_deadline (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  w->coord_deadline_ev = SIM_EVENT_NONE;
  if (proto_coord_next_deadline (w->coord) > sim_engine_now (e))
    {
      rearm (w, &w->coord_deadline_ev, proto_coord_next_deadline (w->coord), ev_coord_deadline, 0);
      return;
    }
  ProtoInput in = { .kind = PROTO_IN_DEADLINE };
  dispatch_coord (w, &in);
  (void) arg;
}

/* ---------------------------------------------------------------- membership */

static Node *
ensure_node (SimWorld *w, ProtoNodeId id)
{
  while (w->nodes->len <= id)
    g_ptr_array_add (w->nodes, NULL);
  Node *n = g_ptr_array_index (w->nodes, id);
  if (n)
    return n;
  n = g_new0 (Node, 1);
  n->id = id;
  n->status = NODE_ABSENT;
  n->slow = 1;
  n->joined = DL_TIME_NEVER;
  n->left = DL_TIME_NEVER;
  n->accuracy = NAN;
  n->loss = NAN;
  n->rng_net = dl_random_new (w->cfg.seed, "latency", id);
  n->rng_train = dl_random_new (w->cfg.seed, "minibatch", id);
  n->rng_shares = dl_random_new (w->cfg.seed, "shares", id);
  /* per-peer attributes come from the node's own stream */
  g_autoptr (DlRandom) attrs = dl_random_new (w->cfg.seed, "peer-attributes", id);
  n->speed = MAX (dl_dist_sample (&w->cfg.speed, attrs), 1e-9);
  n->straggler = dl_random_bernoulli (attrs, w->cfg.straggler_share);
  n->nat_symmetric = dl_random_bernoulli (attrs, w->cfg.nat_symmetric_share);
  if (w->partition)
    {
      GArray *idx = w->partition->idx[(id - 1) % w->partition->parts];
      n->shard = learn_dataset_subset (w->cfg.train, (const gsize *) (const void *) idx->data, idx->len);
    }
  g_ptr_array_index (w->nodes, id) = n;
  return n;
}

static void
join (SimWorld *w, ProtoNodeId id, double speed)
{
  Node *n = ensure_node (w, id);
  if (n->status != NODE_ABSENT)
    {
      fact (w, id, PROTO_NO_NODE, "ignored", "join: the peer already joined once");
      return;
    }
  if (speed > 0)
    n->speed = speed;
  w->next_id = MAX (w->next_id, id + 1);
  n->status = NODE_ONLINE;
  n->joined = sim_engine_now (w->engine);
  n->progress = n->joined;
  n->peer = proto_peer_new (&w->cfg.proto, w->initial, n->rng_shares);
  w->progress = sim_engine_now (w->engine);
  fact (w, id, PROTO_NO_NODE, "join", NULL);
  /* ClientConnected goes out on the new stream */
  ProtoInput in = { .kind = PROTO_IN_START };
  dispatch_peer (w, n, &in);
}

static void
ev_crash_detected (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = node_at (w, (ProtoNodeId) arg);
  w->timed_pending--;
  n->coord_closed = TRUE;
  ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = n->id };
  dispatch_coord (w, &in);
  (void) e;
}

static gint
cmp_id (gconstpointer a, gconstpointer b)
{
  ProtoNodeId x = *(const ProtoNodeId *) a, y = *(const ProtoNodeId *) b;
  return x < y ? -1 : x > y;
}

static void
depart (SimWorld *w, ProtoNodeId id, gboolean crash)
{
  Node *n = node_at (w, id);
  if (!n || n->status != NODE_ONLINE)
    {
      fact (w, id, PROTO_NO_NODE, "ignored", crash ? "crash: not online" : "leave: not online");
      return;
    }
  w->progress = sim_engine_now (w->engine);
  if (n->train_ev != SIM_EVENT_NONE)
    {
      sim_engine_cancel (w->engine, n->train_ev);
      n->train_ev = SIM_EVENT_NONE;
      w->training--;
      g_clear_pointer (&n->train_result, learn_weights_unref);
    }
  rearm (w, &n->deadline_ev, DL_TIME_NEVER, ev_peer_deadline, id);
  n->status = crash ? NODE_CRASHED : NODE_LEFT;
  n->left = sim_engine_now (w->engine);
  fact (w, id, PROTO_NO_NODE, crash ? "crash" : "leave", NULL);
  /* its links close: the other sides notice a graceful close, not a crash */
  GHashTableIter it;
  gpointer k, v;
  GArray *others = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_hash_table_iter_init (&it, w->links);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      guint64 key = *(guint64 *) k;
      ProtoNodeId a = (ProtoNodeId) (key >> 32), b = (ProtoNodeId) (key & 0xffffffffu);
      if (a == id || b == id)
        {
          ProtoNodeId o = a == id ? b : a;
          g_array_append_val (others, o);
        }
    }
  /* hash order must not reach the machines: sort */
  g_array_sort (others, cmp_id);
  for (guint i = 0; i < others->len; i++)
    close_link (w, id, g_array_index (others, ProtoNodeId, i), !crash);
  g_array_unref (others);
  if (crash)
    {
      if (w->cfg.crash_never_detected)
        fact (w, id, PROTO_NO_NODE, "crash-undetected", "crash_detection = never: the stream stays open");
      else
        {
          g_autoptr (DlRandom) r = dl_random_new (w->cfg.seed, "crash-detection", id);
          w->timed_pending++;
          sim_engine_schedule_in (w->engine, dl_dist_sample_time (&w->cfg.crash_detection, r),
                                  ev_crash_detected, w, id);
        }
    }
  else
    close_stream (w, n);
}

/* ---------------------------------------------------------------- timeline */

static void
run_action (SimWorld *w, const SimAction *a)
{
  char buf[64];
  w->progress = sim_engine_now (w->engine);
  switch (a->kind)
    {
    case SIM_ACT_JOIN:
      join (w, a->a, a->value);
      break;
    case SIM_ACT_LEAVE:
      depart (w, a->a, FALSE);
      break;
    case SIM_ACT_CRASH:
      depart (w, a->a, TRUE);
      break;
    case SIM_ACT_LINK_FAIL:
      {
        Link *l = link_get (w, a->a, a->b, TRUE);
        l->never = TRUE;
        fact (w, a->a, a->b, "link-fail", NULL);
        if (l->pending)
          {
            sim_engine_cancel (w->engine, l->setup_ev);
            l->pending = FALSE;
            w->link_setups--;
            link_failed (w, MIN (a->a, a->b), MAX (a->a, a->b), "link-fail action");
          }
        break;
      }
    case SIM_ACT_LINK_DOWN:
      {
        Link *l = link_get (w, a->a, a->b, FALSE);
        if (l && l->up)
          {
            l->dead = TRUE;
            fact (w, a->a, a->b, "link-down", "silent");
          }
        else
          fact (w, a->a, a->b, "ignored", "link-down: the link is not up");
        break;
      }
    case SIM_ACT_PARTITION:
      g_clear_pointer (&w->groups, g_array_unref);
      w->groups = g_array_copy (a->groups);
      fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "partition", NULL);
      break;
    case SIM_ACT_HEAL:
      g_clear_pointer (&w->groups, g_array_unref);
      fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "heal", NULL);
      break;
    case SIM_ACT_DROP:
    case SIM_ACT_DELAY:
      {
        Rule r = { .msg_type = a->msg_type, .node = a->a, .count = a->count ? a->count : 1,
                   .delay = a->delay, .from = a->value == 1 };
        g_array_append_val (a->kind == SIM_ACT_DROP ? w->drop_rules : w->delay_rules, r);
        g_snprintf (buf, sizeof buf, "%s x%u", proto_msg_type_name ((ProtoMsgType) a->msg_type), r.count);
        fact (w, a->a, PROTO_NO_NODE, a->kind == SIM_ACT_DROP ? "drop-rule" : "delay-rule", buf);
        break;
      }
    case SIM_ACT_LINK_SLOW:
      {
        Link *l = link_get (w, a->a, a->b, TRUE);
        l->extra_setup = a->delay;
        fact (w, a->a, a->b, "link-slow", NULL);
        break;
      }
    case SIM_ACT_SLOW:
      {
        Node *n = ensure_node (w, a->a);
        n->slow *= a->value > 0 ? a->value : 1;
        g_snprintf (buf, sizeof buf, "x%g", a->value);
        fact (w, a->a, PROTO_NO_NODE, "slow", buf);
        break;
      }
    }
}

static void
ev_action (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  const SimAction *a = &g_array_index (w->cfg.actions, SimAction, (guint) arg);
  if (a->round == 0)
    w->timed_pending--;
  run_action (w, a);
  (void) e;
}

static void
on_coord_round_start (SimWorld *w, guint round)
{
  if (round <= w->round_started)
    return;
  w->round_started = round;
  for (guint i = 0; i < w->cfg.actions->len; i++)
    {
      const SimAction *a = &g_array_index (w->cfg.actions, SimAction, i);
      if (a->round == round)
        sim_engine_schedule_in (w->engine, a->after, ev_action, w, i);
    }
}

/* ---------------------------------------------------------------- churn */

static void ev_arrival (SimEngine *e, void *ctx, uint64_t arg);

static void
ev_session_end (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  w->churn_pending--;
  gboolean crash = (arg >> 32) != 0;
  depart (w, (ProtoNodeId) (arg & 0xffffffffu), crash);
  (void) e;
}

static void
schedule_arrival (SimWorld *w)
{
  if (w->cfg.arrival_rate_per_s <= 0 || w->next_id > w->cfg.max_peers)
    return;
  double mean_ns = 1e9 / w->cfg.arrival_rate_per_s;
  DlTime dt = (DlTime) llround (dl_random_exponential (w->rng_churn, mean_ns));
  w->churn_pending++;
  sim_engine_schedule_in (w->engine, dt, ev_arrival, w, 0);
}

static void
ev_arrival (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  w->churn_pending--;
  if (w->next_id <= w->cfg.max_peers)
    {
      ProtoNodeId id = w->next_id++;
      join (w, id, 0);
      DlTime session = dl_dist_sample_time (&w->cfg.session, w->rng_churn);
      gboolean crash = dl_random_bernoulli (w->rng_churn, w->cfg.crash_fraction);
      w->churn_pending++;
      sim_engine_schedule_in (e, session, ev_session_end, w, ((uint64_t) crash << 32) | id);
    }
  schedule_arrival (w);
  (void) arg;
}

static void
ev_trace_join (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  w->churn_pending--;
  join (w, (ProtoNodeId) arg, 0);
  (void) e;
}

static void
ev_trace_leave (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  w->churn_pending--;
  depart (w, (ProtoNodeId) arg, FALSE);
  (void) e;
}

/* ---------------------------------------------------------------- watchdog */

static DlTime
stall_window (const SimWorld *w)
{
  const ProtoConfig *p = &w->cfg.proto;
  DlTime t = (DlTime) (p->max_connection_retry + 2) * proto_config_connection_timer (p);
  return dl_time_add (dl_time_add (t, p->model_sync_timeout), p->payload_timeout);
}

static gboolean
peer_settled (const Node *n)
{
  if (n->status != NODE_ONLINE)
    return TRUE;
  ProtoPeerState s = proto_peer_state (n->peer);
  return s == PROTO_PEER_DONE || s == PROTO_PEER_FAILED || s == PROTO_PEER_LEFT;
}

static void
ev_watch (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  DlTime now = sim_engine_now (e);
  if (w->interrupt && *w->interrupt)
    {
      w->result.outcome = SIM_OUTCOME_INTERRUPTED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  gboolean all_settled = TRUE, any_sync_wait = FALSE;
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = node_at (w, i);
      if (!n)
        continue;
      all_settled &= peer_settled (n);
      any_sync_wait |= n->status == NODE_ONLINE && n->in_sync_wait;
    }
  gboolean external = w->timed_pending > 0 || w->churn_pending > 0;
  if (all_settled && !external && w->in_flight == 0 && w->training == 0)
    {
      /* the run ended with the last progress, not at this periodic check */
      w->completed_at = MAX (w->progress, w->last_arrival);
      w->result.outcome = SIM_OUTCOME_COMPLETED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  gboolean quiet = !external && w->in_flight == 0 && w->training == 0 && w->link_setups == 0
                   && !any_sync_wait;
  if (quiet && now - w->progress >= stall_window (w))
    {
      w->result.outcome = SIM_OUTCOME_STALLED;
      w->finished = TRUE;
      sim_engine_stop (e);
      return;
    }
  sim_engine_schedule_in (e, DL_S, ev_watch, w, 0);
  (void) arg;
}

/* ---------------------------------------------------------------- setup, run, results */

SimWorld *
sim_world_new (const SimWorldConfig *cfg, const SimRecorder *rec, GError **error)
{
  const ProtoConfig *p = &cfg->proto;
  if (p->min_participants == 0 || p->rounds == 0 || cfg->epochs_per_round == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                   "min_participants, rounds and epochs_per_round must be at least 1");
      return NULL;
    }
  if (cfg->model.kind != LEARN_MODEL_NONE && (cfg->train == NULL || cfg->train->n == 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "a trained model needs a training set");
      return NULL;
    }
  if (cfg->n_peers > cfg->max_peers && cfg->max_peers > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "peers.count (%u) exceeds churn.max_peers (%u)",
                   cfg->n_peers, cfg->max_peers);
      return NULL;
    }
  for (guint i = 0; cfg->actions && i < cfg->actions->len; i++)
    {
      const SimAction *a = &g_array_index (cfg->actions, SimAction, i);
      if ((a->a > cfg->max_peers || a->b > cfg->max_peers))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                       "timeline action %u names peer p%u beyond churn.max_peers (%u)", i + 1,
                       MAX (a->a, a->b), cfg->max_peers);
          return NULL;
        }
    }
  SimWorld *w = g_new0 (SimWorld, 1);
  w->cfg = *cfg;
  if (rec)
    w->rec = *rec;
  w->engine = sim_engine_new ();
  w->coord = proto_coord_new (&cfg->proto);
  w->nodes = g_ptr_array_new ();
  g_ptr_array_add (w->nodes, NULL);
  w->links = g_hash_table_new_full (hash64, g_int64_equal, g_free, g_free);
  w->channels = g_hash_table_new_full (hash64, g_int64_equal, g_free, g_free);
  w->wire_sizes = g_hash_table_new_full (hash64, g_int64_equal, g_free, g_free);
  w->rng_links = dl_random_new (cfg->seed, "links", DL_RANDOM_NO_NODE);
  w->rng_churn = dl_random_new (cfg->seed, "churn", DL_RANDOM_NO_NODE);
  w->drop_rules = g_array_new (FALSE, FALSE, sizeof (Rule));
  w->delay_rules = g_array_new (FALSE, FALSE, sizeof (Rule));
  sim_tally_init (&w->tally);
  w->peer_results = g_array_new (FALSE, TRUE, sizeof (SimPeerResult));
  if (cfg->model.kind != LEARN_MODEL_NONE)
    {
      g_autoptr (DlRandom) r = dl_random_new (cfg->seed, "partition", DL_RANDOM_NO_NODE);
      w->partition = learn_partition_new (cfg->train, &cfg->partition, MAX (cfg->max_peers, 1), r);
    }
  g_autoptr (DlRandom) init = dl_random_new (cfg->seed, "initial-model", DL_RANDOM_NO_NODE);
  w->initial = learn_model_initial_weights (&cfg->model, init);
  w->next_id = cfg->n_peers + 1;
  w->completed_at = DL_TIME_NEVER;
  return w;
}

void
sim_world_free (SimWorld *w)
{
  if (!w)
    return;
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = node_at (w, i);
      if (!n)
        continue;
      proto_peer_free (n->peer);
      dl_random_free (n->rng_net);
      dl_random_free (n->rng_train);
      dl_random_free (n->rng_shares);
      learn_weights_unref (n->train_result);
      learn_dataset_free (n->shard);
      g_free (n);
    }
  g_ptr_array_unref (w->nodes);
  proto_coord_free (w->coord);
  sim_engine_free (w->engine);
  while (w->flight)
    msg_free (w, w->flight);
  g_hash_table_unref (w->links);
  g_hash_table_unref (w->channels);
  g_hash_table_unref (w->wire_sizes);
  dl_random_free (w->rng_links);
  dl_random_free (w->rng_churn);
  learn_partition_free (w->partition);
  learn_weights_unref (w->initial);
  g_array_unref (w->drop_rules);
  g_array_unref (w->delay_rules);
  g_clear_pointer (&w->groups, g_array_unref);
  sim_tally_clear (&w->tally);
  g_array_unref (w->peer_results);
  g_free (w);
}

guint
sim_world_n_nodes (const SimWorld *w)
{
  return w->nodes->len - 1;
}

LearnWeights *
sim_world_peer_model (const SimWorld *w, guint i)
{
  Node *n = node_at (w, i);
  return n && n->peer ? proto_peer_model (n->peer) : NULL;
}

const SimPeerResult *
sim_world_peer (const SimWorld *w, guint i)
{
  g_return_val_if_fail (i >= 1 && i < w->peer_results->len, NULL);
  return &g_array_index (w->peer_results, SimPeerResult, i);
}

static void
finish_results (SimWorld *w)
{
  DlTime now = sim_engine_now (w->engine);
  SimResult *r = &w->result;
  r->end = w->completed_at != DL_TIME_NEVER ? w->completed_at : now;
  r->events = sim_engine_events_run (w->engine);
  r->rounds_completed = sim_tally_rounds_completed (&w->tally);
  r->retries = w->tally.retries;
  r->exclusions = w->tally.exclusions;
  r->model_syncs = w->tally.model_syncs;
  r->stale_model_syncs = w->tally.stale_model_syncs;
  r->messages_dropped = w->tally.messages_dropped;
  r->empty_rounds_started = w->tally.empty_rounds_started;
  g_array_set_size (w->peer_results, w->nodes->len);
  double acc = 0, loss = 0;
  guint evaluated = 0;
  GPtrArray *models = g_ptr_array_new ();
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = node_at (w, i);
      SimPeerResult *pr = &g_array_index (w->peer_results, SimPeerResult, i);
      pr->outcome = SIM_PEER_ABSENT;
      pr->accuracy = NAN;
      pr->loss = NAN;
      if (!n || n->status == NODE_ABSENT)
        continue;
      pr->joined = n->joined;
      pr->left = n->left;
      pr->speed = n->speed / n->slow / (n->straggler ? w->cfg.straggler_slowdown : 1.0);
      pr->rounds = proto_peer_rounds_done (n->peer);
      pr->synced = proto_peer_synced (n->peer);
      pr->retries_received = proto_peer_received_count (n->peer, PROTO_MSG_RETRY_PEER_CONNECTIONS);
      pr->fails_received = proto_peer_received_count (n->peer, PROTO_MSG_CONNECTION_FAIL);
      pr->state = proto_peer_state_name (proto_peer_state (n->peer));
      pr->accuracy = n->accuracy;
      pr->loss = n->loss;
      ProtoPeerState s = proto_peer_state (n->peer);
      if (pr->rounds >= w->cfg.proto.rounds)
        pr->outcome = SIM_PEER_FINISHED;
      else if (s == PROTO_PEER_FAILED)
        pr->outcome = strstr (proto_peer_error (n->peer), "ConnectionFail") ? SIM_PEER_EXCLUDED
                                                                              : SIM_PEER_FAILED;
      else if (n->status == NODE_CRASHED)
        pr->outcome = SIM_PEER_CRASHED;
      else if (n->status == NODE_LEFT)
        pr->outcome = SIM_PEER_LEFT;
      else if (r->outcome == SIM_OUTCOME_STALLED || now - n->progress >= stall_window (w))
        pr->outcome = SIM_PEER_HUNG;
      else
        pr->outcome = SIM_PEER_RUNNING;
      r->peers_finished += pr->outcome == SIM_PEER_FINISHED;
      r->peers_failed += pr->outcome == SIM_PEER_FAILED || pr->outcome == SIM_PEER_EXCLUDED;
      r->peers_hung += pr->outcome == SIM_PEER_HUNG;
      if (!isnan (n->accuracy) && (n->status == NODE_ONLINE || pr->outcome == SIM_PEER_FINISHED))
        {
          acc += n->accuracy;
          loss += n->loss;
          evaluated++;
        }
      if (pr->outcome == SIM_PEER_FINISHED || n->status == NODE_ONLINE)
        g_ptr_array_add (models, proto_peer_model (n->peer));
    }
  if (r->outcome == SIM_OUTCOME_COMPLETED && r->peers_hung > 0)
    r->outcome = SIM_OUTCOME_STALLED;
  r->final_accuracy = evaluated ? acc / evaluated : NAN;
  r->final_loss = evaluated ? loss / evaluated : NAN;
  r->consensus_distance = NAN;
  if (models->len > 0 && w->cfg.model.kind != LEARN_MODEL_NONE)
    {
      g_autoptr (LearnWeights) avg = learn_weights_mean ((LearnWeights **) models->pdata, models->len);
      double d = 0;
      gsize len = learn_weights_len (avg);
      for (guint m = 0; m < models->len; m++)
        {
          const float *x = learn_weights_data (models->pdata[m]), *y = learn_weights_data (avg);
          for (gsize k = 0; k < len; k++)
            d += ((double) x[k] - y[k]) * ((double) x[k] - y[k]);
        }
      r->consensus_distance = d / models->len;
    }
  g_ptr_array_unref (models);
}

const SimResult *
sim_world_run (SimWorld *w)
{
  g_return_val_if_fail (!w->finished, &w->result);
  /* timed actions first: those at time 0 take effect before the initial
   * peers connect (same instant, earlier sequence numbers) */
  for (guint i = 0; i < w->cfg.actions->len; i++)
    {
      const SimAction *a = &g_array_index (w->cfg.actions, SimAction, i);
      if (a->round == 0)
        {
          w->timed_pending++;
          sim_engine_schedule_at (w->engine, a->at, ev_action, w, i);
        }
    }
  for (ProtoNodeId id = 1; id <= w->cfg.n_peers; id++)
    {
      w->churn_pending++;
      sim_engine_schedule_at (w->engine, 0, ev_trace_join, w, id);
    }
  if (w->cfg.trace)
    for (guint i = 0; i < w->cfg.trace->len; i++)
      {
        const SimTraceEntry *t = &g_array_index (w->cfg.trace, SimTraceEntry, i);
        w->churn_pending++;
        sim_engine_schedule_at (w->engine, t->join, ev_trace_join, w, t->peer);
        if (t->leave != DL_TIME_NEVER)
          {
            w->churn_pending++;
            sim_engine_schedule_at (w->engine, t->leave, ev_trace_leave, w, t->peer);
          }
        w->next_id = MAX (w->next_id, t->peer + 1);
      }
  schedule_arrival (w);
  sim_engine_schedule_in (w->engine, DL_S, ev_watch, w, 0);
  SimRunResult rr = sim_engine_run_until (w->engine, w->cfg.time_limit);
  if (!w->finished)
    w->result.outcome = rr == SIM_RUN_EMPTY ? SIM_OUTCOME_COMPLETED : SIM_OUTCOME_TIME_LIMIT;
  w->finished = TRUE;
  finish_results (w);
  return &w->result;
}
