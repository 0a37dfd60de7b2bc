/* fedavg-async.c — the fedavg family's server in its asynchronous modes,
 * the coordinator machine (fedavg.h) for fedavg_mode = fedbuff and
 * fedasync (README.md beside this file):
 *
 *   FedBuff (Nguyen et al. 2022, "Federated Learning with Buffered
 *   Asynchronous Aggregation", Algorithm 1): every client trains at its own
 *   pace from the model it was last sent and uploads its update delta (its
 *   trained model minus the model it started from); the server adds
 *   s(tau) x delta to a buffer, tau the versions the server's model moved
 *   since the client's, and every buffer_size (K) updates applies
 *   w <- w + eta_g / K x buffer, a new version;
 *   FedAsync (Xie et al. 2019, "Asynchronous Federated Optimization"):
 *   every update is applied as it comes, w <- (1 - a) w + a x_new with
 *   a = alpha x s(tau), a new version each.
 *
 *   waiting: fewer than min_participants clients have said FedHello;
 *   running (version v): once min_participants have, each gets
 *     FedModel(0) (no weights: every client starts from the common
 *     initial model, as in the synchronous mode's round 0); from then on
 *     a client that says FedHello or uploads a FedUpdate is sent
 *     FedModel(v, the model) at once (the model goes to a client when it
 *     asks again, so the server's uplink carries one model per update);
 *     a new version is observed as round-end (round v - 1, value: the
 *     updates it applied) and round-start (round v);
 *   done: after `rounds` versions, every connected client gets
 *     FedDone(rounds, the model), and so does any that says FedHello
 *     later or uploads while not connected then (an update in flight
 *     from a client that was told is refused without an answer).
 *
 * The server holds its model as an offset from the common initial model
 * w0 (zeros at version 0) and so do the weights of FedModel and FedDone in
 * these modes: the server is given no model (proto-machine.h's
 * new_coordinator takes none), while every client holds w0 and adds it
 * back (fedavg-client.c).  The offset is the size of a model, so the
 * bytes on the wire are a model's; the arithmetic is the papers' up to
 * float rounding.  An update of a version newer than the server's, or of
 * another length than the buffer's, is refused.  No timer. */
#include "config.h"

#include "protocol/fedavg/fedavg-agg.h"
#include "protocol/fedavg/fedavg-config.h"
#include "protocol/fedavg/fedavg-msgs.h"
#include "protocol/fedavg/fedavg.h"

typedef enum { ASYNC_WAITING, ASYNC_RUNNING, ASYNC_DONE } Phase;

static const char *const phase_names[] = { "waiting", "running", "done" };

typedef struct {
  ProtoMachineBase base;  /* its phase (no timer) */
  ProtoConfig cfg;
  FedavgConfig fc;
  GHashTable *clients;     /* ProtoNodeId set: the connected clients that said FedHello */
  guint32 version;         /* the server model's version: the versions applied so far */
  LearnWeights *offset;    /* the model minus w0; NULL: zeros (version 0) */
  LearnWeights *buffer;    /* fedbuff: sum of s(tau) x delta since the last version (NULL: empty) */
  guint buffered;          /* updates in it */
} Server;

static void
phase_to (Server *s, ProtoOutbox *out, Phase p)
{
  s->base.state = p;
  proto_outbox_observe (out, PROTO_OBS_PHASE, phase_names[p], (int32_t) s->version, PROTO_NO_NODE, -1, -1, "%s",
                        phase_names[p]);
}

static void
send_model (Server *s, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  m.round = s->version;
  if (s->offset)
    proto_msg_set_weights (&m, s->offset);
  proto_outbox_observe (out, PROTO_OBS_SENT, phase_names[s->base.state], (int32_t) s->version, to, (int32_t) type, -1,
                        "%s", "");
  proto_outbox_send (out, to, PROTO_VIA_SERVER, &m);
}

static void
start (Server *s, ProtoOutbox *out)
{
  phase_to (s, out, ASYNC_RUNNING);
  guint n = g_hash_table_size (s->clients);
  proto_outbox_observe (out, PROTO_OBS_ROUND_START, phase_names[s->base.state], 0, PROTO_NO_NODE, -1, n,
                        "%u clients train", n);
  g_autoptr (GArray) ids = fedavg_agg_sorted_ids (s->clients);
  for (guint i = 0; i < ids->len; i++)
    send_model (s, out, g_array_index (ids, guint32, i), PROTO_MSG_FED_MODEL);
}

/* a new version of the server's model, made of `applied` updates */
static void
new_version (Server *s, ProtoOutbox *out, LearnWeights *offset, guint applied)
{
  g_clear_pointer (&s->offset, learn_weights_unref);
  s->offset = offset;
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, phase_names[s->base.state], (int32_t) s->version, PROTO_NO_NODE, -1,
                        applied, "%s", "");
  s->version++;
  if (s->version < s->cfg.rounds)
    {
      guint n = g_hash_table_size (s->clients);
      proto_outbox_observe (out, PROTO_OBS_ROUND_START, phase_names[s->base.state], (int32_t) s->version, PROTO_NO_NODE,
                            -1, MAX (n, 1), "%u clients train", n);
      return;
    }
  phase_to (s, out, ASYNC_DONE);
  g_autoptr (GArray) ids = fedavg_agg_sorted_ids (s->clients);
  for (guint i = 0; i < ids->len; i++)
    send_model (s, out, g_array_index (ids, guint32, i), PROTO_MSG_FED_DONE);
}

static void
on_hello (Server *s, ProtoNodeId from, ProtoOutbox *out)
{
  g_hash_table_add (s->clients, GUINT_TO_POINTER (from));
  switch ((Phase) s->base.state)
    {
    case ASYNC_WAITING:
      if (g_hash_table_size (s->clients) >= MAX (s->cfg.min_participants, 1))
        start (s, out);
      break;
    case ASYNC_RUNNING:
      send_model (s, out, from, PROTO_MSG_FED_MODEL);
      break;
    case ASYNC_DONE:
      send_model (s, out, from, PROTO_MSG_FED_DONE);
      break;
    }
}

static void
on_update (Server *s, ProtoNodeId from, const ProtoMsg *m, ProtoOutbox *out)
{
  const LearnWeights *shape = s->buffer ? s->buffer : s->offset;
  gboolean ok = s->base.state == ASYNC_RUNNING && m->weights != NULL && m->round <= s->version
                && (!shape || learn_weights_len (m->weights) == learn_weights_len (shape));
  if (!ok)
    {
      proto_outbox_observe (out, PROTO_OBS_REJECTED, phase_names[s->base.state], (int32_t) s->version, from,
                            (int32_t) m->type, m->round, "%s",
                            "not running, of a version the server has not made, or no model of the server's size");
      /* after the end: the clients connected then were told; one that was
       * not is told now */
      if (s->base.state == ASYNC_DONE && !g_hash_table_contains (s->clients, GUINT_TO_POINTER (from)))
        {
          g_hash_table_add (s->clients, GUINT_TO_POINTER (from));
          send_model (s, out, from, PROTO_MSG_FED_DONE);
        }
      return;
    }
  guint32 tau = s->version - m->round;
  double st = fedavg_agg_staleness_weight (tau, s->fc.staleness_power);
  proto_outbox_observe (out, PROTO_OBS_NOTE, phase_names[s->base.state], (int32_t) s->version, from, (int32_t) m->type,
                        tau, "staleness %u, weight %.4f", tau, st);
  if (s->fc.mode == FEDAVG_MODE_FEDASYNC)
    new_version (s, out, fedavg_agg_mix (s->offset, s->fc.mixing * st, m->weights), 1);
  else
    {
      fedavg_agg_buffer_add (&s->buffer, st, m->weights);
      if (++s->buffered >= s->fc.buffer_size)
        {
          LearnWeights *w = fedavg_agg_step (s->offset, s->fc.server_lr / s->buffered, s->buffer);
          g_clear_pointer (&s->buffer, learn_weights_unref);
          guint applied = s->buffered;
          s->buffered = 0;
          new_version (s, out, w, applied);
        }
    }
  /* it asks again by uploading: the model of now (FedDone once done, to
   * it unless the end's FedDone to every connected client reached it) */
  if (s->base.state == ASYNC_RUNNING)
    send_model (s, out, from, PROTO_MSG_FED_MODEL);
  else if (!g_hash_table_contains (s->clients, GUINT_TO_POINTER (from)))
    {
      g_hash_table_add (s->clients, GUINT_TO_POINTER (from));
      send_model (s, out, from, PROTO_MSG_FED_DONE);
    }
}

/* A message (it listens for FedHello and FedUpdate alone): one handler
 * per type. */
static void
on_message (Server *s, const ProtoInput *in, ProtoOutbox *out)
{
  proto_outbox_observe (out, PROTO_OBS_RECEIVED, phase_names[s->base.state], (int32_t) s->version, in->from,
                        (int32_t) in->msg->type, -1, "%s", "");
  switch (in->msg->type)
    {
    case PROTO_MSG_FED_HELLO:
      on_hello (s, in->from, out);
      break;
    case PROTO_MSG_FED_UPDATE:
      on_update (s, in->from, in->msg, out);
      break;
    default:
      break;
    }
}

static void
server_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  Server *s = impl;
  (void) now;
  switch (in->kind)
    {
    case PROTO_IN_MESSAGE:
      on_message (s, in, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      g_hash_table_remove (s->clients, GUINT_TO_POINTER (in->from));
      break;
    default:
      break;
    }
}

static gboolean
server_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  (void) impl, (void) from;
  return fedavg_msgs_to_server (type);
}

static void
server_free (void *impl)
{
  Server *s = impl;
  g_hash_table_unref (s->clients);
  g_clear_pointer (&s->offset, learn_weights_unref);
  g_clear_pointer (&s->buffer, learn_weights_unref);
  g_free (s);
}

static const ProtoMachineClass server_class = {
  .handle = server_handle,
  .listens = server_listens,
  .free = server_free,
};

ProtoMachine *
fedavg_async_server_new (const ProtoConfig *cfg)
{
  Server *s = g_new0 (Server, 1);
  s->cfg = *cfg;
  s->fc = *fedavg_config (cfg);
  s->fc.buffer_size = s->fc.mode == FEDAVG_MODE_FEDASYNC ? 1 : MAX (s->fc.buffer_size, 1);
  s->clients = g_hash_table_new (NULL, NULL);
  proto_machine_base_init (&s->base, phase_names, ASYNC_WAITING);
  return proto_machine_new (&server_class, &s->base);
}
