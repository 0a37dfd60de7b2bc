/* disco-coord-private.h — the coordinator's state, shared by disco-coord.c
 * (DISCO's controller: every transition) and its leaves, which it calls
 * and which never call it: disco-coord-effects.c (records, sends, timers)
 * and disco-coord-straggler.c (the straggler policies' bookkeeping). */
#pragma once

#include "protocol/disco/disco-coord.h"
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

/* its phase (ProtoMachineBase.state): connect while #connectFinishedNodes
 * has a member, collect otherwise (disco-coord.c keeps it so) */
typedef enum {
  COORD_COLLECT,
  COORD_CONNECT,
} CoordPhase;

struct DiscoCoord {
  ProtoMachineBase base;    /* first: the machine interface reads it */
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

/* disco-coord-effects.c (a leaf) */
void _disco_coord_observe (DiscoCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type,
                           int64_t value, const char *detail);
/* over the coordinator's stream to `to`, observed */
void _disco_coord_send (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *msg);
/* a message of no fields; a Retry counts in `tries` (robust_retry_per_round) */
void _disco_coord_send_simple (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type);
/* the participants that Waiting/Enough and NewNodeInfo count */
guint _disco_coord_active_count (const DiscoCoord *c);
/* PeersForRound to each of ids[0..n) (the others of the list, and the round), and the list's record */
void _disco_coord_send_lists (DiscoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n);
/* Waiting or Enough, with the count where the version carries one */
void _disco_coord_send_count (DiscoCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsgType type);
/* a new timer of kind; it becomes `#timeout` (robust_single_timer: the old one is cleared) */
void _disco_coord_start_timer_kind (DiscoCoord *c, DlTime now, ProtoOutbox *out, TimerKind kind);
/* a connection timer */
void _disco_coord_start_timer (DiscoCoord *c, DlTime now, ProtoOutbox *out);
gboolean _disco_coord_has_straggler_timer (const DiscoCoord *c);
/* clearTimeout(#timeout): whichever timer it points to now */
void _disco_coord_clear_timer (DiscoCoord *c, ProtoOutbox *out);

/* disco-coord-straggler.c (a leaf) */
/* drop-slowest and mixed judge the slowest; async and mixed weigh by staleness */
gboolean _disco_coord_straggler_judges (const DiscoCoord *c);
gboolean _disco_coord_straggler_weighs (const DiscoCoord *c);
/* a trainer's PeerIsReady: how long after the round began (when it judges) */
void _disco_coord_straggler_note_ready (DiscoCoord *c, ProtoNodeId id, DlTime now);
/* trainers not ready that drop-slowest does not wait for */
guint _disco_coord_straggler_dropped_waiting (const DiscoCoord *c);
/* drop-slowest's verdict on this collect's times; they are forgotten */
void _disco_coord_straggler_judge_slowest (DiscoCoord *c, ProtoOutbox *out);
/* every listed peer's staleness, to every listed peer */
void _disco_coord_straggler_send_staleness (DiscoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n);

/* disco-coord-effects.c: its earliest timer (the base's deadline after
 * each input) */
DlTime _disco_coord_earliest_timer (const DiscoCoord *c);

G_END_DECLS
