/* proto-outbox.c — the action list machines append to. */
#include "config.h"

#include "protocol/proto-outbox.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const obs_names[PROTO_OBS_N_KINDS] = {
  [PROTO_OBS_SENT] = "sent",
  [PROTO_OBS_RECEIVED] = "received",
  [PROTO_OBS_DROPPED] = "dropped",
  [PROTO_OBS_REJECTED] = "rejected",
  [PROTO_OBS_PHASE] = "phase",
  [PROTO_OBS_TIMER_SET] = "timer-set",
  [PROTO_OBS_TIMER_FIRED] = "timer-fired",
  [PROTO_OBS_TIMER_CLEARED] = "timer-cleared",
  [PROTO_OBS_RETRY] = "retry",
  [PROTO_OBS_EXCLUDED] = "excluded",
  [PROTO_OBS_SOURCE_CHOSEN] = "provider-chosen",
  [PROTO_OBS_SOURCE_REPLACED] = "provider-replaced",
  [PROTO_OBS_SYNC_STARTED] = "sync-started",
  [PROTO_OBS_SYNC_SERVED] = "sync-served",
  [PROTO_OBS_SYNC_DONE] = "sync-done",
  [PROTO_OBS_SYNC_FAILED] = "sync-failed",
  [PROTO_OBS_ROUND_LIST] = "round-list",
  [PROTO_OBS_ROUND_START] = "round-start",
  [PROTO_OBS_ROUND_END] = "round-end",
  [PROTO_OBS_LINK] = "link",
  [PROTO_OBS_PAUSE] = "pause",
  [PROTO_OBS_ERROR] = "error",
  [PROTO_OBS_FINISHED] = "finished",
  [PROTO_OBS_RESET] = "reset",
  [PROTO_OBS_NOTE] = "note",
  [PROTO_OBS_FOREIGN_ROUND] = "foreign-round",
  [PROTO_OBS_METRIC] = "metric",
};

double
proto_obs_metric_value (const ProtoObservation *obs)
{
  return g_str_has_suffix (obs->detail, "_s") ? (double) obs->value / 1e9 : (double) obs->value;
}

const char *
proto_obs_kind_name (ProtoObsKind kind)
{
  return (unsigned) kind < PROTO_OBS_N_KINDS ? obs_names[kind] : "?";
}

void
proto_outbox_init (ProtoOutbox *out)
{
  out->cap = 16;
  out->len = 0;
  out->actions = g_new (ProtoAction, out->cap);
}

void
proto_outbox_reset (ProtoOutbox *out)
{
  for (guint i = 0; i < out->len; i++)
    {
      ProtoAction *a = &out->actions[i];
      proto_msg_clear (&a->msg);
      g_clear_pointer (&a->weights, learn_weights_unref);
    }
  out->len = 0;
}

/* room for one more action at the end (uninitialised) */
static inline ProtoAction *
grow (ProtoOutbox *out)
{
  if (G_UNLIKELY (out->len == out->cap))
    {
      out->cap *= 2;
      out->actions = g_renew (ProtoAction, out->actions, out->cap);
    }
  return &out->actions[out->len++];
}

void
proto_outbox_move (ProtoOutbox *out, ProtoOutbox *src, guint i)
{
  g_return_if_fail (i < src->len);
  ProtoAction *dst = grow (out);   /* (first: it may move src's actions if out is src) */
  ProtoAction *a = &src->actions[i];
  *dst = *a;
  proto_msg_init (&a->msg, a->msg.type);
  a->weights = NULL;
}

void
proto_outbox_clear (ProtoOutbox *out)
{
  if (!out->actions)
    return;
  proto_outbox_reset (out);
  g_clear_pointer (&out->actions, g_free);
  out->cap = 0;
}

guint
proto_outbox_len (const ProtoOutbox *out)
{
  return out->len;
}

ProtoAction *
proto_outbox_get (const ProtoOutbox *out, guint i)
{
  g_return_val_if_fail (i < out->len, NULL);
  return &out->actions[i];
}

static ProtoAction *
append (ProtoOutbox *out, ProtoActionKind kind, ProtoNodeId to)
{
  ProtoAction *a = grow (out);
  memset (a, 0, sizeof *a);
  a->kind = kind;
  a->to = to;
  a->msg.node = PROTO_NO_NODE;
  return a;
}

void
proto_outbox_send (ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *msg)
{
  ProtoAction *a = append (out, PROTO_ACT_SEND, to);
  a->via = via;
  a->msg = *msg;
  proto_msg_init (msg, msg->type);
}

void
proto_outbox_simple (ProtoOutbox *out, ProtoActionKind kind, ProtoNodeId to)
{
  append (out, kind, to);
}

void
proto_outbox_observe (ProtoOutbox *out, ProtoObsKind kind, const char *state, int32_t round,
                      ProtoNodeId other, int32_t msg_type, int64_t value, const char *fmt, ...)
{
  ProtoAction *a = append (out, PROTO_ACT_OBSERVE, PROTO_NO_NODE);
  ProtoObservation *o = &a->obs;
  o->kind = kind;
  o->state = state;
  o->round = round;
  o->other = other;
  o->msg_type = msg_type;
  o->value = value;
  if (fmt)
    {
      va_list ap;
      va_start (ap, fmt);
      if (strcmp (fmt, "%s") == 0)
        {
          /* the common case, a ready string: what g_vsnprintf would write,
           * without its format parser (3 % of a 1 000-peer run) */
          const char *str = va_arg (ap, const char *);
          g_strlcpy (o->detail, str ? str : "(null)", sizeof o->detail);
        }
      else
        g_vsnprintf (o->detail, sizeof o->detail, fmt, ap);
      va_end (ap);
    }
}

guint
proto_outbox_count_sends (const ProtoOutbox *out, ProtoMsgType type, ProtoNodeId to)
{
  guint n = 0;
  for (guint i = 0; i < out->len; i++)
    {
      const ProtoAction *a = &out->actions[i];
      if (a->kind == PROTO_ACT_SEND && a->msg.type == type && (to == PROTO_NO_NODE || a->to == to))
        n++;
    }
  return n;
}

guint
proto_outbox_count_obs (const ProtoOutbox *out, ProtoObsKind kind)
{
  guint n = 0;
  for (guint i = 0; i < out->len; i++)
    {
      const ProtoAction *a = &out->actions[i];
      if (a->kind == PROTO_ACT_OBSERVE && a->obs.kind == kind)
        n++;
    }
  return n;
}

char *
proto_observation_to_string (const ProtoObservation *o)
{
  GString *s = g_string_new (proto_obs_kind_name (o->kind));
  if (o->msg_type >= 0)
    g_string_append_printf (s, " %s", proto_msg_type_name ((ProtoMsgType) o->msg_type));
  if (o->other != PROTO_NO_NODE)
    g_string_append_printf (s, " node=%u", o->other);
  if (o->round >= 0)
    g_string_append_printf (s, " round=%d", o->round);
  if (o->value >= 0)
    g_string_append_printf (s, " value=%" G_GINT64_FORMAT, o->value);
  if (o->state)
    g_string_append_printf (s, " [%s]", o->state);
  if (o->detail[0])
    g_string_append_printf (s, ": %s", o->detail);
  return g_string_free (s, FALSE);
}
