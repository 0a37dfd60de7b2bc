/* pipe-family.c — the pipeline family (README.md beside it): its registry
 * (pipe-coord.c) and peer (pipe-peer.c) behind the machine interface
 * (protocol/proto-machine.h). */
#include "config.h"

#include "protocol/pipeline/pipe.h"

/* a client may wait out a step timeout, a replay's lookups and backoffs */
static DlTime
stall_window (const ProtoConfig *p)
{
  return dl_time_add (dl_time_mul (pipe_config (p)->step_timeout, 3), 120 * DL_S);
}

static const char *
peer_state_name_at (guint i)
{
  return pipe_peer_state_name ((PipePeerState) i);
}

/* README.md, "What a run records" */
static const char *const metric_names[] = {
  "step_latency_s", "failure_step_latency_s", "session_s", "client_egress_bytes", "client_ingress_bytes",
  "server_to_server_bytes", "early_starts_used", "early_starts_wasted", "recomputations", "late_pushes",
  "pushes_ignored", "replays", "replay_bytes", "full_copies_asked", NULL,
};

/* a server serves while it stays (pipe_peer_view's serves_only) */
static const char *const serving_states[] = { "serving", "computing", NULL };

/* PipeStep and PipeResult carry the hidden states of up to `steps`
 * tokens, (hidden_size + 3) / 4 floats each (_pipe_peer_hidden) */
static gsize
largest_floats (const ProtoConfig *cfg)
{
  const PipeConfig *pc = pipe_config (cfg);
  return (gsize) ((pc->hidden_size + 3) / 4) * MAX (pc->steps, 1);
}

extern const ProtoMsgFamily proto_msgs_pipeline;   /* pipe-msgs.c */
extern const ProtoFamilyKeys proto_pipeline_keys;   /* pipe-keys.c */

const ProtoFamily proto_family_pipeline = {
  .name = "pipeline",
  .new_coordinator = pipe_coord_new,
  .new_peer = pipe_peer_new,
  .stall_window = stall_window,
  /* the registry sees no rounds: `round N` timeline times do not exist
   * for this family (round_begins stays the default); it excludes nobody;
   * no models to agree on, none to sync */
  .metric_names = metric_names,
  .serving_states = serving_states,
  .largest_floats = largest_floats,
  .n_peer_states = PIPE_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_pipeline_keys,
  .msgs = &proto_msgs_pipeline,
};
