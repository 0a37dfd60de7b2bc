/* fedavg.h — the fedavg family's machines (README.md beside it): the
 * server (fedavg-server.c), the coordinator that samples, sends the global
 * model and averages, its asynchronous counterpart (fedavg-async.c:
 * FedBuff and FedAsync), and the client (fedavg-client.c), which trains
 * when sent a model.  Both sit behind the machine interface (proto-machine.h). */
#pragma once

#include "protocol/proto-machine.h"

G_BEGIN_DECLS

ProtoMachine *fedavg_server_new (const ProtoConfig *cfg);
/* the server of fedavg_mode = fedbuff and fedasync (fedavg-async.c) */
ProtoMachine *fedavg_async_server_new (const ProtoConfig *cfg);
ProtoMachine *fedavg_client_new (const ProtoConfig *cfg, const ProtoPeerEnv *env);

/* the client's states' names, NULL-ended (the family's peer_state_names) */
#define FEDAVG_CLIENT_N_STATES 6
extern const char *const fedavg_client_state_names[FEDAVG_CLIENT_N_STATES + 1];

G_END_DECLS
