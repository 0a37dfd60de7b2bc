/* disco-coord.c — the coordinator of DISCO's decentralized rounds
 * (DISCO-NOTES.md §4, dcf4b31e; switches for the other versions).
 *
 * Collect phase: JoinRound / PeerIsReady fill round_peers; PeersForRound goes
 * out when ready >= min and ready == |connections - syncing| (disco-775:
 * ready == |round_peers|).  Connect phase (not in disco-775): ConnectionsReady
 * flags; all set -> StartWeightSharing, round += 1.  The connection timer
 * retries up to M times, then excludes the peers whose flag is missing.
 *
 * Not modelled: node id assignment (the driver's ids are used), the HTTP
 * model download, message encoding (drivers do that), later DISCO messages
 * (ParticipantsUpdate, CrashClient).
 *
 * Every transition is here, in static handlers, robust's and
 * disco-pre775's too (docs/protocol.md, "robust: what changed and why"):
 * the collect phase's list to the ready peers with the straggler timeout
 * and helpers (S19, S20), the return to the collect phase after a Retry
 * (S7, S9, S24), the checkpoint of each round's model (S11, S25), the
 * provider choice for a newcomer (S12), and disco-pre775's list of the
 * first min ready peers (S1).  What moved out are leaves it calls and
 * that never call it back (disco-coord-private.h, which also holds the
 * state): disco-coord-effects.c (records, sends, lists, timers) and
 * disco-coord-straggler.c (the straggler policies' bookkeeping).  It is
 * a little over 800 lines because the one machine carries every DISCO
 * version's switches; none of what is left can move out without taking
 * a transition with it. */
#include "config.h"

#include "protocol/disco/disco-coord.h"
#include "protocol/proto-omap.h"
#include "protocol/disco/disco-coord-private.h"
#include "protocol/disco/disco-msgs.h"

static void
disco_coord_free (void *impl)
{
  DiscoCoord *c = impl;
  proto_omap_clear (&c->connections);
  proto_omap_clear (&c->syncing);
  proto_omap_clear (&c->round_peers);
  proto_omap_clear (&c->connect_flags);
  g_array_unref (c->timers);
  proto_omap_clear (&c->helpers);
  proto_omap_clear (&c->exchanging);
  proto_omap_clear (&c->sync_wait);
  proto_omap_clear (&c->excluded);
  g_hash_table_unref (c->tries);
  g_array_unref (c->ready_after);
  g_hash_table_unref (c->dropped);
  g_hash_table_unref (c->last_listed);
  g_hash_table_unref (c->sync_asks);
  g_clear_pointer (&c->checkpoint, learn_weights_unref);
  g_free (c);
}

/* ---- collect and connect ---- */

static const char *const phase_names[] = { [COORD_COLLECT] = "collect", [COORD_CONNECT] = "connect", NULL };

/* #connectFinishedNodes changes only here: its phase (the base's state)
 * is connect while it has a member. */
static void
connect_flags_changed (DiscoCoord *c)
{
  c->base.state = proto_omap_len (&c->connect_flags) > 0 ? COORD_CONNECT : COORD_COLLECT;
}

static void
connect_flag_set (DiscoCoord *c, ProtoNodeId id, gboolean flag)
{
  proto_omap_set (&c->connect_flags, id, flag);
  connect_flags_changed (c);
}

static gboolean
connect_flag_delete (DiscoCoord *c, ProtoNodeId id)
{
  gboolean had = proto_omap_delete (&c->connect_flags, id);
  connect_flags_changed (c);
  return had;
}

static void
connect_flags_clear (DiscoCoord *c)
{
  proto_omap_remove_all (&c->connect_flags);
  connect_flags_changed (c);
}

static gboolean
in_connect_phase (const DiscoCoord *c)
{
  return c->base.state == COORD_CONNECT;
}

static guint
participating (const DiscoCoord *c)
{
  if (disco_config (&c->cfg)->collect_over_joined)
    return proto_omap_len (&c->round_peers);
  guint n = 0;
  for (guint i = 0; i < proto_omap_len (&c->connections); i++)
    {
      ProtoNodeId id = proto_omap_at (&c->connections, i)->id;
      n += !proto_omap_has (&c->syncing, id) && !proto_omap_has (&c->helpers, id);
    }
  return n;
}

/* robust: the ready peers (trainers, then helpers) go into the connect
 * phase; a trainer that is not ready stays in #roundPeers for the next
 * collect.  With ready >= min but fewer than the participants, the straggler
 * timeout decides (S20); helpers alone never start a round. */
static void
robust_list_if_needed (DiscoCoord *c, DlTime now, ProtoOutbox *out)
{
  if (in_connect_phase (c))
    return;
  guint ready = proto_omap_count (&c->round_peers, TRUE);
  guint helpers = proto_omap_count (&c->helpers, TRUE);
  if (ready == 0 || ready + helpers < c->cfg.min_participants)
    return;
  guint owed = participating (c);
  /* async waits for nobody beyond min_participants */
  guint skipped = c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC ? owed - MIN (ready, owed)
                  : _disco_coord_straggler_judges (c)              ? _disco_coord_straggler_dropped_waiting (c)
                                                                   : 0;
  if (ready + skipped < owed && !c->straggler_due)
    {
      if (disco_config (&c->cfg)->straggler_timeout != DL_TIME_NEVER && !_disco_coord_has_straggler_timer (c))
        _disco_coord_start_timer_kind (c, now, out, TIMER_STRAGGLER);
      return;
    }
  c->straggler_due = FALSE;
  if (_disco_coord_straggler_judges (c))
    _disco_coord_straggler_judge_slowest (c, out);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    if (proto_omap_at (&c->round_peers, i)->flag)
      g_array_append_val (ids, proto_omap_at (&c->round_peers, i)->id);
  for (guint i = 0; i < proto_omap_len (&c->helpers); i++)
    if (proto_omap_at (&c->helpers, i)->flag)
      g_array_append_val (ids, proto_omap_at (&c->helpers, i)->id);
  _disco_coord_send_lists (c, out, (ProtoNodeId *) ids->data, ids->len);
  if (_disco_coord_straggler_weighs (c))
    _disco_coord_straggler_send_staleness (c, out, (const ProtoNodeId *) (const void *) ids->data, ids->len);
  if (ready < owed)
    _disco_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, owed - ready,
                          c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC
                            ? "async: the round goes on without the peers that are not ready"
                            : skipped && ready + skipped >= owed
                            ? "drop-slowest: the round goes on without the slow peers that are not ready"
                            : "straggler timeout: the round goes on without the peers that are not ready");
  for (guint i = 0; i < ids->len; i++)
    {
      ProtoNodeId id = g_array_index (ids, ProtoNodeId, i);
      connect_flag_set (c, id, FALSE);
      if (proto_omap_has (&c->helpers, id))
        proto_omap_set (&c->helpers, id, FALSE);
      else
        proto_omap_set (&c->round_peers, id, FALSE);
    }
  g_array_unref (ids);
  _disco_coord_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "connect");
  _disco_coord_start_timer (c, now, out);
}

/* disco-pre775 (server at b95004b4^1, PeerIsReady): as soon as min peers are
 * ready, they are the round and the ready set starts empty again (S1).  No
 * round number, no barrier. */
static void
pre775_list_if_needed (DiscoCoord *c, ProtoOutbox *out)
{
  guint n = proto_omap_len (&c->round_peers);
  if (n == 0 || n < c->cfg.min_participants)
    return;
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
  for (guint i = 0; i < n; i++)
    ids[i] = proto_omap_at (&c->round_peers, i)->id;
  _disco_coord_send_lists (c, out, ids, n);
  proto_omap_remove_all (&c->round_peers);
  c->round++;
}

static void
send_peers_for_round_if_needed (DiscoCoord *c, DlTime now, ProtoOutbox *out)
{
  if (disco_config (&c->cfg)->robust_members_only)
    {
      robust_list_if_needed (c, now, out);
      return;
    }
  if (disco_config (&c->cfg)->list_first_min)
    {
      pre775_list_if_needed (c, out);
      return;
    }
  guint ready = proto_omap_count (&c->round_peers, TRUE);
  guint part = participating (c);
  if (ready == 0 || ready < c->cfg.min_participants || ready != part)
    return;

  guint n = proto_omap_len (&c->round_peers);
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
  for (guint i = 0; i < n; i++)
    ids[i] = proto_omap_at (&c->round_peers, i)->id;
  _disco_coord_send_lists (c, out, ids, n);

  if (disco_config (&c->cfg)->connect_barrier)
    {
      connect_flags_clear (c);
      for (guint i = 0; i < n; i++)
        connect_flag_set (c, ids[i], FALSE);
      proto_omap_set_all (&c->round_peers, FALSE);
      _disco_coord_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "connect");
      _disco_coord_start_timer (c, now, out);  /* without clearing a running one (S7) */
    }
  else
    {
      /* disco-775: the list is the round; the map is cleared, the round advances. */
      proto_omap_remove_all (&c->round_peers);
      c->round++;
    }
}

/* robust: the coordinator asks the round's provider for the model the round
 * ends with: SignalNewPeer naming the coordinator itself (PROTO_SERVER); the
 * provider answers with SharedModel over its stream once its round is over
 * (S11, S25). */
static void
request_checkpoint (DiscoCoord *c, ProtoOutbox *out)
{
  if (!disco_config (&c->cfg)->robust_checkpoint || c->provider == PROTO_NO_NODE)
    return;
  ProtoMsg m;
  proto_msg_init (&m, DISCO_MSG_SIGNAL_NEW_PEER);
  m.node = PROTO_SERVER;
  _disco_coord_send (c, out, c->provider, &m);
}

/* robust: a Retry sends the connect phase's members back to the collect
 * phase; the timer stops until the next list (S7, S9, S24). */
static void
robust_back_to_collect (DiscoCoord *c, DlTime now, ProtoOutbox *out, const char *why)
{
  for (guint i = 0; i < proto_omap_len (&c->connect_flags); i++)
    _disco_coord_send_simple (c, out, proto_omap_at (&c->connect_flags, i)->id, DISCO_MSG_RETRY_PEER_CONNECTIONS);
  connect_flags_clear (c);
  _disco_coord_clear_timer (c, out);
  _disco_coord_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "collect");
  if (why)
    _disco_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, -1, why);
  send_peers_for_round_if_needed (c, now, out);
}

/* robust: (re)assign a provider to a newcomer that asked for a sync: the
 * provider, or the coordinator itself with its checkpoint (S11, S12; and
 * for a repeated request when it has one: the link to the provider may
 * never come up). */
static gboolean
assign_provider (DiscoCoord *c, ProtoNodeId newcomer, gboolean repeat, ProtoOutbox *out)
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
          proto_msg_init (&m, PROTO_MSG_SYNC_PROVIDER);
          m.node = newcomer;
          _disco_coord_send (c, out, newcomer, &m);
          proto_omap_delete (&c->syncing, newcomer);
          _disco_coord_observe (c, out, PROTO_OBS_NOTE, newcomer, -1, -1, "no trained model to sync: the newcomer starts from its own");
          return TRUE;
        }
    }
  if (provider != PROTO_NO_NODE && provider != newcomer && !(repeat && c->checkpoint))
    {
      proto_msg_init (&m, PROTO_MSG_SYNC_PROVIDER);
      m.node = provider;
      _disco_coord_send (c, out, newcomer, &m);
      proto_msg_init (&m, DISCO_MSG_SIGNAL_NEW_PEER);
      m.node = newcomer;
      _disco_coord_send (c, out, provider, &m);
      _disco_coord_observe (c, out, PROTO_OBS_SYNC_STARTED, newcomer, -1, provider, "provider assigned");
      return TRUE;
    }
  if (!disco_config (&c->cfg)->robust_checkpoint || c->checkpoint == NULL)
    return FALSE;
  proto_msg_init (&m, PROTO_MSG_SYNC_PROVIDER);
  m.node = PROTO_SERVER;
  _disco_coord_send (c, out, newcomer, &m);
  proto_msg_init (&m, PROTO_MSG_SYNC_MODEL);
  proto_msg_set_weights (&m, c->checkpoint);
  _disco_coord_send (c, out, newcomer, &m);
  proto_msg_clear (&m);
  _disco_coord_observe (c, out, PROTO_OBS_SYNC_SERVED, newcomer, -1, 0, "the coordinator's checkpoint");
  return TRUE;
}

static void
signal_weight_sharing (DiscoCoord *c, DlTime now, ProtoOutbox *out)
{
  if (proto_omap_count (&c->connect_flags, FALSE) > 0)
    return;
  _disco_coord_clear_timer (c, out);
  if (disco_config (&c->cfg)->robust_members_only)
    {
      /* the connect phase's members are the round: the others keep their
       * place (and readiness) for the next collect (S19) */
      guint n = proto_omap_len (&c->connect_flags);
      proto_omap_remove_all (&c->exchanging);
      for (guint i = 0; i < n; i++)
        {
          ProtoNodeId id = proto_omap_at (&c->connect_flags, i)->id;
          _disco_coord_send_simple (c, out, id, DISCO_MSG_START_WEIGHT_SHARING);
          proto_omap_delete (&c->round_peers, id);
          proto_omap_set (&c->exchanging, id, TRUE);
        }
      _disco_coord_observe (c, out, PROTO_OBS_ROUND_START, PROTO_NO_NODE, -1, n, NULL);
      connect_flags_clear (c);
      c->round++;
      c->round_began = now;
      if (disco_config (&c->cfg)->robust_retry_per_round)
        {
          c->retry = 0;   /* S6 */
          g_hash_table_remove_all (c->tries);
        }
      request_checkpoint (c, out);
      _disco_coord_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "collect");
      send_peers_for_round_if_needed (c, now, out);
      return;
    }
  guint n = proto_omap_len (&c->round_peers);
  for (guint i = 0; i < n; i++)
    _disco_coord_send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, DISCO_MSG_START_WEIGHT_SHARING);
  _disco_coord_observe (c, out, PROTO_OBS_ROUND_START, PROTO_NO_NODE, -1, n, NULL);
  proto_omap_remove_all (&c->round_peers);
  connect_flags_clear (c);
  c->round++;
  _disco_coord_observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "collect");
}

/* Both branches of handleTimeout (decentralized_controller.ts) end with
 * #roundPeers = #roundPeers.map(() => false) and #connectFinishedNodes =
 * #roundPeers.map(() => false). */
static void
reset_flags_from_round_peers (DiscoCoord *c)
{
  proto_omap_set_all (&c->round_peers, FALSE);
  connect_flags_clear (c);
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    connect_flag_set (c, proto_omap_at (&c->round_peers, i)->id, FALSE);
}

/* The straggler timer: the round's list goes out if it is due. */
static void
on_straggler_timer (DiscoCoord *c, DlTime now, uint64_t handle, ProtoOutbox *out)
{
  _disco_coord_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, (int64_t) handle, "straggler timeout");
  if (handle == c->current_timer)
    c->current_timer = 0;
  c->straggler_due = TRUE;
  send_peers_for_round_if_needed (c, now, out);
  c->straggler_due = FALSE;
}

/* The retries are spent: the members without ConnectionsReady are
 * excluded (robust: those sent M Retries themselves), and the others
 * retry. */
static void
exclude_unconnected (DiscoCoord *c, DlTime now, ProtoOutbox *out)
{
  GArray *failed = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < proto_omap_len (&c->connect_flags); i++)
    {
      ProtoNodeId id = proto_omap_at (&c->connect_flags, i)->id;
      /* robust: only a peer that was itself sent M Retries this round
       * (one listed in a later attempt gets its own M) */
      if (!proto_omap_at (&c->connect_flags, i)->flag
          && (!disco_config (&c->cfg)->robust_retry_per_round
              || GPOINTER_TO_UINT (g_hash_table_lookup (c->tries, GUINT_TO_POINTER (id)))
                 >= disco_config (&c->cfg)->max_connection_retry))
        g_array_append_val (failed, id);
    }
  if (disco_config (&c->cfg)->robust_retry_per_round && failed->len == 0)
    {
      g_array_unref (failed);
      robust_back_to_collect (c, now, out, NULL);
      return;
    }
  for (guint i = 0; i < failed->len; i++)
    {
      ProtoNodeId id = g_array_index (failed, ProtoNodeId, i);
      proto_omap_delete (&c->round_peers, id);
      connect_flag_delete (c, id);
      proto_omap_delete (&c->helpers, id);
      if (disco_config (&c->cfg)->robust_wait_timeout)
        proto_omap_set (&c->excluded, id, TRUE);
      _disco_coord_send_simple (c, out, id, DISCO_MSG_CONNECTION_FAIL);
      _disco_coord_observe (c, out, PROTO_OBS_EXCLUDED, id, -1, c->retry, NULL);
    }
  g_array_unref (failed);
  if (disco_config (&c->cfg)->robust_single_timer)
    {
      c->retry = 0;
      robust_back_to_collect (c, now, out, NULL);
      return;
    }
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    _disco_coord_send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, DISCO_MSG_RETRY_PEER_CONNECTIONS);
  /* #roundPeers.map(() => false); #connectFinishedNodes = #roundPeers.map(() => false):
   * the flags are rebuilt from the round peers, so a stray flag goes
   * (S31) and a peer whose JoinRound came in the connect phase is in (S19) */
  reset_flags_from_round_peers (c);
  c->retry = 0;
  _disco_coord_start_timer (c, now, out);
}

static void
handle_timeout (DiscoCoord *c, DlTime now, uint64_t handle, TimerKind kind, ProtoOutbox *out)
{
  if (kind == TIMER_STRAGGLER)
    {
      on_straggler_timer (c, now, handle, out);
      return;
    }
  gboolean orphan = handle != c->current_timer;
  _disco_coord_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, (int64_t) handle,
                     orphan ? "orphan timer (not #timeout)" : NULL);
  _disco_coord_clear_timer (c, out);
  c->retry++;
  _disco_coord_observe (c, out, PROTO_OBS_RETRY, PROTO_NO_NODE, -1, c->retry, NULL);

  /* robust decides per peer (below): any member without ConnectionsReady
   * that was itself sent M Retries this round */
  gboolean exclude = disco_config (&c->cfg)->robust_retry_per_round
                     || (disco_config (&c->cfg)->exclude_when_retry_ge ? c->retry >= disco_config (&c->cfg)->max_connection_retry
                                                      : c->retry > disco_config (&c->cfg)->max_connection_retry);
  if (exclude)
    {
      exclude_unconnected (c, now, out);
      return;
    }
  if (disco_config (&c->cfg)->robust_single_timer)
    {
      robust_back_to_collect (c, now, out, NULL);
      return;
    }
  reset_flags_from_round_peers (c);
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    _disco_coord_send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, DISCO_MSG_RETRY_PEER_CONNECTIONS);
  _disco_coord_start_timer (c, now, out);
}

static void
reset (DiscoCoord *c, ProtoOutbox *out)
{
  c->waiting = TRUE;
  proto_omap_remove_all (&c->connections);
  proto_omap_remove_all (&c->round_peers);
  connect_flags_clear (c);
  proto_omap_remove_all (&c->syncing);
  proto_omap_remove_all (&c->helpers);
  proto_omap_remove_all (&c->exchanging);
  proto_omap_remove_all (&c->sync_wait);
  proto_omap_remove_all (&c->excluded);
  g_hash_table_remove_all (c->sync_asks);
  c->retry = 0;
  c->provider = PROTO_NO_NODE;
  _disco_coord_clear_timer (c, out);  /* #timeout only: an orphan timer survives */
  if (c->checkpoint)
    {
      /* robust: the round and its model stay; the next joiners sync (S25) */
      _disco_coord_observe (c, out, PROTO_OBS_RESET, PROTO_NO_NODE, -1, c->round,
                         "no connection left: session reset, the coordinator keeps the last round's model");
      return;
    }
  c->round = 0;
  _disco_coord_observe (c, out, PROTO_OBS_RESET, PROTO_NO_NODE, -1, -1, "no connection left: session reset, model lost");
}

static void
stream_closed (DiscoCoord *c, DlTime now, ProtoNodeId id, ProtoOutbox *out)
{
  if (disco_config (&c->cfg)->list_first_min)
    {
      /* the pre-775 controller has no close handler: the node stays in
       * `connections` and in the ready set (S2) */
      _disco_coord_observe (c, out, PROTO_OBS_NOTE, id, -1, -1, "stream closed (pre-775: not handled)");
      return;
    }
  if (!proto_omap_delete (&c->connections, id))
    return;
  proto_omap_delete (&c->round_peers, id);
  gboolean member = connect_flag_delete (c, id);  /* not from syncing */
  gboolean exchanging = proto_omap_delete (&c->exchanging, id);
  proto_omap_delete (&c->helpers, id);
  proto_omap_delete (&c->sync_wait, id);
  g_hash_table_remove (c->sync_asks, GUINT_TO_POINTER (id));
  proto_omap_delete (&c->excluded, id);
  _disco_coord_observe (c, out, PROTO_OBS_NOTE, id, -1, proto_omap_len (&c->connections), "stream closed");
  if (proto_omap_len (&c->connections) == 0 && disco_config (&c->cfg)->reset_when_empty)
    {
      reset (c, out);
      return;
    }
  if (disco_config (&c->cfg)->robust_close_restarts && member && in_connect_phase (c))
    /* S18, S26: the others may be linking to it; they start over at once */
    robust_back_to_collect (c, now, out, "a listed peer left in the connect phase: Retry (not counted)");
  else if (disco_config (&c->cfg)->robust_close_restarts && exchanging && proto_omap_len (&c->exchanging) > 0)
    {
      /* S17: its Payload may never come; the round's other members abort */
      for (guint i = 0; i < proto_omap_len (&c->exchanging); i++)
        _disco_coord_send_simple (c, out, proto_omap_at (&c->exchanging, i)->id, DISCO_MSG_RETRY_PEER_CONNECTIONS);
      _disco_coord_observe (c, out, PROTO_OBS_NOTE, id, -1, proto_omap_len (&c->exchanging),
                         "a member left during the exchange: Retry aborts it for the others");
      proto_omap_remove_all (&c->exchanging);
    }
  if (disco_config (&c->cfg)->model_sync && id == c->provider)
    {
      ProtoNodeId next = PROTO_NO_NODE;
      if (disco_config (&c->cfg)->provider_first_entry)
        next = proto_omap_at (&c->connections, 0)->id;
      else
        for (guint i = 0; i < proto_omap_len (&c->connections); i++)
          if (!proto_omap_has (&c->syncing, proto_omap_at (&c->connections, i)->id))
            {
              next = proto_omap_at (&c->connections, i)->id;
              break;
            }
      c->provider = next;
      _disco_coord_observe (c, out, PROTO_OBS_SOURCE_REPLACED, next, -1, -1,
                         next == PROTO_NO_NODE ? "no provider left" :
                         proto_omap_has (&c->syncing, next) ? "replacement is syncing" : NULL);
      if (disco_config (&c->cfg)->robust_sync_retry)
        for (guint i = 0; i < proto_omap_len (&c->sync_wait); i++)
          assign_provider (c, proto_omap_at (&c->sync_wait, i)->id, FALSE, out);   /* S12 */
    }
  if (c->waiting)
    return;
  if (_disco_coord_active_count (c) >= c->cfg.min_participants)
    send_peers_for_round_if_needed (c, now, out);
  else
    {
      c->waiting = TRUE;
      for (guint i = 0; i < proto_omap_len (&c->connections); i++)
        _disco_coord_send_count (c, out, proto_omap_at (&c->connections, i)->id, DISCO_MSG_WAITING_FOR_MORE);
    }
}

/* ClientConnected: NewNodeInfo back; enough participants may be reached. */
static gboolean
on_client_connected (DiscoCoord *c, ProtoNodeId from, ProtoOutbox *out)
{
  proto_omap_set (&c->connections, from, FALSE);
  gboolean joined = disco_config (&c->cfg)->model_sync && c->round > 0;
  if (joined)
    proto_omap_set (&c->syncing, from, TRUE);
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_WELCOME);
  m.node = from;
  m.wait_for_more = _disco_coord_active_count (c) < c->cfg.min_participants;
  m.nb_participants = disco_config (&c->cfg)->participant_counts ? _disco_coord_active_count (c) : 0;
  m.joined_mid_training = joined;
  _disco_coord_send (c, out, from, &m);
  if (c->waiting && _disco_coord_active_count (c) >= c->cfg.min_participants && !disco_config (&c->cfg)->list_first_min)
    {
      for (guint i = 0; i < proto_omap_len (&c->connections); i++)
        if (proto_omap_at (&c->connections, i)->id != from)
          _disco_coord_send_count (c, out, proto_omap_at (&c->connections, i)->id,
                                DISCO_MSG_ENOUGH_PARTICIPANTS);
      c->waiting = FALSE;
    }
  return TRUE;
}

/* JoinRound: a peer in the next round (robust: a newcomer, once synced). */
static gboolean
on_join_round (DiscoCoord *c, ProtoNodeId from, ProtoOutbox *out)
{
  if (disco_config (&c->cfg)->ready_at_round_start)
    return FALSE;   /* pre-775 has no JoinRound */
  proto_omap_delete (&c->syncing, from);
  if (disco_config (&c->cfg)->robust_members_only)
    {
      proto_omap_delete (&c->sync_wait, from);
      g_hash_table_remove (c->sync_asks, GUINT_TO_POINTER (from));
      proto_omap_delete (&c->exchanging, from);
      if (proto_omap_has (&c->connect_flags, from))
        return TRUE;   /* a member: its JoinRound cannot be of a later round */
      proto_omap_set (&c->round_peers, from, FALSE);
      if (disco_config (&c->cfg)->robust_count_synced && c->waiting && _disco_coord_active_count (c) >= c->cfg.min_participants)
        {
          /* S23: a synced newcomer is the participant that makes min */
          for (guint i = 0; i < proto_omap_len (&c->connections); i++)
            _disco_coord_send_count (c, out, proto_omap_at (&c->connections, i)->id, DISCO_MSG_ENOUGH_PARTICIPANTS);
          c->waiting = FALSE;
        }
      return TRUE;
    }
  proto_omap_set (&c->round_peers, from, FALSE);
  return TRUE;
}

/* PeerIsReady: a peer (or a helper) ready for the round's list. */
static gboolean
on_peer_is_ready (DiscoCoord *c, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (disco_config (&c->cfg)->robust_members_only)
    {
      proto_omap_delete (&c->exchanging, from);
      if (proto_omap_has (&c->connect_flags, from))
        {
          if (!disco_config (&c->cfg)->robust_wait_timeout)
            {
              _disco_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                                 "PeerIsReady from a member of the connect phase: ignored");
              return TRUE;
            }
          /* a member that has not sent ConnectionsReady says it again
           * across its list (its wait timeout crossed the list): the
           * connection timer ends a list that was really lost */
          if (!proto_omap_at (&c->connect_flags, (guint) proto_omap_find (&c->connect_flags, from))->flag)
            {
              _disco_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                                 "PeerIsReady from a member without ConnectionsReady: crossed its list, ignored");
              return TRUE;
            }
          /* its decision was lost: this attempt is over */
          robust_back_to_collect (c, now, out, "a member sent PeerIsReady in the connect phase: "
                               "Retry (not counted)");
        }
      if (msg->helper)
        {
          proto_omap_delete (&c->round_peers, from);
          proto_omap_set (&c->helpers, from, TRUE);
        }
      else
        {
          proto_omap_set (&c->round_peers, from, TRUE);
          _disco_coord_straggler_note_ready (c, from, now);
        }
      send_peers_for_round_if_needed (c, now, out);
      return TRUE;
    }
  proto_omap_set (&c->round_peers, from, TRUE);
  send_peers_for_round_if_needed (c, now, out);
  return TRUE;
}

/* ConnectionsReady: a member linked to the others (the first is the
 * provider); the exchange may start. */
static gboolean
on_connections_ready (DiscoCoord *c, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (!disco_config (&c->cfg)->connect_barrier)
    return FALSE;
  if (disco_config (&c->cfg)->robust_members_only && !proto_omap_has (&c->connect_flags, from))
    {
      /* S31: a stray ConnectionsReady (of an attempt that is over) */
      _disco_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                         "ConnectionsReady from a peer that is not in the connect phase: ignored");
      return TRUE;
    }
  if (proto_omap_count (&c->connect_flags, TRUE) == 0)
    {
      c->provider = from;
      _disco_coord_observe (c, out, PROTO_OBS_SOURCE_CHOSEN, from, -1, -1,
                         proto_omap_len (&c->connect_flags) == 0 ? "ConnectionsReady outside the connect phase" : NULL);
    }
  connect_flag_set (c, from, TRUE);
  signal_weight_sharing (c, now, out);
  return TRUE;
}

/* SyncRequest: a newcomer is given a provider (robust: or asks again). */
static gboolean
on_sync_request (DiscoCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (!disco_config (&c->cfg)->model_sync)
    return FALSE;
  if (disco_config (&c->cfg)->robust_sync_retry)
    {
      gboolean repeat = proto_omap_has (&c->sync_wait, from);
      proto_omap_set (&c->sync_wait, from, TRUE);
      g_hash_table_insert (c->sync_asks, GUINT_TO_POINTER (from),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (c->sync_asks,
                                                                                    GUINT_TO_POINTER (from))) + 1));
      if (!assign_provider (c, from, repeat, out))
        _disco_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                           "no provider and no checkpoint yet: the newcomer asks again");
      return TRUE;
    }
  if (c->provider == PROTO_NO_NODE)
    {
      _disco_coord_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                         "There is no provider node: request ignored");
      return TRUE;
    }
  {
    ProtoMsg m;
    proto_msg_init (&m, PROTO_MSG_SYNC_PROVIDER);
    m.node = c->provider;
    _disco_coord_send (c, out, from, &m);
    proto_msg_init (&m, DISCO_MSG_SIGNAL_NEW_PEER);
    m.node = from;
    _disco_coord_send (c, out, c->provider, &m);
    _disco_coord_observe (c, out, PROTO_OBS_SYNC_STARTED, from, -1, c->provider, "provider assigned");
  }
  return TRUE;
}

/* SignalForPeer: relayed to the connection it names. */
static gboolean
on_signal_for_peer (DiscoCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (!proto_omap_has (&c->connections, msg->node))
    {
      _disco_coord_observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1,
                         "signal to an unknown peer: silently dropped");
      return TRUE;
    }
  /* relayed verbatim, as DISCO relays the SDP (its RECEIVED was observed
   * on the way in: handle_message) */
  proto_session_relay_observed (out, c->base.state_names[c->base.state], (int32_t) c->round, from, msg, FALSE);
  return TRUE;
}

/* SharedModel to the coordinator (robust): the last round's checkpoint. */
static gboolean
on_shared_model (DiscoCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  if (!disco_config (&c->cfg)->robust_checkpoint || msg->weights == NULL)
    return FALSE;
  g_clear_pointer (&c->checkpoint, learn_weights_unref);
  c->checkpoint = learn_weights_ref (msg->weights);
  _disco_coord_observe (c, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, c->round, "checkpoint of the last round kept");
  return TRUE;
}

/* A message: an excluded peer is told again; then one handler per type.
 * One that does not take it (FALSE), or a type it has none for, is
 * dropped. */
static void
handle_message (DiscoCoord *c, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  _disco_coord_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  c->base.received[msg->type]++;
  if (proto_omap_has (&c->excluded, from)
      && (msg->type == DISCO_MSG_JOIN_ROUND || msg->type == PROTO_MSG_READY
          || msg->type == DISCO_MSG_CONNECTIONS_READY))
    {
      /* robust: its ConnectionFail was lost; it is told again */
      _disco_coord_send_simple (c, out, from, DISCO_MSG_CONNECTION_FAIL);
      _disco_coord_observe (c, out, PROTO_OBS_NOTE, from, (int32_t) msg->type, -1, "an excluded peer: ConnectionFail again");
      return;
    }
  gboolean taken = FALSE;
  switch (msg->type)
    {
    case PROTO_MSG_HELLO:
      taken = on_client_connected (c, from, out);
      break;
    case DISCO_MSG_JOIN_ROUND:
      taken = on_join_round (c, from, out);
      break;
    case PROTO_MSG_READY:
      taken = on_peer_is_ready (c, now, from, msg, out);
      break;
    case DISCO_MSG_CONNECTIONS_READY:
      taken = on_connections_ready (c, now, from, msg, out);
      break;
    case PROTO_MSG_SYNC_REQUEST:
      taken = on_sync_request (c, from, msg, out);
      break;
    case PROTO_MSG_SIGNAL:
      taken = on_signal_for_peer (c, from, msg, out);
      break;
    case PROTO_MSG_SYNC_MODEL:
      taken = on_shared_model (c, from, msg, out);
      break;
    case PROTO_MSG_WELCOME:
    case PROTO_MSG_ROUND_PEERS:
    case DISCO_MSG_START_WEIGHT_SHARING:
    case DISCO_MSG_RETRY_PEER_CONNECTIONS:
    case DISCO_MSG_CONNECTION_FAIL:
    case DISCO_MSG_WAITING_FOR_MORE:
    case DISCO_MSG_ENOUGH_PARTICIPANTS:
    case PROTO_MSG_SYNC_PROVIDER:
    case DISCO_MSG_SIGNAL_NEW_PEER:
    case DISCO_MSG_PAYLOAD:
    case DISCO_MSG_ROUND_STALENESS:
    default:   /* another family's message (its own folder's types) */
      break;
    }
  if (!taken)
    _disco_coord_observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, "the coordinator does not handle it");
}

static void
disco_coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  DiscoCoord *c = impl;
  DlTime before = c->base.deadline;
  switch (in->kind)
    {
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (c, now, in->from, in->msg, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      stream_closed (c, now, in->from, out);
      break;
    case PROTO_IN_DEADLINE:
      for (;;)
        {
          /* fire due timers one at a time, oldest first */
          guint best = G_MAXUINT;
          for (guint i = 0; i < c->timers->len; i++)
            {
              CoordTimer *t = &g_array_index (c->timers, CoordTimer, i);
              if (t->at <= now && (best == G_MAXUINT || t->at < g_array_index (c->timers, CoordTimer, best).at
                                   || (t->at == g_array_index (c->timers, CoordTimer, best).at
                                       && t->handle < g_array_index (c->timers, CoordTimer, best).handle)))
                best = i;
            }
          if (best == G_MAXUINT)
            break;
          uint64_t handle = g_array_index (c->timers, CoordTimer, best).handle;
          TimerKind kind = g_array_index (c->timers, CoordTimer, best).kind;
          g_array_remove_index (c->timers, best);
          handle_timeout (c, now, handle, kind, out);
        }
      break;
    case PROTO_IN_START:
    case PROTO_IN_TRAINING_DONE:
    case PROTO_IN_LINK_UP:
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
    case PROTO_IN_LEAVE:
      g_warning ("disco_coord_handle: input %d is for peers", in->kind);
      break;
    }
  c->base.deadline = _disco_coord_earliest_timer (c);
  if (c->base.deadline != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = c->base.deadline;
    }
}

/* ---- the machine (proto-machine.h) ---- */

/* Its phase, deadline and received counts are its base's.  The
 * coordinator's controller takes every message type it knows and drops
 * the rest itself (observed as `dropped`): nothing is refused on the way
 * in, listens is the default. */
static const ProtoMachineClass coord_class = {
  .handle = disco_coord_handle,
  .free = disco_coord_free,
};

ProtoMachine *
disco_coord_new (const ProtoConfig *config)
{
  DiscoCoord *c = g_new0 (DiscoCoord, 1);
  proto_machine_base_init (&c->base, phase_names, COORD_COLLECT);
  c->cfg = *config;
  proto_omap_init (&c->connections);
  proto_omap_init (&c->syncing);
  proto_omap_init (&c->round_peers);
  proto_omap_init (&c->connect_flags);
  c->provider = PROTO_NO_NODE;
  c->waiting = TRUE;
  c->timers = g_array_new (FALSE, FALSE, sizeof (CoordTimer));
  proto_omap_init (&c->helpers);
  proto_omap_init (&c->exchanging);
  proto_omap_init (&c->sync_wait);
  proto_omap_init (&c->excluded);
  c->tries = g_hash_table_new (g_direct_hash, g_direct_equal);
  c->ready_after = g_array_new (FALSE, FALSE, sizeof (ReadyTime));
  c->dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  c->last_listed = g_hash_table_new (g_direct_hash, g_direct_equal);
  c->sync_asks = g_hash_table_new (g_direct_hash, g_direct_equal);
  return proto_machine_new (&coord_class, &c->base);
}

uint32_t disco_coord_round (const DiscoCoord *c) { return c->round; }
guint disco_coord_retry_counter (const DiscoCoord *c) { return c->retry; }
ProtoNodeId disco_coord_provider (const DiscoCoord *c) { return c->provider; }
guint disco_coord_connections (const DiscoCoord *c) { return proto_omap_len (&c->connections); }
guint disco_coord_pending_timers (const DiscoCoord *c) { return c->timers->len; }
gboolean disco_coord_in_round (const DiscoCoord *c, ProtoNodeId id) { return proto_omap_has (&c->round_peers, id); }
gboolean disco_coord_is_syncing (const DiscoCoord *c, ProtoNodeId id) { return proto_omap_has (&c->syncing, id); }
gboolean disco_coord_waiting_for_more (const DiscoCoord *c) { return c->waiting; }

gboolean
disco_coord_has_connect_flag (const DiscoCoord *c, ProtoNodeId id)
{
  return proto_omap_has (&c->connect_flags, id);
}

gboolean
disco_coord_is_ready (const DiscoCoord *c, ProtoNodeId id)
{
  int i = proto_omap_find (&c->round_peers, id);
  return i >= 0 && proto_omap_at (&c->round_peers, (guint) i)->flag;
}
