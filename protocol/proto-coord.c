/* proto-coord.c — the coordinator of DISCO's decentralized rounds
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
 * (ParticipantsUpdate, CrashClient). */
#include "config.h"

#include "protocol/proto-coord.h"
#include "protocol/proto-omap.h"

typedef struct {
  DlTime at;
  uint64_t handle;  /* increasing: also the tie-break between equal times */
} CoordTimer;

struct ProtoCoord {
  ProtoConfig cfg;
  ProtoOMap connections;
  ProtoOMap syncing;
  ProtoOMap round_peers;    /* id -> ready */
  ProtoOMap connect_flags;  /* id -> ConnectionsReady received */
  uint32_t round;           /* aggregation round */
  guint retry;              /* session-wide (S6) */
  ProtoNodeId provider;
  gboolean waiting;         /* waitingForMoreParticipants */
  GArray *timers;           /* pending CoordTimer, live and orphaned */
  uint64_t current_timer;   /* `#timeout`: 0 when none */
  uint64_t next_handle;
};

ProtoCoord *
proto_coord_new (const ProtoConfig *config)
{
  ProtoCoord *c = g_new0 (ProtoCoord, 1);
  c->cfg = *config;
  proto_omap_init (&c->connections);
  proto_omap_init (&c->syncing);
  proto_omap_init (&c->round_peers);
  proto_omap_init (&c->connect_flags);
  c->provider = PROTO_NO_NODE;
  c->waiting = TRUE;
  c->timers = g_array_new (FALSE, FALSE, sizeof (CoordTimer));
  return c;
}

void
proto_coord_free (ProtoCoord *c)
{
  if (!c)
    return;
  proto_omap_clear (&c->connections);
  proto_omap_clear (&c->syncing);
  proto_omap_clear (&c->round_peers);
  proto_omap_clear (&c->connect_flags);
  g_array_unref (c->timers);
  g_free (c);
}

const char *
proto_coord_phase (const ProtoCoord *c)
{
  return proto_omap_len (&c->connect_flags) > 0 ? "connect" : "collect";
}

static void
observe (ProtoCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
         int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, proto_coord_phase (c), (int32_t) c->round, other, type, value,
                        "%s", detail ? detail : "");
}

static void
send (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *msg)
{
  observe (c, out, PROTO_OBS_SENT, to, (int32_t) msg->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, msg);
}

static void
send_simple (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  send (c, out, to, &m);
}

static void
send_count (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  /* disco-775's Waiting and Enough carry no nbOfParticipants */
  m.nb_participants = c->cfg.participant_counts ? proto_omap_len (&c->connections) : 0;
  send (c, out, to, &m);
}

/* ---- timers ---- */

static void
start_timer (ProtoCoord *c, DlTime now, ProtoOutbox *out)
{
  CoordTimer t = { .at = dl_time_add (now, proto_config_connection_timer (&c->cfg)), .handle = ++c->next_handle };
  g_array_append_val (c->timers, t);
  char detail[64];
  g_snprintf (detail, sizeof detail, "connection timer #%" G_GUINT64_FORMAT "%s", t.handle,
              c->current_timer ? " (previous timer not cleared)" : "");
  c->current_timer = t.handle;
  observe (c, out, PROTO_OBS_TIMER_SET, PROTO_NO_NODE, -1, (int64_t) t.handle, detail);
}

static gboolean
remove_timer (ProtoCoord *c, uint64_t handle)
{
  for (guint i = 0; i < c->timers->len; i++)
    if (g_array_index (c->timers, CoordTimer, i).handle == handle)
      {
        g_array_remove_index (c->timers, i);
        return TRUE;
      }
  return FALSE;
}

/* clearTimeout(#timeout): whichever timer it points to now. */
static void
clear_timer (ProtoCoord *c, ProtoOutbox *out)
{
  if (c->current_timer == 0)
    return;
  if (remove_timer (c, c->current_timer))
    observe (c, out, PROTO_OBS_TIMER_CLEARED, PROTO_NO_NODE, -1, (int64_t) c->current_timer, NULL);
  c->current_timer = 0;
}

DlTime
proto_coord_next_deadline (const ProtoCoord *c)
{
  DlTime t = DL_TIME_NEVER;
  for (guint i = 0; i < c->timers->len; i++)
    t = MIN (t, g_array_index (c->timers, CoordTimer, i).at);
  return t;
}

/* ---- collect and connect ---- */

static guint
participating (const ProtoCoord *c)
{
  if (c->cfg.collect_over_joined)
    return proto_omap_len (&c->round_peers);
  guint n = 0;
  for (guint i = 0; i < proto_omap_len (&c->connections); i++)
    n += !proto_omap_has (&c->syncing, proto_omap_at (&c->connections, i)->id);
  return n;
}

static void
send_peers_for_round_if_needed (ProtoCoord *c, DlTime now, ProtoOutbox *out)
{
  guint ready = proto_omap_count (&c->round_peers, TRUE);
  guint part = participating (c);
  if (ready == 0 || ready < c->cfg.min_participants || ready != part)
    return;

  guint n = proto_omap_len (&c->round_peers);
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, n);
  for (guint i = 0; i < n; i++)
    ids[i] = proto_omap_at (&c->round_peers, i)->id;
  g_autofree ProtoNodeId *others = g_new (ProtoNodeId, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      guint k = 0;
      for (guint j = 0; j < n; j++)
        if (j != i)
          others[k++] = ids[j];
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_PEERS_FOR_ROUND);
      proto_msg_set_peers (&m, others, k);
      m.round = c->round;
      send (c, out, ids[i], &m);
    }
  observe (c, out, PROTO_OBS_ROUND_LIST, PROTO_NO_NODE, -1, n, NULL);

  if (c->cfg.connect_barrier)
    {
      proto_omap_remove_all (&c->connect_flags);
      for (guint i = 0; i < n; i++)
        proto_omap_set (&c->connect_flags, ids[i], FALSE);
      proto_omap_set_all (&c->round_peers, FALSE);
      observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "connect");
      start_timer (c, now, out);  /* without clearing a running one (S7) */
    }
  else
    {
      /* disco-775: the list is the round; the map is cleared, the round advances. */
      proto_omap_remove_all (&c->round_peers);
      c->round++;
    }
}

static void
signal_weight_sharing (ProtoCoord *c, ProtoOutbox *out)
{
  if (proto_omap_count (&c->connect_flags, FALSE) > 0)
    return;
  clear_timer (c, out);
  guint n = proto_omap_len (&c->round_peers);
  for (guint i = 0; i < n; i++)
    send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, PROTO_MSG_START_WEIGHT_SHARING);
  observe (c, out, PROTO_OBS_ROUND_START, PROTO_NO_NODE, -1, n, NULL);
  proto_omap_remove_all (&c->round_peers);
  proto_omap_remove_all (&c->connect_flags);
  c->round++;
  observe (c, out, PROTO_OBS_PHASE, PROTO_NO_NODE, -1, -1, "collect");
}

/* Both branches of handleTimeout (decentralized_controller.ts) end with
 * #roundPeers = #roundPeers.map(() => false) and #connectFinishedNodes =
 * #roundPeers.map(() => false). */
static void
reset_flags_from_round_peers (ProtoCoord *c)
{
  proto_omap_set_all (&c->round_peers, FALSE);
  proto_omap_remove_all (&c->connect_flags);
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    proto_omap_set (&c->connect_flags, proto_omap_at (&c->round_peers, i)->id, FALSE);
}

static void
handle_timeout (ProtoCoord *c, DlTime now, uint64_t handle, ProtoOutbox *out)
{
  gboolean orphan = handle != c->current_timer;
  observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, (int64_t) handle,
           orphan ? "orphan timer (not #timeout)" : NULL);
  clear_timer (c, out);
  c->retry++;
  observe (c, out, PROTO_OBS_RETRY, PROTO_NO_NODE, -1, c->retry, NULL);

  gboolean exclude = c->cfg.exclude_when_retry_ge ? c->retry >= c->cfg.max_connection_retry
                                                  : c->retry > c->cfg.max_connection_retry;
  if (exclude)
    {
      GArray *failed = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
      for (guint i = 0; i < proto_omap_len (&c->connect_flags); i++)
        if (!proto_omap_at (&c->connect_flags, i)->flag)
          g_array_append_val (failed, proto_omap_at (&c->connect_flags, i)->id);
      for (guint i = 0; i < failed->len; i++)
        {
          ProtoNodeId id = g_array_index (failed, ProtoNodeId, i);
          proto_omap_delete (&c->round_peers, id);
          proto_omap_delete (&c->connect_flags, id);
          send_simple (c, out, id, PROTO_MSG_CONNECTION_FAIL);
          observe (c, out, PROTO_OBS_EXCLUDED, id, -1, c->retry, NULL);
        }
      g_array_unref (failed);
      for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
        send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, PROTO_MSG_RETRY_PEER_CONNECTIONS);
      /* #roundPeers.map(() => false); #connectFinishedNodes = #roundPeers.map(() => false):
       * the flags are rebuilt from the round peers, so a stray flag goes
       * (S31) and a peer whose JoinRound came in the connect phase is in (S19) */
      reset_flags_from_round_peers (c);
      c->retry = 0;
      start_timer (c, now, out);
      return;
    }
  reset_flags_from_round_peers (c);
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    send_simple (c, out, proto_omap_at (&c->round_peers, i)->id, PROTO_MSG_RETRY_PEER_CONNECTIONS);
  start_timer (c, now, out);
}

static void
reset (ProtoCoord *c, ProtoOutbox *out)
{
  c->waiting = TRUE;
  proto_omap_remove_all (&c->connections);
  proto_omap_remove_all (&c->round_peers);
  proto_omap_remove_all (&c->connect_flags);
  proto_omap_remove_all (&c->syncing);
  c->round = 0;
  c->retry = 0;
  c->provider = PROTO_NO_NODE;
  clear_timer (c, out);  /* #timeout only: an orphan timer survives */
  observe (c, out, PROTO_OBS_RESET, PROTO_NO_NODE, -1, -1, "no connection left: session reset, model lost");
}

static void
stream_closed (ProtoCoord *c, DlTime now, ProtoNodeId id, ProtoOutbox *out)
{
  if (!proto_omap_delete (&c->connections, id))
    return;
  proto_omap_delete (&c->round_peers, id);
  proto_omap_delete (&c->connect_flags, id);  /* not from syncing */
  observe (c, out, PROTO_OBS_NOTE, id, -1, proto_omap_len (&c->connections), "stream closed");
  if (proto_omap_len (&c->connections) == 0 && c->cfg.reset_when_empty)
    {
      reset (c, out);
      return;
    }
  if (c->cfg.model_sync && id == c->provider)
    {
      ProtoNodeId next = PROTO_NO_NODE;
      if (c->cfg.provider_first_entry)
        next = proto_omap_at (&c->connections, 0)->id;
      else
        for (guint i = 0; i < proto_omap_len (&c->connections); i++)
          if (!proto_omap_has (&c->syncing, proto_omap_at (&c->connections, i)->id))
            {
              next = proto_omap_at (&c->connections, i)->id;
              break;
            }
      c->provider = next;
      observe (c, out, PROTO_OBS_PROVIDER_REPLACED, next, -1, -1,
               next == PROTO_NO_NODE ? "no provider left" :
               proto_omap_has (&c->syncing, next) ? "replacement is syncing" : NULL);
    }
  if (c->waiting)
    return;
  if (proto_omap_len (&c->connections) >= c->cfg.min_participants)
    send_peers_for_round_if_needed (c, now, out);
  else
    {
      c->waiting = TRUE;
      for (guint i = 0; i < proto_omap_len (&c->connections); i++)
        send_count (c, out, proto_omap_at (&c->connections, i)->id, PROTO_MSG_WAITING_FOR_MORE);
    }
}

static void
handle_message (ProtoCoord *c, DlTime now, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  switch (msg->type)
    {
    case PROTO_MSG_CLIENT_CONNECTED:
      {
        proto_omap_set (&c->connections, from, FALSE);
        gboolean joined = c->cfg.model_sync && c->round > 0;
        if (joined)
          proto_omap_set (&c->syncing, from, TRUE);
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_NEW_NODE_INFO);
        m.node = from;
        m.wait_for_more = proto_omap_len (&c->connections) < c->cfg.min_participants;
        m.nb_participants = c->cfg.participant_counts ? proto_omap_len (&c->connections) : 0;
        m.joined_mid_training = joined;
        send (c, out, from, &m);
        if (c->waiting && proto_omap_len (&c->connections) >= c->cfg.min_participants)
          {
            for (guint i = 0; i < proto_omap_len (&c->connections); i++)
              if (proto_omap_at (&c->connections, i)->id != from)
                send_count (c, out, proto_omap_at (&c->connections, i)->id,
                            PROTO_MSG_ENOUGH_PARTICIPANTS);
            c->waiting = FALSE;
          }
        return;
      }
    case PROTO_MSG_JOIN_ROUND:
      proto_omap_delete (&c->syncing, from);
      proto_omap_set (&c->round_peers, from, FALSE);
      return;
    case PROTO_MSG_PEER_IS_READY:
      proto_omap_set (&c->round_peers, from, TRUE);
      send_peers_for_round_if_needed (c, now, out);
      return;
    case PROTO_MSG_CONNECTIONS_READY:
      if (!c->cfg.connect_barrier)
        break;
      if (proto_omap_count (&c->connect_flags, TRUE) == 0)
        {
          c->provider = from;
          observe (c, out, PROTO_OBS_PROVIDER_CHOSEN, from, -1, -1,
                   proto_omap_len (&c->connect_flags) == 0 ? "ConnectionsReady outside the connect phase" : NULL);
        }
      proto_omap_set (&c->connect_flags, from, TRUE);
      signal_weight_sharing (c, out);
      return;
    case PROTO_MSG_MODEL_SYNC_REQUEST:
      if (!c->cfg.model_sync)
        break;
      if (c->provider == PROTO_NO_NODE)
        {
          observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, -1,
                   "There is no provider node: request ignored");
          return;
        }
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_SIGNAL_MODEL_PROVIDER);
        m.node = c->provider;
        send (c, out, from, &m);
        proto_msg_init (&m, PROTO_MSG_SIGNAL_NEW_PEER);
        m.node = from;
        send (c, out, c->provider, &m);
        observe (c, out, PROTO_OBS_SYNC_STARTED, from, -1, c->provider, "provider assigned");
      }
      return;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      if (!proto_omap_has (&c->connections, msg->node))
        {
          observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1,
                   "signal to an unknown peer: silently dropped");
          return;
        }
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_SIGNAL_FOR_PEER);
        m.node = from;
        m.signal = msg->signal;
        m.signal_data = g_strdup (msg->signal_data);   /* relayed verbatim, as DISCO relays the SDP */
        send (c, out, msg->node, &m);
      }
      return;
    case PROTO_MSG_NEW_NODE_INFO:
    case PROTO_MSG_PEERS_FOR_ROUND:
    case PROTO_MSG_START_WEIGHT_SHARING:
    case PROTO_MSG_RETRY_PEER_CONNECTIONS:
    case PROTO_MSG_CONNECTION_FAIL:
    case PROTO_MSG_WAITING_FOR_MORE:
    case PROTO_MSG_ENOUGH_PARTICIPANTS:
    case PROTO_MSG_SIGNAL_MODEL_PROVIDER:
    case PROTO_MSG_SIGNAL_NEW_PEER:
    case PROTO_MSG_SHARED_MODEL:
    case PROTO_MSG_PAYLOAD:
      break;
    }
  observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, "the coordinator does not handle it");
}

void
proto_coord_handle (ProtoCoord *c, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  DlTime before = proto_coord_next_deadline (c);
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
          g_array_remove_index (c->timers, best);
          handle_timeout (c, now, handle, out);
        }
      break;
    case PROTO_IN_START:
    case PROTO_IN_TRAINING_DONE:
    case PROTO_IN_LINK_UP:
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
    case PROTO_IN_LEAVE:
      g_warning ("proto_coord_handle: input %d is for peers", in->kind);
      break;
    }
  DlTime after = proto_coord_next_deadline (c);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

uint32_t proto_coord_round (const ProtoCoord *c) { return c->round; }
guint proto_coord_retry_counter (const ProtoCoord *c) { return c->retry; }
ProtoNodeId proto_coord_provider (const ProtoCoord *c) { return c->provider; }
guint proto_coord_connections (const ProtoCoord *c) { return proto_omap_len (&c->connections); }
guint proto_coord_pending_timers (const ProtoCoord *c) { return c->timers->len; }
gboolean proto_coord_in_round (const ProtoCoord *c, ProtoNodeId id) { return proto_omap_has (&c->round_peers, id); }
gboolean proto_coord_is_syncing (const ProtoCoord *c, ProtoNodeId id) { return proto_omap_has (&c->syncing, id); }
gboolean proto_coord_waiting_for_more (const ProtoCoord *c) { return c->waiting; }

gboolean
proto_coord_has_connect_flag (const ProtoCoord *c, ProtoNodeId id)
{
  return proto_omap_has (&c->connect_flags, id);
}

gboolean
proto_coord_is_ready (const ProtoCoord *c, ProtoNodeId id)
{
  int i = proto_omap_find (&c->round_peers, id);
  return i >= 0 && proto_omap_at (&c->round_peers, (guint) i)->flag;
}
