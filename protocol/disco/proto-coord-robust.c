/* proto-coord-robust.c — the coordinator's parts of dlsim's `robust`
 * version (docs/protocol.md, "robust: what changed and why"): the collect
 * phase's list to the ready peers with the straggler timeout and helpers
 * (S19, S20), the return to the collect phase after a Retry (S7, S9, S24),
 * the checkpoint of each round's model (S11, S25) and the provider choice for
 * a newcomer (S12); and disco-pre775's list of the first min ready peers
 * (S1). */
#include "config.h"

#include "protocol/disco/proto-coord.h"
#include "protocol/proto-omap.h"
#include "protocol/disco/proto-coord-private.h"
#include "protocol/disco/disco-msgs.h"

/* robust: the ready peers (trainers, then helpers) go into the connect
 * phase; a trainer that is not ready stays in #roundPeers for the next
 * collect.  With ready >= min but fewer than the participants, the straggler
 * timeout decides (S20); helpers alone never start a round. */
/* straggler_policy = drop-slowest: how long after the round began each
 * trainer said PeerIsReady (its exchange and its training) */
/* drop-slowest and mixed judge; mixed and async weigh by staleness */
static gboolean
judges (const ProtoCoord *c)
{
  return c->cfg.straggler_policy == PROTO_STRAGGLER_DROP_SLOWEST || c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED;
}

static gboolean
weighs (const ProtoCoord *c)
{
  return c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC || c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED;
}

void
pc_robust_note_ready (ProtoCoord *c, ProtoNodeId id, DlTime now)
{
  if (!judges (c))
    return;
  ReadyTime t = { id, now - c->round_began };
  g_array_append_val (c->ready_after, t);
}

static gboolean
dropped_now (const ProtoCoord *c, ProtoNodeId id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->dropped, GUINT_TO_POINTER (id))) > c->round;
}

/* trainers not ready that drop-slowest does not wait for */
static guint
dropped_waiting (const ProtoCoord *c)
{
  guint n = 0;
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    n += !proto_omap_at (&c->round_peers, i)->flag && dropped_now (c, proto_omap_at (&c->round_peers, i)->id);
  return n;
}

static gint
cmp_time (gconstpointer a, gconstpointer b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* drop-slowest, as the gossip and hierarchical families do it (gossip's
 * README): a trainer whose time to PeerIsReady in this collect was over
 * drop_factor x the median is not waited for in the next drop_rounds rounds */
static void
judge_slowest (ProtoCoord *c, ProtoOutbox *out)
{
  GArray *v = c->ready_after;
  if (v->len >= 2)
    {
      g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (DlTime), v->len);
      for (guint i = 0; i < v->len; i++)
        g_array_append_val (sorted, g_array_index (v, ReadyTime, i).after);
      g_array_sort (sorted, cmp_time);
      DlTime median = g_array_index (sorted, DlTime, (sorted->len - 1) / 2);
      for (guint i = 0; i < v->len; i++)
        {
          const ReadyTime *t = &g_array_index (v, ReadyTime, i);
          if ((double) t->after <= c->cfg.drop_factor * (double) median || dropped_now (c, t->id))
            continue;
          g_hash_table_insert (c->dropped, GUINT_TO_POINTER (t->id), GUINT_TO_POINTER (c->round + 1 + c->cfg.drop_rounds));
          g_autofree char *d = g_strdup_printf ("drop-slowest: ready %.3g s after the round began, over %.3g x the "
                                                "median %.3g s: not waited for in the next %u rounds",
                                                (double) t->after / 1e9, c->cfg.drop_factor, (double) median / 1e9,
                                                c->cfg.drop_rounds);
          pc_observe (c, out, PROTO_OBS_NOTE, t->id, -1, -1, d);
        }
    }
  g_array_set_size (v, 0);
}

/* async and mixed: after the list, every listed peer gets every listed
 * peer's staleness (rounds since the list it was last in: a peer that was
 * not waited for trained from an older round's model), so that every peer
 * weighs the same contributions the same (proto-aggregator.c) and the
 * round's mean stays one model. */
static void
send_staleness (ProtoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n)
{
  g_autofree guint32 *stale = g_new (guint32, MAX (n, 1));
  guint n_stale = 0;
  for (guint i = 0; i < n; i++)
    {
      guint last = GPOINTER_TO_UINT (g_hash_table_lookup (c->last_listed, GUINT_TO_POINTER (ids[i])));
      stale[i] = last && c->round > last ? c->round - last : 0;   /* last is 1 + its round */
      n_stale += stale[i] > 0;
      g_hash_table_insert (c->last_listed, GUINT_TO_POINTER (ids[i]), GUINT_TO_POINTER (c->round + 1));
    }
  for (guint i = 0; i < n; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_ROUND_STALENESS);
      m.round = c->round;
      proto_msg_set_peers (&m, ids, n);
      proto_msg_take_indices (&m, g_memdup2 (stale, n * sizeof *stale), n);
      pc_send (c, out, ids[i], &m);
    }
  if (n_stale)
    {
      g_autofree char *d = g_strdup_printf ("%s: %u of %u listed peers trained from an older round: weighed by "
                                            "staleness", proto_straggler_policy_name (c->cfg.straggler_policy),
                                            n_stale, n);
      pc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, n_stale, d);
    }
}

void
pc_robust_list_if_needed (ProtoCoord *c, DlTime now, ProtoOutbox *out)
{
  if (pc_in_connect_phase (c))
    return;
  guint ready = proto_omap_count (&c->round_peers, TRUE);
  guint helpers = proto_omap_count (&c->helpers, TRUE);
  if (ready == 0 || ready + helpers < c->cfg.min_participants)
    return;
  guint owed = pc_participating (c);
  /* async waits for nobody beyond min_participants */
  guint skipped = c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC ? owed - MIN (ready, owed)
                  : judges (c)                                     ? dropped_waiting (c)
                                                                   : 0;
  if (ready + skipped < owed && !c->straggler_due)
    {
      if (c->cfg.straggler_timeout != DL_TIME_NEVER && !pc_straggler_timer_running (c))
        pc_start_timer_kind (c, now, out, TIMER_STRAGGLER);
      return;
    }
  c->straggler_due = FALSE;
  if (judges (c))
    judge_slowest (c, out);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    if (proto_omap_at (&c->round_peers, i)->flag)
      g_array_append_val (ids, proto_omap_at (&c->round_peers, i)->id);
  for (guint i = 0; i < proto_omap_len (&c->helpers); i++)
    if (proto_omap_at (&c->helpers, i)->flag)
      g_array_append_val (ids, proto_omap_at (&c->helpers, i)->id);
  pc_send_lists (c, out, (ProtoNodeId *) ids->data, ids->len);
  if (weighs (c))
    send_staleness (c, out, (const ProtoNodeId *) (const void *) ids->data, ids->len);
  if (ready < owed)
    pc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, owed - ready,
                c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC
                  ? "async: the round goes on without the peers that are not ready"
                  : skipped && ready + skipped >= owed
                  ? "drop-slowest: the round goes on without the slow peers that are not ready"
                  : "straggler timeout: the round goes on without the peers that are not ready");
  for (guint i = 0; i < ids->len; i++)
    {
      ProtoNodeId id = g_array_index (ids, ProtoNodeId, i);
      proto_omap_set (&c->connect_flags, id, FALSE);
      if (proto_omap_has (&c->helpers, id))
        proto_omap_set (&c->helpers, id, FALSE);
      else
        proto_omap_set (&c->round_peers, id, FALSE);
    }
  g_array_unref (ids);
  pc_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "connect");
  pc_start_timer (c, now, out);
}

/* disco-pre775 (server at b95004b4^1, PeerIsReady): as soon as min peers are
 * ready, they are the round and the ready set starts empty again (S1).  No
 * round number, no barrier. */
void
pc_pre775_list_if_needed (ProtoCoord *c, ProtoOutbox *out)
{
  guint n = proto_omap_len (&c->round_peers);
  if (n == 0 || n < c->cfg.min_participants)
    return;
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
  for (guint i = 0; i < n; i++)
    ids[i] = proto_omap_at (&c->round_peers, i)->id;
  pc_send_lists (c, out, ids, n);
  proto_omap_remove_all (&c->round_peers);
  c->round++;
}

/* robust: the coordinator asks the round's provider for the model the round
 * ends with: SignalNewPeer naming the coordinator itself (PROTO_SERVER); the
 * provider answers with SharedModel over its stream once its round is over
 * (S11, S25). */
void
pc_request_checkpoint (ProtoCoord *c, ProtoOutbox *out)
{
  if (!c->cfg.robust_checkpoint || c->provider == PROTO_NO_NODE)
    return;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SIGNAL_NEW_PEER);
  m.node = PROTO_SERVER;
  pc_send (c, out, c->provider, &m);
}

/* robust: a Retry sends the connect phase's members back to the collect
 * phase; the timer stops until the next list (S7, S9, S24). */
void
pc_robust_back_to_collect (ProtoCoord *c, DlTime now, ProtoOutbox *out, const char *why)
{
  for (guint i = 0; i < proto_omap_len (&c->connect_flags); i++)
    pc_send_simple (c, out, proto_omap_at (&c->connect_flags, i)->id, PROTO_MSG_RETRY_PEER_CONNECTIONS);
  proto_omap_remove_all (&c->connect_flags);
  pc_clear_timer (c, out);
  pc_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "collect");
  if (why)
    pc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, why);
  pc_send_peers_for_round_if_needed (c, now, out);
}

/* robust: (re)assign a provider to a newcomer that asked for a sync: the
 * provider, or the coordinator itself with its checkpoint (S11, S12; and
 * for a repeated request when it has one: the link to the provider may
 * never come up). */
gboolean
pc_assign_provider (ProtoCoord *c, ProtoNodeId newcomer, gboolean repeat, ProtoOutbox *out)
{
  ProtoMsg m;
  ProtoNodeId provider = c->provider;
  if (repeat && !c->checkpoint)
    {
      /* the provider may hold no model yet (S13b) or be out of reach: the
       * k-th request goes to the k-th candidate, the provider first, then
       * every other connected node that is not syncing */
      GArray *cand = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
      if (provider != PROTO_NO_NODE && provider != newcomer)
        g_array_append_val (cand, provider);
      for (guint i = 0; i < proto_omap_len (&c->connections); i++)
        {
          ProtoNodeId id = proto_omap_at (&c->connections, i)->id;
          if (id != newcomer && id != provider && !proto_omap_has (&c->syncing, id))
            g_array_append_val (cand, id);
        }
      guint a = GPOINTER_TO_UINT (g_hash_table_lookup (c->sync_asks, GUINT_TO_POINTER (newcomer))) - 1;
      gboolean none = a >= cand->len;
      if (!none)
        provider = g_array_index (cand, ProtoNodeId, a);
      g_array_unref (cand);
      if (none)
        {
          /* every candidate was asked and none had a model, and no round's
           * model reached the coordinator: no trained model exists to sync.
           * SignalModelProvider naming the newcomer itself tells it to
           * start from its own (DISCO would fail it: S10) */
          proto_msg_init (&m, PROTO_MSG_SIGNAL_MODEL_PROVIDER);
          m.node = newcomer;
          pc_send (c, out, newcomer, &m);
          proto_omap_delete (&c->syncing, newcomer);
          pc_observe (c, out, PROTO_OBS_NOTE, newcomer, -1, -1, "no trained model to sync: the newcomer starts from its own");
          return TRUE;
        }
    }
  if (provider != PROTO_NO_NODE && provider != newcomer && !(repeat && c->checkpoint))
    {
      proto_msg_init (&m, PROTO_MSG_SIGNAL_MODEL_PROVIDER);
      m.node = provider;
      pc_send (c, out, newcomer, &m);
      proto_msg_init (&m, PROTO_MSG_SIGNAL_NEW_PEER);
      m.node = newcomer;
      pc_send (c, out, provider, &m);
      pc_observe (c, out, PROTO_OBS_SYNC_STARTED, newcomer, -1, provider, "provider assigned");
      return TRUE;
    }
  if (!c->cfg.robust_checkpoint || c->checkpoint == NULL)
    return FALSE;
  proto_msg_init (&m, PROTO_MSG_SIGNAL_MODEL_PROVIDER);
  m.node = PROTO_SERVER;
  pc_send (c, out, newcomer, &m);
  proto_msg_init (&m, PROTO_MSG_SHARED_MODEL);
  proto_msg_set_weights (&m, c->checkpoint);
  pc_send (c, out, newcomer, &m);
  proto_msg_clear (&m);
  pc_observe (c, out, PROTO_OBS_SYNC_SERVED, newcomer, -1, 0, "the coordinator's checkpoint");
  return TRUE;
}
