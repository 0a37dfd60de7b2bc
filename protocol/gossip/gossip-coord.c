/* gossip-coord.c — the gossip family's coordinator (gossip-coord.h): a
 * membership tracker that paces steps and joins the peers' own draws into
 * each step's undirected contact graph.  It never sees a model.
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
 * variance_factor_ppm. */
#include "config.h"

#include "protocol/gossip/gossip-coord.h"
#include "base/dl-idmap.h"
#include "protocol/gossip/gossip-graph-private.h"
#include "protocol/gossip/gossip-mix.h"
#include "protocol/session/session-msgs.h"
#include "protocol/gossip/gossip-msgs.h"

#include <math.h>
#include <string.h>

typedef struct {
  ProtoNodeId id;
  gboolean ready;
  gboolean helper;      /* finished and stays: mixes when listed, no longer waited for */
  gboolean listed;      /* in the current step's list */
  gboolean answered;    /* its GossipTargets came */
  GArray *targets;      /* ProtoNodeId */
  GArray *last_nbrs;    /* its neighbours in the last graph (ProtoNodeId), for a repeat */
  uint32_t last_step;   /* that graph's step (G_MAXUINT32: none) */
  /* straggler policies */
  DlTime since;         /* when its last step ended for it (Neighbors or GossipSample sent), or it connected */
  DlTime period;        /* its last step's period: since -> PeerIsReady (0: none yet) */
  uint32_t dropped_until; /* drop-slowest: not waited for before this step */
  gboolean async_member;  /* async, or mixed and slow: steps of its own (GossipSample) */
  guint slot;             /* while try_graph builds the graph: its place among the listed */
} Member;

typedef enum { PHASE_COLLECT, PHASE_TARGETS } Phase;

typedef struct GossipCoord GossipCoord;

struct GossipCoord {
  ProtoMachineBase base; /* its phase (its deadline is one of two below: gossip_coord_next_deadline) */
  ProtoConfig cfg;
  DlRandom *rng;        /* candidate samples: the run's "gossip-coordinator" stream */
  GPtrArray *members;   /* Member*, ascending id */
  DlIdMap by_id;        /* id -> Member*, the same members: a lookup is one load, where a
                           binary search of 100 000 members missed the cache at each level */
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
  /* push-pull: the values reported for step pp_step (of pp_listed listed) */
  uint32_t pp_step;
  guint pp_listed;
  GArray *pp_values;    /* double */
  double pp_last_var;   /* the variance at the last step's start (NAN: none yet) */
  /* sync_provider's answer with nobody excluded (NULL: nobody has trained),
   * kept from join to join while provider_known (provider_update) */
  const Member *provider;
  gboolean provider_known;
};

/* Does the step wait for m? (helpers, dropped and async members: no) */
static gboolean
waited (const GossipCoord *c, const Member *m)
{
  return !m->helper && !m->async_member && c->step >= m->dropped_until;
}

static void
count_ready (GossipCoord *c, const Member *m, int sign)
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
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
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

/* m's member, or NULL */
static Member *
member_of (const GossipCoord *c, ProtoNodeId id)
{
  return dl_id_map_lookup (&c->by_id, id);
}

/* Binary search; *at is where id is or would go (find (c, id, NULL) is
 * member_of). */
static Member *
find (const GossipCoord *c, ProtoNodeId id, guint *at)
{
  if (!at)
    return member_of (c, id);
  guint lo = 0, hi = c->members->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      Member *m = g_ptr_array_index (c->members, mid);
      if (m->id == id)
        {
          if (at)
            *at = mid;
          return m;
        }
      if (m->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (at)
    *at = lo;
  return NULL;
}

static void
member_free (gpointer data)
{
  Member *m = data;
  g_array_unref (m->targets);
  g_array_unref (m->last_nbrs);
  g_free (m);
}

static void try_graph (GossipCoord *c, ProtoOutbox *out);

static int
cmp_time (const void *a, const void *b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* The model provider sync_provider names (below), kept between joins. */
static gboolean
has_trained (const Member *m)
{
  return m->last_step != G_MAXUINT32 || m->period != 0;
}

/* Is a a better provider than b (both have trained)? */
static gboolean
provider_before (const Member *a, const Member *b)
{
  guint64 ka = a->last_step == G_MAXUINT32 ? 0 : (guint64) a->last_step + 1;
  guint64 kb = b->last_step == G_MAXUINT32 ? 0 : (guint64) b->last_step + 1;
  return ka > kb || (ka == kb && a->id < b->id);
}

static const Member *
provider_scan (const GossipCoord *c, ProtoNodeId newcomer)
{
  const Member *best = NULL;
  for (guint i = 0; i < c->members->len; i++)
    {
      const Member *m = g_ptr_array_index (c->members, i);
      if (m->id != newcomer && has_trained (m) && (!best || provider_before (m, best)))
        best = m;
    }
  return best;
}

/* m's last_step or period changed, or m leaves (gone): the kept provider
 * follows.  A step only raises a member's key, so a member that has
 * trained replaces the provider only if it comes before it. */
static void
provider_update (GossipCoord *c, const Member *m, gboolean gone)
{
  if (!c->provider_known)
    return;
  if (c->provider == m && (gone || !has_trained (m)))
    {
      c->provider = NULL;
      c->provider_known = FALSE;   /* the next join scans the members once */
    }
  else if (!gone && has_trained (m) && (!c->provider || provider_before (m, c->provider)))
    c->provider = m;
}

/* m's period (its training since it was listed) ends now: the kept
 * provider follows */
static void
period_done (GossipCoord *c, Member *m)
{
  m->period = c->now - m->since;
  provider_update (c, m, FALSE);
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
      Member *m = find (c, ids[i], NULL);
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
      Member *m = find (c, ids[i], NULL);
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
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
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
  c->pp_step = c->step;
  c->pp_listed = n;
  g_array_set_size (c->pp_values, 0);
}

/* push-pull: a listed peer's value as step pp_step begins; with all of
 * them, the variance (the sample variance about their mean, two passes),
 * and its ratio to the last step's, in parts per million. */
static void
pp_report (GossipCoord *c, ProtoOutbox *out, const ProtoMsg *msg)
{
  if (msg->round != c->pp_step || c->pp_values->len >= c->pp_listed || msg->weights == NULL
      || learn_weights_len (msg->weights) < 1 || learn_weights_is_symbolic (msg->weights))
    return;
  double v = learn_weights_data (msg->weights)[0];
  g_array_append_val (c->pp_values, v);
  guint n = c->pp_values->len;
  if (n < c->pp_listed || n < 2)
    return;
  const double *x = (const double *) (const void *) c->pp_values->data;
  double mean = 0, ss = 0;
  for (guint i = 0; i < n; i++)
    mean += x[i];
  mean /= n;
  for (guint i = 0; i < n; i++)
    ss += (x[i] - mean) * (x[i] - mean);
  double var = ss / (n - 1);
  if (!isnan (c->pp_last_var) && c->pp_last_var > 0 && c->pp_step > 0)
    proto_outbox_observe (out, PROTO_OBS_METRIC, phase_name (c->base.state), (int32_t) c->pp_step - 1, PROTO_NO_NODE, -1,
                          llround (1e6 * var / c->pp_last_var), "variance_factor_ppm");
  c->pp_last_var = var;
}

/* async, or a slow member under mixed: a step of its own, at once */
static void
send_sample (GossipCoord *c, ProtoOutbox *out, Member *m)
{
  guint sample = gossip_sample_size (gossip_config (&c->cfg)->fanout);
  g_autofree ProtoNodeId *pick = g_new (ProtoNodeId, MAX (c->members->len, 1));
  guint n = 0, others = c->members->len - 1;
  if (others <= sample)
    {
      for (guint i = 0; i < c->members->len; i++)
        if (((Member *) g_ptr_array_index (c->members, i))->id != m->id)
          pick[n++] = ((Member *) g_ptr_array_index (c->members, i))->id;
    }
  else
    {
      guint self = 0;
      find (c, m->id, &self);
      g_autofree guint32 *pos = gossip_pick_random (c->rng, c->members->len, sample + 1);
      for (guint j = 0; j <= sample && n < sample; j++)
        if (pos[j] != self)
          pick[n++] = ((Member *) g_ptr_array_index (c->members, pos[j]))->id;
    }
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_GOSSIP_SAMPLE);
  r.round = c->step;
  proto_msg_set_peers (&r, pick, n);
  send (c, out, m->id, &r);
  m->since = c->now;
}

/* The listed members take slots 0..n-1, in order: their ids */
static GArray *
listed_slots (GossipCoord *c)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->listed)
        {
          m->slot = ids->len;
          g_array_append_val (ids, m->id);
        }
    }
  return ids;
}

/* The step's edges as pairs of slots: each listed member's draws of
 * another member that is listed (not one that left, or was never listed) */
static GArray *
graph_edges (const GossipCoord *c)
{
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (!m->listed)
        continue;
      for (guint k = 0; k < m->targets->len; k++)
        {
          ProtoNodeId t = g_array_index (m->targets, ProtoNodeId, k);
          Member *o = t != m->id ? member_of (c, t) : NULL;
          if (!o || !o->listed)
            continue;
          g_array_append_val (ends, m->slot);
          g_array_append_val (ends, o->slot);
        }
    }
  return ends;
}

/* m's Neighbors: nb[0..len) */
static void
send_neighbors (GossipCoord *c, ProtoOutbox *out, Member *m, const ProtoNodeId *nb, guint len)
{
  m->listed = FALSE;
  m->since = c->now;
  g_array_set_size (m->last_nbrs, 0);
  g_array_append_vals (m->last_nbrs, nb, len);
  m->last_step = c->step;
  provider_update (c, m, FALSE);
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
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->listed && !m->answered)
            m->listed = FALSE;
        }
      c->n_unanswered = 0;
    }
  c->targets_deadline = DL_TIME_NEVER;
  /* neighbours per listed member: its draws, and whoever drew it */
  g_autoptr (GArray) ids = listed_slots (c);
  g_autoptr (GArray) ends = graph_edges (c);
  GossipGraph g;
  _gossip_graph_build (&g, (const ProtoNodeId *) (const void *) ids->data, ids->len,
                       (const guint *) (const void *) ends->data, ends->len / 2);
  set_phase (c, out, PHASE_COLLECT);
  guint edges = 0;
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
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

/* A late joiner's model provider (gossip-peer.c): the member that has
 * been in the latest step (ties: the lowest id); with no steps (async), the
 * lowest id that has trained; PROTO_NO_NODE if nobody has trained yet
 * (then everyone holds the initial model, and there is nothing to sync).
 * Kept between joins (provider_update): a scan of every member at each
 * join made 100 000 joins quadratic (issue 44); it scans only after the
 * provider left, or when the joiner is the provider itself (a repeat). */
static ProtoNodeId
sync_provider (GossipCoord *c, ProtoNodeId newcomer)
{
  if (!c->provider_known)
    {
      c->provider = provider_scan (c, PROTO_NO_NODE);
      c->provider_known = TRUE;
    }
  const Member *best = c->provider;
  if (best && best->id == newcomer)
    best = provider_scan (c, newcomer);   /* a repeat of the provider's own join */
  return best ? best->id : PROTO_NO_NODE;
}

/* A new member, in both indexes */
static Member *
member_join (GossipCoord *c, ProtoNodeId from)
{
  Member *m = g_new0 (Member, 1);
  m->id = from;
  m->targets = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  m->last_nbrs = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  m->last_step = G_MAXUINT32;
  m->since = c->now;
  m->dropped_until = 0;
  m->async_member = c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC;
  guint at;
  find (c, from, &at);
  g_ptr_array_insert (c->members, (gint) at, m);
  dl_id_map_insert (&c->by_id, from, m);
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
on_client_connected (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  /* a member's repeat (its NewNodeInfo was lost: gossip-peer.c says
   * ClientConnected again after payload_timeout in connecting) is
   * answered as the first was, and it stays one member */
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  if (!m)
    m = member_join (c, from);
  {
    ProtoNodeId provider = sync_provider (c, from);
    ProtoMsg r;
    proto_msg_init (&r, PROTO_MSG_WELCOME);
    r.node = from;
    r.nb_participants = c->members->len;
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
  for (guint i = 0; i < c->members->len; i++)
    if (((Member *) g_ptr_array_index (c->members, i))->listed)
      g_array_append_val (ids, ((Member *) g_ptr_array_index (c->members, i))->id);
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
on_peer_is_ready (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
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
on_payload (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (m && gossip_config (&c->cfg)->gossip_mode == PROTO_GOSSIP_MODE_PUSH_PULL
      && msg->comm_round == PROTO_GOSSIP_REPORT)
    {
      observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->round, NULL);
      pp_report (c, out, msg);
      return TRUE;
    }
  return FALSE;
}

/* GossipTargets: a listed member's targets for this step (or a step
 * that is over: its graph again). */
static gboolean
on_targets (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
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
on_signal_for_peer (GossipCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !find (c, msg->node, NULL))
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
  Member *m = member_of (c, from);
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
  Member *m = find (c, from, &at);
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
  provider_update (c, m, TRUE);
  dl_id_map_steal (&c->by_id, from);
  g_ptr_array_remove_index (c->members, at);
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
  dl_id_map_clear (&c->by_id);
  g_ptr_array_unref (c->members);
  dl_random_free (c->rng);
  g_array_unref (c->recent);
  g_array_unref (c->pp_values);
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
  c->members = g_ptr_array_new_with_free_func (member_free);
  dl_id_map_init (&c->by_id);
  c->deadline = DL_TIME_NEVER;
  c->targets_deadline = DL_TIME_NEVER;
  c->recent = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  c->pp_values = g_array_new (FALSE, FALSE, sizeof (double));
  c->pp_last_var = NAN;
  c->rng = dl_random_new (cfg->seed, "gossip-coordinator", DL_RANDOM_NO_NODE);
  return proto_machine_new (&coord_class, &c->base);
}

guint
gossip_coord_step (const ProtoMachine *m)
{
  const GossipCoord *c = m->impl;
  return c->step;
}
