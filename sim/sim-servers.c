/* sim-servers.c — the coordinator's side of the world: one coordinator, or
 * the replicas of a replicated one (protocol/replica/README.md).  Which
 * replica leads, a peer's stream to it (reconnect, a replica closing it, a
 * stream broken by a crash), the `crash coordinator` action, and the
 * coordinator's deadline events.  It calls sim-net.c; feeding a machine
 * goes through the callbacks sim-world.c sets (sim_dispatch_server and
 * sim_dispatch_peer, sim-world-private.h). */
#include "config.h"

#include "sim/sim-world-private.h"
#include "protocol/replica/proto-replica.h"

guint
sim_server_leader (const SimWorld *w)
{
  if (w->n_servers == 1)
    return w->servers[0].crashed ? 1 : 0;
  guint best = w->n_servers, term = 0;
  for (guint k = 0; k < w->n_servers; k++)
    if (!w->servers[k].crashed && proto_replica_leads (w->servers[k].m) && proto_replica_term (w->servers[k].m) > term)
      {
        best = k;
        term = proto_replica_term (w->servers[k].m);
      }
  return best;
}

static void
ev_stream_broken (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = sim_node_at (w, (ProtoNodeId) arg);
  w->timed_pending--;
  if (n->status != NODE_ONLINE)
    return;
  ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = PROTO_SERVER };
  sim_dispatch_peer (w, n, &in);
  (void) e;
}

void
sim_stream_broken (SimWorld *w, Node *n, DlTime after, const char *why)
{
  n->stream_down = TRUE;
  n->stream++;   /* what is in flight on it is lost */
  sim_fact (w, n->id, PROTO_SERVER, "stream-broken", why);
  w->timed_pending++;
  sim_engine_schedule_in (w->engine, after, ev_stream_broken, w, n->id);
}

/* `crash coordinator`: the coordinator (the leader, with replicas) stops;
 * the peers whose streams went to it notice after crash_detection (one
 * coordinator, DISCO: no heartbeat) or replica_crash_detection (the session
 * layer's keepalive) */
void
sim_crash_coordinator (SimWorld *w)
{
  guint k = sim_server_leader (w);
  if (k >= w->n_servers)
    {
      sim_fact (w, PROTO_SERVER, PROTO_NO_NODE, "ignored", "crash coordinator: no live coordinator leads");
      return;
    }
  SimServer *sv = &w->servers[k];
  sv->crashed = TRUE;
  sv->crashed_at = sim_engine_now (w->engine);
  sim_rearm (w, &sv->deadline, DL_TIME_NEVER, sim_ev_coord_deadline, k);
  char buf[48];
  g_snprintf (buf, sizeof buf, w->n_servers > 1 ? "replica %u, the leader" : "the coordinator", k);
  sim_fact (w, PROTO_SERVER, PROTO_NO_NODE, "crash", buf);
  for (guint i = 1; i < w->nodes->len; i++)
    {
      Node *n = sim_node_at (w, i);
      if (!n || n->status != NODE_ONLINE || n->stream_down || n->server != k || n->coord_closed)
        continue;
      if (w->n_servers == 1 && w->cfg.crash_never_detected)
        {
          n->stream_down = TRUE;
          n->stream++;
          continue;
        }
      g_autoptr (DlRandom) r = sim_world_stream (w, "coordinator-crash-detection", n->id);
      const DlDist *d = w->n_servers > 1 ? &w->cfg.replica_crash_detection : &w->cfg.crash_detection;
      sim_stream_broken (w, n, dl_dist_sample_time (d, r), "the coordinator crashed");
    }
}

/* the session layer's reconnect: after a round trip to the service, the
 * stream goes to the leader (standing for a client that tries the replicas
 * and follows a redirect), or is refused if there is none */
static void
ev_reconnected (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  Node *n = sim_node_at (w, (ProtoNodeId) arg);
  w->timed_pending--;
  if (n->status != NODE_ONLINE)
    return;
  guint k = sim_server_leader (w);
  if (k >= w->n_servers || sim_partitioned (w, n->id, PROTO_SERVER))
    {
      sim_fact (w, n->id, PROTO_SERVER, "refused",
                k >= w->n_servers ? "no coordinator replica leads" : "a partition: no replica answers");
      ProtoInput in = { .kind = PROTO_IN_STREAM_CLOSED, .from = PROTO_SERVER };
      sim_dispatch_peer (w, n, &in);
      return;
    }
  n->server = k;
  n->stream++;
  n->stream_down = FALSE;
  n->coord_closed = FALSE;
  char buf[32];
  g_snprintf (buf, sizeof buf, "replica %u", k);
  sim_fact (w, n->id, PROTO_SERVER, "stream", buf);
  ProtoInput in = { .kind = PROTO_IN_START };
  sim_dispatch_peer (w, n, &in);
  (void) e;
}

void
sim_servers_reconnect (SimWorld *w, ProtoNodeId self)
{
  Node *n = sim_node_at (w, self);
  DlTime there = dl_dist_sample_time (&w->cfg.server_latency, n->rng_net);
  DlTime rtt = dl_time_add (there, dl_dist_sample_time (&w->cfg.server_latency, n->rng_net));
  w->timed_pending++;
  sim_engine_schedule_in (w->engine, rtt, ev_reconnected, w, self);
}

void
sim_servers_close_stream (SimWorld *w, ProtoNodeId self, ProtoNodeId peer)
{
  Node *n = sim_node_at (w, peer);
  guint k = proto_node_is_replica (self) ? proto_replica_index (self) : 0;
  if (n && n->status == NODE_ONLINE && !n->stream_down && n->server == k)
    sim_stream_broken (w, n, dl_dist_sample_time (&w->cfg.server_latency, n->rng_net),
                       "closed by a replica that leads no more");
}

void
sim_ev_coord_deadline (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  SimServer *sv = &w->servers[arg];
  sv->deadline.ev = SIM_EVENT_NONE;
  if (sv->crashed)
    return;
  if (proto_machine_next_deadline (sv->m) > sim_engine_now (e))
    {
      sim_rearm (w, &sv->deadline, proto_machine_next_deadline (sv->m), sim_ev_coord_deadline, arg);
      return;
    }
  ProtoInput in = { .kind = PROTO_IN_DEADLINE };
  sim_dispatch_server (w, (guint) arg, &in);
}

