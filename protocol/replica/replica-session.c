/* replica-session.c — a peer's session with a replicated coordinator
 * (proto-replica.h): the family's peer machine inside, and between it and
 * the stream, sequence numbers both ways, a copy of every message to the
 * coordinator until it is acknowledged, and a reconnect with resume when the
 * stream breaks.
 *
 * The peer machine never sees its stream break: the session holds what it
 * sends meanwhile, opens a new stream (the transport finds the leader; a
 * refused attempt is retried after 100 ms, doubling to 3.2 s), says
 * SessionResume with the last number it got, and on SessionResumed sends
 * again what the coordinator has not applied (a resume unanswered for 2 s
 * gives the stream up and reconnects).  Numbers already seen are
 * dropped, so the peer machine gets each of the coordinator's messages once.
 * If the coordinator had closed the session (the peer did not come back
 * within resume_timeout), the peer machine gets its stream's close then, as
 * it would from one coordinator. */
#include "config.h"

#include "protocol/replica/proto-replica.h"
#include "protocol/replica/replica-msgs.h"

#define RECONNECT_FIRST (100 * DL_MS)
#define RECONNECT_MAX (3200 * DL_MS)
#define RESUME_WAIT (2 * DL_S)   /* a SessionResume unanswered this long: the stream is given up */

typedef struct {
  ProtoMachine *inner;
  gboolean started;          /* the peer machine has had its START */
  gboolean up;               /* a stream to the leader, resumed */
  gboolean gone;             /* the peer machine disconnected: no more reconnects */
  guint32 up_seq;            /* the last number given to a message to the coordinator */
  guint32 down_last;         /* the last number of the coordinator's it took */
  GArray *unacked;           /* ProtoMsg to the coordinator, not yet acknowledged */
  DlTime reconnect_at;
  DlTime backoff;
  DlTime lost_at;            /* when the stream broke */
  guint reconnects;
} Session;

void
proto_session_trim (GArray *msgs, guint32 ack)
{
  guint k = 0;
  while (k < msgs->len && g_array_index (msgs, ProtoMsg, k).sess_seq <= ack)
    k++;
  if (k)
    g_array_remove_range (msgs, 0, k);
}

static void
note (ProtoOutbox *out, ProtoObsKind kind, int64_t value, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static void
note (ProtoOutbox *out, ProtoObsKind kind, int64_t value, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *d = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  proto_outbox_observe (out, kind, "session", -1, PROTO_SERVER, -1, value, "%s", d);
}

/* the peer machine's outbox: its messages to the coordinator get numbers and
 * are kept (and held while the stream is down); the rest passes */
static void
pass (Session *s, ProtoOutbox *inner_out, ProtoOutbox *out)
{
  for (guint i = 0; i < proto_outbox_len (inner_out); i++)
    {
      ProtoAction *a = proto_outbox_get (inner_out, i);
      if (a->kind == PROTO_ACT_SET_DEADLINE)
        continue;   /* the session says its own */
      if (a->kind == PROTO_ACT_DISCONNECT)
        s->gone = TRUE;
      if (a->kind == PROTO_ACT_SEND && a->to == PROTO_SERVER && a->via == PROTO_VIA_SERVER)
        {
          a->msg.sess_seq = ++s->up_seq;
          a->msg.sess_ack = s->down_last;
          ProtoMsg kept;
          proto_msg_copy (&kept, &a->msg);
          g_array_append_val (s->unacked, kept);
          if (!s->up)
            continue;
        }
      proto_outbox_move (out, inner_out, i);
    }
}

static void
feed_inner (Session *s, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  ProtoOutbox inner_out;
  proto_outbox_init (&inner_out);
  proto_machine_handle (s->inner, now, in, &inner_out);
  pass (s, &inner_out, out);
  proto_outbox_clear (&inner_out);
}

static void
stream_lost (Session *s, DlTime now, ProtoOutbox *out)
{
  if (s->up)
    {
      s->lost_at = now;
      s->backoff = RECONNECT_FIRST;
      s->reconnect_at = now;   /* at once: the leader may be known already */
      note (out, PROTO_OBS_NOTE, -1, "the coordinator stream broke: the session reconnects");
    }
  else
    {
      s->reconnect_at = now + s->backoff;
      s->backoff = MIN (2 * s->backoff, RECONNECT_MAX);
    }
  s->up = FALSE;
}

static void
on_resumed (Session *s, DlTime now, const ProtoMsg *m, ProtoOutbox *out)
{
  if (m->helper)
    {
      note (out, PROTO_OBS_NOTE, -1, "the coordinator had closed the session");
      s->gone = TRUE;
      ProtoInput c = { .kind = PROTO_IN_STREAM_CLOSED, .from = PROTO_SERVER };
      feed_inner (s, now, &c, out);
      return;
    }
  s->up = TRUE;
  s->reconnects++;
  proto_session_trim (s->unacked, m->sess_ack);
  if (m->round < s->down_last)
    {
      /* primary-backup: the new leader never had what the old one told it */
      note (out, PROTO_OBS_NOTE, s->down_last - m->round,
            "the coordinator lost %u of the messages it had sent this peer", s->down_last - m->round);
      note (out, PROTO_OBS_METRIC, s->down_last - m->round, "session_lost");
      s->down_last = m->round;
    }
  note (out, PROTO_OBS_METRIC, now - s->lost_at, "resume_s");
  for (guint k = 0; k < s->unacked->len; k++)
    {
      ProtoMsg c;
      proto_msg_copy (&c, &g_array_index (s->unacked, ProtoMsg, k));
      c.sess_ack = s->down_last;
      proto_outbox_send (out, PROTO_SERVER, PROTO_VIA_SERVER, &c);
    }
}

/* The first start goes to the inner machine; a later one (a reconnect)
 * asks the leader to resume the session. */
static void
on_start (Session *s, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  if (!s->started)
    {
      s->started = TRUE;
      s->up = TRUE;
      feed_inner (s, now, in, out);
    }
  else if (!s->gone)
    {
      ProtoMsg m;
      proto_msg_init (&m, PROTO_MSG_SESSION_RESUME);
      m.sess_ack = s->down_last;
      proto_outbox_send (out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
      /* lost (a partition, a leader that fell meanwhile): try again */
      s->reconnect_at = now + RESUME_WAIT;
    }
}

/* its reconnect timer, and the inner machine's deadline */
static void
on_deadline (Session *s, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  if (!s->up && !s->gone && now >= s->reconnect_at)
    {
      s->reconnect_at = DL_TIME_NEVER;
      proto_outbox_simple (out, PROTO_ACT_RECONNECT, PROTO_SERVER);
    }
  if (proto_machine_next_deadline (s->inner) <= now)
    feed_inner (s, now, in, out);
}

/* A message: from the leader, SessionResumed is the session's own, and
 * the rest is taken once (by its sequence number) and acknowledges what
 * the peer sent; then the inner machine has it. */
static void
on_message (Session *s, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  if (in->from == PROTO_SERVER && in->via == PROTO_VIA_SERVER)
    {
      if (in->msg->type == PROTO_MSG_SESSION_RESUMED)
        {
          on_resumed (s, now, in->msg, out);
          return;
        }
      if (in->msg->sess_seq && in->msg->sess_seq <= s->down_last)
        return;   /* sent again on a resume, and taken before */
      if (in->msg->sess_seq)
        s->down_last = in->msg->sess_seq;
      proto_session_trim (s->unacked, in->msg->sess_ack);
    }
  feed_inner (s, now, in, out);
}

static void
session_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  Session *s = impl;
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (s, now, in, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      if (!s->gone)
        stream_lost (s, now, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (s, now, in, out);
      break;
    case PROTO_IN_MESSAGE:
      on_message (s, now, in, out);
      break;
    default:
      feed_inner (s, now, in, out);
      break;
    }
  proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
  DlTime t = proto_machine_next_deadline (s->inner);
  if (!s->up && !s->gone)
    t = MIN (t, s->reconnect_at);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = t;
}

static DlTime
session_next_deadline (const void *impl)
{
  const Session *s = impl;
  DlTime t = proto_machine_next_deadline (s->inner);
  if (!s->up && !s->gone)
    t = MIN (t, s->reconnect_at);
  return t;
}

static const char *
session_state_name (const void *impl)
{
  return proto_machine_state_name (((const Session *) impl)->inner);
}

static gboolean
session_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const Session *s = impl;
  return (type == PROTO_MSG_SESSION_RESUMED && from == PROTO_SERVER) || proto_machine_listens (s->inner, type, from);
}

static void
session_view (const void *impl, ProtoPeerView *out)
{
  proto_machine_view (((const Session *) impl)->inner, out);
}

static gboolean
session_waiting_on_peer (const void *impl)
{
  return proto_machine_waiting_on_peer (((const Session *) impl)->inner);
}

static LearnWeights *
session_model (const void *impl)
{
  return proto_machine_model (((const Session *) impl)->inner);
}

static guint
session_received_count (const void *impl, ProtoMsgType type)
{
  return proto_machine_received_count (((const Session *) impl)->inner, type);
}

static void
session_free (void *impl)
{
  Session *s = impl;
  proto_machine_free (s->inner);
  g_array_unref (s->unacked);
  g_free (s);
}

static const ProtoMachineClass session_class = {
  .handle = session_handle,
  .next_deadline = session_next_deadline,
  .state_name = session_state_name,
  .listens = session_listens,
  .view = session_view,
  .waiting_on_peer = session_waiting_on_peer,
  .model = session_model,
  .received_count = session_received_count,
  .free = session_free,
};

ProtoMachine *
proto_session_peer_new (ProtoMachine *inner, const ProtoConfig *cfg)
{
  Session *s = g_new0 (Session, 1);
  s->inner = inner;
  s->unacked = g_array_new (FALSE, FALSE, sizeof (ProtoMsg));
  g_array_set_clear_func (s->unacked, (GDestroyNotify) proto_msg_clear);
  s->reconnect_at = DL_TIME_NEVER;
  s->backoff = RECONNECT_FIRST;
  (void) cfg;
  return proto_machine_wrap (&session_class, s);
}

ProtoMachine *
proto_session_peer_inner (const ProtoMachine *m)
{
  g_return_val_if_fail (m->klass == &session_class, NULL);
  return ((const Session *) m->impl)->inner;
}

const char *const proto_replica_metric_names[] = { "failover_s", "resume_s", "session_lost", NULL };
