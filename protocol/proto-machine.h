/* proto-machine.h — the one interface every protocol family's machines sit
 * behind.  The host layer (host/sim-host.c), the world, the testbed, the
 * recorder and the hang detector drive and read machines only through it,
 * so they name no family; a family is a folder of machines (protocol/disco/
 * for DISCO) and a ProtoFamily that makes them.
 *
 * A machine is sans-IO: handle (now, input, outbox), then next_deadline.
 * The rest are read-only views: its state's name, its listening table (the
 * drop rule), and for a peer what a run records about it.
 *
 * Shape: proto_family_lookup gives a family; family->new_peer /
 * new_coordinator make machines; proto_machine_free frees one. */
#pragma once

#include "base/dl-random.h"
#include "protocol/proto-config.h"
#include "protocol/proto-input.h"
#include "protocol/proto-keys.h"
#include "protocol/proto-msg-class.h"
#include "protocol/proto-outbox.h"

G_BEGIN_DECLS

/* What a run records about a peer machine, and what the hang detector asks
 * of it. */
typedef struct {
  gboolean connected;        /* in a session with the coordinator */
  gboolean settled;          /* finished its rounds, failed or left: it owes nothing more */
  gboolean failed;           /* gave up (an exception in DISCO) */
  gboolean excluded;         /* failed because the coordinator excluded it */
  gboolean waiting_on_peer;  /* blocked on another peer's answer (DISCO: a model sync) */
  gboolean synced;           /* took a model from another peer at least once */
  guint rounds_done;         /* rounds trained and aggregated (pipeline: a client's steps; a
                                server does none) */
  gboolean serves_only;      /* it owes no rounds of its own (a pipeline server): it ends finished
                                if it ends online */
  gboolean starved;          /* it waits for what no peer it knows of holds (a pipeline client
                                whose registry lists no server for some block): as a peer a
                                partition cuts off, it is not owed progress */
  const char *error;         /* why it failed, "" if it did not */
  guint kind_received[PROTO_MSG_N_ROLES]; /* a family whose kinds play roles (kind_role):
                                messages of each role it received */
} ProtoPeerView;

/* What a new peer knows of itself: its start, and the facts a real node
 * knows of its own host (the world draws them: sim_peer_attributes). */
typedef struct {
  ProtoNodeId id;            /* its id in the run (the timeline's pN); DISCO's machines learn
                                theirs from NewNodeInfo and do not read it; a guest names its
                                nodes by it (protocol/guest/) */
  LearnWeights *initial;     /* the model every peer starts from (a reference is taken) */
  DlRandom *rng;             /* the peer's stream (borrowed; outlives the machine) */
  const char *region;        /* its [network] regions label, "" if none */
  double speed;              /* relative compute speed (stragglers included) */
  guint64 uplink_bps;
  gboolean nat_symmetric;    /* behind a symmetric NAT (a node learns it from STUN) */
  gsize samples;             /* its training samples, its shard's size (0: none, model none):
                                common to every family, as a real client knows the size of its
                                own data set; any family may weigh by it (fedavg does) */
} ProtoPeerEnv;

typedef struct ProtoMachine ProtoMachine;

/* What every machine keeps, and the interface reads without a hook of
 * the family's: a machine puts it first in its own struct
 * (proto_machine_new) and sets its fields as it goes.  The machine
 * interface's defaults (ProtoMachineClass) read it. */
typedef struct {
  guint state;                      /* its state (a peer) or phase (a coordinator): an index in
                                       state_names; a family's enum, stored as a number */
  const char *const *state_names;   /* every state's name, by index (state_name's default) */
  guint received[PROTO_MSG_N_TYPES]; /* the messages of each type it received (received_count's
                                       default; the machine counts them) */
  gboolean connected;               /* in a session with the coordinator (a peer's view) */
  const char *error;                /* why it failed, NULL if it did not (a peer's view: "") */
  guint rounds_done;                /* rounds trained and aggregated (a peer's view) */
  DlTime deadline;                  /* when it wants to be called back (next_deadline's default;
                                       DL_TIME_NEVER: no timer) */
  guint32 round;                    /* the round the shared helpers stamp its observations with
                                       (proto_machine_send, _base_enter, the RECEIVED and DROPPED
                                       of observes_messages; PROTO_NO_ROUND: none) */
  LearnWeights *model;              /* a peer's current weights (model's default; the machine
                                       holds the reference and drops it in its free) */
  guint32 settled_states;           /* a peer's states, as PROTO_STATE_BIT, in which it is
                                       settled (view's default: 0, a coordinator, has no view) */
  guint32 failed_states;            /* of them, those in which it failed */
} ProtoMachineBase;

/* A base's round for a machine whose observations carry none (-1). */
#define PROTO_NO_ROUND G_MAXUINT32

/* A state's bit in settled_states and failed_states (states 0 to 31). */
#define PROTO_STATE_BIT(s) (1u << (s))

/* Sets b to a machine in `state` of state_names, with no deadline,
 * nothing received, not connected, no error, round 0 and no model. */
void proto_machine_base_init (ProtoMachineBase *b, const char *const *state_names, guint state);

/* (proto-machine-base.c) A state change: b's state and deadline, and the PHASE observation
 * (the new state's name as its state and detail, b's round). */
void proto_machine_base_enter (ProtoMachineBase *b, ProtoOutbox *out, guint state, DlTime deadline);

/* Sends m (its fields move to the outbox) to `to` over `via`, after its
 * SENT observation (b's state and round, no detail). */
void proto_machine_send (const ProtoMachineBase *b, ProtoOutbox *out, ProtoNodeId to, ProtoVia via, ProtoMsg *m);

/* A machine class: the family's hooks, its machine as `impl` (which
 * begins with its ProtoMachineBase when made by proto_machine_new).
 * handle and free are required; a NULL hook is its default, read from
 * the base:
 *   next_deadline   the base's deadline (no base: DL_TIME_NEVER)
 *   state_name      the base's state_names[state]
 *   listens         TRUE: it takes every message and drops what it has no
 *                   use for itself (a coordinator's controller)
 *   view            a coordinator's: all zero; a peer sets it, and finds
 *                   the base's connected, rounds_done and error filled in
 *   waiting_on_peer FALSE
 *   model           NULL (a coordinator, or a family without weights)
 *   received_count  the base's received[type]
 *   broken          NULL: never
 * and a NULL view or model, of a peer whose base has settled_states,
 * reads settled and failed from its state, its model from base.model. */
typedef struct {
  void (*handle) (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out);
  DlTime (*next_deadline) (const void *impl);
  const char *(*state_name) (const void *impl);
  /* the drop rule: does the machine, as it is now, listen for `type` from `from`? */
  gboolean (*listens) (const void *impl, ProtoMsgType type, ProtoNodeId from);
  /* peers only: what the base does not say (settled, failed, ...) */
  void (*view) (const void *impl, ProtoPeerView *out);
  /* view's waiting_on_peer alone: the world asks after every input */
  gboolean (*waiting_on_peer) (const void *impl);
  LearnWeights *(*model) (const void *impl);   /* transfer none; the current weights */
  guint (*received_count) (const void *impl, ProtoMsgType type);
  /* NULL, or why the machine cannot go on (a guest process that died, hung
   * or wrote garbage: protocol/guest/): the host ends the run with outcome
   * `error` and this reason */
  const char *(*broken) (const void *impl);
  void (*free) (void *impl);
  /* NULL, or re-seeds the random streams the machine owns itself
   * (dl_random_reseed with salt): the world's `reseed` action
   * (sim-world.c, sim_world_reseed); streams the world gave it are the
   * world's to re-seed */
  void (*reseed) (void *impl, guint64 salt);
  /* TRUE: the wrapper keeps a message's books before handle sees it: one
   * the machine does not listen for (listens) is observed DROPPED and not
   * handed on; one it takes is counted (received) and observed RECEIVED
   * (the base's state and round, no detail).  FALSE (the default): the
   * machine does it, in its own order, which its traces record. */
  gboolean observes_messages;
  /* NULL, or a hint that changes nothing: a message of `type` from
   * `from` naming `node` (its ProtoMsg's node; PROTO_NO_NODE: none) will
   * be fed to the machine soon, so it may start loading what handling it
   * reads (cache misses at thousands of peers: DISCO's link record of the
   * sender).  In PROTO_PREFETCH_STAGES stages, 0 first, each called one
   * delivery after the one before: a stage may read what the one before
   * loaded. */
  void (*prefetch) (const void *impl, ProtoMsgType type, ProtoNodeId from, ProtoNodeId node, guint stage);
} ProtoMachineClass;

#define PROTO_PREFETCH_STAGES 3

struct ProtoMachine {
  const ProtoMachineClass *klass;
  void *impl;                /* the family's own machine */
  const ProtoMachineBase *base;   /* impl's base (proto_machine_new), NULL (proto_machine_wrap) */
};

/* observes_messages: the books of a message; FALSE if it is dropped */
gboolean _proto_machine_take_message (ProtoMachine *m, const ProtoInput *in, ProtoOutbox *out);

static inline void
proto_machine_handle (ProtoMachine *m, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  if (m->klass->observes_messages && in->kind == PROTO_IN_MESSAGE && !_proto_machine_take_message (m, in, out))
    return;
  m->klass->handle (m->impl, now, in, out);
}

static inline DlTime
proto_machine_next_deadline (const ProtoMachine *m)
{
  if (m->klass->next_deadline)
    return m->klass->next_deadline (m->impl);
  return m->base ? m->base->deadline : DL_TIME_NEVER;
}

static inline const char *
proto_machine_state_name (const ProtoMachine *m)
{
  return m->klass->state_name ? m->klass->state_name (m->impl) : m->base->state_names[m->base->state];
}

static inline gboolean
proto_machine_listens (const ProtoMachine *m, ProtoMsgType type, ProtoNodeId from)
{
  return m->klass->listens ? m->klass->listens (m->impl, type, from) : TRUE;
}

static inline const char *
proto_machine_broken (const ProtoMachine *m)
{
  return m->klass->broken ? m->klass->broken (m->impl) : NULL;
}

/* The hint's stages (ProtoMachineClass.prefetch): stage 0 loads the
 * machine's own record (this struct, which the caller has: reading it is
 * the next stage's), stages 1 .. PROTO_PREFETCH_STAGES the family's. */
#define PROTO_MACHINE_PREFETCH_STAGES (1 + PROTO_PREFETCH_STAGES)

static inline void
proto_machine_prefetch (const ProtoMachine *m, ProtoMsgType type, ProtoNodeId from, ProtoNodeId node,
                        guint stage)
{
  if (stage == 0)
    __builtin_prefetch (m);
  else if (m->klass->prefetch)
    m->klass->prefetch (m->impl, type, from, node, stage - 1);
}

static inline gboolean
proto_machine_waiting_on_peer (const ProtoMachine *m)
{
  return m->klass->waiting_on_peer && m->klass->waiting_on_peer (m->impl);
}

/* The machine's base (proto_machine_new; NULL for one made by
 * proto_machine_wrap): what its family's accessors and tests read of it. */
static inline const ProtoMachineBase *
proto_machine_base (const ProtoMachine *m)
{
  return m->base;
}

/* Its state (or phase) as its family's enum numbers it (a machine with a base). */
static inline guint
proto_machine_state (const ProtoMachine *m)
{
  return m->base->state;
}

/* A peer's rounds done and whether it is connected, from its base. */
static inline guint
proto_machine_rounds_done (const ProtoMachine *m)
{
  return m->base->rounds_done;
}

static inline gboolean
proto_machine_connected (const ProtoMachine *m)
{
  return m->base->connected;
}

/* A peer's view (a coordinator's is all zero, error ""). */
void proto_machine_view (const ProtoMachine *m, ProtoPeerView *out);
/* (transfer none) a peer's current weights, NULL for a coordinator */
LearnWeights *proto_machine_model (const ProtoMachine *m);
guint proto_machine_received_count (const ProtoMachine *m, ProtoMsgType type);

/* The messages of every type with this role it received
 * (proto_msg_type_role).  (Inline: proto-machine.c, which the message
 * registry calls, calls no registry function.) */
static inline guint
proto_machine_received_role_count (const ProtoMachine *m, ProtoMsgRole role)
{
  guint n = 0;
  for (guint i = 0; i < proto_msg_n_types (); i++)
    if (proto_msg_type_role (proto_msg_type_at (i)) == role)
      n += proto_machine_received_count (m, proto_msg_type_at (i));
  return n;
}
void proto_machine_free (ProtoMachine *m);
/* The class's reseed, if it has one. */
void proto_machine_reseed (ProtoMachine *m, guint64 salt);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProtoMachine, proto_machine_free)

/* Wraps a family's machine whose struct begins with its ProtoMachineBase
 * (used by the families): the class's NULL hooks read the base. */
ProtoMachine *proto_machine_new (const ProtoMachineClass *klass, ProtoMachineBase *base);
/* Wraps a machine without a base (its class sets every hook it needs). */
ProtoMachine *proto_machine_wrap (const ProtoMachineClass *klass, void *impl);

/* A counter a family declares: a summary key, and the rule that reads it
 * from a run's observations, so that the host (sim_tally_observe), the
 * summary (results/), [expect] (scenario/) and the plots name none.
 * Every run reports every counter the registry's families declare
 * (proto_counter_at), in that order, so that the runs of all families
 * share the summary's keys; a counter no observation of the run meets is
 * 0.  A rule reads the generic kinds, whichever family made them (a
 * gossip coordinator's round lists count towards DISCO's
 * smallest_round_list). */
typedef enum {
  PROTO_COUNT_MATCHES,        /* one for each observation whose value is `value` */
  PROTO_COUNT_MIN_POSITIVE,   /* the least positive value observed (0: none) */
} ProtoCountRule;

typedef struct {
  const char *name;           /* its summary key (NULL: the end of a family's list) */
  ProtoObsKind kind;          /* the observations it reads */
  gboolean coordinator_only;  /* only the coordinator's (PROTO_SERVER's) observations */
  ProtoCountRule rule;
  int64_t value;              /* PROTO_COUNT_MATCHES: the value that counts */
} ProtoCounter;

/* the most counters all families declare together */
#define PROTO_MAX_COUNTERS 16

/* A protocol family: how to make its machines, and what the hang detector
 * must know of it. */
typedef struct {
  const char *name;
  ProtoMachine *(*new_coordinator) (const ProtoConfig *cfg);
  ProtoMachine *(*new_peer) (const ProtoConfig *cfg, const ProtoPeerEnv *env);
  /* the longest a live machine may go without progress and still be
   * waiting legitimately (timers, retries): the hang detector's window */
  DlTime (*stall_window) (const ProtoConfig *cfg);
  /* What the properties and the timeline must know of it, as data: a
   * field left out is its default (zero, in the comment).  A family whose
   * answer depends on its config sets the hook after the field instead,
   * which overrides it.  The registry (proto_family_at, _lookup, _of)
   * hands out families with every hook set, so a caller calls the hook
   * alone. */
  /* the coordinator's observation that begins a round, for the timeline's
   * `round N` times: PROTO_OBS_ROUND_START, or (0, the default)
   * PROTO_OBS_ROUND_LIST (a family without rounds at its coordinator
   * leaves it so) */
  ProtoObsKind round_begins;
  ProtoObsKind (*round_begins_with) (const ProtoConfig *cfg);   /* DISCO: behind a connection barrier */
  /* TRUE if the coordinator excludes a peer only after `*retries` Retries
   * in a round (the retries-before-exclusion property checks it);
   * default (NULL): it never excludes anyone, *retries = 0 */
  gboolean (*excludes_after_retries) (const ProtoConfig *cfg, guint *retries);
  /* the role a kind of its messages plays (ProtoMsgRole), for a family
   * whose one message type has kinds (a guest: `guest_barrier_retry`);
   * NULL: its types' roles alone */
  ProtoMsgRole (*kind_role) (const ProtoConfig *cfg, const char *kind);
  /* TRUE if every peer that finishes a round holds the same model (the
   * `agreement` property checks it; DISCO: yes, gossip: no); default FALSE */
  gboolean agreement;
  gboolean (*promises_agreement) (const ProtoConfig *cfg);
  /* TRUE if a peer that joins late starts from a completed round's model
   * (DISCO: model sync; the no-lost-model property checks it); default
   * FALSE */
  gboolean model_sync;
  gboolean (*syncs_late_joiners) (const ProtoConfig *cfg);
  /* the names of the METRIC observations its machines make (NULL-ended;
   * NULL: none): each gets summary keys, count 0, in every run */
  const char *const *metric_names;
  /* its counters (ProtoCounter), ended by one with no name (NULL: none) */
  const ProtoCounter *counters;
  /* the peer states in which a peer serves others and owes no rounds (a
   * pipeline server), NULL-ended (NULL: none): the testbed, which sees a
   * peer only by its state's name, counts such a peer settled, and
   * finished if it ends online */
  const char *const *serving_states;
  /* the most floats one of its messages carries when that can be more
   * than the model's (a pipeline's hidden states for every token of a
   * session); NULL: the model's.  The testbed bounds a frame by it. */
  gsize (*largest_floats) (const ProtoConfig *cfg);
  /* why its machines cannot run on the testbed's sockets yet (NULL: they can) */
  const char *no_testbed;
  /* the peer machine's states' names, for coverage reports, NULL-ended
   * (its machine's state_names: the registry counts them into
   * n_peer_states).  A family whose names sit behind a function sets
   * n_peer_states and peer_state_name_at instead, from which the registry
   * fills peer_state_names: a caller reads peer_state_names[i]. */
  const char *const *peer_state_names;
  guint n_peer_states;
  const char *(*peer_state_name_at) (guint i);
  /* its scenario keys and how it configures itself from them
   * (proto-keys.h; in the family's folder, `*-keys.c`) */
  const ProtoFamilyKeys *keys;
  /* sets its part of cfg (family_config, proto-config.h) to its defaults,
   * for proto_config_init (NULL: all zero; its configure sets the rest) */
  void (*config_init) (ProtoConfig *cfg);
  /* its message types (proto-msg-class.h; in the family's folder,
   * `*-msgs.c`): the message registry takes every family's from here, so
   * a new family is one line in proto-machine.c's list */
  const ProtoMsgFamily *msgs;
} ProtoFamily;

/* TRUE if `state` is one of the family's serving states. */
gboolean proto_family_serving_state (const ProtoFamily *f, const char *state);

/* The registry's i-th family, NULL past the last (in the order the
 * families are listed). */
const ProtoFamily *proto_family_at (guint i);
/* The registry's names, joined by sep, the last two by last ("disco,
 * gossip, hierarchical or pipeline"); transfer full. */
char *proto_family_names (const char *sep, const char *last);
/* What the family is, in one line (its registry line; `dlsim families`). */
const char *proto_family_description (const ProtoFamily *f);

/* The i-th counter of the registry's families, in their order, each name
 * once (the first family's to declare it), NULL past the last. */
const ProtoCounter *proto_counter_at (guint i);
/* The counter named `name`, NULL if no family declares it. */
const ProtoCounter *proto_counter_lookup (const char *name);

/* NULL if there is no such family. */
const ProtoFamily *proto_family_lookup (const char *name);
/* The family a config runs (today: DISCO's, for every version). */
const ProtoFamily *proto_family_of (const ProtoConfig *cfg);

G_END_DECLS
