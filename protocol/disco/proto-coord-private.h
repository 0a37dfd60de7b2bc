/* proto-coord-private.h — the coordinator's state, shared by proto-coord.c
 * (DISCO's controller) and proto-coord-robust.c (robust's and pre-775's
 * parts). */
#pragma once

#include "protocol/disco/proto-coord.h"
#include "protocol/proto-omap.h"

G_BEGIN_DECLS

typedef enum {
  TIMER_CONNECT,    /* the connection timer (T) */
  TIMER_STRAGGLER,  /* robust: the collect phase's straggler timeout */
} TimerKind;

typedef struct {
  DlTime at;
  uint64_t handle;  /* increasing: also the tie-break between equal times */
  TimerKind kind;
} CoordTimer;

struct ProtoCoord {
  ProtoConfig cfg;
  ProtoOMap connections;
  ProtoOMap syncing;
  ProtoOMap round_peers;    /* id -> ready */
  ProtoOMap connect_flags;  /* id -> ConnectionsReady received */
  uint32_t round;           /* aggregation round */
  guint retry;              /* session-wide (S6) */
  ProtoNodeId provider;
  gboolean waiting;         /* waitingForMoreParticipants */
  GArray *timers;           /* pending CoordTimer, live and orphaned */
  uint64_t current_timer;   /* `#timeout`: 0 when none */
  uint64_t next_handle;

  /* robust only (proto-config.h) */
  ProtoOMap helpers;        /* id -> ready: finished peers that stay to help (S20) */
  ProtoOMap exchanging;     /* members of the last Start not heard from since (S17) */
  ProtoOMap sync_wait;      /* newcomers that asked for a sync and have not joined yet (S12) */
  gboolean straggler_due;   /* the straggler timeout passed: list the ready peers (S20) */
  LearnWeights *checkpoint; /* the last round's model, from its provider (S11, S25) */
  ProtoOMap excluded;       /* excluded and still connected: told again if heard from */
  GHashTable *tries;        /* id -> Retries it was sent since the last Start (robust) */
  GHashTable *sync_asks;    /* id -> ModelSyncRequests from that newcomer (robust) */
  /* robust, straggler_policy = drop-slowest */
  DlTime round_began;       /* the last StartWeightSharing (0 before the first) */
  GArray *ready_after;      /* ReadyTime: how long after it each peer of this collect said PeerIsReady */
  GHashTable *dropped;      /* id -> the round (exclusive) until which it is not waited for */
  GHashTable *last_listed;  /* robust, async and mixed: id -> 1 + the round of the last list it was in */
};

typedef struct {
  ProtoNodeId id;
  DlTime after;
} ReadyTime;

void pc_observe (ProtoCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                 int64_t value, const char *detail);
void pc_send (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *msg);
void pc_send_simple (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type);
guint pc_active_count (const ProtoCoord *c);
void pc_send_count (ProtoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type);
void pc_start_timer_kind (ProtoCoord *c, DlTime now, ProtoOutbox *out, TimerKind kind);
void pc_start_timer (ProtoCoord *c, DlTime now, ProtoOutbox *out);
gboolean pc_straggler_timer_running (const ProtoCoord *c);
void pc_clear_timer (ProtoCoord *c, ProtoOutbox *out);
gboolean pc_in_connect_phase (const ProtoCoord *c);
guint pc_participating (const ProtoCoord *c);
void pc_send_lists (ProtoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n);
void pc_send_peers_for_round_if_needed (ProtoCoord *c, DlTime now, ProtoOutbox *out);
void pc_robust_list_if_needed (ProtoCoord *c, DlTime now, ProtoOutbox *out);
void pc_request_checkpoint (ProtoCoord *c, ProtoOutbox *out);
void pc_robust_back_to_collect (ProtoCoord *c, DlTime now, ProtoOutbox *out, const char *why);
gboolean pc_assign_provider (ProtoCoord *c, ProtoNodeId newcomer, gboolean repeat, ProtoOutbox *out);
void pc_pre775_list_if_needed (ProtoCoord *c, ProtoOutbox *out);
void pc_robust_note_ready (ProtoCoord *c, ProtoNodeId id, DlTime now);

G_END_DECLS
