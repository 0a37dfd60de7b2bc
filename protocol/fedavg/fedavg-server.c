/* fedavg-server.c — the fedavg family's server, the coordinator machine
 * (fedavg.h): FedAvg's server loop (McMahan et al. 2017, Algorithm 1).
 *
 *   waiting: fewer than min_participants clients have said FedHello;
 *   round r: once at least min_participants are connected, it takes
 *     K = max(ceil(fraction x connected), min_participants) (at most all),
 *     draws min(ceil(overcommit x K), connected) of them from its stream
 *     (fedavg-agg.c) and sends each FedModel(r, global model); round 0
 *     carries no weights: the clients start from the common initial model
 *     the world gives every peer (the server is given none).  The round
 *     ends at the K-th FedUpdate(r), when no drawn client is left to wait
 *     for (one whose stream closes is not waited for), or round_timeout
 *     after it began (FedScale's round deadline), whichever comes first;
 *     the global model becomes the average of the updates that came,
 *     weighted by their samples (observed as round-end, value = updates
 *     averaged), and round r + 1 starts; a round that got no update is
 *     drawn again.  Updates after the round's end are refused;
 *   done: after `rounds` rounds every connected client (and any that says
 *     FedHello later) gets FedDone(rounds, global model).
 * A client that joins during a round is in the next round's draw; a
 * FedHello from a client it knows (a client idle for round_timeout says it
 * again) changes nothing, and after training is answered with FedDone.  Its one
 * timer is the round's deadline. */
#include "config.h"

#include "protocol/fedavg/fedavg-agg.h"
#include "protocol/fedavg/fedavg-config.h"
#include "protocol/fedavg/fedavg-msgs.h"
#include "protocol/fedavg/fedavg.h"

#include <math.h>

typedef enum { SERVER_WAITING, SERVER_ROUND, SERVER_DONE } Phase;

static const char *const phase_names[] = { "waiting", "round", "done" };

typedef struct {
  ProtoMachineBase base;  /* its phase, its round, and the round's end at the latest as its deadline
                             (NEVER outside a round) */
  ProtoConfig cfg;
  DlRandom *rng;           /* the draws: the run's "fedavg-server" stream */
  GHashTable *clients;     /* ProtoNodeId -> samples (guint64 in a pointer-sized box) */
  LearnWeights *global;    /* NULL before round 0 ends */
  GHashTable *pending;     /* drawn clients whose update has not come */
  guint want;              /* K: the updates the round averages at most */
  DlTime now;
  GPtrArray *updates;      /* LearnWeights* of this round */
  GArray *counts;          /* guint64: their samples */
} Server;

/* a phase change keeps the deadline (a round sets and clears its own) */
static void
phase_to (Server *s, ProtoOutbox *out, Phase p)
{
  proto_machine_base_enter (&s->base, out, p, s->base.deadline);
}

static void
send_done (Server *s, ProtoOutbox *out, ProtoNodeId to)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_FED_DONE);
  m.round = s->base.round;
  if (s->global)
    proto_msg_set_weights (&m, s->global);
  proto_machine_send (&s->base, out, to, PROTO_VIA_SERVER, &m);
}

static void maybe_start_round (Server *s, ProtoOutbox *out);

static void
start_round (Server *s, ProtoOutbox *out)
{
  g_autoptr (GArray) sorted = fedavg_agg_sorted_ids (s->clients);   /* the draw depends on the ids */
  guint n = sorted->len;
  const guint32 *ids = (const guint32 *) (const void *) sorted->data;
  s->want = fedavg_agg_sample_size (n, fedavg_config (&s->cfg)->fraction, s->cfg.min_participants);
  guint m = MIN ((guint) ceil (fedavg_config (&s->cfg)->overcommit * s->want - 1e-9), n);
  g_autofree guint32 *drawn = g_new (guint32, MAX (m, 1));
  fedavg_agg_sample (s->rng, ids, n, m, drawn);
  phase_to (s, out, SERVER_ROUND);
  s->base.deadline = dl_time_add (s->now, fedavg_config (&s->cfg)->round_timeout);
  proto_outbox_observe (out, PROTO_OBS_ROUND_START, phase_names[s->base.state], (int32_t) s->base.round, PROTO_NO_NODE, -1, m,
                        "%u of %u clients, the first %u kept", m, n, s->want);
  for (guint i = 0; i < m; i++)
    {
      g_hash_table_add (s->pending, GUINT_TO_POINTER (drawn[i]));
      ProtoMsg msg;
      proto_msg_init (&msg, PROTO_MSG_FED_MODEL);
      msg.round = s->base.round;
      if (s->global)
        proto_msg_set_weights (&msg, s->global);
      proto_machine_send (&s->base, out, drawn[i], PROTO_VIA_SERVER, &msg);
    }
}

static void
end_round (Server *s, ProtoOutbox *out)
{
  g_hash_table_remove_all (s->pending);   /* the rest are refused when they come */
  s->base.deadline = DL_TIME_NEVER;
  if (s->updates->len == 0)
    {
      /* everyone drawn left: draw again for the same round */
      proto_outbox_observe (out, PROTO_OBS_NOTE, phase_names[s->base.state], (int32_t) s->base.round, PROTO_NO_NODE, -1, -1,
                            "%s", "round without updates: drawn again");
      phase_to (s, out, SERVER_WAITING);
      maybe_start_round (s, out);
      return;
    }
  LearnWeights *avg = fedavg_agg_weighted_mean ((LearnWeights *const *) s->updates->pdata,
                                                (const guint64 *) (const void *) s->counts->data, s->updates->len);
  g_clear_pointer (&s->global, learn_weights_unref);
  s->global = avg;
  proto_outbox_observe (out, PROTO_OBS_ROUND_END, phase_names[s->base.state], (int32_t) s->base.round, PROTO_NO_NODE, -1,
                        s->updates->len, "%s", "");
  g_ptr_array_set_size (s->updates, 0);
  g_array_set_size (s->counts, 0);
  s->base.round++;
  if (s->base.round >= s->cfg.rounds)
    {
      phase_to (s, out, SERVER_DONE);
      g_autoptr (GArray) ids = fedavg_agg_sorted_ids (s->clients);
      for (guint i = 0; i < ids->len; i++)
        send_done (s, out, g_array_index (ids, guint32, i));
      return;
    }
  phase_to (s, out, SERVER_WAITING);
  maybe_start_round (s, out);
}

static void
maybe_start_round (Server *s, ProtoOutbox *out)
{
  if (s->base.state == SERVER_WAITING && g_hash_table_size (s->clients) >= MAX (s->cfg.min_participants, 1))
    start_round (s, out);
}

static void
on_hello (Server *s, ProtoNodeId from, const ProtoMsg *m, ProtoOutbox *out)
{
  g_hash_table_insert (s->clients, GUINT_TO_POINTER (from), GSIZE_TO_POINTER ((gsize) MAX (m->key, 1)));
  if (s->base.state == SERVER_DONE)
    send_done (s, out, from);
  else
    maybe_start_round (s, out);
}

static void
on_update (Server *s, ProtoNodeId from, const ProtoMsg *m, ProtoOutbox *out)
{
  gboolean shaped = m->weights != NULL
                    && (s->updates->len == 0
                        || learn_weights_len (m->weights) == learn_weights_len (g_ptr_array_index (s->updates, 0)));
  if (!shaped || s->base.state != SERVER_ROUND || m->round != s->base.round
      || !g_hash_table_remove (s->pending, GUINT_TO_POINTER (from)))
    {
      proto_outbox_observe (out, PROTO_OBS_REJECTED, phase_names[s->base.state], (int32_t) s->base.round, from,
                            (int32_t) m->type, m->round, "%s", "not drawn for this round, the round ended, or no model of the round's size");
      return;
    }
  g_ptr_array_add (s->updates, learn_weights_ref (m->weights));
  guint64 n = MAX (m->key, 1);   /* a client of no samples (model none) weighs 1 */
  g_array_append_val (s->counts, n);
  if (s->updates->len >= s->want || g_hash_table_size (s->pending) == 0)
    end_round (s, out);
}

static void
on_closed (Server *s, ProtoNodeId from, ProtoOutbox *out)
{
  g_hash_table_remove (s->clients, GUINT_TO_POINTER (from));
  if (g_hash_table_remove (s->pending, GUINT_TO_POINTER (from)) && g_hash_table_size (s->pending) == 0)
    end_round (s, out);
}

/* round_timeout: the round ends with the updates it has */
static void
on_deadline (Server *s, DlTime now, ProtoOutbox *out)
{
  if (s->base.state == SERVER_ROUND && now >= s->base.deadline)
    {
      proto_outbox_observe (out, PROTO_OBS_TIMER_FIRED, phase_names[s->base.state], (int32_t) s->base.round,
                            PROTO_NO_NODE, -1, s->updates->len, "round_timeout: %u of %u updates", s->updates->len,
                            s->want);
      end_round (s, out);
    }
}

/* A message (it listens for FedHello and FedUpdate alone): one handler
 * per type. */
static void
on_message (Server *s, const ProtoInput *in, ProtoOutbox *out)
{
  proto_outbox_observe (out, PROTO_OBS_RECEIVED, phase_names[s->base.state], (int32_t) s->base.round, in->from,
                        (int32_t) in->msg->type, -1, "%s", "");
  switch (in->msg->type)
    {
    case PROTO_MSG_FED_HELLO:
      on_hello (s, in->from, in->msg, out);
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
  DlTime before = s->base.deadline;
  s->now = now;
  switch (in->kind)
    {
    case PROTO_IN_DEADLINE:
      on_deadline (s, now, out);
      break;
    case PROTO_IN_MESSAGE:
      on_message (s, in, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      on_closed (s, in->from, out);
      break;
    default:
      break;
    }
  if (s->base.deadline != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = s->base.deadline;
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
  dl_random_free (s->rng);
  g_hash_table_unref (s->clients);
  g_hash_table_unref (s->pending);
  g_ptr_array_unref (s->updates);
  g_array_unref (s->counts);
  g_clear_pointer (&s->global, learn_weights_unref);
  g_free (s);
}

static void
server_reseed (void *impl, guint64 salt)
{
  Server *s = impl;
  dl_random_reseed (s->rng, salt);
}

static const ProtoMachineClass server_class = {
  .handle = server_handle,
  .listens = server_listens,
  .free = server_free,
  .reseed = server_reseed,
};

ProtoMachine *
fedavg_server_new (const ProtoConfig *cfg)
{
  Server *s = g_new0 (Server, 1);
  s->cfg = *cfg;
  s->rng = dl_random_new (cfg->seed, "fedavg-server", DL_RANDOM_NO_NODE);
  s->clients = g_hash_table_new (NULL, NULL);
  s->pending = g_hash_table_new (NULL, NULL);
  s->updates = g_ptr_array_new_with_free_func ((GDestroyNotify) learn_weights_unref);
  s->counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  proto_machine_base_init (&s->base, phase_names, SERVER_WAITING);
  return proto_machine_new (&server_class, &s->base);
}
