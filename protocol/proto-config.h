/* proto-config.h — the protocol parameters every family shares, and the
 * running family's own part (family_config).
 *
 * A family's own knobs are a struct in its folder, kept in family_config
 * (PROTO_FAMILY_CONFIG_DEFINE below): DISCO's versions, fixes and knobs in
 * protocol/disco/disco-config.h, gossip's in protocol/gossip/gossip-config.h
 * and so on.  What stays here is read by more than one family (or by the
 * world, the replica group or the properties); docs/architecture.md
 * ("Config: each family owns its part") says who reads each field. */
#pragma once

#include "base/dl-dist.h"
#include "base/dl-time.h"

#include <glib.h>
#include <stddef.h>

G_BEGIN_DECLS

/* the straggler policies: keys of protocol/ (proto-keys.c's group), which
 * gossip, hierarchical and DISCO's robust take (protocol/gossip/README.md) */
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

/* The running family's own config (docs/architecture.md, "Config: each
 * family owns its part"): inline storage in ProtoConfig that the family's
 * configure (its *-keys.c) fills with a struct declared in its folder
 * (protocol/fedavg/fedavg-config.h), read back through the accessors that
 * PROTO_FAMILY_CONFIG_DEFINE makes.  A new family needs no field here.
 * Inline, not a pointer: ProtoConfig is copied by value into every machine
 * and into explore's worker threads, and a copy carries its family's part
 * with no owner to free it.  The size is the largest family's (the
 * guest's two 512-byte strings and its kinds); a family whose struct does not fit stops
 * the build (a static assertion). */
#define PROTO_FAMILY_CONFIG_SIZE 1120
typedef union {
  guint8 bytes[PROTO_FAMILY_CONFIG_SIZE];
  max_align_t align;
} ProtoFamilyConfig;

typedef struct {
  char family[16];                 /* the ProtoFamily that runs (proto-machine.h): "disco" | "gossip" */
  guint min_participants;          /* minNbOfParticipants; disco, gossip, hierarchical, fedavg,
                                      guest, and the properties' hang rule */
  DlTime peer_connection_timeout;  /* maxPeerConnectionTime (T): DISCO's key; gossip's and fedavg's
                                      stall windows add it (60 s: they have no key for it) */
  DlTime model_sync_timeout;       /* maxModelSyncTime: DISCO's and gossip's */
  DlTime payload_timeout;          /* receivePayloads' wait per reception (60 s); on expiry the
                                      loop moves on to its next reception: DISCO's and gossip's */
  guint rounds;                    /* rounds each peer trains */
  gboolean leave_after_training;   /* after_training = leave (or runtime = webapp) */

  /* the replicated coordinator (protocol/replica/), every family */
  guint coordinator_replicas;        /* 1: one coordinator machine, as DISCO; more: a replica group */
  ProtoReplication replication;
  DlTime replica_heartbeat;          /* the leader's AppendEntries period when idle */
  DlTime replica_election_timeout;   /* a follower that hears no leader for a draw in [t, 2t) stands */
  DlTime resume_timeout;             /* a new leader closes the sessions not resumed after this */

  guint64 seed;                      /* the run's seed: a coordinator that draws takes its stream from it
                                        (gossip's candidate samples); DISCO's draws nothing */

  /* the straggler policies: proto-keys.c's group of keys, read by gossip,
   * hierarchical and DISCO's robust (gossip's own knobs:
   * protocol/gossip/gossip-config.h) */
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

/* The common fields' defaults (min 3, T 60 s, sync 30 s, payload 60 s,
 * one round, one coordinator, straggler policy wait), `family` the
 * family's name (NULL: the registry's first, the default family), and the
 * family's part its defaults (its ProtoFamily's config_init,
 * protocol/proto-machine.h; all zero if it has none). */
void proto_config_init (ProtoConfig *config, const char *family);

const char *proto_straggler_policy_name (ProtoStragglerPolicy p);
gboolean proto_straggler_policy_from_name (const char *name, ProtoStragglerPolicy *out, GError **error);

G_END_DECLS
