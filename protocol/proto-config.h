/* proto-config.h — protocol parameters and the versions dlsim models.
 *
 * One code path serves every version; a version is a set of named fixes
 * (ProtoFix, PROTOCOL.md §6), a bitset that proto-config.c's `static const`
 * version table gives each version:
 *
 *   fix                    disco-1110  disco-1110-draft  disco-775
 *   connect_barrier          yes          yes              no     ConnectionsReady/Start/Retry/Fail
 *   exclude_when_retry_ge    no           yes              no     exclude at retry >= M (else > M)
 *   provider_first_entry     no           yes              -      replacement = first connection
 *   model_sync               yes          yes              no     late joiners sync a model
 *   collect_over_joined      no           no               yes    ready == |round peers| (else
 *                                                                  ready == |connections - syncing|)
 *   pause_before_training    yes          yes              no     pause point at round begin
 *   timer_fixed_60s          no           yes              -      startTimeout() with its 60 s default,
 *                                                                  not maxPeerConnectionTime
 *   reset_when_empty         yes          yes              no     the last close resets the session
 *   participant_counts       yes          yes              no     nbOfParticipants in NewNodeInfo,
 *                                                                  Waiting and Enough
 *
 * robust has disco-1110's fixes plus every robust_* one (and
 * straggler_timeout: its list goes out after 60 s); disco-pre775 has
 * disco-775's plus ready_at_round_start and list_first_min (no barrier, no
 * sync, no pause, no close handler).
 *
 * disco-pre775 is DISCO before #775 (DISCO-NOTES.md S1/S2): PeerIsReady at the
 * start of a round, no JoinRound, PeersForRound to the first
 * min_participants ready peers (switch ready_at_round_start, list_first_min).
 *
 * `robust` is dlsim's own fix of every open hazard of PROTOCOL.md §7 on top
 * of disco-1110 (docs/protocol.md "robust: what changed and why"); its
 * fixes are the `robust_*` ones, one per mechanism, each naming the
 * S-cases it closes.
 *
 * The machines read a fix as the gboolean field of its name in ProtoConfig
 * (cfg->connect_barrier), which proto_config_set_version sets from the
 * bitset (`fixes`); proto_config_has asks the bitset itself. */
#pragma once

#include "base/dl-dist.h"
#include "base/dl-time.h"

#include <glib.h>
#include <stddef.h>

G_BEGIN_DECLS

typedef enum {
  PROTO_VERSION_DISCO_1110,
  PROTO_VERSION_DISCO_1110_DRAFT,
  PROTO_VERSION_DISCO_775,
  PROTO_VERSION_ROBUST,
  PROTO_VERSION_DISCO_PRE775,
} ProtoVersion;

typedef enum {
  PROTO_AGG_MEAN,
  PROTO_AGG_SECURE,
} ProtoAggregation;

/* gossip: what a peer sends of its model (protocol/gossip/README.md) */
typedef enum {
  PROTO_SPARSIFY_NONE,      /* the whole model */
  PROTO_SPARSIFY_RANDOM_K,  /* `keep` of the coordinates, drawn from the peer's stream */
  PROTO_SPARSIFY_TOP_K,     /* `keep` of the coordinates that changed most (with error feedback:
                               most since they were last sent) */
} ProtoSparsify;

/* gossip: what a peer gossips (protocol/gossip/README.md) */
typedef enum {
  PROTO_GOSSIP_MODE_SGD,         /* train, then mix models with the step's neighbours */
  PROTO_GOSSIP_MODE_PUSH_PULL,   /* no training: a scalar, averaged with one random peer a cycle
                                    (Jelasity, Montresor, Babaoglu, ACM TOCS 2005) */
} ProtoGossipMode;

/* gossip: where a peer finds partners */
typedef enum {
  PROTO_DISCOVERY_COORDINATOR,   /* the coordinator's member lists */
  PROTO_DISCOVERY_KADEMLIA,      /* a Kademlia routing table, filled by FIND_NODE lookups over links */
} ProtoDiscovery;

/* gossip: what a step does about peers that are late (protocol/gossip/README.md) */
typedef enum {
  PROTO_STRAGGLER_WAIT,          /* a step waits for every member still training */
  PROTO_STRAGGLER_DEADLINE,      /* round_deadline after the first ready, the step goes with the ready */
  PROTO_STRAGGLER_DROP_SLOWEST,  /* a member slower than drop_factor x the median is not waited for
                                    in the next drop_rounds steps */
  PROTO_STRAGGLER_ASYNC,         /* no steps: each peer pushes to its draws and goes on; models mix
                                    in with a staleness weight */
  PROTO_STRAGGLER_MIXED,         /* synchronous steps for peers of similar speed, async for the slow */
} ProtoStragglerPolicy;

/* the replicated coordinator (protocol/replica/): how a replica group keeps
 * the coordinator's state */
typedef enum {
  PROTO_REPLICATION_RAFT,            /* an input is acted on once a majority logged it (Raft) */
  PROTO_REPLICATION_PRIMARY_BACKUP,  /* the leader acts at once and ships the input after: no commit
                                        wait, and what no backup got is lost with the leader */
} ProtoReplication;

/* DISCO's named fixes: a version is a set of them (the table above). */
typedef enum {
  PROTO_FIX_CONNECT_BARRIER,
  PROTO_FIX_EXCLUDE_WHEN_RETRY_GE,
  PROTO_FIX_PROVIDER_FIRST_ENTRY,
  PROTO_FIX_MODEL_SYNC,
  PROTO_FIX_COLLECT_OVER_JOINED,
  PROTO_FIX_PAUSE_BEFORE_TRAINING,
  PROTO_FIX_TIMER_FIXED_60S,
  PROTO_FIX_RESET_WHEN_EMPTY,
  PROTO_FIX_PARTICIPANT_COUNTS,
  PROTO_FIX_READY_AT_ROUND_START,
  PROTO_FIX_LIST_FIRST_MIN,
  PROTO_FIX_ROBUST_RETRY_PER_ROUND,
  PROTO_FIX_ROBUST_SINGLE_TIMER,
  PROTO_FIX_ROBUST_MEMBERS_ONLY,
  PROTO_FIX_ROBUST_CLOSE_RESTARTS,
  PROTO_FIX_STRAGGLER_TIMEOUT,       /* S20: straggler_timeout is 60 s (else never) */
  PROTO_FIX_ROBUST_COUNT_SYNCED,
  PROTO_FIX_ROBUST_CHECKPOINT,
  PROTO_FIX_ROBUST_LISTEN,
  PROTO_FIX_ROBUST_LINKS,
  PROTO_FIX_ROBUST_EXCHANGE_DEADLINE,
  PROTO_FIX_ROBUST_SYNC_RETRY,
  PROTO_FIX_ROBUST_SERVE_AFTER_ROUND,
  PROTO_FIX_ROBUST_EXACT_ROUND,
  PROTO_FIX_ROBUST_SINGLE_ADD,
  PROTO_FIX_ROBUST_WAIT_TIMEOUT,
  PROTO_FIX_N,
} ProtoFix;

/* A set of fixes, one bit each (bit f: 1 << f). */
typedef guint32 ProtoFixes;
#define PROTO_FIX_BIT(f) ((ProtoFixes) 1 << (f))
G_STATIC_ASSERT (PROTO_FIX_N <= 32);

/* the version a config has until DISCO's family sets the scenario's */
#define PROTO_VERSION_DEFAULT PROTO_VERSION_DISCO_1110

/* The running family's own config (docs/architecture.md, "Config: each
 * family owns its part"): inline storage in ProtoConfig that the family's
 * configure (its *-keys.c) fills with a struct declared in its folder
 * (protocol/fedavg/fedavg-config.h), read back through the accessors that
 * PROTO_FAMILY_CONFIG_DEFINE makes.  A new family needs no field here.
 * Inline, not a pointer: ProtoConfig is copied by value into every machine
 * and into explore's worker threads, and a copy carries its family's part
 * with no owner to free it.  The size is the largest family's (the
 * guest's two 512-byte strings); a family whose struct does not fit stops
 * the build (a static assertion). */
#define PROTO_FAMILY_CONFIG_SIZE 1040
typedef union {
  guint8 bytes[PROTO_FAMILY_CONFIG_SIZE];
  max_align_t align;
} ProtoFamilyConfig;

typedef struct {
  char family[16];                 /* the ProtoFamily that runs (proto-machine.h): "disco" | "gossip" */
  ProtoVersion version;
  guint min_participants;          /* minNbOfParticipants */
  guint max_connection_retry;      /* maxConnectionRetry (M) */
  DlTime peer_connection_timeout;  /* maxPeerConnectionTime (T) */
  DlTime model_sync_timeout;       /* maxModelSyncTime */
  DlTime aggregation_wait;         /* exchangeWeightUpdates' race per communication round (15 s);
                                      on expiry: break, then await that round's result unbounded */
  DlTime payload_timeout;          /* receivePayloads' wait per reception (60 s); on expiry the
                                      loop moves on to its next reception */
  ProtoAggregation aggregation;
  double max_share_value;
  guint rounds;                    /* rounds each peer trains */
  gboolean leave_after_training;   /* after_training = leave */
  gboolean node_runtime;           /* [peers] runtime = node: an uncaught exception or
                                      unhandled rejection ends the client's process */
  gboolean webapp_runtime;         /* [peers] runtime = webapp: DISCO's browser app, which
                                      closes the session after training and after a
                                      training error (leave_after_training is set too) */

  ProtoFixes fixes;                /* the version's fixes (proto_config_set_version) */

  /* the fixes as the machines read them, one field per ProtoFix of its
   * name (set from `fixes` by proto_config_set_version) */
  gboolean connect_barrier;
  gboolean exclude_when_retry_ge;
  gboolean provider_first_entry;
  gboolean model_sync;
  gboolean collect_over_joined;
  gboolean pause_before_training;
  gboolean timer_fixed_60s;
  gboolean reset_when_empty;
  gboolean participant_counts;
  gboolean ready_at_round_start;   /* pre-775: PeerIsReady at the round's start, no JoinRound */
  gboolean list_first_min;         /* pre-775: PeersForRound to the first min ready, set emptied */

  /* robust (all FALSE in DISCO's versions) */
  gboolean robust_retry_per_round;   /* S6: the retry counter restarts at every Start */
  gboolean robust_single_timer;      /* S7, S9, S24: one timer, cleared before it is re-armed; it runs
                                        only in the connect phase; a Retry returns to the collect phase */
  gboolean robust_members_only;      /* S19, S31: the connect phase is the listed peers' alone; a
                                        JoinRound/PeerIsReady from anyone else waits for the next collect */
  gboolean robust_close_restarts;    /* S18, S26: a listed peer's close in the connect phase sends the
                                        rest a Retry at once (not counted); S17: a close during the
                                        exchange sends the round's other members a Retry (abort) */
  DlTime straggler_timeout;          /* S20: with >= min ready, a list goes out to the ready peers when
                                        this has passed since the min-th PeerIsReady */
  gboolean robust_count_synced;      /* S23: Waiting/Enough count connections - syncing, as the barrier */
  gboolean robust_checkpoint;        /* S11, S12, S25: the coordinator keeps the last round's model
                                        (SignalNewPeer(new_node = coordinator) to the round's provider)
                                        and serves it when no provider is left, reset included */
  gboolean robust_listen;            /* S8, S9, S21: Retry and Fail heard while linking and waiting for
                                        the list; a second WaitingForMore is a no-op */
  gboolean robust_links;             /* S15: a link that closed or failed leaves the pool */
  gboolean robust_exchange_deadline; /* S15, S17: no contribution for payload_timeout, or a Retry,
                                        aborts the exchange (the model stays the local one) */
  gboolean robust_sync_retry;        /* S11, S12: a sync times out (linking included) into a new
                                        ModelSyncRequest, as long as the peer stays; the coordinator
                                        answers a repeat with its checkpoint, or else the next
                                        candidate provider; a new SignalModelProvider re-targets */
  gboolean robust_serve_after_round; /* S13: a provider in a connect phase serves after that round */
  gboolean robust_exact_round;       /* S27: a Payload of another round than the current is refused */
  gboolean robust_single_add;        /* D4: a Payload is added once, however many receive loops on its
                                        link take it (in DISCO every live loop adds it) */
  gboolean robust_wait_timeout;      /* a lost message on the coordinator's stream: every wait for the
                                        coordinator ends after proto_config_wait_timeout, and the peer
                                        says again where it is (ClientConnected, PeerIsReady) */

  /* the replicated coordinator (protocol/replica/), every family */
  guint coordinator_replicas;        /* 1: one coordinator machine, as DISCO; more: a replica group */
  ProtoReplication replication;
  DlTime replica_heartbeat;          /* the leader's AppendEntries period when idle */
  DlTime replica_election_timeout;   /* a follower that hears no leader for a draw in [t, 2t) stands */
  DlTime resume_timeout;             /* a new leader closes the sessions not resumed after this */

  guint64 seed;                      /* the run's seed: a coordinator that draws takes its stream from it
                                        (gossip's candidate samples); DISCO's draws nothing */

  /* the straggler policies: gossip's keys, read by gossip, hierarchical
   * and DISCO's robust (gossip's own knobs: protocol/gossip/gossip-config.h) */
  ProtoStragglerPolicy straggler_policy;
  DlTime round_deadline;             /* deadline */
  double drop_factor;                /* drop-slowest, mixed: slow = period > drop_factor x median */
  guint drop_rounds;                 /* drop-slowest */
  double async_mix;                  /* async pushes: weight of a fresh model (staleness 0) */
  double staleness_exponent;         /* async pushes: weight = async_mix x (1 + staleness)^-exponent */

  /* the running family's own config: its struct, declared in its folder,
   * that its configure fills (PROTO_FAMILY_CONFIG_DEFINE below) */
  ProtoFamilyConfig family_config;
} ProtoConfig;

/* In a family's config header, after its struct `Type`: declares
 *   const Type *prefix (const ProtoConfig *c);   the family's part, to read
 *   Type *prefix##_mut (ProtoConfig *c);         to fill (its configure, tests)
 * and fails the build if Type does not fit PROTO_FAMILY_CONFIG_SIZE or
 * needs a stricter alignment.  The bytes mean Type only while c->family is
 * the family's name: only the family's own files call these.  Declare Type
 * `typedef struct G_GNUC_MAY_ALIAS { ... } Type;`: the storage is bytes,
 * and GCC's type-based alias analysis otherwise may drop a store through
 * prefix##_mut before a copy of the ProtoConfig (docs/architecture.md). */
#define PROTO_FAMILY_CONFIG_DEFINE(Type, prefix)                                        \
  G_STATIC_ASSERT (sizeof (Type) <= PROTO_FAMILY_CONFIG_SIZE);                          \
  G_STATIC_ASSERT (_Alignof (Type) <= _Alignof (ProtoFamilyConfig));                    \
  static inline const Type *prefix (const ProtoConfig *c)                               \
  {                                                                                     \
    return (const Type *) (const void *) c->family_config.bytes;                        \
  }                                                                                     \
  static inline Type *prefix##_mut (ProtoConfig *c)                                     \
  {                                                                                     \
    return (Type *) (void *) c->family_config.bytes;                                    \
  }

/* The coordinator's connection timer as the version runs it: 60 s in
 * disco-1110-draft whatever peer_connection_timeout says. */
DlTime proto_config_connection_timer (const ProtoConfig *config);

/* robust: how long a peer waits for the coordinator before it says again
 * where it is: twice the connection timer (so the coordinator's own timer
 * acts first); DL_TIME_NEVER in DISCO's versions. */
DlTime proto_config_wait_timeout (const ProtoConfig *config);

/* DISCO's defaults for the version: min 3, M 3, T 60 s, sync 30 s, mean. */
void proto_config_init (ProtoConfig *config, ProtoVersion version);
/* The version and its fixes (the fields of their names, straggler_timeout:
 * 60 s with PROTO_FIX_STRAGGLER_TIMEOUT, else never); nothing else changes. */
void proto_config_set_version (ProtoConfig *config, ProtoVersion version);
/* TRUE if the config's version has the fix. */
gboolean proto_config_has (const ProtoConfig *config, ProtoFix fix);
/* The fixes of a version, and a fix's name ("connect_barrier"). */
ProtoFixes proto_version_fixes (ProtoVersion version);
const char *proto_fix_name (ProtoFix fix);

const char *proto_version_name (ProtoVersion version);
const char *proto_sparsify_name (ProtoSparsify s);
const char *proto_straggler_policy_name (ProtoStragglerPolicy p);
gboolean proto_straggler_policy_from_name (const char *name, ProtoStragglerPolicy *out, GError **error);
gboolean proto_sparsify_from_name (const char *name, ProtoSparsify *out, GError **error);
gboolean proto_version_from_name (const char *name, ProtoVersion *out, GError **error);

G_END_DECLS
