/* fedavg-family.c — the fedavg family (README.md beside it): its server
 * and client behind the machine interface (proto-machine.h). */
#include "config.h"

#include "protocol/fedavg/fedavg-config.h"
#include "protocol/fedavg/fedavg.h"

/* A round lasts round_timeout at most, and a client that is never drawn
 * legitimately waits in idle the whole run: every round, and the time to
 * connect.  (The asynchronous modes keep the window: their clients are
 * answered at once and say FedHello again every round_timeout.) */
static DlTime
stall_window (const ProtoConfig *p)
{
  return dl_time_add (dl_time_mul (fedavg_config (p)->round_timeout, (uint64_t) p->rounds + 1), p->peer_connection_timeout);
}

static ProtoMachine *
new_coordinator (const ProtoConfig *cfg)
{
  return fedavg_config (cfg)->mode == FEDAVG_MODE_SYNC ? fedavg_server_new (cfg) : fedavg_async_server_new (cfg);
}

extern const ProtoMsgFamily proto_msgs_fedavg;   /* fedavg-msgs.c */
extern const ProtoFamilyKeys proto_fedavg_keys;   /* fedavg-keys.c */

const ProtoFamily proto_family_fedavg = {
  .name = "fedavg",
  .new_coordinator = new_coordinator,
  .new_peer = fedavg_client_new,   /* the hook's signature: no wrapper */
  .stall_window = stall_window,
  .round_begins = PROTO_OBS_ROUND_START,
  /* it never excludes anyone; a client holds its own trained model
   * between rounds (only FedDone's final model is common to all): no
   * agreement; a late joiner is sent the global model when it is drawn,
   * not at once: no model sync */
  .no_testbed = "not made to run on the testbed's sockets yet (a first try of fedavg-basic.ini did not finish in 90 s; protocol/fedavg/README.md)",
  .peer_state_names = fedavg_client_state_names,
  .keys = &proto_fedavg_keys,
  .msgs = &proto_msgs_fedavg,
};
