/* testbed-records.h — how a testbed process hands its records to `dlsim
 * testbed`: one tab-separated line per record on its stdout.
 *
 *   O  t_ns  node  kind  state  round  other  msg_type  value  detail
 *   F  t_ns  node  other  kind  detail
 *   M  t_ns  round  peer  name  value
 *   T  msg_type  bytes
 *   W  node  base64 of the model's little-endian float32s (after each round)
 *
 * and the control lines the orchestrator writes to a peer's stdin:
 * "leave", "rule drop|delay MSG_TYPE NODE FROM COUNT DELAY_NS",
 * "rule slow NODE FACTOR" and "rule link-fail A B".
 * Lines that do not parse are refused (the reader counts them). */
#pragma once

#include "host/sim-types.h"

#include <stdio.h>

G_BEGIN_DECLS

typedef struct {
  FILE *out;                /* may be NULL */
  void (*line) (gpointer ud, const char *line);   /* each line, without its newline; may be NULL */
  gpointer line_ud;
  struct ProtoMachine *peer;   /* if set: its model goes out (W) after each round */
} TestbedRecordSink;

void testbed_record_sink_init (TestbedRecordSink *sink, FILE *out);
/* A recorder that writes lines to sink->out (flushed per line). */
SimRecorder testbed_record_sink_recorder (TestbedRecordSink *sink);

/* Parses one record line and hands it to rec.  FALSE if malformed. */
gboolean testbed_record_parse (const char *line, const SimRecorder *rec);
/* A W line: (transfer full) *out_weights. */
gboolean testbed_record_parse_model (const char *line, ProtoNodeId *out_node, LearnWeights **out_weights);

/* (transfer full) the control line of a drop or delay rule. */
char *testbed_rule_line (const SimAction *a);
gboolean testbed_rule_parse (const char *line, SimAction *out);

G_END_DECLS
