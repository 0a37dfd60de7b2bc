/* gossip-coord.c — the gossip family's coordinator (gossip-coord.h): a
 * membership tracker that paces steps and joins the peers' own draws into
 * each step's undirected contact graph.  It never sees a model.  Its
 * member table (gossip-members.c) and each step's graph (gossip-graph.c)
 * are leaves it calls.
 *
 * Step s:
 *   collect: every member that is not a helper has sent PeerIsReady, and
 *     at least min_participants have -> PeersForRound(s, the ready members,
 *     ascending; beyond gossip_sample_size of them, a sample drawn from the
 *     coordinator's stream) to each of them (observed as round-list);
 *   targets: each listed peer answers GossipTargets(s, its draws) -> once
 *     every listed peer still connected has answered, the graph is the
 *     union of the draws as undirected edges among them, and each gets
 *     Neighbors(s, its neighbours); then step s + 1 collects.
 * Helpers (peers that finished their rounds and stay) are listed when
 * ready but never waited for, and helpers alone never make a step.
 * A member whose stream closes leaves both phases at once; a peer that
 * joins or becomes ready while a graph is being joined waits for the next
 * step.  SignalForPeer is relayed as DISCO's controller relays it
 * (server/src/controllers/decentralized_controller.ts).
 * With gossip_mode = push-pull it also observes, the paper's simulations'
 * way: each listed peer reports its value as the step begins (a
 * GossipPayload of kind report), and once all have, it records the
 * variance's reduction over the step before as the metric
 * variance_factor_ppm (gossip-variance.c, a leaf that only records). */
#include "config.h"

#include "protocol/gossip/gossip-coord.h"
#include "protocol/gossip/gossip-graph-private.h"
#include "protocol/gossip/gossip-members-private.h"
#include "protocol/gossip/gossip-variance-private.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

#include <string.h>

typedef enum { PHASE_COLLECT, PHASE_TARGETS } Phase;

typedef struct GossipCoord GossipCoord;

struct GossipCoord {
  ProtoMachineBase base; /* its phase (its deadline is one of two below: gossip_coord_next_deadline) */
  ProtoConfig cfg;
  DlRandom *rng;        /* candidate samples: the run's "gossip-coordinator" stream */
  GossipMembers members; /* the member table and the kept provider (gossip-members.c) */
  uint32_t step;
  guint n_waited;       /* members the step waits for (waited ()) */
  guint n_waited_ready; /* of those, ready */
  guint n_ready_workers; /* ready members that are not helpers (waited for or not) */
  guint n_ready_helpers; /* helpers ready to mix */
  guint n_unanswered;   /* listed members whose targets are missing */
  DlTime now;
  DlTime deadline;      /* deadline policy: the list goes out with whoever is ready (NEVER: none) */
  DlTime targets_deadline; /* the graph goes without the listed peers that did not answer by then */
  gboolean deadline_passed; /* deadline policy: this step's deadline passed; it lists as soon as it may */
  DlTime median_period; /* of the last list's members: drop-slowest and mixed compare with it */
  GArray *recent;       /* kademlia: the last dht_k peers to join (ProtoNodeId), the bootstrap contacts */
  GossipVariance pp;    /* push-pull: the values reported as a step begins (gossip-variance.c) */
};

/* Does the step wait for m? (helpers, dropped and async members: no) */
static gboolean
waited (const GossipCoord *c, const GossipMember *m)
{
  return !m->helper && !m->async_member && c->step >= m->dropped_until;
}

static void
count_ready (GossipCoord *c, const GossipMember *m, int sign)
{
  if (m->helper)
    c->n_ready_helpers += sign;
  else
    c->n_ready_workers += sign;
  if (waited (c, m))
    c->n_waited_ready += sign;
}

/* The counters from scratch (after a list: statuses may change). */
static void
recount (GossipCoord *c)
{
  c->n_waited = c->n_waited_ready = c->n_ready_workers = c->n_ready_helpers = 0;
  for (guint i = 0; i < c->members.list->len; i++)
    {
      GossipMember *m = g_ptr_array_index (c->members.list, i);
      c->n_waited += waited (c, m);
      if (m->ready)
        count_ready (c, m, +1);
    }
}

static const char *const phase_names[] = { [PHASE_COLLECT] = "collect", [PHASE_TARGETS] = "targets" };

static const char *
phase_name (Phase ph)
{
  return phase_names[ph];
}

static void
observe (GossipCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
         const char *detail)
{
  proto_outbox_observe (out, kind, phase_name (c->base.state), (int32_t) c->step, other, type, value, "%s",
                        detail ? detail : "");
}

static void
send (GossipCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  observe (c, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, m);
}

static void
set_phase (GossipCoord *c, ProtoOutbox *out, Phase ph)
{
  if (c->base.state == ph)
    return;
  c->base.state = ph;
  observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, phase_name (ph));
}

static int
cmp_time (const void *a, const void *b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* m's period (its training since it was listed) ends now: the kept
 * provider follows */
static void
period_done (GossipCoord *c, GossipMember *m)
{
  m->period = c->now - m->since;
  _gossip_members_provider_update (&c->members, m, FALSE);
}

/* drop-slowest: at a list, members whose last period exceeds drop_factor x
 * the median of the list's are not waited for in the next drop_rounds
 * steps (they are still listed when they happen to be ready).  The median
 * is kept for mixed's classification too. */
static void
judge_periods (GossipCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n)
{
  g_autofree DlTime *p = g_new (DlTime, MAX (n, 1));
  guint k = 0;
  for (guint i = 0; i < n; i++)
    {
      GossipMember *m = _gossip_members_find (&c->members, ids[i], NULL);
      if (m && m->period > 0 && !m->helper)
        p[k++] = m->period;
    }
  if (k < 3)
    return;
  qsort (p, k, sizeof *p, cmp_time);
  c->median_period = p[k / 2];
  if (c->cfg.straggler_policy != PROTO_STRAGGLER_DROP_SLOWEST && c->cfg.straggler_policy != PROTO_STRAGGLER_MIXED)
    return;
  /* judged on the step they just took: a member not listed keeps its verdict */
  for (guint i = 0; i < n; i++)
    {
      GossipMember *m = _gossip_members_find (&c->members, ids[i], NULL);
      if (!m || m->helper || m->period <= 0 || (double) m->period <= c->cfg.drop_factor * (double) c->median_period)
        continue;
      if (c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED)
        {
          if (!m->async_member)
            proto_outbox_observe (out, PROTO_OBS_NOTE, phase_name (c->base.state), (int32_t) c->step, m->id, -1, -1,
                                  "mixed: its step took %.3f s, over %.2f x the median %.3f s: asynchronous",
                                  dl_time_to_s (m->period), c->cfg.drop_factor, dl_time_to_s (c->median_period));
          m->async_member = TRUE;   /* counted by the recount after the graph */
          continue;
        }
      m->dropped_until = c->step + 1 + c->cfg.drop_rounds;
      proto_outbox_observe (out, PROTO_OBS_NOTE, phase_name (c->base.state), (int32_t) c->step, m->id, -1,
                            (int64_t) c->cfg.drop_rounds,
                            "slowest: its step took %.3f s, over %.2f x the median %.3f s: not waited for in the "
                            "next %u steps", dl_time_to_s (m->period), c->cfg.drop_factor,
                            dl_time_to_s (c->median_period), c->cfg.drop_rounds);
    }
}

static void
try_list (GossipCoord *c, ProtoOutbox *out)
{
  /* every member the step waits for is ready (or the deadline passed), at
   * least one ready member trains, and with the helpers there are enough;
   * helpers alone never make a step */
  if (c->deadline != DL_TIME_NEVER && c->now >= c->deadline)
    {
      /* the deadline passed: it stays passed (not a timer to fire again) */
      c->deadline = DL_TIME_NEVER;
      c->deadline_passed = TRUE;
    }
  gboolean due = c->deadline_passed;
  if (c->base.state != PHASE_COLLECT || c->n_ready_workers == 0
      || c->n_ready_workers + c->n_ready_helpers < c->cfg.min_participants
      || (c->n_waited_ready < c->n_waited && !due))
    return;
  if (due && c->n_waited_ready < c->n_waited)
    observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, c->n_waited - c->n_waited_ready,
             "round_deadline: the step goes without the members still training (value: how many)");
  c->deadline = DL_TIME_NEVER;
  c->deadline_passed = FALSE;
  guint total = c->n_ready_workers + c->n_ready_helpers;
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, total);
  guint n = 0;
  for (guint i = 0; i < c->members.list->len; i++)
    {
      GossipMember *m = g_ptr_array_index (c->members.list, i);
      if (!m->ready)
        continue;
      ids[n++] = m->id;
      m->ready = FALSE;
      m->listed = TRUE;
      m->answered = FALSE;
      g_array_set_size (m->targets, 0);
    }
  recount (c);
  c->n_unanswered = n;
  judge_periods (c, out, ids, n);
  set_phase (c, out, PHASE_TARGETS);
  c->targets_deadline = dl_time_add (c->now, c->cfg.payload_timeout);
  /* each peer gets the step's members, or beyond GOSSIP_SAMPLE of them a
   * sample: the whole list to everyone would be n^2 ids a step, the very
   * implosion gossip avoids (400 MB a step at 10 000 peers) */
  guint sample = gossip_sample_size (gossip_config (&c->cfg)->fanout);
  g_autofree ProtoNodeId *pick = g_new (ProtoNodeId, MIN (n, sample + 1));
  g_autofree guint32 *pos = g_new (guint32, sample + 1);
  for (guint i = 0; i < n; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_ROUND_PEERS);
      m.round = c->step;
      if (n - 1 <= sample)
        proto_msg_set_peers (&m, ids, n);
      else
        {
          /* sample + 1 positions; drop this peer's own, or the last */
          gossip_pick_random_into (c->rng, n, sample + 1, pos);
          guint k = 0;
          for (guint j = 0; j <= sample && k < sample; j++)
            if (pos[j] != i)
              pick[k++] = ids[pos[j]];
          proto_msg_set_peers (&m, pick, k);
        }
      send (c, out, ids[i], &m);
    }
  observe (c, out, PROTO_OBS_ROUND_LIST, PROTO_NO_NODE, -1, n, NULL);
  _gossip_variance_begin (&c->pp, c->step, n);
}

/* async, or a slow member under mixed: a step of its own, at once */
static void
send_sample (GossipCoord *c, ProtoOutbox *out, GossipMember *m)
{
  guint sample = gossip_sample_size (gossip_config (&c->cfg)->fanout);
  g_autofree ProtoNodeId *pick = g_new (ProtoNodeId, MAX (c->members.list->len, 1));
  guint n = 0, others = c->members.list->len - 1;
  if (others <= sample)
    {
      for (guint i = 0; i < c->members.list->len; i++)
        if (((GossipMember *) g_ptr_array_index (c->members.list, i))->id != m->id)
          pick[n++] = ((GossipMember *) g_ptr_array_index (c->members.list, i))->id;
    }
  else
    {
      guint self = 0;
      _gossip_members_find (&c->members, m->id, &self);
      g_autofree guint32 *pos = gossip_pick_random (c->rng, c->members.list->len, sample + 1);
      for (guint j = 0; j <= sample && n < sample; j++)
        if (pos[j] != self)
          pick[n++] = ((GossipMember *) g_ptr_array_index (c->members.list, pos[j]))->id;
    }
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_GOSSIP_SAMPLE);
  r.round = c->step;
  proto_msg_set_peers (&r, pick, n);
  send (c, out, m->id, &r);
  m->since = c->now;
}

/* m's Neighbors: nb[0..len) */
static void
send_neighbors (GossipCoord *c, ProtoOutbox *out, GossipMember *m, const ProtoNodeId *nb, guint len)
{
  m->listed = FALSE;
  m->since = c->now;
  g_array_set_size (m->last_nbrs, 0);
  g_array_append_vals (m->last_nbrs, nb, len);
  m->last_step = c->step;
  _gossip_members_provider_update (&c->members, m, FALSE);
  ProtoMsg msg;
  proto_msg_init (&msg, PROTO_MSG_NEIGHBORS);
  msg.round = c->step;
  proto_msg_set_peers (&msg, nb, len);
  send (c, out, m->id, &msg);
}

static void
try_graph (GossipCoord *c, ProtoOutbox *out)
{
  if (c->base.state != PHASE_TARGETS)
    return;
  if (c->n_unanswered > 0)
    {
      if (c->now < c->targets_deadline)
        return;
      /* a listed peer that does not answer (cut off from the coordinator)
       * is left out of this step's graph, as one that left */
      observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, PROTO_MSG_GOSSIP_TARGETS, c->n_unanswered,
               "payload_timeout: the graph goes without the listed peers that did not answer (value: how many)");
      for (guint i = 0; i < c->members.list->len; i++)
        {
          GossipMember *m = g_ptr_array_index (c->members.list, i);
          if (m->listed && !m->answered)
            m->listed = FALSE;
        }
      c->n_unanswered = 0;
    }
  c->targets_deadline = DL_TIME_NEVER;
  /* neighbours per listed member: its draws, and whoever drew it */
  g_autoptr (GArray) ids = _gossip_members_listed_slots (&c->members);
  g_autoptr (GArray) ends = _gossip_members_graph_edges (&c->members);
  GossipGraph g;
  _gossip_graph_build (&g, (const ProtoNodeId *) (const void *) ids->data, ids->len,
                       (const guint *) (const void *) ends->data, ends->len / 2);
  set_phase (c, out, PHASE_COLLECT);
  guint edges = 0;
  for (guint i = 0; i < c->members.list->len; i++)
    {
      GossipMember *m = g_ptr_array_index (c->members.list, i);
      if (!m->listed)
        continue;
      guint len;
      const ProtoNodeId *nb = _gossip_graph_neighbors (&g, m->slot, &len);
      send_neighbors (c, out, m, nb, len);
      edges += len;
    }
  _gossip_graph_clear (&g);
  observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, edges / 2, "contact graph sent (value: edges)");
  c->step++;
  recount (c);   /* the drops of judge_periods, and their ends, apply from this step on */
  if (c->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE && c->n_ready_workers > 0)
    c->deadline = dl_time_add (c->now, c->cfg.round_deadline);
  try_list (c, out);
}

/* A new member, in both indexes */
static GossipMember *
member_join (GossipCoord *c, ProtoNodeId from)
{
  GossipMember *m = _gossip_members_add (&c->members, from);
  m->since = c->now;
  m->dropped_until = 0;
  m->async_member = c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC;
  c->n_waited += waited (c, m);
  return m;
}

/* kademlia: a newcomer's bootstrap contacts, the last peers to join
 * (gossip-dht.c), itself not among them (a repeat: it may be) */
static void
send_dht_bootstrap (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from)
{
  g_autoptr (GArray) boot = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  gboolean listed = FALSE;
  for (guint i = 0; i < c->recent->len; i++)
    if (g_array_index (c->recent, ProtoNodeId, i) != from)
      g_array_append_val (boot, g_array_index (c->recent, ProtoNodeId, i));
    else
      listed = TRUE;
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_DHT_NODES);
  r.round = 0;
  proto_msg_set_peers (&r, (const ProtoNodeId *) (const void *) boot->data, boot->len);
  send (c, out, from, &r);
  if (!listed)
    g_array_append_val (c->recent, from);
  if (c->recent->len > MAX (gossip_config (&c->cfg)->dht_k, 1))
    g_array_remove_index (c->recent, 0);
}

/* ClientConnected: a member, answered with NewNodeInfo (and a provider
 * if it joins mid-training, contacts if kademlia). */
static gboolean
on_client_connected (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, GossipMember *m)
{
  /* a member's repeat (its NewNodeInfo was lost: gossip-peer.c says
   * ClientConnected again after payload_timeout in connecting) is
   * answered as the first was, and it stays one member */
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  if (!m)
    m = member_join (c, from);
  {
    ProtoNodeId provider = _gossip_members_sync_provider (&c->members, from);
    ProtoMsg r;
    proto_msg_init (&r, PROTO_MSG_WELCOME);
    r.node = from;
    r.nb_participants = c->members.list->len;
    r.joined_mid_training = provider != PROTO_NO_NODE;
    send (c, out, from, &r);
    if (provider != PROTO_NO_NODE)
      {
        /* as DISCO's server answers a model sync request
         * (server/src/controllers/decentralized_controller.ts): the
         * peer to take the model from */
        ProtoMsg q;
        proto_msg_init (&q, PROTO_MSG_SYNC_PROVIDER);
        q.node = provider;
        send (c, out, from, &q);
      }
  }
  if (gossip_config (&c->cfg)->discovery == PROTO_DISCOVERY_KADEMLIA)
    send_dht_bootstrap (c, out, from);
  return TRUE;
}

/* a repeat PeerIsReady: its PeersForRound was lost; the step's members again */
static void
resend_round_peers (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->members.list->len; i++)
    if (((GossipMember *) g_ptr_array_index (c->members.list, i))->listed)
      g_array_append_val (ids, ((GossipMember *) g_ptr_array_index (c->members.list, i))->id);
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_ROUND_PEERS);
  r.round = c->step;
  guint most = 1 + gossip_sample_size (gossip_config (&c->cfg)->fanout);
  proto_msg_set_peers (&r, (const ProtoNodeId *) (const void *) ids->data, MIN (ids->len, most));
  send (c, out, from, &r);
}

/* PeerIsReady: a member ready for a step (or a helper, or asynchronous:
 * a sample). */
static gboolean
on_peer_is_ready (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, GossipMember *m)
{
  if (!m)
    return FALSE;
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  if (m->listed && !m->answered && !msg->helper)
    {
      resend_round_peers (c, out, from);
      return TRUE;
    }
  if (msg->helper && !m->helper)
    {
      if (m->ready)
        count_ready (c, m, -1);
      c->n_waited -= waited (c, m);
      m->helper = TRUE;
      if (m->ready)
        count_ready (c, m, +1);
      observe (c, out, PROTO_OBS_NOTE, from, -1, -1, "finished and stays: a helper, no longer waited for");
    }
  if (!m->helper)
    period_done (c, m);
  if (!m->helper && m->async_member && c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED
      && (double) m->period <= c->cfg.drop_factor * (double) c->median_period && !m->ready && !m->listed)
    {
      /* mixed: an asynchronous peer that is no longer slow comes back to the steps */
      c->n_waited -= waited (c, m);
      m->async_member = FALSE;
      c->n_waited += waited (c, m);
      proto_outbox_observe (out, PROTO_OBS_NOTE, phase_name (c->base.state), (int32_t) c->step, from, -1, -1,
                            "mixed: its step took %.3f s, within %.2f x the median: synchronous again",
                            dl_time_to_s (m->period), c->cfg.drop_factor);
    }
  if (m->async_member && !m->helper)
    {
      send_sample (c, out, m);
      return TRUE;
    }
  if (!m->ready && !m->listed)
    {
      m->ready = TRUE;
      count_ready (c, m, +1);
      if (c->cfg.straggler_policy == PROTO_STRAGGLER_DEADLINE && c->deadline == DL_TIME_NEVER && !c->deadline_passed
          && c->base.state == PHASE_COLLECT && !m->helper)
        c->deadline = dl_time_add (c->now, c->cfg.round_deadline);
    }
  try_list (c, out);
  return TRUE;
}

/* GossipPayload: push-pull's report of a member's value. */
static gboolean
on_payload (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, GossipMember *m)
{
  if (m && gossip_config (&c->cfg)->gossip_mode == PROTO_GOSSIP_MODE_PUSH_PULL
      && msg->comm_round == PROTO_GOSSIP_REPORT)
    {
      observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, NULL);
      _gossip_variance_report (&c->pp, msg, phase_name (c->base.state), out);
      return TRUE;
    }
  return FALSE;
}

/* GossipTargets: a listed member's targets for this step (or a step
 * that is over: its graph again). */
static gboolean
on_targets (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, GossipMember *m)
{
  if (m && !m->listed && msg->round < c->step)
    {
      /* targets of a step that is over: its Neighbors was lost (a repeat
       * of its graph), or the step went without it (an empty graph, so
       * that it moves on) */
      gboolean had = m->last_step == msg->round;
      observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, NULL);
      ProtoMsg r;
      proto_msg_init (&r, PROTO_MSG_NEIGHBORS);
      r.round = msg->round;
      if (had)
        proto_msg_set_peers (&r, (const ProtoNodeId *) (const void *) m->last_nbrs->data, m->last_nbrs->len);
      send (c, out, from, &r);
      return TRUE;
    }
  if (!m || !m->listed || m->answered || msg->round != c->step || c->base.state != PHASE_TARGETS)
    {
      observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round,
               "targets of no step in progress");
      return TRUE;
    }
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  g_array_append_vals (m->targets, msg->peers, msg->n_peers);
  m->answered = TRUE;
  c->n_unanswered--;
  try_graph (c, out);
  return TRUE;
}

/* SignalForPeer: relayed to the member it names, from the sender. */
static gboolean
on_signal_for_peer (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, GossipMember *m)
{
  if (!m || !_gossip_members_find (&c->members, msg->node, NULL))
    {
      observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1,
               "signal to an unknown peer: dropped");
      return TRUE;
    }
  proto_session_relay_observed (out, phase_name (c->base.state), (int32_t) c->step, from, msg, TRUE);
  return TRUE;
}

/* A message: one handler per type; one that does not take it (FALSE), or a
 * type it has none for, is dropped. */
static void
handle_message (GossipCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  GossipMember *m = _gossip_members_lookup (&c->members, from);
  gboolean taken = FALSE;
  switch (msg->type)
    {
    case PROTO_MSG_HELLO:
      taken = on_client_connected (c, out, from, msg, m);
      break;
    case PROTO_MSG_READY:
      taken = on_peer_is_ready (c, out, from, msg, m);
      break;
    case PROTO_MSG_GOSSIP_PAYLOAD:
      taken = on_payload (c, out, from, msg, m);
      break;
    case PROTO_MSG_GOSSIP_TARGETS:
      taken = on_targets (c, out, from, msg, m);
      break;
    case PROTO_MSG_SIGNAL:
      taken = on_signal_for_peer (c, out, from, msg, m);
      break;
    default:
      break;
    }
  if (!taken)
    observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
}

static void
member_left (GossipCoord *c, ProtoNodeId from, ProtoOutbox *out)
{
  guint at;
  GossipMember *m = _gossip_members_find (&c->members, from, &at);
  if (!m)
    return;
  observe (c, out, PROTO_OBS_NOTE, from, -1, -1, "stream closed: left the membership");
  for (guint i = 0; i < c->recent->len; i++)
    if (g_array_index (c->recent, ProtoNodeId, i) == from)
      {
        g_array_remove_index (c->recent, i);
        break;
      }
  c->n_waited -= waited (c, m);
  if (m->ready)
    count_ready (c, m, -1);
  if (m->listed && !m->answered)
    c->n_unanswered--;
  _gossip_members_provider_update (&c->members, m, TRUE);
  _gossip_members_remove (&c->members, at);
  try_graph (c, out);
  try_list (c, out);
}

/* ---- the machine (proto-machine.h) ---- */

static DlTime
gossip_coord_next_deadline (const void *impl)
{
  const GossipCoord *c = impl;
  return c->base.state == PHASE_COLLECT ? c->deadline : c->targets_deadline;
}

static void
gossip_coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  GossipCoord *c = impl;
  c->now = now;
  DlTime before = gossip_coord_next_deadline (c);
  switch (in->kind)
    {
    case PROTO_IN_DEADLINE:
      try_graph (c, out);
      try_list (c, out);
      break;
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (c, in->from, in->msg, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      member_left (c, in->from, out);
      break;
    default:
      break;
    }
  DlTime after = gossip_coord_next_deadline (c);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

static void
gossip_coord_free (void *impl)
{
  GossipCoord *c = impl;
  _gossip_members_clear (&c->members);
  dl_random_free (c->rng);
  g_array_unref (c->recent);
  _gossip_variance_clear (&c->pp);
  g_free (c);
}

/* it takes every message and drops what it has no use for itself: listens
 * is the default */
/* re-seeds its candidate samples' stream (ProtoMachineClass.reseed) */
static void
gossip_coord_reseed (void *impl, guint64 salt)
{
  GossipCoord *c = impl;
  dl_random_reseed (c->rng, salt);
}

static const ProtoMachineClass coord_class = {
  .handle = gossip_coord_handle,
  .next_deadline = gossip_coord_next_deadline,
  .free = gossip_coord_free,
  .reseed = gossip_coord_reseed,
};

ProtoMachine *
gossip_coord_new (const ProtoConfig *cfg)
{
  GossipCoord *c = g_new0 (GossipCoord, 1);
  proto_machine_base_init (&c->base, phase_names, PHASE_COLLECT);
  c->cfg = *cfg;
  _gossip_members_init (&c->members);
  c->deadline = DL_TIME_NEVER;
  c->targets_deadline = DL_TIME_NEVER;
  c->recent = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  _gossip_variance_init (&c->pp);
  c->rng = dl_random_new (cfg->seed, "gossip-coordinator", DL_RANDOM_NO_NODE);
  return proto_machine_new (&coord_class, &c->base);
}

guint
gossip_coord_step (const ProtoMachine *m)
{
  const GossipCoord *c = m->impl;
  return c->step;
}
