/* disco-coord-effects.c — what DISCO's coordinator (disco-coord.c) does to
 * the outside, through disco-coord-private.h: observations named by its
 * phase, sends (observed; a Retry counted per peer for robust), the
 * participant count that Waiting/Enough carry, and its timers as a data
 * structure (set, cleared, the straggler timer's presence, the next
 * deadline).  A leaf: it decides no transition and calls nothing of
 * disco-coord.c. */
#include "config.h"

#include "protocol/disco/disco-coord-private.h"
#include "protocol/disco/disco-msgs.h"

void
_disco_coord_observe (DiscoCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                   int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, c->base.state_names[c->base.state], (int32_t) c->round, other, type, value,
                        "%s", detail ? detail : "");
}

void
_disco_coord_send (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *msg)
{
  _disco_coord_observe (c, out, PROTO_OBS_SENT, to, (int32_t) msg->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, msg);
}

void
_disco_coord_send_simple (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type)
{
  if (type == DISCO_MSG_RETRY_PEER_CONNECTIONS && disco_config (&c->cfg)->robust_retry_per_round)
    g_hash_table_insert (c->tries, GUINT_TO_POINTER (to),
                         GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (c->tries, GUINT_TO_POINTER (to))) + 1));
  ProtoMsg m;
  proto_msg_init (&m, type);
  _disco_coord_send (c, out, to, &m);
}

/* The participants that Waiting/Enough and NewNodeInfo count: every
 * connection in DISCO (syncing ones included: S23); robust counts those that
 * are not syncing, as the ready barrier does. */
guint
_disco_coord_active_count (const DiscoCoord *c)
{
  if (!disco_config (&c->cfg)->robust_count_synced)
    return proto_omap_len (&c->connections);
  guint n = 0;
  for (guint i = 0; i < proto_omap_len (&c->connections); i++)
    n += !proto_omap_has (&c->syncing, proto_omap_at (&c->connections, i)->id);
  return n;
}

void
_disco_coord_send_count (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  /* disco-775's Waiting and Enough carry no nbOfParticipants */
  m.nb_participants = disco_config (&c->cfg)->participant_counts ? _disco_coord_active_count (c) : 0;
  _disco_coord_send (c, out, to, &m);
}

/* PeersForRound to each of ids[0..n) (the others of the list, and the round). */
void
_disco_coord_send_lists (DiscoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n)
{
  g_autofree ProtoNodeId *others = g_new (ProtoNodeId, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      guint k = 0;
      for (guint j = 0; j < n; j++)
        if (j != i)
          others[k++] = ids[j];
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_ROUND_PEERS);
      proto_msg_set_peers (&m, others, k);
      m.round = c->round;
      _disco_coord_send (c, out, ids[i], &m);
    }
  _disco_coord_observe (c, out, PROTO_OBS_ROUND_LIST, PROTO_NO_NODE, -1, n, NULL);
}

/* ---- timers ---- */

void
_disco_coord_start_timer_kind (DiscoCoord *c, DlTime now, ProtoOutbox *out, TimerKind kind)
{
  if (disco_config (&c->cfg)->robust_single_timer)
    _disco_coord_clear_timer (c, out);   /* robust: one timer; a new one replaces the old (S7) */
  DlTime d = kind == TIMER_STRAGGLER ? disco_config (&c->cfg)->straggler_timeout : disco_connection_timer (&c->cfg);
  CoordTimer t = { .at = dl_time_add (now, d), .handle = ++c->next_handle, .kind = kind };
  g_array_append_val (c->timers, t);
  char detail[64];
  g_snprintf (detail, sizeof detail, "%s timer #%" G_GUINT64_FORMAT "%s",
              kind == TIMER_STRAGGLER ? "straggler" : "connection", t.handle,
              c->current_timer ? " (previous timer not cleared)" : "");
  c->current_timer = t.handle;
  _disco_coord_observe (c, out, PROTO_OBS_TIMER_SET, PROTO_NO_NODE, -1, (int64_t) t.handle, detail);
}

void
_disco_coord_start_timer (DiscoCoord *c, DlTime now, ProtoOutbox *out)
{
  _disco_coord_start_timer_kind (c, now, out, TIMER_CONNECT);
}

gboolean
_disco_coord_has_straggler_timer (const DiscoCoord *c)
{
  for (guint i = 0; i < c->timers->len; i++)
    if (g_array_index (c->timers, CoordTimer, i).kind == TIMER_STRAGGLER)
      return TRUE;
  return FALSE;
}

static gboolean
remove_timer (DiscoCoord *c, uint64_t handle)
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
void
_disco_coord_clear_timer (DiscoCoord *c, ProtoOutbox *out)
{
  if (c->current_timer == 0)
    return;
  if (remove_timer (c, c->current_timer))
    _disco_coord_observe (c, out, PROTO_OBS_TIMER_CLEARED, PROTO_NO_NODE, -1, (int64_t) c->current_timer, NULL);
  c->current_timer = 0;
}

DlTime
_disco_coord_earliest_timer (const DiscoCoord *c)
{
  DlTime t = DL_TIME_NEVER;
  for (guint i = 0; i < c->timers->len; i++)
    t = MIN (t, g_array_index (c->timers, CoordTimer, i).at);
  return t;
}
