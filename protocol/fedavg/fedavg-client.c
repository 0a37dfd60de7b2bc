/* fedavg-client.c — the fedavg family's client, the peer machine
 * (fedavg.h): FedAvg's ClientUpdate (McMahan et al. 2017, Algorithm 1).
 *
 *   connecting -> (stream open) FedHello(its samples) -> idle;
 *   idle: FedModel(r, w) -> it trains E local epochs from w (from its
 *     initial model when w is empty: round 0) -> training;
 *   training: done -> FedUpdate(r, samples, trained weights) -> idle;
 *     a FedModel that comes while it trains (the server ended round r at
 *     its deadline and drew it again) is kept: when the training is done
 *     its update goes (the server refuses it) and it trains on the new one;
 *   idle or training: FedDone(R, w) -> its model is w -> done (finished);
 *   a leave -> left; the server's stream closing first -> failed.
 * E is [training] epochs_per_round: the host trains (START_TRAINING).
 * In the asynchronous modes (fedavg_mode = fedbuff, fedasync:
 * fedavg-async.c) the same states serve: the server answers every upload
 * with the model of now, so the client trains again at once, at its own
 * pace.  There the weights of FedModel and FedDone are the model's offset
 * from the common initial model w0, which the client adds back; it
 * uploads, with FedBuff, its update delta (trained minus the model it
 * started from) and, with FedAsync, its trained model minus w0; `round`
 * is the version it started from (the server's staleness count).
 * Its one timer: idle, it says FedHello again every round_timeout (a round
 * lasts that long at most), so that a lost FedHello or FedDone does not
 * leave it waiting for ever: the server takes a repeat as a no-op and
 * answers it with FedDone once training is over. */
#include "config.h"

#include "protocol/fedavg/fedavg-agg.h"
#include "protocol/fedavg/fedavg-config.h"
#include "protocol/fedavg/fedavg-msgs.h"
#include "protocol/fedavg/fedavg.h"

typedef enum {
  CLIENT_CONNECTING,
  CLIENT_IDLE,
  CLIENT_TRAINING,
  CLIENT_DONE,
  CLIENT_LEFT,
  CLIENT_FAILED,
} State;

const char *const fedavg_client_state_names[FEDAVG_CLIENT_N_STATES + 1] = {
  "connecting", "idle", "training", "done", "left", "failed", NULL,
};

typedef struct {
  ProtoMachineBase base;  /* its state, what it received, its view's rounds_done (the global
                             rounds its model has: the rounds of the last global model it was
                             sent, the federation's progress as far as it knows); its deadline:
                             idle, when it says FedHello again (NEVER otherwise); its round (the
                             round it trains or last trained); its model (the initial, then its
                             last trained, then the final global model) */
  guint64 samples;        /* the weight of its updates */
  guint rounds_trained;   /* rounds it was drawn for and uploaded */
  DlTime interval;        /* round_timeout */
  DlTime now;
  ProtoMsg next;          /* a FedModel that came while it trained (type 0: none) */
  gboolean have_next;
  FedavgMode mode;
  LearnWeights *initial;  /* w0, the common initial model */
  LearnWeights *start;    /* the global model it trains from (round or version `round`) */
} Client;

static void
state_to (Client *c, ProtoOutbox *out, State s)
{
  proto_machine_base_enter (&c->base, out, s, s == CLIENT_IDLE ? dl_time_add (c->now, c->interval) : DL_TIME_NEVER);
}

/* (transfer full) the global model a FedModel or FedDone carries: its
 * weights (sync; NULL without), or w0 plus its offset (async modes; w0
 * without) */
static LearnWeights *
global_of (const Client *c, const ProtoMsg *m)
{
  if (c->mode == FEDAVG_MODE_SYNC)
    return m->weights ? learn_weights_ref (m->weights) : NULL;
  return m->weights ? fedavg_agg_add (c->initial, 1.0f, m->weights) : learn_weights_ref (c->initial);
}

/* It holds the global model after `rounds` rounds: the world evaluates it
 * (round-end, round = the last of them); once per rounds (an async server
 * sends one version to an uploader again when no version came since). */
static void
take_global (Client *c, const ProtoMsg *m, guint rounds, ProtoOutbox *out)
{
  if (rounds == 0 || rounds <= c->base.rounds_done)
    return;
  LearnWeights *g = global_of (c, m);
  if (!g)
    return;
  learn_weights_unref (c->base.model);
  c->base.model = g;
  c->base.rounds_done = rounds;
  proto_outbox_observe (out, PROTO_OBS_ROUND_END,
                        fedavg_client_state_names[c->base.state], (int32_t) rounds - 1, PROTO_SERVER, -1, -1,
                        "%s", "global model");
}

/* It trains from the model the FedModel carries (w0 when it carries none:
 * round 0), also when the server draws it again for a round it has
 * trained in (a round that got no update is drawn again), never from its
 * own trained model; take_global observes that round's model once. */
static void
train_from (Client *c, const ProtoMsg *m, ProtoOutbox *out)
{
  take_global (c, m, m->round, out);
  c->base.round = m->round;
  g_clear_pointer (&c->start, learn_weights_unref);
  c->start = global_of (c, m);
  if (!c->start)
    c->start = learn_weights_ref (c->initial);
  state_to (c, out, CLIENT_TRAINING);
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *a = proto_outbox_get (out, proto_outbox_len (out) - 1);
  a->weights = learn_weights_ref (c->start);
  a->round = c->base.round;
}

static void
on_trained (Client *c, LearnWeights *w, ProtoOutbox *out)
{
  learn_weights_unref (c->base.model);
  c->base.model = learn_weights_ref (w);
  c->rounds_trained++;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_FED_UPDATE);
  m.round = c->base.round;
  m.key = c->samples;
  if (c->mode == FEDAVG_MODE_SYNC)
    proto_msg_set_weights (&m, w);
  else
    {
      /* fedbuff: the update delta; fedasync: the model, as an offset from w0 */
      g_autoptr (LearnWeights) up = fedavg_agg_add (w, -1.0f, c->mode == FEDAVG_MODE_FEDBUFF ? c->start : c->initial);
      proto_msg_set_weights (&m, up);
    }
  proto_machine_send (&c->base, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
  state_to (c, out, CLIENT_IDLE);
  if (c->have_next)
    {
      c->have_next = FALSE;
      train_from (c, &c->next, out);
      proto_msg_clear (&c->next);
    }
}

/* FedModel: it trains from it, or, training, keeps it for after (a
 * server drew it again before its update came) */
static void
on_model (Client *c, const ProtoMsg *m, ProtoOutbox *out)
{
  if (c->base.state == CLIENT_TRAINING)
    {
      proto_msg_clear (&c->next);
      proto_msg_copy (&c->next, m);
      c->have_next = TRUE;
    }
  else
    train_from (c, m, out);
}

/* FedDone: the last global model; it is done */
static void
on_done (Client *c, const ProtoMsg *m, ProtoOutbox *out)
{
  take_global (c, m, m->round, out);
  state_to (c, out, CLIENT_DONE);
  proto_outbox_observe (out, PROTO_OBS_FINISHED,
                        fedavg_client_state_names[c->base.state], (int32_t) m->round - 1, PROTO_NO_NODE, -1,
                        c->base.rounds_done, "trained in %u of %u rounds", c->rounds_trained, m->round);
}

static void
say_hello (Client *c, ProtoOutbox *out)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_FED_HELLO);
  m.key = c->samples;
  proto_machine_send (&c->base, out, PROTO_SERVER, PROTO_VIA_SERVER, &m);
}

static gboolean
client_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const Client *c = impl;
  if (from != PROTO_SERVER)
    return FALSE;
  switch ((State) c->base.state)
    {
    case CLIENT_IDLE:
      return type == PROTO_MSG_FED_MODEL || type == PROTO_MSG_FED_DONE;
    case CLIENT_TRAINING:
      return type == PROTO_MSG_FED_MODEL || type == PROTO_MSG_FED_DONE;
    default:
      return FALSE;
    }
}

/* A message from the server it listens for (the wrapper observed it,
 * counted it and dropped the others: observes_messages): one handler per
 * type. */
static void
on_message (Client *c, const ProtoInput *in, ProtoOutbox *out)
{
  switch (in->msg->type)
    {
    case PROTO_MSG_FED_MODEL:
      on_model (c, in->msg, out);
      break;
    default:   /* FedDone, the only other type it listens for */
      on_done (c, in->msg, out);
      break;
    }
}

static void
on_start (Client *c, ProtoOutbox *out)
{
  c->base.connected = TRUE;
  say_hello (c, out);
  state_to (c, out, CLIENT_IDLE);
}

/* idle past its deadline: hello again (the server may not know it) */
static void
on_deadline (Client *c, DlTime now, ProtoOutbox *out)
{
  if (c->base.state == CLIENT_IDLE && now >= c->base.deadline)
    {
      say_hello (c, out);
      c->base.deadline = dl_time_add (now, c->interval);
    }
}

static void
on_leave (Client *c, ProtoOutbox *out)
{
  if (c->base.state != CLIENT_DONE && c->base.state != CLIENT_FAILED)
    {
      c->base.connected = FALSE;
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_NO_NODE);
      state_to (c, out, CLIENT_LEFT);
    }
}

/* the server's stream closed: before training ended, it failed */
static void
on_closed (Client *c, ProtoOutbox *out)
{
  c->base.connected = FALSE;
  if (c->base.state == CLIENT_CONNECTING || c->base.state == CLIENT_IDLE || c->base.state == CLIENT_TRAINING)
    {
      c->base.error = "the server's stream closed before training ended";
      proto_outbox_observe (out, PROTO_OBS_ERROR, fedavg_client_state_names[c->base.state],
                            (int32_t) c->base.round, PROTO_SERVER, -1, -1, "%s", c->base.error);
      state_to (c, out, CLIENT_FAILED);
    }
}

static void
client_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  Client *c = impl;
  c->now = now;
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (c, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (c, now, out);
      break;
    case PROTO_IN_MESSAGE:
      on_message (c, in, out);
      break;
    case PROTO_IN_TRAINING_DONE:
      if (c->base.state == CLIENT_TRAINING)
        on_trained (c, in->weights, out);
      break;
    case PROTO_IN_LEAVE:
      on_leave (c, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      on_closed (c, out);
      break;
    default:
      break;
    }
}

static void
client_free (void *impl)
{
  Client *c = impl;
  learn_weights_unref (c->base.model);
  g_clear_pointer (&c->initial, learn_weights_unref);
  g_clear_pointer (&c->start, learn_weights_unref);
  proto_msg_clear (&c->next);
  g_free (c);
}

/* its view and model are its base's (settled in done, left and failed) */
static const ProtoMachineClass client_class = {
  .handle = client_handle,
  .listens = client_listens,
  .free = client_free,
  .observes_messages = TRUE,
};

ProtoMachine *
fedavg_client_new (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  Client *c = g_new0 (Client, 1);
  proto_machine_base_init (&c->base, fedavg_client_state_names, CLIENT_CONNECTING);
  c->base.settled_states = PROTO_STATE_BIT (CLIENT_DONE) | PROTO_STATE_BIT (CLIENT_LEFT) | PROTO_STATE_BIT (CLIENT_FAILED);
  c->base.failed_states = PROTO_STATE_BIT (CLIENT_FAILED);
  c->interval = fedavg_config (cfg)->round_timeout > 0 ? fedavg_config (cfg)->round_timeout : 60 * DL_S;
  c->samples = MAX (env->samples, 1);   /* model none: no data, equal weights */
  c->base.model = learn_weights_ref (env->initial);
  c->mode = fedavg_config (cfg)->mode;
  c->initial = learn_weights_ref (env->initial);
  return proto_machine_new (&client_class, &c->base);
}
