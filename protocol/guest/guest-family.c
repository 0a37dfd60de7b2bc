/* guest-family.c — `[protocol] family = guest`: machines whose logic runs in
 * an external process, the guest, driven over a line protocol
 * (docs/guest.md; README.md beside this file).
 *
 * Each machine here is a proxy.  Its handle() writes the input as one line
 * (guest-line.c) and carries the guest's answer lines, up to `quiet`, into
 * its outbox; next_deadline, the state's name and the peer's view are what
 * the guest said last.  The machines of one run share one guest process (a
 * session, keyed by the run's ProtoConfig, which every machine of a world
 * is made from), so a guest may host every node, as DISCO's server and
 * clients share one Node process.  A guest that dies, hangs past
 * guest_timeout or writes a line that is not an action breaks the session:
 * every machine of it then reports why (ProtoMachineClass.broken) and the
 * host ends the run with outcome `error`. */
#include "config.h"

#include "protocol/proto-machine.h"
#include "protocol/guest/guest-config.h"
#include "protocol/guest/guest-line.h"
#include "protocol/guest/guest-proc.h"
#include "protocol/guest/guest-msgs.h"

#include <string.h>

/* ---------------------------------------------------------------- sessions */

typedef struct {
  const ProtoConfig *key;
  ProtoGuestProc *proc;
  guint refs;
  char *error;   /* set once the guest broke */
} Session;

static GMutex sessions_lock;
static GHashTable *sessions;   /* const ProtoConfig * -> Session (machines of different threads' worlds) */

static void
session_break (Session *s, const char *why)
{
  if (!s->error)
    s->error = g_strdup (why);
}

/* The proc's lines and the session's error are the session's own: one
 * world drives its machines from one thread at a time. */
static Session *
session_ref (const ProtoConfig *cfg)
{
  g_mutex_lock (&sessions_lock);
  if (!sessions)
    sessions = g_hash_table_new (g_direct_hash, g_direct_equal);
  Session *s = g_hash_table_lookup (sessions, cfg);
  if (s)
    {
      s->refs++;
      g_mutex_unlock (&sessions_lock);
      return s;
    }
  s = g_new0 (Session, 1);
  s->key = cfg;
  s->refs = 1;
  g_hash_table_insert (sessions, (gpointer) cfg, s);
  g_mutex_unlock (&sessions_lock);
  g_autoptr (GError) e = NULL;
  if (!*guest_config (cfg)->command)
    session_break (s, "no guest: [protocol] guest_command is empty");
  else if (!(s->proc = proto_guest_proc_new (guest_config (cfg)->command, *guest_config (cfg)->dir ? guest_config (cfg)->dir : NULL,
                                             guest_config (cfg)->timeout_ms, &e)))
    {
      g_autofree char *why = g_strdup_printf ("guest `%s` does not start: %s", guest_config (cfg)->command, e->message);
      session_break (s, why);
    }
  else
    {
      g_autoptr (GPtrArray) replies = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *hello = g_strdup_printf ("hello 1 %" G_GUINT64_FORMAT " %u %u", cfg->seed, cfg->rounds,
                                                cfg->min_participants);
      if (!proto_guest_proc_call (s->proc, hello, replies, &e))
        session_break (s, e->message);
      else if (replies->len)
        {
          g_autofree char *why = g_strdup_printf ("guest `%s`: its line %u: `%.80s`: hello is answered with quiet alone",
                                                  guest_config (cfg)->command, 1u, (char *) replies->pdata[0]);
          session_break (s, why);
        }
    }
  return s;
}

static void
session_unref (Session *s)
{
  g_mutex_lock (&sessions_lock);
  gboolean last = --s->refs == 0;
  if (last)
    g_hash_table_remove (sessions, s->key);
  g_mutex_unlock (&sessions_lock);
  if (!last)
    return;
  g_clear_pointer (&s->proc, proto_guest_proc_free);
  g_free (s->error);
  g_free (s);
}

/* ---------------------------------------------------------------- the proxy */

/* the role the scenario gives a kind of the guest's messages
 * (guest_barrier_retry, guest_connection_fail) */
static ProtoMsgRole
kind_role (const ProtoConfig *cfg, const char *kind)
{
  const GuestConfig *gc = guest_config (cfg);
  if (*gc->barrier_retry && strcmp (kind, gc->barrier_retry) == 0)
    return PROTO_MSG_ROLE_BARRIER_RETRY;
  if (*gc->connection_fail && strcmp (kind, gc->connection_fail) == 0)
    return PROTO_MSG_ROLE_CONNECTION_FAIL;
  return PROTO_MSG_ROLE_NONE;
}

typedef struct {
  Session *s;
  ProtoNodeId id;
  const char *state;          /* interned */
  DlTime deadline;
  DlTime due_at;              /* the instant of the last PROTO_IN_DEADLINE */
  guint due_again;            /* deadlines in a row at that instant */
  gboolean connected, finished, failed;
  gboolean excluded, synced;  /* it said `excluded`, `synced PEER` */
  guint rounds_done;
  char error[PROTO_OBS_DETAIL_LEN];
  LearnWeights *weights;      /* what it trains from: the initial model, then its last result */
  LearnWeights *reported;     /* the model the guest last reported (`model`), or NULL */
  guint received;             /* Guest messages delivered */
  guint kind_received[PROTO_MSG_N_ROLES]; /* of them, by their kind's role (kind_role) */
} GuestNode;

static void
observe (GuestNode *g, ProtoOutbox *out, ProtoObsKind kind, int32_t round, ProtoNodeId other, int32_t type,
         int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, g->state, round, other, type, value, "%s", detail ? detail : "");
}

/* the type name of a Guest message ("TYPE DATA") */
static char *
msg_type_name (const char *text)
{
  const char *sp = strchr (text, ' ');
  return g_strndup (text, sp ? (gsize) (sp - text) : strlen (text));
}

static gboolean
check_send (const GuestNode *g, const ProtoGuestAct *a, const char **why)
{
  if (a->to == g->id)
    *why = "a node does not send to itself";
  else if (g->id == PROTO_SERVER && a->via != PROTO_VIA_SERVER)
    *why = "the coordinator sends on peers' streams only";
  else if (g->id != PROTO_SERVER && a->via == PROTO_VIA_SERVER && a->to != PROTO_SERVER)
    *why = "a peer's stream goes to S";
  else if (a->via == PROTO_VIA_LINK && a->to == PROTO_SERVER)
    *why = "a link joins two peers";
  else
    return TRUE;
  return FALSE;
}

/* The facts dlsim counts for its own machines (guest-line.h), as the
 * observations its machines make of them; FALSE and why if this node may
 * not say it. */
static gboolean
apply_fact (GuestNode *g, const ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  gboolean peer = g->id != PROTO_SERVER;
  gboolean coordinators = a->kind == PROTO_GUEST_START || a->kind == PROTO_GUEST_RETRY || a->kind == PROTO_GUEST_RESET
                          || (a->kind == PROTO_GUEST_EXCLUDED && a->to != PROTO_NO_NODE);
  if (peer == coordinators)
    {
      *why = coordinators ? "start, retry, reset and excluded PEER are the coordinator's"
                          : "synced, served, foreign and excluded (alone) are a peer's";
      return FALSE;
    }
  switch (a->kind)
    {
    case PROTO_GUEST_START:
      observe (g, out, PROTO_OBS_ROUND_START, (int32_t) a->n - 1, PROTO_NO_NODE, -1, (int64_t) a->count, NULL);
      break;
    case PROTO_GUEST_RETRY:
      observe (g, out, PROTO_OBS_RETRY, -1, PROTO_NO_NODE, -1, a->value, NULL);
      break;
    case PROTO_GUEST_RESET:
      observe (g, out, PROTO_OBS_RESET, -1, PROTO_NO_NODE, -1, -1, "session reset");
      break;
    case PROTO_GUEST_EXCLUDED:
      if (peer)
        {
          /* its `failed` is an exclusion; it acted on the connection fail */
          g->excluded = TRUE;
          observe (g, out, PROTO_OBS_RECEIVED, -1, PROTO_SERVER, PROTO_MSG_GUEST, -1,
                   *guest_config (g->s->key)->connection_fail ? guest_config (g->s->key)->connection_fail : "excluded");
        }
      else
        observe (g, out, PROTO_OBS_EXCLUDED, -1, a->to, -1, -1, NULL);
      break;
    case PROTO_GUEST_SYNCED:
      g->synced = TRUE;
      observe (g, out, PROTO_OBS_SYNC_DONE, -1, a->to, -1, -1, NULL);
      break;
    case PROTO_GUEST_SERVED:
      observe (g, out, PROTO_OBS_SYNC_SERVED, -1, a->to, -1, a->value,
               a->value ? "the previous round's model: a round is in its connect phase" : NULL);
      break;
    case PROTO_GUEST_FOREIGN:
      {
        g_autofree char *from = proto_guest_node_name (a->to);
        g_autofree char *what = g_strdup_printf ("%s's contribution of round %" G_GUINT64_FORMAT " aggregated in another",
                                                 from, a->n);
        observe (g, out, PROTO_OBS_FOREIGN_ROUND, -1, a->to, PROTO_MSG_GUEST, (int64_t) a->n - 1, what);
        break;
      }
    default:
      *why = "unknown action";
      return FALSE;
    }
  return TRUE;
}

/* open, connect or close: a peer's link to another peer */
static gboolean
apply_link (GuestNode *g, const ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  if (g->id == PROTO_SERVER)
    {
      *why = "links are the peers'";
      return FALSE;
    }
  if (a->to == g->id)
    {
      *why = "a link joins two different peers";
      return FALSE;
    }
  proto_outbox_simple (out, a->kind == PROTO_GUEST_OPEN      ? PROTO_ACT_OPEN_LINK
                            : a->kind == PROTO_GUEST_CONNECT ? PROTO_ACT_CONNECT_LINK
                                                             : PROTO_ACT_CLOSE_LINK,
                       a->to);
  proto_outbox_get (out, proto_outbox_len (out) - 1)->initiator = a->initiator;
  return TRUE;
}

/* send: a Guest message on a peer's stream or a link */
static gboolean
apply_send (GuestNode *g, ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  if (!check_send (g, a, why))
    return FALSE;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_GUEST);
  m.signal_data = g_steal_pointer (&a->text);
  m.key = a->size;
  g_autofree char *name = msg_type_name (m.signal_data);
  observe (g, out, PROTO_OBS_SENT, -1, a->to, PROTO_MSG_GUEST, -1, name);
  proto_outbox_send (out, a->to, a->via, &m);
  return TRUE;
}

/* disconnect or train: a peer's acts on its stream and its training */
static gboolean
apply_peer_act (GuestNode *g, const ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  if (g->id == PROTO_SERVER)
    {
      *why = a->kind == PROTO_GUEST_DISCONNECT ? "the coordinator does not disconnect"
                                               : "the coordinator does not train";
      return FALSE;
    }
  if (a->kind == PROTO_GUEST_DISCONNECT)
    {
      g->connected = FALSE;
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
      return TRUE;
    }
  proto_outbox_simple (out, PROTO_ACT_START_TRAINING, PROTO_NO_NODE);
  ProtoAction *t = proto_outbox_get (out, proto_outbox_len (out) - 1);
  t->weights = learn_weights_ref (g->weights);
  t->round = (uint32_t) a->n - 1;   /* the guest counts rounds from 1, machines from 0 */
  return TRUE;
}

/* round, model, list and finished: how far the rounds went, each said by
 * one role only (list by the coordinator, the others by a peer) */
static gboolean
apply_progress (GuestNode *g, const ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  gboolean peer = g->id != PROTO_SERVER;
  switch (a->kind)
    {
    case PROTO_GUEST_ROUND:
      if (!peer)
        {
          *why = "round is a peer's (the coordinator says list)";
          return FALSE;
        }
      g->rounds_done = (guint) (a->count ? a->count : a->n);
      observe (g, out, PROTO_OBS_ROUND_END, (int32_t) a->n - 1, PROTO_NO_NODE, -1, -1, NULL);
      return TRUE;
    case PROTO_GUEST_MODEL:
      if (!peer)
        {
          *why = "model is a peer's";
          return FALSE;
        }
      g_clear_pointer (&g->reported, learn_weights_unref);
      g->reported = learn_weights_new_from (a->values, a->n_values);
      return TRUE;
    case PROTO_GUEST_LIST:
      if (peer)
        {
          *why = "list is the coordinator's";
          return FALSE;
        }
      observe (g, out, PROTO_OBS_ROUND_LIST, (int32_t) a->n - 1, PROTO_NO_NODE, -1, (int64_t) a->count, NULL);
      return TRUE;
    case PROTO_GUEST_FINISHED:
      if (!peer)
        {
          *why = "finished is a peer's";
          return FALSE;
        }
      g->finished = TRUE;
      observe (g, out, PROTO_OBS_FINISHED, -1, PROTO_NO_NODE, -1, g->rounds_done, NULL);
      return TRUE;
    default:
      *why = "unknown action";
      return FALSE;
    }
}

/* deadline, state, failed, note and metric: what either role says of
 * itself; none is refused */
static void
apply_self (GuestNode *g, const ProtoGuestAct *a, ProtoOutbox *out)
{
  switch (a->kind)
    {
    case PROTO_GUEST_DEADLINE:
      g->deadline = a->t;
      break;
    case PROTO_GUEST_STATE:
      g->state = g_intern_string (a->text);
      observe (g, out, PROTO_OBS_PHASE, -1, PROTO_NO_NODE, -1, -1, g->state);
      break;
    case PROTO_GUEST_FAILED:
      g->failed = TRUE;
      g_strlcpy (g->error, a->text, sizeof g->error);
      observe (g, out, PROTO_OBS_ERROR, -1, PROTO_NO_NODE, -1, -1, a->text);
      break;
    case PROTO_GUEST_NOTE:
      observe (g, out, PROTO_OBS_NOTE, -1, PROTO_NO_NODE, -1, -1, a->text);
      break;
    case PROTO_GUEST_METRIC:
      observe (g, out, PROTO_OBS_METRIC, a->round > 0 ? a->round - 1 : -1, PROTO_NO_NODE, -1, a->value, a->text);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Carries one action into the outbox; FALSE and why if this node may not
 * take it.  One call per kind of action, as ngtcp2's conn_recv_pkt. */
static gboolean
apply (GuestNode *g, ProtoGuestAct *a, ProtoOutbox *out, const char **why)
{
  switch (a->kind)
    {
    case PROTO_GUEST_SEND:
      return apply_send (g, a, out, why);
    case PROTO_GUEST_OPEN:
    case PROTO_GUEST_CONNECT:
    case PROTO_GUEST_CLOSE:
      return apply_link (g, a, out, why);
    case PROTO_GUEST_DISCONNECT:
    case PROTO_GUEST_TRAIN:
      return apply_peer_act (g, a, out, why);
    case PROTO_GUEST_ROUND:
    case PROTO_GUEST_MODEL:
    case PROTO_GUEST_LIST:
    case PROTO_GUEST_FINISHED:
      return apply_progress (g, a, out, why);
    case PROTO_GUEST_DEADLINE:
    case PROTO_GUEST_STATE:
    case PROTO_GUEST_FAILED:
    case PROTO_GUEST_NOTE:
    case PROTO_GUEST_METRIC:
      apply_self (g, a, out);
      return TRUE;
    case PROTO_GUEST_START:
    case PROTO_GUEST_RETRY:
    case PROTO_GUEST_EXCLUDED:
    case PROTO_GUEST_SYNCED:
    case PROTO_GUEST_SERVED:
    case PROTO_GUEST_RESET:
    case PROTO_GUEST_FOREIGN:
      return apply_fact (g, a, out, why);
    }
  *why = "unknown action";
  return FALSE;
}

/* Sends `line` and carries the answer into `out` (NULL: the answer may only
 * set the state and the deadline). */
static void
call (GuestNode *g, const char *line, ProtoOutbox *out)
{
  Session *s = g->s;
  if (s->error)
    return;
  g_autoptr (GPtrArray) replies = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) e = NULL;
  guint64 first = proto_guest_proc_lines_read (s->proc) + 1;
  if (!proto_guest_proc_call (s->proc, line, replies, &e))
    {
      session_break (s, e->message);
      return;
    }
  for (guint i = 0; i < replies->len; i++)
    {
      const char *r = replies->pdata[i];
      ProtoGuestAct a;
      const char *why = NULL;
      g_autoptr (GError) pe = NULL;
      g_autofree char *quoted = NULL;
      if (!proto_guest_line_parse (r, &a, &pe))
        why = pe->message;   /* it quotes the line */
      else if (out)
        apply (g, &a, out, &why);
      else if (a.kind == PROTO_GUEST_STATE)
        g->state = g_intern_string (a.text);
      else if (a.kind == PROTO_GUEST_DEADLINE)
        g->deadline = a.t;
      else
        why = "a node's `new` is answered with state and deadline only";
      proto_guest_act_clear (&a);
      if (why && !pe)
        why = quoted = g_strdup_printf ("`%.80s`: %s", r, why);
      if (why)
        {
          g_autofree char *name = proto_guest_node_name (g->id);
          g_autofree char *msg = g_strdup_printf ("guest `%s`: its line %" G_GUINT64_FORMAT " (for %s, after `%.60s`): %s",
                                                  guest_config (s->key)->command, first + i, name, line, why);
          session_break (s, msg);
          return;
        }
    }
}

static GuestNode *
node_new (const ProtoConfig *cfg, ProtoNodeId id, guint64 seed, LearnWeights *initial)
{
  GuestNode *g = g_new0 (GuestNode, 1);
  g->s = session_ref (cfg);
  g->id = id;
  g->state = g_intern_static_string (id == PROTO_SERVER ? "coordinator" : "new");
  g->deadline = DL_TIME_NEVER;
  g->weights = initial ? learn_weights_ref (initial) : NULL;
  g_autofree char *name = proto_guest_node_name (id);
  g_autofree char *line = g_strdup_printf ("new %s %s %" G_GUINT64_FORMAT, name,
                                           id == PROTO_SERVER ? "coordinator" : "peer", seed);
  call (g, line, NULL);
  return g;
}

/* A deadline before now is clamped to now; one that comes again and again
 * at one instant (the guest answers each with a deadline at or before
 * it) breaks the session after PROTO_GUEST_MAX_DUE_AT_ONCE, instead of
 * a run that never leaves that instant. */
static void
deadline_not_past (GuestNode *g, DlTime now, gboolean was_due)
{
  if (g->deadline < now)
    g->deadline = now;
  if (!was_due)
    return;
  g->due_again = g->due_at == now ? g->due_again + 1 : 1;
  g->due_at = now;
  if (g->deadline == now && g->due_again >= PROTO_GUEST_MAX_DUE_AT_ONCE)
    {
      g_autofree char *name = proto_guest_node_name (g->id);
      g_autofree char *why = g_strdup_printf ("guest `%s`: %s asked for a deadline at or before now %u times "
                                              "in a row at %" G_GINT64_FORMAT " ns (bound: %u; a deadline in "
                                              "the past is taken as now)", guest_config (g->s->key)->command,
                                              name, g->due_again, now, PROTO_GUEST_MAX_DUE_AT_ONCE);
      session_break (g->s, why);
    }
}

static void
node_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  GuestNode *g = impl;
  if (g->s->error)
    return;
  switch (in->kind)
    {
    case PROTO_IN_START:
      g->connected = TRUE;
      break;
    case PROTO_IN_TRAINING_DONE:
      if (in->weights)
        {
          g_clear_pointer (&g->weights, learn_weights_unref);
          g->weights = learn_weights_ref (in->weights);
        }
      break;
    case PROTO_IN_STREAM_CLOSED:
    case PROTO_IN_LEAVE:
      if (g->id != PROTO_SERVER)
        g->connected = FALSE;
      break;
    case PROTO_IN_MESSAGE:
      if (in->msg->type == PROTO_MSG_GUEST && in->msg->signal_data)
        {
          g->received++;
          g_autofree char *name = msg_type_name (in->msg->signal_data);
          ProtoMsgRole role = kind_role (g->s->key, name);
          g->kind_received[role]++;
          /* a connection fail is received when the peer acts on it (it says
           * `excluded`), as the C peer observes one its state processes */
          if (role != PROTO_MSG_ROLE_CONNECTION_FAIL)
            observe (g, out, PROTO_OBS_RECEIVED, -1, in->from, PROTO_MSG_GUEST, -1, name);
        }
      break;
    default:
      break;
    }
  g_autofree char *line = proto_guest_line_input (g->id, now, in);
  if (line)
    call (g, line, out);
  deadline_not_past (g, now, in->kind == PROTO_IN_DEADLINE);
  if (in->kind == PROTO_IN_LEAVE && g->connected)
    {
      /* Disco.close: whatever the guest said, the client is gone */
      g->connected = FALSE;
      proto_outbox_simple (out, PROTO_ACT_DISCONNECT, PROTO_SERVER);
    }
}

static DlTime
node_next_deadline (const void *impl)
{
  const GuestNode *g = impl;
  return g->s->error ? DL_TIME_NEVER : g->deadline;
}

static const char *
node_state_name (const void *impl)
{
  return ((const GuestNode *) impl)->state;
}

static gboolean
node_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  (void) impl, (void) type, (void) from;
  return TRUE;   /* a guest hears everything and decides itself */
}

static void
node_view (const void *impl, ProtoPeerView *v)
{
  const GuestNode *g = impl;
  *v = (ProtoPeerView) {
    .connected = g->connected,
    .settled = g->finished || g->failed || !g->connected,
    .failed = g->failed,
    .excluded = g->failed && g->excluded,
    .synced = g->synced,
    .rounds_done = g->rounds_done,
    .error = g->error,
  };
  memcpy (v->kind_received, g->kind_received, sizeof v->kind_received);
}

static LearnWeights *
node_model (const void *impl)
{
  /* what the guest reported, which the agreement property compares (the
   * weights it was given are dlsim's, not the guest's) */
  const GuestNode *g = impl;
  return g->reported ? g->reported : g->weights;
}

static guint
node_received_count (const void *impl, ProtoMsgType type)
{
  return type == PROTO_MSG_GUEST ? ((const GuestNode *) impl)->received : 0;
}

static const char *
node_broken (const void *impl)
{
  return ((const GuestNode *) impl)->s->error;
}

static void
node_free (void *impl)
{
  GuestNode *g = impl;
  if (g->s->proc && !g->s->error)
    {
      g_autofree char *name = proto_guest_node_name (g->id);
      g_autofree char *line = g_strdup_printf ("free %s", name);
      g_autoptr (GPtrArray) replies = g_ptr_array_new_with_free_func (g_free);
      if (!proto_guest_proc_call (g->s->proc, line, replies, NULL))
        session_break (g->s, "the guest did not answer `free`");
    }
  session_unref (g->s);
  g_clear_pointer (&g->weights, learn_weights_unref);
  g_clear_pointer (&g->reported, learn_weights_unref);
  g_free (g);
}

static const ProtoMachineClass peer_class = {
  .handle = node_handle,
  .next_deadline = node_next_deadline,
  .state_name = node_state_name,
  .listens = node_listens,
  .view = node_view,
  .model = node_model,
  .received_count = node_received_count,
  .broken = node_broken,
  .free = node_free,
};

static const ProtoMachineClass coord_class = {
  .handle = node_handle,
  .next_deadline = node_next_deadline,
  .state_name = node_state_name,
  .listens = node_listens,
  .broken = node_broken,
  .free = node_free,
};

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return proto_machine_wrap (&coord_class, node_new (cfg, PROTO_SERVER, cfg->seed, NULL));
}

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return proto_machine_wrap (&peer_class, node_new (cfg, env->id, dl_random_u64 (env->rng), env->initial));
}

/* a guest's own timers are unknown: a peer that says nothing for this long
 * while waiting is hung */
static DlTime
stall_window (const ProtoConfig *cfg)
{
  return guest_config (cfg)->stall;
}

static ProtoObsKind
round_begins_with (const ProtoConfig *cfg)
{
  return guest_config (cfg)->round_begins_at_start ? PROTO_OBS_ROUND_START : PROTO_OBS_ROUND_LIST;
}

static gboolean
excludes_after_retries (const ProtoConfig *cfg, guint *retries)
{
  *retries = guest_config (cfg)->max_connection_retry;
  return *retries > 0;
}

static gboolean
agreement (const ProtoConfig *cfg)
{
  return guest_config (cfg)->agreement;
}

static gboolean
no (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;
}

extern const ProtoMsgFamily proto_msgs_guest;   /* guest-msgs.c */
extern const ProtoFamilyKeys proto_guest_keys;   /* guest-keys.c */

const ProtoFamily proto_family_guest = {
  .name = "guest",
  .new_coordinator = new_coordinator,
  .new_peer = new_peer,
  .stall_window = stall_window,
  .round_begins_with = round_begins_with,
  .excludes_after_retries = excludes_after_retries,
  .kind_role = kind_role,
  .promises_agreement = agreement,
  .syncs_late_joiners = no,
  .no_testbed = "a guest's messages are not carried over the testbed's sockets yet (docs/guest.md)",
  .keys = &proto_guest_keys,
  .msgs = &proto_msgs_guest,
};
