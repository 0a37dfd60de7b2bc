/* disco-config.h — DISCO's own config: its versions as sets of named
 * fixes, and the knobs only DISCO's machines read, kept in ProtoConfig's
 * family_config (protocol/proto-config.h; docs/architecture.md, "Config:
 * each family owns its part").  disco-keys.c's configure fills it from the
 * scenario's keys; disco-config.c holds the version table.
 *
 * One code path serves every version; a version is a set of named fixes
 * (DiscoFix, PROTOCOL.md §6), a bitset that disco-config.c's `static const`
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
 * The machines read a fix as the gboolean field of its name in DiscoConfig
 * (disco_config (cfg)->connect_barrier), which disco_set_version sets
 * from the bitset (`fixes`); disco_has asks the bitset itself.
 *
 * What DISCO reads that stays in ProtoConfig, because other families read
 * it too: min_participants, peer_connection_timeout, model_sync_timeout,
 * payload_timeout, rounds, leave_after_training, the straggler knobs
 * (docs/architecture.md says who reads each). */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

typedef enum {
  DISCO_VERSION_1110,
  DISCO_VERSION_1110_DRAFT,
  DISCO_VERSION_775,
  DISCO_VERSION_ROBUST,
  DISCO_VERSION_PRE775,
} DiscoVersion;

/* the version DISCO's part has until its configure sets the scenario's */
#define DISCO_VERSION_DEFAULT DISCO_VERSION_1110

typedef enum {
  DISCO_AGG_MEAN,
  DISCO_AGG_SECURE,
} DiscoAggregation;

/* DISCO's named fixes: a version is a set of them (the table above). */
typedef enum {
  DISCO_FIX_CONNECT_BARRIER,
  DISCO_FIX_EXCLUDE_WHEN_RETRY_GE,
  DISCO_FIX_PROVIDER_FIRST_ENTRY,
  DISCO_FIX_MODEL_SYNC,
  DISCO_FIX_COLLECT_OVER_JOINED,
  DISCO_FIX_PAUSE_BEFORE_TRAINING,
  DISCO_FIX_TIMER_FIXED_60S,
  DISCO_FIX_RESET_WHEN_EMPTY,
  DISCO_FIX_PARTICIPANT_COUNTS,
  DISCO_FIX_READY_AT_ROUND_START,
  DISCO_FIX_LIST_FIRST_MIN,
  DISCO_FIX_ROBUST_RETRY_PER_ROUND,
  DISCO_FIX_ROBUST_SINGLE_TIMER,
  DISCO_FIX_ROBUST_MEMBERS_ONLY,
  DISCO_FIX_ROBUST_CLOSE_RESTARTS,
  DISCO_FIX_STRAGGLER_TIMEOUT,       /* S20: straggler_timeout is 60 s (else never) */
  DISCO_FIX_ROBUST_COUNT_SYNCED,
  DISCO_FIX_ROBUST_CHECKPOINT,
  DISCO_FIX_ROBUST_LISTEN,
  DISCO_FIX_ROBUST_LINKS,
  DISCO_FIX_ROBUST_EXCHANGE_DEADLINE,
  DISCO_FIX_ROBUST_SYNC_RETRY,
  DISCO_FIX_ROBUST_SERVE_AFTER_ROUND,
  DISCO_FIX_ROBUST_EXACT_ROUND,
  DISCO_FIX_ROBUST_SINGLE_ADD,
  DISCO_FIX_ROBUST_WAIT_TIMEOUT,
  DISCO_FIX_N,
} DiscoFix;

/* A set of fixes, one bit each (bit f: 1 << f). */
typedef guint32 DiscoFixes;
#define DISCO_FIX_BIT(f) ((DiscoFixes) 1 << (f))
G_STATIC_ASSERT (DISCO_FIX_N <= 32);

/* G_GNUC_MAY_ALIAS: it lives in family_config's bytes (docs/architecture.md) */
typedef struct G_GNUC_MAY_ALIAS {
  /* read on every Payload (disco-peer-listen.c, -exchange.c, disco-peer.c's
   * next deadline): first, the five on one cache line, which
   * _disco_peer_prefetch asks for (docs/performance.md, hn23; asserted in
   * disco-peer-private.h); the rest
   * are read on rarer inputs.  A fix (ready_at_round_start) and robust's
   * switches, set as the groups below say. */
  gboolean ready_at_round_start;     /* pre-775: PeerIsReady at the round's start, no JoinRound */
  gboolean robust_listen;            /* S8, S9, S21: Retry and Fail heard while linking and waiting for
                                        the list; a second WaitingForMore is a no-op */
  gboolean robust_exchange_deadline; /* S15, S17: no contribution for payload_timeout, or a Retry,
                                        aborts the exchange (the model stays the local one) */
  gboolean robust_exact_round;       /* S27: a Payload of another round than the current is refused */
  gboolean robust_single_add;        /* D4: a Payload is added once, however many receive loops on its
                                        link take it (in DISCO every live loop adds it) */

  DiscoVersion version;
  DiscoFixes fixes;                /* the version's fixes (disco_set_version) */
  guint max_connection_retry;      /* maxConnectionRetry (M) */
  DlTime aggregation_wait;         /* exchangeWeightUpdates' race per communication round (15 s);
                                      on expiry: break, then await that round's result unbounded */
  DiscoAggregation aggregation;
  double max_share_value;
  gboolean node_runtime;           /* [peers] runtime = node: an uncaught exception or
                                      unhandled rejection ends the client's process */
  gboolean webapp_runtime;         /* [peers] runtime = webapp: DISCO's browser app, which
                                      closes the session after training and after a
                                      training error (leave_after_training is set too) */

  /* the fixes as the machines read them, one field per DiscoFix of its
   * name (set from `fixes` by disco_set_version) */
  gboolean connect_barrier;
  gboolean exclude_when_retry_ge;
  gboolean provider_first_entry;
  gboolean model_sync;
  gboolean collect_over_joined;
  gboolean pause_before_training;
  gboolean timer_fixed_60s;
  gboolean reset_when_empty;
  gboolean participant_counts;
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
  gboolean robust_links;             /* S15: a link that closed or failed leaves the pool */
  gboolean robust_sync_retry;        /* S11, S12: a sync times out (linking included) into a new
                                        ModelSyncRequest, as long as the peer stays; the coordinator
                                        answers a repeat with its checkpoint, or else the next
                                        candidate provider; a new SignalModelProvider re-targets */
  gboolean robust_serve_after_round; /* S13: a provider in a connect phase serves after that round */
  gboolean robust_wait_timeout;      /* a lost message on the coordinator's stream: every wait for the
                                        coordinator ends after disco_wait_timeout, and the peer
                                        says again where it is (ClientConnected, PeerIsReady) */
} DiscoConfig;

/* disco_config (cfg): DISCO's part, to read; disco_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (DiscoConfig, disco_config)

/* DISCO's part to its defaults (the default version, M 3, wait 15 s,
 * mean, shares in 100): the family's config_init, which proto_config_init
 * calls for a config of family disco. */
void disco_config_defaults (ProtoConfig *config);
/* A config of family disco at the version: proto_config_init (config,
 * "disco"), then disco_set_version. */
void disco_config_init (ProtoConfig *config, DiscoVersion version);
/* The version and its fixes (the fields of their names, straggler_timeout:
 * 60 s with DISCO_FIX_STRAGGLER_TIMEOUT, else never); nothing else changes. */
void disco_set_version (ProtoConfig *config, DiscoVersion version);
/* TRUE if the config's version has the fix. */
gboolean disco_has (const ProtoConfig *config, DiscoFix fix);

/* The coordinator's connection timer as the version runs it: 60 s in
 * disco-1110-draft whatever peer_connection_timeout says. */
DlTime disco_connection_timer (const ProtoConfig *config);
/* robust: how long a peer waits for the coordinator before it says again
 * where it is: twice the connection timer (so the coordinator's own timer
 * acts first); DL_TIME_NEVER in DISCO's versions. */
DlTime disco_wait_timeout (const ProtoConfig *config);

/* The fixes of a version, and a fix's name ("connect_barrier"). */
DiscoFixes disco_version_fixes (DiscoVersion version);
const char *disco_fix_name (DiscoFix fix);
const char *disco_version_name (DiscoVersion version);
gboolean disco_version_from_name (const char *name, DiscoVersion *out, GError **error);

G_END_DECLS
