/* replica-harness.h — the replicated coordinator's cases (protocol/replica/)
 * for any family's machines, under hand-held time: three replicas on a
 * tiny network of the harness's (1 ms between replicas, messages in
 * order), the peers' side played by the cases, and a session peer around
 * the family's peer.  A program says which family's machines go inside
 * and how to read them (ReplicaSubject), and runs rh_suite's cases:
 * protocol/replica/tests/test-replica.c around a toy family's,
 * protocol/disco/tests/test-disco-replica.c around DISCO's.  The harness
 * names no family. */
#pragma once

#include "protocol/proto-machine.h"

#include <check.h>

/* What the cases need of a family.  Every field is set. */
typedef struct {
  /* the family whose coordinator the replicas wrap, and whose new_peer
   * the session peer wraps */
  const ProtoFamily *family;
  /* a config of that family with the coordinator unreplicated (the cases
   * then set coordinator_replicas, replication, min_participants and
   * resume_timeout) */
  void (*config_init) (ProtoConfig *cfg);
  /* peers connected to a copy of the family's coordinator */
  guint (*connections) (const ProtoMachine *coordinator);
  /* how many answers to the coordinator's welcome the peer's outbox
   * holds (a welcome taken twice would answer twice) */
  guint (*welcome_answers) (const ProtoOutbox *out);
} ReplicaSubject;

/* The suite "replica" of seven cases over `subject` (borrowed: it
 * outlives the suite's run). */
Suite *rh_suite (const ReplicaSubject *subject);
/* Runs the suite: 0 when every case passes, 1 otherwise (for main). */
int rh_run (const ReplicaSubject *subject);
