/* sim-fedscale.h — FedScale's device traces, one JSON object per line.
 *
 * FedScale ships both as pickled dicts keyed by client id
 * (benchmark/dataset/data/device_info/README.md); tools/fedscale-to-jsonl
 * writes such a dict as one line per client, the id as "client_id":
 *
 *   behaviour:  {"client_id": 3, "duration": 86400, "finish_time": 86400,
 *                "active": [0, 30000], "inactive": [3600, 36000], "model": "..."}
 *   capacity:   {"client_id": 3, "computation": 45.5, "communication": 2400.0}
 *
 * Behaviour: client N is peer pN, online from active[i] to inactive[i]
 * (seconds); the lists repeat every finish_time (FedScale's is_active takes
 * the time modulo finish_time), or every duration without finish_time.
 * Capacity: computation is ms per sample of inference (FedScale counts a
 * training sample as 3 of them), communication kbit/s (1 kbit = 1024 bits:
 * FedScale's model sizes are bytes / 1024 * 8) for both directions.
 * A bad line is an error naming the file and the line. */
#pragma once

#include "scenario/sim-trace.h"

G_BEGIN_DECLS

/* (transfer full) SimTraceEntry sorted by join time, every interval that
 * begins before `horizon` */
GArray *sim_fedscale_load_behaviour (const char *path, DlTime horizon, GError **error);

/* (transfer full) SimCapacity indexed by peer id; ms_per_sample 0 for a
 * peer the file does not name */
GArray *sim_fedscale_load_capacity (const char *path, GError **error);

G_END_DECLS
