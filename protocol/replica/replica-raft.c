/* replica-raft.c — a coordinator replica: the family's coordinator machine
 * behind a replicated log (proto-replica.h, README.md).
 *
 * Raft as in "In Search of an Understandable Consensus Algorithm" (Ongaro &
 * Ousterhout, 2014), Figure 2: currentTerm, votedFor, log[]; commitIndex,
 * lastApplied; the leader's nextIndex[] (here `sent`, the last index shipped:
 * channels are reliable and ordered, so entries stream one per message)
 * and matchIndex[]; RequestVote with the up-to-date check of §5.4.1; a
 * leader commits only entries of its own term by counting (§5.4.2) and logs
 * a no-op when elected (§8) so that the entries before it commit.
 *
 * What is logged are the coordinator's inputs: a peer's message, a peer's
 * stream closing, the coordinator's deadline, a peer's resume.  Each carries
 * the time it was logged at; every replica applies it to its own copy of
 * the coordinator at that time.  Whatever the copy sends is numbered per
 * peer and kept until the peer acknowledges it, on every replica; the
 * leader also puts it on the wire.  So a new leader can send a resuming
 * peer what the old leader's crash left unsent. */
#include "config.h"

#include "protocol/replica/proto-replica.h"
#include "protocol/session/session-msgs.h"
#include "protocol/replica/replica-msgs.h"

#include <string.h>

typedef enum { FOLLOWER, CANDIDATE, LEADER } Role;
static const char *const role_names[] = { "follower", "candidate", "leader" };

typedef enum { ENTRY_NOOP, ENTRY_MESSAGE, ENTRY_CLOSED, ENTRY_DEADLINE, ENTRY_RESUME } EntryKind;
#define N_ENTRY_KINDS (ENTRY_RESUME + 1)

typedef struct {
  guint32 term;
  EntryKind kind;
  ProtoNodeId from;
  DlTime at;
  ProtoMsg msg;            /* MESSAGE: the peer's (sess_seq, sess_ack in it); RESUME: its SessionResume */
} Entry;

/* A peer's session, as the applied log leaves it (the same on every replica),
 * and live: the term in which the peer last spoke to this replica. */
typedef struct {
  guint32 up_applied;      /* the last of its numbers applied */
  guint32 down_seq;        /* the last number given to a message to it */
  GArray *down;            /* ProtoMsg: sent to it, not yet acknowledged */
  gboolean closed;
  guint32 live_term;
} Session;

typedef struct {
  ProtoConfig cfg;
  guint index, n;
  ProtoMachine *inner;
  guint64 salt;          /* the last reseed's (0: none): a rebuilt inner machine draws as the run does now */
  const ProtoFamily *family;
  DlRandom *rng;
  Role role;
  guint32 term;
  ProtoNodeId voted_for;
  guint votes;
  guint leader;             /* index, or n if unknown */
  GArray *log;              /* Entry; [0] is a sentinel of term 0 */
  guint commit, applied;
  guint sent[PROTO_MAX_REPLICAS], match[PROTO_MAX_REPLICAS];
  DlTime election_at, heartbeat_at, resume_at;
  DlTime deadline_logged;   /* the coordinator's deadline a logged DEADLINE entry stands for */
  DlTime last_heard;        /* from a leader (or since it started) */
  GHashTable *sessions;     /* ProtoNodeId -> Session* */
  gboolean applying_as_leader;
} Replica;

static guint
last_index (const Replica *r)
{
  return r->log->len - 1;
}

static Entry *
entry_at (const Replica *r, guint i)
{
  return &g_array_index (r->log, Entry, i);
}

static guint
majority (const Replica *r)
{
  return r->n / 2 + 1;
}

static void
observe (Replica *r, ProtoOutbox *out, ProtoObsKind kind, int64_t value, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
observe (Replica *r, ProtoOutbox *out, ProtoObsKind kind, int64_t value, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *d = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (kind == PROTO_OBS_METRIC)
    proto_outbox_observe (out, kind, role_names[r->role], -1, PROTO_NO_NODE, -1, value, "%s", d);
  else
    proto_outbox_observe (out, kind, role_names[r->role], -1, PROTO_NO_NODE, -1, value, "replica %u (term %u): %s",
                          r->index, r->term, d);
}

static Session *
session (Replica *r, ProtoNodeId peer)
{
  Session *s = g_hash_table_lookup (r->sessions, GUINT_TO_POINTER (peer));
  if (!s)
    {
      s = g_new0 (Session, 1);
      s->down = g_array_new (FALSE, FALSE, sizeof (ProtoMsg));
      g_array_set_clear_func (s->down, (GDestroyNotify) proto_msg_clear);
      g_hash_table_insert (r->sessions, GUINT_TO_POINTER (peer), s);
    }
  return s;
}

static void
session_free (Session *s)
{
  g_array_unref (s->down);
  g_free (s);
}

static void
election_timer (Replica *r, DlTime now)
{
  DlTime t = r->cfg.replica_election_timeout;
  r->election_at = now + t + (DlTime) dl_random_below (r->rng, (guint64) t);
}

static void
send_replica (Replica *r, ProtoOutbox *out, guint k, ProtoMsg *m)
{
  proto_outbox_send (out, proto_replica_id (k), PROTO_VIA_SERVER, m);
}

/* AppendEntries to follower k: entry `i` (0: a heartbeat after what was sent) */
static void
send_append (Replica *r, ProtoOutbox *out, guint k, guint i)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_RAFT_APPEND);
  guint prev = i ? i - 1 : r->sent[k];
  m.round = r->term;
  m.key = prev;
  m.comm_round = entry_at (r, prev)->term;
  m.degree = r->commit;
  if (i)
    {
      const Entry *e = entry_at (r, i);
      guint32 *f = g_new (guint32, 5);
      f[0] = e->term;
      f[1] = e->kind;
      f[2] = e->from;
      f[3] = (guint32) ((guint64) e->at >> 32);
      f[4] = (guint32) ((guint64) e->at & 0xffffffffu);
      proto_msg_take_indices (&m, f, 5);
      if (e->kind == ENTRY_MESSAGE || e->kind == ENTRY_RESUME)
        {
          m.inner = g_new (ProtoMsg, 1);
          proto_msg_copy (m.inner, &e->msg);
        }
      r->sent[k] = i;
    }
  send_replica (r, out, k, &m);
}

/* ---- applying the log ---- */

static ProtoInput
entry_input (const Entry *e)
{
  ProtoInput in = { .from = e->from, .via = PROTO_VIA_SERVER };
  switch (e->kind)
    {
    case ENTRY_MESSAGE:
      in.kind = PROTO_IN_MESSAGE;
      in.msg = &e->msg;
      break;
    case ENTRY_CLOSED:
      in.kind = PROTO_IN_STREAM_CLOSED;
      break;
    default:
      in.kind = PROTO_IN_DEADLINE;
      break;
    }
  return in;
}

/* The copy's outbox: what it sends a peer is numbered and kept (every
 * replica), and put on the wire by the leader with what it observes. */
static void
carry (Replica *r, ProtoOutbox *inner_out, ProtoOutbox *out)
{
  gboolean speak = r->role == LEADER;
  for (guint i = 0; i < proto_outbox_len (inner_out); i++)
    {
      ProtoAction *a = proto_outbox_get (inner_out, i);
      if (a->kind == PROTO_ACT_SEND)
        {
          Session *s = session (r, a->to);
          a->msg.sess_seq = ++s->down_seq;
          a->msg.sess_ack = s->up_applied;
          ProtoMsg kept;
          proto_msg_copy (&kept, &a->msg);
          g_array_append_val (s->down, kept);
          if (speak)
            proto_outbox_move (out, inner_out, i);
        }
      else if (a->kind == PROTO_ACT_OBSERVE && speak)
        proto_outbox_move (out, inner_out, i);
    }
}

static void
answer_resume (Replica *r, ProtoOutbox *out, ProtoNodeId peer, Session *s, guint32 peer_has)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_SESSION_RESUMED);
  m.helper = s->closed;
  m.sess_ack = s->up_applied;
  m.round = s->down_seq;
  proto_outbox_send (out, peer, PROTO_VIA_SERVER, &m);
  if (s->closed)
    return;
  for (guint k = 0; k < s->down->len; k++)
    {
      ProtoMsg *d = &g_array_index (s->down, ProtoMsg, k);
      if (d->sess_seq <= peer_has)
        continue;
      ProtoMsg c;
      proto_msg_copy (&c, d);
      c.sess_ack = s->up_applied;
      proto_outbox_send (out, peer, PROTO_VIA_SERVER, &c);
    }
}

static void
apply_one (Replica *r, const Entry *e, ProtoOutbox *out, ProtoOutbox *scratch)
{
  Session *s = e->kind == ENTRY_NOOP || e->kind == ENTRY_DEADLINE ? NULL : session (r, e->from);
  switch (e->kind)
    {
    case ENTRY_NOOP:
      return;
    case ENTRY_RESUME:
      proto_session_trim (s->down, e->msg.sess_ack);
      if (r->role == LEADER)
        answer_resume (r, out, e->from, s, e->msg.sess_ack);
      return;
    case ENTRY_DEADLINE:
      if (proto_machine_next_deadline (r->inner) > e->at)
        return;   /* an input applied before it moved the deadline on */
      break;
    case ENTRY_MESSAGE:
      if (s->closed || (e->msg.sess_seq && e->msg.sess_seq <= s->up_applied))
        return;   /* a repeat (resent on a resume), or a peer the coordinator has closed */
      if (e->msg.sess_seq)
        s->up_applied = e->msg.sess_seq;
      proto_session_trim (s->down, e->msg.sess_ack);
      break;
    case ENTRY_CLOSED:
      if (s->closed)
        return;
      s->closed = TRUE;
      g_array_set_size (s->down, 0);
      break;
    }
  ProtoInput in = entry_input (e);
  proto_machine_handle (r->inner, e->at, &in, scratch);
  carry (r, scratch, out);
  proto_outbox_reset (scratch);
}

static void
apply_to (Replica *r, guint upto, ProtoOutbox *out)
{
  ProtoOutbox scratch;
  proto_outbox_init (&scratch);
  while (r->applied < upto)
    {
      r->applied++;
      const Entry *e = entry_at (r, r->applied);
      if (e->kind == ENTRY_DEADLINE)
        r->deadline_logged = DL_TIME_NEVER;
      apply_one (r, e, out, &scratch);
    }
  proto_outbox_clear (&scratch);
}

/* primary-backup: a backup whose applied entries the new primary does not
 * have starts its copy over from the primary's log (a state transfer) */
static void
rebuild (Replica *r, ProtoOutbox *out)
{
  proto_machine_free (r->inner);
  r->inner = r->family->new_coordinator (&r->cfg);
  if (r->salt)
    proto_machine_reseed (r->inner, r->salt);
  g_hash_table_remove_all (r->sessions);
  guint upto = MIN (r->applied, last_index (r));
  r->applied = 0;
  observe (r, out, PROTO_OBS_NOTE, -1, "applied entries the new primary lacks: state rebuilt from its log");
  apply_to (r, upto, out);
}

/* ---- the leader ---- */

static void
leader_commit (Replica *r, ProtoOutbox *out)
{
  if (r->cfg.replication == PROTO_REPLICATION_PRIMARY_BACKUP)
    r->commit = last_index (r);
  else
    for (guint i = last_index (r); i > r->commit; i--)
      {
        if (entry_at (r, i)->term != r->term)
          break;
        guint have = 1;
        for (guint k = 0; k < r->n; k++)
          if (k != r->index && r->match[k] >= i)
            have++;
        if (have >= majority (r))
          {
            r->commit = i;
            break;
          }
      }
  apply_to (r, r->commit, out);
}

static void
append (Replica *r, DlTime now, EntryKind kind, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  Entry e = { .term = r->term, .kind = kind, .from = from, .at = now };
  /* the log's times never go back: a copy sees its inputs in time order */
  if (last_index (r) > 0)
    e.at = MAX (e.at, entry_at (r, last_index (r))->at);
  if (msg)
    proto_msg_copy (&e.msg, msg);
  else
    proto_msg_init (&e.msg, PROTO_MSG_HELLO);
  g_array_append_val (r->log, e);
  guint i = last_index (r);
  for (guint k = 0; k < r->n; k++)
    if (k != r->index && r->sent[k] == i - 1)
      send_append (r, out, k, i);
  r->heartbeat_at = now + r->cfg.replica_heartbeat;
  leader_commit (r, out);
}

static void
become_leader (Replica *r, DlTime now, ProtoOutbox *out)
{
  r->role = LEADER;
  r->leader = r->index;
  for (guint k = 0; k < r->n; k++)
    {
      r->sent[k] = last_index (r);
      r->match[k] = 0;
    }
  r->resume_at = r->term > 1 ? now + r->cfg.resume_timeout : DL_TIME_NEVER;
  if (r->term > 1)
    {
      observe (r, out, PROTO_OBS_NOTE, -1, "leader: %u votes of %u", r->votes, r->n);
      observe (r, out, PROTO_OBS_METRIC, now - r->last_heard, "failover_s");
    }
  append (r, now, ENTRY_NOOP, PROTO_NO_NODE, NULL, out);
}

static gint
cmp_node (gconstpointer a, gconstpointer b)
{
  ProtoNodeId x = *(const ProtoNodeId *) a, y = *(const ProtoNodeId *) b;
  return x < y ? -1 : x > y;
}

/* the open sessions, ascending (hash order must not reach the outbox); with
 * live_term given, those whose peer spoke to it in that term (else those
 * that did not) */
static GArray *
open_sessions (Replica *r, guint32 live_term, gboolean spoke)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, r->sessions);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      Session *s = v;
      ProtoNodeId id = GPOINTER_TO_UINT (k);
      if (!s->closed && (s->live_term == live_term) == spoke)
        g_array_append_val (ids, id);
    }
  g_array_sort (ids, cmp_node);
  return ids;
}

static void
step_down (Replica *r, guint32 term, DlTime now, ProtoOutbox *out)
{
  gboolean was_leader = r->role == LEADER;
  guint32 led = r->term;
  if (term > r->term)
    {
      r->term = term;
      r->voted_for = PROTO_NO_NODE;
    }
  r->role = FOLLOWER;
  r->resume_at = DL_TIME_NEVER;
  election_timer (r, now);
  if (was_leader)
    {
      /* the peers whose streams come to it: they go and find the new leader */
      observe (r, out, PROTO_OBS_NOTE, -1, "a later term: it leads no more and closes its peers' streams");
      g_autoptr (GArray) ids = open_sessions (r, led, TRUE);
      for (guint i = 0; i < ids->len; i++)
        proto_outbox_simple (out, PROTO_ACT_CLOSE_STREAM, g_array_index (ids, ProtoNodeId, i));
    }
}

/* resume_timeout after it took over: the sessions that did not come back */
static void
close_silent (Replica *r, DlTime now, ProtoOutbox *out)
{
  r->resume_at = DL_TIME_NEVER;
  GArray *ids = open_sessions (r, r->term, FALSE);
  for (guint i = 0; i < ids->len; i++)
    {
      ProtoNodeId id = g_array_index (ids, ProtoNodeId, i);
      observe (r, out, PROTO_OBS_NOTE, -1, "p%u did not resume within resume_timeout: its stream counts as closed", id);
      append (r, now, ENTRY_CLOSED, id, NULL, out);
    }
  g_array_unref (ids);
}

static void
start_election (Replica *r, DlTime now, ProtoOutbox *out)
{
  r->term++;
  r->role = CANDIDATE;
  r->voted_for = proto_replica_id (r->index);
  r->votes = 1;
  r->leader = r->n;
  election_timer (r, now);
  observe (r, out, PROTO_OBS_NOTE, -1, "no leader heard: stands for election");
  if (r->votes >= majority (r))
    {
      become_leader (r, now, out);
      return;
    }
  for (guint k = 0; k < r->n; k++)
    if (k != r->index)
      {
        ProtoMsg m;
        proto_msg_init (&m, PROTO_MSG_RAFT_VOTE);
        m.round = r->term;
        m.key = last_index (r);
        m.comm_round = entry_at (r, last_index (r))->term;
        send_replica (r, out, k, &m);
      }
}

/* ---- the RPCs ---- */

static void
on_vote (Replica *r, DlTime now, guint from, const ProtoMsg *m, ProtoOutbox *out)
{
  if (m->round > r->term)
    step_down (r, m->round, now, out);
  guint32 my_last_term = entry_at (r, last_index (r))->term;
  gboolean up_to_date = m->comm_round > my_last_term
                        || (m->comm_round == my_last_term && m->key >= last_index (r));
  gboolean grant = m->round == r->term && up_to_date
                   && (r->voted_for == PROTO_NO_NODE || r->voted_for == proto_replica_id (from));
  if (grant)
    {
      r->voted_for = proto_replica_id (from);
      election_timer (r, now);
    }
  ProtoMsg a;
  proto_msg_init (&a, PROTO_MSG_RAFT_VOTE_REPLY);
  a.round = r->term;
  a.helper = grant;
  send_replica (r, out, from, &a);
}

static void
on_vote_reply (Replica *r, DlTime now, const ProtoMsg *m, ProtoOutbox *out)
{
  if (m->round > r->term)
    {
      step_down (r, m->round, now, out);
      return;
    }
  if (r->role != CANDIDATE || m->round != r->term || !m->helper)
    return;
  if (++r->votes >= majority (r))
    become_leader (r, now, out);
}

static void
on_append (Replica *r, DlTime now, guint from, const ProtoMsg *m, ProtoOutbox *out)
{
  ProtoMsg a;
  proto_msg_init (&a, PROTO_MSG_RAFT_APPEND_REPLY);
  if (m->round < r->term)
    {
      a.round = r->term;
      send_replica (r, out, from, &a);
      return;
    }
  if (m->round > r->term || r->role != FOLLOWER)
    step_down (r, m->round, now, out);
  r->leader = from;
  r->last_heard = now;
  election_timer (r, now);
  guint prev = (guint) m->key;
  a.round = r->term;
  if (prev > last_index (r) || entry_at (r, prev)->term != m->comm_round)
    {
      a.helper = FALSE;
      a.key = MIN (last_index (r), prev ? prev - 1 : 0);
      send_replica (r, out, from, &a);
      return;
    }
  guint upto = prev;
  if (m->n_indices == 5)
    {
      upto = prev + 1;
      if (upto <= last_index (r) && entry_at (r, upto)->term != m->indices[0])
        {
          gboolean rebuild_needed = r->applied >= upto;
          g_array_set_size (r->log, upto);   /* a conflict: its entries from upto on go */
          if (rebuild_needed)
            rebuild (r, out);
        }
      if (upto > last_index (r))
        {
          Entry e = { .term = m->indices[0], .kind = (EntryKind) MIN (m->indices[1], N_ENTRY_KINDS - 1),
                      .from = m->indices[2], .at = (DlTime) (((guint64) m->indices[3] << 32) | m->indices[4]) };
          if (m->inner)
            proto_msg_copy (&e.msg, m->inner);
          else
            proto_msg_init (&e.msg, PROTO_MSG_HELLO);
          g_array_append_val (r->log, e);
        }
    }
  if (m->degree > r->commit)
    r->commit = MIN (m->degree, upto);
  apply_to (r, r->commit, out);
  a.helper = TRUE;
  a.key = upto;
  send_replica (r, out, from, &a);
}

static void
on_append_reply (Replica *r, DlTime now, guint from, const ProtoMsg *m, ProtoOutbox *out)
{
  if (m->round > r->term)
    {
      step_down (r, m->round, now, out);
      return;
    }
  if (r->role != LEADER || m->round != r->term)
    return;
  if (m->helper)
    {
      r->match[from] = MAX (r->match[from], (guint) m->key);
      if (r->sent[from] < last_index (r) && r->sent[from] == r->match[from])
        send_append (r, out, from, r->sent[from] + 1);
      leader_commit (r, out);
    }
  else
    {
      /* its log is behind or differs: ship again from after what it has */
      r->sent[from] = MIN ((guint) m->key, r->sent[from]);
      send_append (r, out, from, r->sent[from] + 1);
    }
}

/* ---- the machine ---- */

static void
on_start (Replica *r, DlTime now, ProtoOutbox *out)
{
  r->last_heard = now;
  if (r->role == LEADER)
    {
      r->heartbeat_at = now;
      observe (r, out, PROTO_OBS_NOTE, -1, "leader of the first term, of %u replicas", r->n);
    }
  else
    election_timer (r, now);
}

/* A message from another replica (index k): one handler per type. */
static void
on_replica_message (Replica *r, DlTime now, guint k, const ProtoMsg *msg, ProtoOutbox *out)
{
  switch (msg->type)
    {
    case PROTO_MSG_RAFT_VOTE:
      on_vote (r, now, k, msg, out);
      break;
    case PROTO_MSG_RAFT_VOTE_REPLY:
      on_vote_reply (r, now, msg, out);
      break;
    case PROTO_MSG_RAFT_APPEND:
      on_append (r, now, k, msg, out);
      break;
    case PROTO_MSG_RAFT_APPEND_REPLY:
      on_append_reply (r, now, k, msg, out);
      break;
    default:
      break;
    }
}

/* A message: from a replica, Raft's; from a peer, an entry of the log
 * (the leader's alone: a follower closes the peer's stream). */
static void
on_message (Replica *r, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  if (proto_node_is_replica (in->from))
    {
      guint k = proto_replica_index (in->from);
      if (k >= r->n || k == r->index)
        return;
      on_replica_message (r, now, k, in->msg, out);
      return;
    }
  if (r->role != LEADER)
    {
      proto_outbox_simple (out, PROTO_ACT_CLOSE_STREAM, in->from);
      return;
    }
  session (r, in->from)->live_term = r->term;
  append (r, now, in->msg->type == PROTO_MSG_SESSION_RESUME ? ENTRY_RESUME : ENTRY_MESSAGE, in->from, in->msg,
          out);
}

/* A follower's election timer; the leader's resume window, its inner
 * machine's deadline (an entry) and its heartbeat. */
static void
on_deadline (Replica *r, DlTime now, ProtoOutbox *out)
{
  if (r->role != LEADER)
    {
      if (now >= r->election_at)
        start_election (r, now, out);
      return;
    }
  if (now >= r->resume_at)
    close_silent (r, now, out);
  {
    DlTime d = proto_machine_next_deadline (r->inner);
    if (d <= now && r->deadline_logged == DL_TIME_NEVER)
      {
        r->deadline_logged = d;
        append (r, d, ENTRY_DEADLINE, PROTO_NO_NODE, NULL, out);
      }
  }
  if (r->role == LEADER && now >= r->heartbeat_at)
    {
      for (guint k = 0; k < r->n; k++)
        if (k != r->index)
          send_append (r, out, k, 0);
      r->heartbeat_at = now + r->cfg.replica_heartbeat;
    }
}

static void
replica_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  Replica *r = impl;
  switch (in->kind)
    {
    case PROTO_IN_START:
      on_start (r, now, out);
      break;
    case PROTO_IN_MESSAGE:
      on_message (r, now, in, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      if (r->role == LEADER)
        append (r, now, ENTRY_CLOSED, in->from, NULL, out);
      break;
    case PROTO_IN_DEADLINE:
      on_deadline (r, now, out);
      break;
    default:
      break;
    }
}

static DlTime
replica_next_deadline (const void *impl)
{
  const Replica *r = impl;
  if (r->role != LEADER)
    return r->election_at;
  DlTime t = MIN (r->heartbeat_at, r->resume_at);
  if (r->deadline_logged == DL_TIME_NEVER)
    t = MIN (t, proto_machine_next_deadline (r->inner));
  return t;
}

static const char *
replica_state_name (const void *impl)
{
  return role_names[((const Replica *) impl)->role];
}

static gboolean
replica_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  const Replica *r = impl;
  if (proto_node_is_replica (from))
    return type >= PROTO_MSG_RAFT_VOTE;
  return type == PROTO_MSG_SESSION_RESUME || proto_machine_listens (r->inner, type, from);
}

static guint
replica_received_count (const void *impl, ProtoMsgType type)
{
  return proto_machine_received_count (((const Replica *) impl)->inner, type);
}

static void
entry_clear (Entry *e)
{
  proto_msg_clear (&e->msg);
}

static void
replica_free (void *impl)
{
  Replica *r = impl;
  proto_machine_free (r->inner);
  g_array_unref (r->log);
  g_hash_table_unref (r->sessions);
  g_free (r);
}

/* the replica's own draws (its election timeouts) are the world's stream;
 * the coordinator inside it may own one */
static void
replica_reseed (void *impl, guint64 salt)
{
  Replica *r = impl;
  r->salt = salt;
  proto_machine_reseed (r->inner, salt);
}

static const ProtoMachineClass replica_class = {
  .handle = replica_handle,
  .next_deadline = replica_next_deadline,
  .state_name = replica_state_name,
  .listens = replica_listens,
  .received_count = replica_received_count,
  .free = replica_free,
  .reseed = replica_reseed,
};

ProtoMachine *
proto_replica_new (const ProtoFamily *family, const ProtoConfig *cfg, guint index, DlRandom *rng)
{
  g_return_val_if_fail (cfg->coordinator_replicas >= 1 && cfg->coordinator_replicas <= PROTO_MAX_REPLICAS, NULL);
  g_return_val_if_fail (index < cfg->coordinator_replicas, NULL);
  Replica *r = g_new0 (Replica, 1);
  r->cfg = *cfg;
  r->family = family;
  r->index = index;
  r->n = cfg->coordinator_replicas;
  r->inner = family->new_coordinator (cfg);
  r->rng = rng;
  r->term = 1;
  r->role = index == 0 ? LEADER : FOLLOWER;
  r->leader = 0;
  r->voted_for = proto_replica_id (0);
  r->log = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (r->log, (GDestroyNotify) entry_clear);
  Entry sentinel = { .term = 0, .kind = ENTRY_NOOP, .from = PROTO_NO_NODE };
  proto_msg_init (&sentinel.msg, PROTO_MSG_HELLO);
  g_array_append_val (r->log, sentinel);
  r->election_at = r->heartbeat_at = r->resume_at = DL_TIME_NEVER;
  r->deadline_logged = DL_TIME_NEVER;
  r->sessions = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) session_free);
  return proto_machine_wrap (&replica_class, r);
}

static const Replica *
impl_of (const ProtoMachine *m)
{
  g_return_val_if_fail (m->klass == &replica_class, NULL);
  return m->impl;
}

gboolean proto_replica_leads (const ProtoMachine *m) { return impl_of (m)->role == LEADER; }
guint proto_replica_term (const ProtoMachine *m) { return impl_of (m)->term; }
guint proto_replica_log_len (const ProtoMachine *m) { return last_index (impl_of (m)); }
guint proto_replica_applied (const ProtoMachine *m) { return impl_of (m)->applied; }
ProtoMachine *proto_replica_inner (const ProtoMachine *m) { return impl_of (m)->inner; }
