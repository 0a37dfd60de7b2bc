/* pipe-config.h — the pipeline family's own config: what pipe-keys.c's
 * configure reads from the scenario's keys, kept in ProtoConfig's
 * family_config (proto-config.h), and the block ranges it gives the
 * servers (pipe-config.c). */
#pragma once

#include "protocol/proto-config.h"

G_BEGIN_DECLS

/* most block ranges a scenario may list one by one */
#define PIPE_MAX_RANGES 64

/* Petals' inference chain (README.md beside this file).  G_GNUC_MAY_ALIAS:
 * the struct lives in family_config's bytes, and its DlDist is a type no
 * field of ProtoConfig has; without the attribute GCC's type-based alias
 * analysis took a store through pipe_config_mut as unrelated to a copy of
 * the ProtoConfig and dropped it (at -O2, tests/test-pipeline's
 * compute_per_block read back as 0 in the machines' copies). */
typedef struct G_GNUC_MAY_ALIAS {
  guint blocks;                      /* transformer blocks of the model */
  guint servers;                     /* servers: the peers after the clients (n_ranges given: one range
                                        each; else an even split into servers / replicas ranges) */
  guint replicas;                    /* even split: servers per range */
  guint n_ranges;                    /* explicit ranges given (0: the even split) */
  guint16 range_start[PIPE_MAX_RANGES];
  guint16 range_end[PIPE_MAX_RANGES];   /* exclusive */
  DlDist compute_per_block;          /* one block's compute for one token at speed 1 (ns) */
  guint hidden_size;                 /* bytes of hidden states per token */
  guint steps;                       /* tokens each session generates */
  guint sessions;                    /* clients: peers p1..p<sessions>, one session each */
  gboolean next_peer;                /* forwarding = next-peer: servers push their result to the next */
  gboolean hash_copy;                /* client_copy = hash: with next-peer, the client sends a server that
                                        holds the session the hash of its input alone, and the full copy
                                        only when the server asks (PipeNeed) */
  gboolean family_hint;              /* routing prefers a next hop in the same family (region) */
  double faulty_share;               /* share of servers whose pushes are wrong */
  DlTime step_timeout;               /* a client waits this long for a server's result, then replaces it */
} PipeConfig;

/* pipe_config (cfg): the family's part, to read; pipe_config_mut, to fill */
PROTO_FAMILY_CONFIG_DEFINE (PipeConfig, pipe_config)

/* The configured block ranges (each listed range, or the even split's),
 * and server i's (0-based, i < servers) [*start, *end); range r is
 * pipe_config_range of server r x replicas. */
guint pipe_config_n_ranges (const PipeConfig *config);
void pipe_config_range (const PipeConfig *config, guint i, guint *start, guint *end);

G_END_DECLS
