/* pipe-family.c — the pipeline family's registry and peer behind the
 * machine interface (protocol/proto-machine.h; README.md beside it). */
#include "config.h"

#include "protocol/pipeline/pipe.h"

/* ---- the peer ---- */

static void
peer_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  pipe_peer_handle (impl, now, in, out);
}

static DlTime
peer_next_deadline (const void *impl)
{
  return pipe_peer_next_deadline (impl);
}

static const char *
peer_state_name (const void *impl)
{
  return pipe_peer_state_name (pipe_peer_state (impl));
}

static gboolean
peer_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  return pipe_peer_listens (impl, type, from);
}

static void
peer_view (const void *impl, ProtoPeerView *v)
{
  pipe_peer_view (impl, v);
}

static guint
peer_received_count (const void *impl, ProtoMsgType type)
{
  return pipe_peer_received_count (impl, type);
}

static void
peer_free (void *impl)
{
  pipe_peer_free (impl);
}

/* no model: hidden states are sizes and hashes (README.md) */
static const ProtoMachineClass peer_class = {
  .handle = peer_handle,
  .next_deadline = peer_next_deadline,
  .state_name = peer_state_name,
  .listens = peer_listens,
  .view = peer_view,
  .received_count = peer_received_count,
  .free = peer_free,
};

/* ---- the registry ---- */

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  pipe_coord_handle (impl, now, in, out);
}

static DlTime
coord_next_deadline (const void *impl)
{
  return pipe_coord_next_deadline (impl);
}

static const char *
coord_state_name (const void *impl)
{
  (void) impl;
  return "registry";
}

static gboolean
coord_listens (const void *impl, ProtoMsgType type, ProtoNodeId from)
{
  (void) impl, (void) type, (void) from;
  return TRUE;   /* it takes every message and drops what it has no use for itself */
}

static void
coord_free (void *impl)
{
  pipe_coord_free (impl);
}

static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .next_deadline = coord_next_deadline,
  .state_name = coord_state_name,
  .listens = coord_listens,
  .free = coord_free,
};

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return proto_machine_wrap (&coord_class, pipe_coord_new (cfg));
}

static ProtoMachine *
new_peer (const ProtoConfig *cfg, const ProtoPeerEnv *env)
{
  return proto_machine_wrap (&peer_class, pipe_peer_new (cfg, env));
}

/* a client may wait out a step timeout, a replay's lookups and backoffs */
static DlTime
stall_window (const ProtoConfig *p)
{
  return dl_time_add (dl_time_mul (pipe_config (p)->step_timeout, 3), 120 * DL_S);
}

/* the registry sees no rounds: `round N` timeline times do not exist for
 * this family */
static ProtoObsKind
round_begins_with (const ProtoConfig *cfg)
{
  (void) cfg;
  return PROTO_OBS_ROUND_LIST;
}

static gboolean
excludes_after_retries (const ProtoConfig *cfg, guint *retries)
{
  (void) cfg;
  *retries = 0;
  return FALSE;
}

/* no models to agree on */
static gboolean
promises_agreement (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;
}

static gboolean
syncs_late_joiners (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;
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
  .new_coordinator = new_coordinator,
  .new_peer = new_peer,
  .stall_window = stall_window,
  .round_begins_with = round_begins_with,
  .excludes_after_retries = excludes_after_retries,
  .promises_agreement = promises_agreement,
  .syncs_late_joiners = syncs_late_joiners,
  .metric_names = metric_names,
  .serving_states = serving_states,
  .largest_floats = largest_floats,
  .n_peer_states = PIPE_PEER_N_STATES,
  .peer_state_name_at = peer_state_name_at,
  .keys = &proto_pipeline_keys,
  .msgs = &proto_msgs_pipeline,
};
