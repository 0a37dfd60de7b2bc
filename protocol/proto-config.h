/* proto-config.h — protocol parameters and the versions dlsim models.
 *
 * One code path serves every version; a version is a set of named switches
 * (PROTOCOL.md §6):
 *
 *   switch                 disco-1110  disco-1110-draft  disco-775
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
 * `robust` is not built yet (PROTOCOL.md §6: "built later"). */
#pragma once

#include "base/dl-time.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PROTO_VERSION_DISCO_1110,
  PROTO_VERSION_DISCO_1110_DRAFT,
  PROTO_VERSION_DISCO_775,
} ProtoVersion;

typedef enum {
  PROTO_AGG_MEAN,
  PROTO_AGG_SECURE,
} ProtoAggregation;

typedef struct {
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

  /* version switches (set by proto_config_init) */
  gboolean connect_barrier;
  gboolean exclude_when_retry_ge;
  gboolean provider_first_entry;
  gboolean model_sync;
  gboolean collect_over_joined;
  gboolean pause_before_training;
  gboolean timer_fixed_60s;
  gboolean reset_when_empty;
  gboolean participant_counts;
} ProtoConfig;

/* The coordinator's connection timer as the version runs it: 60 s in
 * disco-1110-draft whatever peer_connection_timeout says. */
DlTime proto_config_connection_timer (const ProtoConfig *config);

/* DISCO's defaults for the version: min 3, M 3, T 60 s, sync 30 s, mean. */
void proto_config_init (ProtoConfig *config, ProtoVersion version);

const char *proto_version_name (ProtoVersion version);
gboolean proto_version_from_name (const char *name, ProtoVersion *out, GError **error);

G_END_DECLS
