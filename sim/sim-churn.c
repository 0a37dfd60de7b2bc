/* sim-churn.c — who is in the world when: the initial peers, timeline
 * actions (at a time or at a round's Start), Poisson churn, availability
 * traces; joining, leaving and crashing.  It calls sim-servers.c, sim-net.c
 * and sim-peers.c; feeding a machine goes through the callbacks sim-world.c
 * sets (sim-world-private.h). */
#include "config.h"

#include "sim/sim-world-private.h"
#include "base/dl-idset.h"
#include "host/sim-props.h"
#include "protocol/replica/proto-replica.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- membership */

Node *
sim_ensure_node (SimWorld *w, ProtoNodeId id)
{
  while (w->nodes->len <= id)
    g_ptr_array_add (w->nodes, NULL);
  Node *n = g_ptr_array_index (w->nodes, id);
  if (n)
    return n;
  n = g_new0 (Node, 1);
  dl_id_map_init_narrow (&n->links);
  n->id = id;
  n->status = NODE_ABSENT;
  n->slow = 1;
  n->joined = DL_TIME_NEVER;
  n->left = DL_TIME_NEVER;
  n->accuracy = NAN;
  n->loss = NAN;
  n->rng_net = sim_world_stream (w, "latency", id);
  n->rng_train = sim_world_stream (w, "minibatch", id);
  n->rng_shares = sim_world_stream (w, "shares", id);
  SimPeerAttrs attrs;
  sim_peer_attributes (&w->cfg, id, &attrs);
  n->speed = attrs.speed;
  n->straggler = attrs.straggler;
  n->nat_symmetric = attrs.nat_symmetric;
  n->up_bps = n->up_bps0 = attrs.uplink_bps;
  n->down_bps = n->down_bps0 = attrs.downlink_bps;
  sim_net_node_rates (w, n);
  if (w->partition)
    {
      GArray *idx = w->partition->idx[(sim_peer_origin (&w->cfg, id) - 1) % w->partition->parts];
      n->shard = learn_dataset_subset (w->cfg.train, (const gsize *) (const void *) idx->data, idx->len);
    }
  g_ptr_array_index (w->nodes, id) = n;
  return n;
}

/* twice a one-way server latency drawn once (saturating: a heavy tail may
 * draw DL_TIME_NEVER - 1) */
static DlTime
round_trip (SimWorld *w, Node *n)
{
  DlTime one_way = dl_dist_sample_time (&w->cfg.server_latency, n->rng_net);
  return dl_time_add (one_way, one_way);
}

/* A peer connects: a new machine on a new coordinator stream, starting
 * from `model` (NULL: the initial model). */
static void
join_with (SimWorld *w, ProtoNodeId id, double speed, LearnWeights *model)
{
  Node *n = sim_ensure_node (w, id);
  if (n->status != NODE_ABSENT)
    {
      sim_fact (w, id, PROTO_NO_NODE, "ignored", "join: the peer already joined once");
      return;
    }
  if (speed > 0)
    n->speed = speed;
  w->next_id = MAX (w->next_id, id + 1);
  n->status = NODE_ONLINE;
  n->joined = sim_engine_now (w->engine);
  n->progress = n->joined;
  SimPeerAttrs attrs;
  sim_peer_attributes (&w->cfg, id, &attrs);
  attrs.speed = n->speed;   /* a join may set it */
  ProtoPeerEnv env = sim_peer_env (&w->cfg, &attrs, model ? model : w->initial, n->rng_shares);
  env.id = id;
  env.samples = n->shard ? n->shard->n : 0;
  n->peer = w->family->new_peer (&w->cfg.proto, &env);
  if (w->n_servers > 1)
    {
      /* a replicated coordinator: the peer's session outlives a stream */
      n->peer = proto_session_peer_new (n->peer, &w->cfg.proto);
      n->server = sim_server_leader (w);
      if (n->server >= w->n_servers)
        {
          n->server = 0;
          sim_stream_broken (w, n, round_trip (w, n), "no coordinator replica leads");
        }
    }
  else if (w->servers[0].crashed)
    sim_stream_broken (w, n, round_trip (w, n), "the coordinator has crashed");
  w->progress = sim_engine_now (w->engine);
  g_autofree char *where = *attrs.region ? g_strdup_printf ("region %s", attrs.region) : NULL;
  sim_fact (w, id, PROTO_NO_NODE, "join", where);
  /* ClientConnected goes out on the new stream */
  ProtoInput in = { .kind = PROTO_IN_START };
  sim_dispatch_peer (w, n, &in);
}

static void
join (SimWorld *w, ProtoNodeId id, double speed)
{
  join_with (w, id, speed, NULL);
}

/* A trace's peer comes back (its next interval) as node `id`, a new
 * session.  DISCO's server gives every WebSocket a fresh id
 * (decentralized_controller.ts, handle: randomUUID) and keeps nothing of
 * the old one past its close; the other peers' pools know the old id only.
 * So the return is a new peer to the protocol, with the device, the data
 * shard and (unless return_model = initial) the last model of the one that
 * left: sim_peer_origin maps its id to that peer's. */
static void
trace_return (SimWorld *w, ProtoNodeId id)
{
  ProtoNodeId origin = sim_peer_origin (&w->cfg, id);
  Node *o = sim_ensure_node (w, origin);
  Node *prev = o->latest ? sim_node_at (w, o->latest) : o;
  char buf[64];
  if (prev->status == NODE_ONLINE)
    {
      g_snprintf (buf, sizeof buf, "return of p%u: p%u is still online", origin, prev->id);
      sim_fact (w, id, PROTO_NO_NODE, "ignored", buf);
      return;
    }
  LearnWeights *model = NULL;
  if (!w->cfg.return_initial && prev->peer)
    model = proto_machine_model (prev->peer);
  o->latest = id;
  g_snprintf (buf, sizeof buf, "p%u comes back: a new session", origin);
  sim_fact (w, id, PROTO_NO_NODE, "return", buf);
  join_with (w, id, 0, model);
}

static void
ev_crash_detected (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = sim_node_at (w, (ProtoNodeId) arg);
  w->timed_pending--;
  if (n->stream_down)
    return;   /* no replica holds its stream (a new leader's resume_timeout closes it) */
  n->coord_closed = TRUE;
  ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = n->id };
  sim_dispatch_coord (w, &in);
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
  Node *n = sim_node_at (w, id);
  if (!n || n->status != NODE_ONLINE)
    {
      sim_fact (w, id, PROTO_NO_NODE, "ignored", crash ? "crash: not online" : "leave: not online");
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
  sim_rearm (w, &n->deadline, DL_TIME_NEVER, NULL, id);   /* cancels it */
  n->status = crash ? NODE_CRASHED : NODE_LEFT;
  n->left = sim_engine_now (w->engine);
  sim_fact (w, id, PROTO_NO_NODE, crash ? "crash" : "leave", NULL);
  if (crash)
    sim_net_uplink_stopped (w, id);
  /* its links close: the other sides notice a graceful close, not a crash */
  GArray *others = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  uint32_t o;
  for (guint at = 0; dl_id_map_next32 (&n->links, &at, &o, NULL);)
    g_array_append_val (others, o);
  uint64_t key;
  for (guint at = 0; dl_word_map_next (w->links, &at, &key, NULL);)
    {
      ProtoNodeId a = (ProtoNodeId) (key >> 32), b = (ProtoNodeId) (key & 0xffffffffu);
      if (a == id || b == id)
        {
          ProtoNodeId other = a == id ? b : a;
          g_array_append_val (others, other);
        }
    }
  /* hash order must not reach the machines: sort */
  g_array_sort (others, cmp_id);
  for (guint i = 0; i < others->len; i++)
    sim_net_close_link (w, id, g_array_index (others, ProtoNodeId, i), !crash);
  g_array_unref (others);
  if (crash)
    {
      if (w->cfg.crash_never_detected)
        sim_fact (w, id, PROTO_NO_NODE, "crash-undetected", "crash_detection = never: the stream stays open");
      else
        {
          g_autoptr (DlRandom) r = sim_world_stream (w, "crash-detection", id);
          w->timed_pending++;
          sim_engine_schedule_in (w->engine, dl_dist_sample_time (&w->cfg.crash_detection, r),
                                  ev_crash_detected, w, id);
        }
    }
  else
    sim_net_close_stream (w, n);
}

/* ---------------------------------------------------------------- timeline */

/* the actions `heal all` stops (sim-world.h): everything but a join and a heal */
static gboolean
is_fault (SimActionKind k)
{
  return k != SIM_ACT_JOIN && k != SIM_ACT_HEAL && k != SIM_ACT_HEAL_ALL && k != SIM_ACT_RESEED;
}

static void
heal_link (SimWorld *w, Link *l)
{
  l->never = FALSE;
  l->dead = FALSE;
  sim_link_set_extra_setup (w, l, 0);
}

/* `heal all`: the liveness phase begins (sim-props.h, sim_props_heal).  The
 * partition heals; a failed link may come up and a dead one carries again;
 * links set up at their usual pace; the drop and delay rules still waiting
 * are lifted; slowed peers compute at their speed.  Crashed peers stay
 * gone (the coordinator notices them as usual); later fault actions are
 * ignored. */
static void
heal_all (SimWorld *w)
{
  w->healed_all = TRUE;
  w->healed_at = sim_engine_now (w->engine);
  g_clear_pointer (&w->groups, g_array_unref);
  g_array_set_size (w->drop_rules, 0);
  g_array_set_size (w->delay_rules, 0);
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (!n)
        continue;
      n->slow = 1;
      uint32_t id;
      guint32 ref;
      for (guint at = 0; dl_id_map_next32 (&n->links, &at, &id, &ref);)
        heal_link (w, sim_link_at (w, ref));
    }
  uint64_t key;
  gpointer v;
  for (guint at = 0; w->links && dl_word_map_next (w->links, &at, &key, &v);)
    heal_link (w, v);
  sim_props_heal (w->props, sim_engine_now (w->engine));
  sim_fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "heal", "all: the liveness phase begins");
}

/* A link-fail action: the link will never come up; a setup under way fails now. */
static void
link_fail (SimWorld *w, const SimAction *a)
{
  Link *l = sim_link_get (w, a->a, a->b, TRUE);
  l->never = TRUE;
  sim_fact (w, a->a, a->b, "link-fail", NULL);
  if (l->pending)
    {
      sim_net_cancel_link_setup (w, l);
      sim_net_link_failed (w, MIN (a->a, a->b), MAX (a->a, a->b), "link-fail action");
    }
}

/* A link-down action: an up link goes silently dead. */
static void
link_down (SimWorld *w, const SimAction *a)
{
  Link *l = sim_link_get (w, a->a, a->b, FALSE);
  if (l && l->up)
    {
      l->dead = TRUE;
      sim_fact (w, a->a, a->b, "link-down", "silent");
    }
  else
    sim_fact (w, a->a, a->b, "ignored", "link-down: the link is not up");
}

/* A drop or delay action: one more rule for the messages it names. */
static void
add_rule (SimWorld *w, const SimAction *a)
{
  char buf[64];
  Rule r = { .msg_type = a->msg_type, .node = a->a, .count = a->count ? a->count : 1,
             .delay = a->delay, .from = a->value == 1 };
  memcpy (r.label, a->msg_label, sizeof r.label);
  g_array_append_val (a->kind == SIM_ACT_DROP ? w->drop_rules : w->delay_rules, r);
  g_snprintf (buf, sizeof buf, "%s%s%s x%u", proto_msg_type_name ((ProtoMsgType) a->msg_type),
              r.label[0] ? ":" : "", r.label, r.count);
  sim_fact (w, a->a, PROTO_NO_NODE, a->kind == SIM_ACT_DROP ? "drop-rule" : "delay-rule", buf);
}

/* `reseed SALT`: every random stream of the run is re-seeded from salt,
 * the world's and its nodes' in place, the ones the machines own through
 * their class (proto_machine_reseed), and the ones made later through
 * sim_world_stream.  What happened before is untouched; the run goes on
 * as another draw of the same world (dlsim explore --localize). */
static void
reseed_all (SimWorld *w, guint64 salt)
{
  w->reseed_salt = dl_mix64 (salt) | 1;   /* never 0: made-later streams know */
  DlRandom *world[] = { w->rng_links, w->rng_churn, w->rng_loss, w->rng_close };
  for (guint i = 0; i < G_N_ELEMENTS (world); i++)
    dl_random_reseed (world[i], w->reseed_salt);
  for (guint k = 0; k < w->n_servers; k++)
    {
      if (w->servers[k].rng)
        dl_random_reseed (w->servers[k].rng, w->reseed_salt);
      proto_machine_reseed (w->servers[k].m, w->reseed_salt);
    }
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (!n)
        continue;
      dl_random_reseed (n->rng_net, w->reseed_salt);
      dl_random_reseed (n->rng_train, w->reseed_salt);
      dl_random_reseed (n->rng_shares, w->reseed_salt);
      if (n->peer)
        proto_machine_reseed (n->peer, w->reseed_salt);
    }
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, salt);
  sim_fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "reseed", buf);
}

static void
run_action (SimWorld *w, const SimAction *a)
{
  char buf[64];
  if (w->healed_all && is_fault (a->kind))
    {
      sim_fact (w, a->a, a->b, "ignored", "after heal all: no new faults");
      return;
    }
  if (a->kind == SIM_ACT_HEAL_ALL)
    {
      heal_all (w);   /* not progress: a run that finished before ends then */
      return;
    }
  if (a->kind == SIM_ACT_RESEED)
    {
      reseed_all (w, a->salt);   /* not progress either: nothing in the run moved */
      return;
    }
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
    case SIM_ACT_CRASH_COORD:
      sim_crash_coordinator (w);
      break;
    case SIM_ACT_LINK_FAIL:
      link_fail (w, a);
      break;
    case SIM_ACT_LINK_DOWN:
      link_down (w, a);
      break;
    case SIM_ACT_PARTITION:
      g_clear_pointer (&w->groups, g_array_unref);
      w->groups = g_array_copy (a->groups);
      sim_fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "partition", NULL);
      break;
    case SIM_ACT_HEAL:
      g_clear_pointer (&w->groups, g_array_unref);
      sim_fact (w, PROTO_NO_NODE, PROTO_NO_NODE, "heal", NULL);
      break;
    case SIM_ACT_HEAL_ALL:
    case SIM_ACT_RESEED:
      break;   /* above */
    case SIM_ACT_DROP:
    case SIM_ACT_DELAY:
      add_rule (w, a);
      break;
    case SIM_ACT_LINK_SLOW:
      {
        Link *l = sim_link_get (w, a->a, a->b, TRUE);
        sim_link_set_extra_setup (w, l, a->delay);
        sim_fact (w, a->a, a->b, "link-slow", NULL);
        break;
      }
    case SIM_ACT_SLOW:
      {
        Node *n = sim_ensure_node (w, a->a);
        n->slow *= a->value > 0 ? a->value : 1;
        g_snprintf (buf, sizeof buf, "x%g", a->value);
        sim_fact (w, a->a, PROTO_NO_NODE, "slow", buf);
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

void
sim_churn_round_started (SimWorld *w, guint round)
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

static const char *
action_verb (SimActionKind k)
{
  switch (k)
    {
    case SIM_ACT_JOIN: return "join";
    case SIM_ACT_LEAVE: return "leave";
    case SIM_ACT_CRASH: return "crash";
    case SIM_ACT_LINK_FAIL: return "link-fail";
    case SIM_ACT_LINK_DOWN: return "link-down";
    case SIM_ACT_PARTITION: return "partition";
    case SIM_ACT_HEAL: return "heal";
    case SIM_ACT_DROP: return "drop";
    case SIM_ACT_DELAY: return "delay";
    case SIM_ACT_SLOW: return "slow";
    case SIM_ACT_LINK_SLOW: return "link-slow";
    case SIM_ACT_CRASH_COORD: return "crash coordinator";
    case SIM_ACT_HEAL_ALL: return "heal all";
    case SIM_ACT_RESEED: return "reseed";
    }
  return "?";
}

guint
sim_churn_unfired (SimWorld *w)
{
  guint n = 0;
  for (guint i = 0; i < w->cfg.actions->len; i++)
    {
      const SimAction *a = &g_array_index (w->cfg.actions, SimAction, i);
      if (a->round == 0 || a->round <= w->round_started)
        continue;
      char after[DL_TIME_STR_LEN], who[16] = "";
      if (a->a)
        g_snprintf (who, sizeof who, " p%u", a->a);
      g_autofree char *what = g_strdup_printf ("timeline action %u (round %u + %s: %s%s) never fired: round %u "
                                               "not reached (rounds started: %u)", i + 1, a->round,
                                               dl_time_format (a->after, after), action_verb (a->kind), who,
                                               a->round, w->round_started);
      sim_fact (w, PROTO_SERVER, PROTO_NO_NODE, "timeline-unfired", what);
      n++;
    }
  return n;
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
  if (sim_peer_origin (&w->cfg, (ProtoNodeId) arg) != (ProtoNodeId) arg)
    trace_return (w, (ProtoNodeId) arg);
  else
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

/* Schedules what brings peers and actions into a run: timed actions, the
 * initial peers, the availability trace, the first churn arrival. */
void
sim_churn_start (SimWorld *w)
{
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
    {
      /* a peer's first interval is the peer itself; each later one (in
       * join order) a new session, ids above max_peers */
      DlIdSet seen;
      dl_id_set_init (&seen);
      w->cfg.session_origin = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint i = 0; i < w->cfg.trace->len; i++)
        {
          const SimTraceEntry *t = &g_array_index (w->cfg.trace, SimTraceEntry, i);
          ProtoNodeId id = t->peer;
          if (!dl_id_set_add (&seen, t->peer))
            {
              g_array_append_val (w->cfg.session_origin, t->peer);
              id = w->cfg.max_peers + w->cfg.session_origin->len;
            }
          w->churn_pending++;
          sim_engine_schedule_at (w->engine, t->join, ev_trace_join, w, id);
          if (t->leave != DL_TIME_NEVER)
            {
              w->churn_pending++;
              sim_engine_schedule_at (w->engine, t->leave, ev_trace_leave, w, id);
            }
          w->next_id = MAX (w->next_id, t->peer + 1);
        }
      dl_id_set_clear (&seen);
    }
  schedule_arrival (w);
}
