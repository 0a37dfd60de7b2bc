/* test-disco-world.c — whole runs of the simulated world (sim/) under
 * DISCO, the world's mechanics as DISCO's runs show them: a fault-free run
 * that converges, the wall-clock watchdog, bandwidth and a bandwidth
 * trace, the transport's slow start and idle restart (Payload's timing),
 * crashes, partitions, drops and delays of DISCO's messages and the stalls
 * they make (S08, S17), connect failures and retries, churn, stragglers
 * behind NAT, a graceful close.  (Moved from tests/test-world.c, which
 * keeps the runs that any default family passes, and the traces.) */
#include "config.h"

#include "sim/sim-world.h"
#include "tests/world-harness.h"
#include "scenario/sim-bwtrace.h"
#include "scenario/sim-trace.h"
#include "protocol/disco/disco-config.h"
#include "protocol/disco/disco-msgs.h"
#include "tests/slow-start-bound.h"

#include <check.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

/* The wall-clock watchdog (sim_world_set_wall_limit): a limit of 1 us is
 * past by the first poll, 4 096 events in, so a run that needs more stops
 * there, outcome interrupted, the error saying why; without a limit the
 * same run completes.  (200 rounds: about 35 events a round, since the
 * deliveries of one instant are one event.) */
START_TEST (test_wall_limit_stops_a_run)
{
  WorldSetup s;
  world_setup_none (&s, 10, 200, 1000);
  WorldRec rec;
  world_rec_init (&rec);
  SimRecorder sr = world_recorder (&rec);
  g_autoptr (GError) error = NULL;
  SimWorld *w = sim_world_new (&s.cfg, &sr, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  rec.world = w;
  sim_world_set_wall_limit (w, 1);
  const SimResult *res = sim_world_run (w);
  ck_assert_msg (res->outcome == SIM_OUTCOME_INTERRUPTED, "%s after %" G_GUINT64_FORMAT " events",
                 sim_outcome_name (res->outcome), res->events);
  ck_assert_msg (strstr (res->error, "the wall-clock limit of 0.000 s was reached"), "%s", res->error);
  ck_assert_uint_eq (res->events, SIM_WORLD_POLL_EVENTS);
  sim_world_free (w);
  w = sim_world_new (&s.cfg, &sr, &error);
  rec.world = w;
  res = sim_world_run (w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_gt (res->events, SIM_WORLD_POLL_EVENTS);
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_three_peers_converge)
{
  WorldSetup s;
  world_setup_softmax (&s, 3, 6, 42);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_eq (res->rounds_completed, 6);
  ck_assert_uint_eq (res->peers_finished, 3);
  ck_assert_uint_eq (res->retries, 0);
  for (guint i = 1; i <= 3; i++)
    {
      world_assert_peer (w, i, "finished");
      ck_assert_uint_eq (sim_world_peer (w, i)->rounds, 6);
    }
  /* peers agree after every round */
  ck_assert_uint_eq (rec.round_models->len, 6);
  for (guint r = 0; r < 6; r++)
    {
      GPtrArray *ms = g_ptr_array_index (rec.round_models, r);
      ck_assert_uint_eq (ms->len, 3);
      for (guint i = 1; i < 3; i++)
        ck_assert (learn_weights_equal (ms->pdata[0], ms->pdata[i]));
    }
  /* accuracy rises from the initial model's (chance) and the loss falls every round */
  g_autoptr (DlRandom) ir = dl_random_new (42, "initial-model", DL_RANDOM_NO_NODE);
  g_autoptr (LearnWeights) w0 = learn_model_initial_weights (&s.cfg.model, ir);
  double acc0, loss0;
  learn_model_evaluate (&s.cfg.model, w0, s.test, &acc0, &loss0);
  double last = g_array_index (rec.round_acc, double, 5) / 3;
  ck_assert_msg (acc0 < 0.4 && last >= 0.85, "accuracy %g -> %g", acc0, last);
  double prev = loss0;
  for (guint r = 0; r < 6; r++)
    {
      double l = g_array_index (rec.round_loss, double, r) / 3;
      ck_assert_msg (l < prev, "round %u loss %g, before %g", r, l, prev);
      prev = l;
    }
  ck_assert_double_eq_tol (res->final_accuracy, last, 1e-12);
  ck_assert_double_eq_tol (res->consensus_distance, 0, 1e-12);
  /* time: 300 samples x 1 ms per round at least */
  ck_assert_int_ge (res->end, 6 * 300 * DL_MS);
  world_teardown (w, &rec, &s);
}
END_TEST

static DlTime
round_time (uint64_t uplink_bps, gsize floats)
{
  WorldSetup s;
  world_setup_none (&s, 3, 1, floats);
  s.cfg.uplink_bps = uplink_bps;
  s.cfg.downlink_bps = 1000000000;
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  DlTime end = res->end;
  ck_assert_uint_ge (res->bytes, 6 * floats * 4);
  world_teardown (w, &rec, &s);
  return end;
}

START_TEST (test_bandwidth_charges_weights)
{
  /* 1M floats = 4 MB; each peer sends 2 payloads = 64 Mbit: 8 s at 8 Mbit/s */
  DlTime thin = round_time (8000000, 1000000);
  DlTime thick = round_time (800000000, 1000000);
  ck_assert_int_ge (thin, 8 * DL_S);
  ck_assert_int_lt (thick, 2 * DL_S);
  ck_assert_int_ge (thin - thick, 7 * DL_S);
}
END_TEST

START_TEST (test_crash_during_exchange_hangs_s17)
{
  /* p3 crashes 10 ms after the coordinator starts round 2's weight sharing,
   * before its Start arrives: p1 and p2 wait for its Payload forever. */
  WorldSetup s;
  world_setup_none (&s, 3, 4, 1000);
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_CRASH, .round = 2, .after = 10 * DL_MS, .a = 3 };
  g_array_append_val (s.cfg.actions, a);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  world_assert_peer (w, 1, "hung");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 1);
  world_assert_peer (w, 3, "crashed");
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_stall_detected_s08)
{
  /* The only link never comes up: both peers hang in getPeers; the
   * coordinator's timer keeps cycling; the run is stalled, not time_limit. */
  WorldSetup s;
  world_setup_none (&s, 2, 2, 1000);
  s.cfg.time_limit = 10 * DL_H;
  SimAction a = { .kind = SIM_ACT_LINK_FAIL, .at = 0, .a = 1, .b = 2 };
  g_array_append_val (s.cfg.actions, a);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  world_assert_peer (w, 1, "hung");
  world_assert_peer (w, 2, "hung");
  ck_assert_int_lt (res->end, DL_H);
  ck_assert_uint_ge (res->retries, 3);
  ck_assert_uint_ge (rec.dropped, 3);
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_connect_failure_recovers_by_retry)
{
  /* Links fail half the time: Retry rebuilds them; with enough retries runs
   * usually complete, and never end in time_limit. */
  guint completed = 0;
  for (uint64_t seed = 1; seed <= 8; seed++)
    {
      WorldSetup s;
      world_setup_none (&s, 3, 2, 1000);
      s.cfg.seed = seed;
      s.cfg.connect_failure = 0.3;
      disco_config_mut (&s.cfg.proto)->max_connection_retry = 10;
      WorldRec rec;
      world_rec_init (&rec);
      SimWorld *w;
      const SimResult *res = world_run (&s, &rec, &w);
      ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT);
      completed += res->outcome == SIM_OUTCOME_COMPLETED;
      sim_world_free (w);
      world_rec_clear (&rec);
      world_setup_clear (&s);
    }
  ck_assert_uint_ge (completed, 1);
}
END_TEST

START_TEST (test_churn_arrivals)
{
  /* Poisson arrivals up to max_peers; sessions end by leave or crash. */
  WorldSetup s;
  world_setup_none (&s, 2, 3, 1000);
  s.cfg.proto.min_participants = 2;
  s.cfg.max_peers = 6;
  s.cfg.arrival_rate_per_s = 1.0 / 20;
  s.cfg.session = (DlDist) { .kind = DL_DIST_EXPONENTIAL, .unit = DL_UNIT_DURATION, .a = 60e9 };
  s.cfg.time_limit = DL_H;
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 6);
  guint gone = 0;
  for (guint i = 3; i <= 6; i++)
    {
      SimPeerOutcome o = sim_world_peer (w, i)->outcome;
      ck_assert (o != SIM_PEER_ABSENT);
      gone += o == SIM_PEER_LEFT || o == SIM_PEER_CRASHED;
    }
  ck_assert_uint_ge (gone, 1);
  ck_assert (res->outcome != SIM_OUTCOME_TIME_LIMIT || res->end == DL_H);
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_stragglers_and_nat)
{
  /* every peer a straggler 10x slower: speeds are 0.1 */
  WorldSetup s;
  world_setup_none (&s, 3, 1, 100);
  s.cfg.straggler_share = 1.0;
  s.cfg.straggler_slowdown = 10;
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  for (guint i = 1; i <= 3; i++)
    ck_assert_double_eq_tol (sim_world_peer (w, i)->speed, 0.1, 1e-12);
  ck_assert_int_ge (res->end, 1000 * DL_MS);   /* 100 samples x 1 ms x 10 */
  world_teardown (w, &rec, &s);
  /* everyone behind symmetric NAT: no link ever comes up */
  world_setup_none (&s, 3, 1, 100);
  s.cfg.nat_symmetric_share = 1.0;
  world_rec_init (&rec);
  res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  ck_assert_uint_eq (res->peers_hung, 3);
  world_teardown (w, &rec, &s);
}
END_TEST

/* What a bandwidth trace test watches: when the watched node first sends
 * a Payload and when one of its Payloads is first received, and the
 * trace's `rate` facts. */
typedef struct {
  ProtoNodeId watch;
  DlTime sent, received;
  GString *rates;
} BwRec;

static void
bw_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  BwRec *r = ud;
  if (o->msg_type != DISCO_MSG_PAYLOAD)
    return;
  if (o->kind == PROTO_OBS_SENT && node == r->watch && r->sent == DL_TIME_NEVER)
    r->sent = t;
  if (o->kind == PROTO_OBS_RECEIVED && o->other == r->watch && r->received == DL_TIME_NEVER)
    r->received = t;
}

static void
bw_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  BwRec *r = ud;
  if (strcmp (kind, "rate") == 0)
    g_string_append_printf (r->rates, "%.3f p%u %s;", t / 1e9, node, detail);
  (void) other;
}

/* A bandwidth trace changes the device: p3's row at 60 s, while it is
 * away (online 0-40 s and from 80 s, trace-leave-and-return's pattern),
 * sets the uplink of its return p4 (a new session, the same device) to
 * 2 Mbit/s instead of the 20 Mbit/s of [network].  p4's first Payload
 * (1 000 025 B of 250 000 floats, 1 045 631 B on the wire: 691 segments of
 * 66 header bytes) takes at least 8 x 1 045 631 / 2 Mbit/s = 4.18 s from
 * its send to its arrival: under fifo its first, under fair both its
 * Payloads share the uplink (8.36 s for both); at 20 Mbit/s it took under
 * 1 s.  peers.uplink_bps keeps the rate before the row (20 Mbit/s).  Loop:
 * sharing = fair, fifo. */
START_TEST (test_bandwidth_trace_follows_the_device)
{
  g_autoptr (GError) e = NULL;
  WorldSetup s;
  world_setup_none (&s, 0, 20, 250000);
  s.cfg.max_peers = 3;
  s.cfg.proto.min_participants = 2;
  s.cfg.sample_cost = 50 * DL_MS;   /* 5 s of training a round: p4 still has rounds to share */
  s.cfg.sharing_fifo = _i == 1;
  s.cfg.trace = sim_trace_parse ("p1,0,\np2,0,\np3,0,40\np3,80,\n", "back.csv", &e);
  const char *csv = "peer,time,uplink,downlink\np3,60,2Mbps,100Mbps\n";
  s.cfg.rates = sim_bwtrace_parse (csv, strlen (csv), "bw.csv", &e);
  ck_assert_msg (s.cfg.trace && s.cfg.rates, "%s", e ? e->message : "");
  BwRec r = { 4, DL_TIME_NEVER, DL_TIME_NEVER, g_string_new (NULL) };
  SimRecorder sr = { bw_obs, bw_fact, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_uint_eq (sim_world_n_nodes (w), 4);
  ck_assert_str_eq (r.rates->str, "60.000 p3 uplink 2Mbps, downlink 100Mbps (bandwidth_trace line 2);");
  ck_assert_msg (r.sent != DL_TIME_NEVER && r.received != DL_TIME_NEVER, "p4 sent no Payload that arrived");
  ck_assert_int_ge (r.sent, 80 * DL_S);
  DlTime took = r.received - r.sent;
  ck_assert_msg (took >= 4180 * DL_MS && took <= 9 * DL_S, "p4's first Payload took %" G_GINT64_FORMAT " ns", took);
  ck_assert_uint_eq (sim_world_peer (w, 4)->uplink_bps, 20000000);
  g_string_free (r.rates, TRUE);
  sim_world_free (w);
  world_setup_clear (&s);
}
END_TEST

/* [network] transport on a 2-peer round: p1's Payload (1 000 025 B, 691
 * segments, 1 045 631 B on the wire) over 100 Mbit/s links, 50 ms one way,
 * on a peer link that has just come up (a new connection), takes from its
 * send to its reception: fluid, its bytes at line rate; tcp, the analytic
 * slow-start time from 10 segments of 1 514 wire bytes, 2 W - 1 segment a
 * round, with a round trip of 100 ms; sctp, the same from RFC 4960's 4 380
 * bytes, 1.5 W a round, and for both the last segment's time on the
 * downlink once more (the switch stores and forwards it); plus the 50 ms
 * latency.  Loop: fluid, tcp, sctp. */
START_TEST (test_transport_slow_start)
{
  g_autoptr (GError) e = NULL;
  WorldSetup s;
  world_setup_none (&s, 2, 1, 250000);
  s.cfg.transport = (SimWireTransport) _i;
  s.cfg.latency = dl_dist_constant (DL_UNIT_DURATION, 50e6);
  s.cfg.server_latency = dl_dist_constant (DL_UNIT_DURATION, 1e6);
  s.cfg.uplink_bps = s.cfg.downlink_bps = 100000000;
  BwRec r = { 1, DL_TIME_NEVER, DL_TIME_NEVER, g_string_new (NULL) };
  SimRecorder sr = { bw_obs, bw_fact, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_msg (r.sent != DL_TIME_NEVER && r.received != DL_TIME_NEVER, "p1 sent no Payload that arrived");
  double c = 100e6 / 8e9, wire = 1045631, seg = 1448 + 66;
  double want = _i == SIM_TRANSPORT_FLUID ? wire / c
                : _i == SIM_TRANSPORT_TCP ? slow_start_bound_ns (wire, c, 100e6, 10 * seg, 2, seg)
                                          : slow_start_bound_ns (wire, c, 100e6, 4380, 1.5, 0);
  want += 50e6 + (_i == SIM_TRANSPORT_FLUID ? 0 : ceil (seg / c));
  DlTime took = r.received - r.sent;
  ck_assert_msg (fabs ((double) took - want) <= 3, "transport %d: %" G_GINT64_FORMAT " ns, want %.0f", _i, took, want);
  g_string_free (r.rates, TRUE);
  sim_world_free (w);
  world_setup_clear (&s);
}
END_TEST

/* p1's Payloads: when each was sent and when each was received */
typedef struct {
  DlTime sent[3], received[3];
  guint n_sent, n_received;
} PayRec;

static void
pay_obs (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  PayRec *r = ud;
  if (o->msg_type != DISCO_MSG_PAYLOAD)
    return;
  if (o->kind == PROTO_OBS_SENT && node == 1 && r->n_sent < 3)
    r->sent[r->n_sent++] = t;
  if (o->kind == PROTO_OBS_RECEIVED && o->other == 1 && r->n_received < 3)
    r->received[r->n_received++] = t;
}

/* A connection idle longer than its retransmission timeout starts again
 * from the initial window; one idle less keeps its window.  Two rounds on
 * the link of test_transport_slow_start (it stays up): round 1's Payload
 * ends with a window of the link's bandwidth-delay product (1.25 MB, more
 * than the Payload).  With 100 ms of training between rounds the link is
 * idle about 154 ms, under its timeout of 300 ms (round trip + 200 ms):
 * round 2's Payload goes at line rate (its bytes at 100 Mbit/s, the
 * stored-and-forwarded segment, the latency).  With 500 ms of training it
 * is idle longer: round 2 starts cold and takes what round 1 took; with
 * [network] slow_start_after_idle = false it keeps its window and goes at
 * line rate, as after the short idle.  Loop: short, long, long without
 * the restart. */
START_TEST (test_transport_idle_restart)
{
  g_autoptr (GError) e = NULL;
  WorldSetup s;
  world_setup_none (&s, 2, 2, 250000);
  s.cfg.transport = SIM_TRANSPORT_TCP;
  s.cfg.latency = dl_dist_constant (DL_UNIT_DURATION, 50e6);
  s.cfg.server_latency = dl_dist_constant (DL_UNIT_DURATION, 1e6);
  s.cfg.uplink_bps = s.cfg.downlink_bps = 100000000;
  s.cfg.sample_cost = _i == 0 ? DL_MS : 5 * DL_MS;   /* 100 samples: 100 or 500 ms */
  s.cfg.slow_start_after_idle = _i != 2;
  PayRec r = { 0 };
  SimRecorder sr = { pay_obs, NULL, NULL, NULL, &r, NULL };
  SimWorld *w = sim_world_new (&s.cfg, &sr, &e);
  ck_assert_msg (w != NULL, "%s", e ? e->message : "");
  sim_world_run (w);
  ck_assert_uint_eq (r.n_sent, 2);
  ck_assert_uint_eq (r.n_received, 2);
  double c = 100e6 / 8e9, wire = 1045631, seg = 1448 + 66;
  DlTime first = r.received[0] - r.sent[0], second = r.received[1] - r.sent[1];
  double cold = slow_start_bound_ns (wire, c, 100e6, 10 * seg, 2, seg) + 50e6 + ceil (seg / c);
  ck_assert_msg (fabs ((double) first - cold) <= 3, "round 1: %" G_GINT64_FORMAT " ns, want %.0f", first, cold);
  double want = _i != 1 ? wire / c + 50e6 + ceil (seg / c) : cold;
  ck_assert_msg (fabs ((double) second - want) <= 3, "round 2 (idle %" G_GINT64_FORMAT " ns): %" G_GINT64_FORMAT " ns, want %.0f",
                 r.sent[1] - r.received[0], second, want);
  sim_world_free (w);
  world_setup_clear (&s);
}
END_TEST

START_TEST (test_partition_isolates_a_peer)
{
  /* p1 is cut off from the coordinator before it connects: its
   * ClientConnected is lost and DISCO never retries it; p2 and p3 train. */
  WorldSetup s;
  world_setup_none (&s, 3, 2, 100);
  s.cfg.proto.min_participants = 2;
  SimAction a = { .kind = SIM_ACT_PARTITION, .at = 0, .groups = g_array_new (FALSE, TRUE, sizeof (guint)) };
  g_array_set_size (a.groups, 4);
  g_array_index (a.groups, guint, 1) = 1;   /* p1 alone; server, p2, p3 in group 0 */
  g_array_append_val (s.cfg.actions, a);
  SimAction h = { .kind = SIM_ACT_HEAL, .at = 10 * DL_S };
  g_array_append_val (s.cfg.actions, h);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  world_assert_peer (w, 1, "hung");
  ck_assert_uint_eq (sim_world_peer (w, 1)->rounds, 0);
  world_assert_peer (w, 2, "finished");
  world_assert_peer (w, 3, "finished");
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_drop_and_delay_actions)
{
  /* drop StartWeightSharing to p2 once: p2 waits in the race, the others
   * wait for its Payload: stalled. */
  WorldSetup s;
  world_setup_none (&s, 3, 2, 100);
  SimAction d = { .kind = SIM_ACT_DROP, .at = 0, .a = 2, .msg_type = DISCO_MSG_START_WEIGHT_SHARING, .count = 1 };
  g_array_append_val (s.cfg.actions, d);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  ck_assert_uint_eq (sim_world_peer (w, 2)->rounds, 0);
  ck_assert_uint_eq (res->retries, 0);
  world_teardown (w, &rec, &s);

  /* delay p1's first ConnectionsReady past T: one timeout, a Retry cycle,
   * then the round completes */
  world_setup_none (&s, 3, 2, 100);
  SimAction y = { .kind = SIM_ACT_DELAY, .at = 0, .a = 1, .msg_type = DISCO_MSG_CONNECTIONS_READY,
                  .count = 1, .delay = 70 * DL_S };
  g_array_append_val (s.cfg.actions, y);
  world_rec_init (&rec);
  res = world_run (&s, &rec, &w);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  ck_assert_uint_eq (res->retries, 1);
  ck_assert_int_ge (res->end, 60 * DL_S);
  ck_assert_uint_eq (sim_world_peer (w, 1)->retries_received, 1);
  world_teardown (w, &rec, &s);
}
END_TEST

START_TEST (test_graceful_close_after_what_was_sent)
{
  /* A WebSocket delivers what was sent before the close frame first: p3's
   * ConnectionsReady, delayed 5 s, still reaches the coordinator before the
   * close of its leave at 2 s, completes the barrier, and the round starts
   * with p3 in it (then S17: p1 and p2 wait for its Payload).  The close is
   * seen after it, with the stream's latency. */
  WorldSetup s;
  world_setup_none (&s, 3, 1, 100);
  s.cfg.proto.min_participants = 2;
  SimAction y = { .kind = SIM_ACT_DELAY, .at = 0, .a = 3, .msg_type = DISCO_MSG_CONNECTIONS_READY,
                  .count = 1, .delay = 5 * DL_S };
  SimAction l = { .kind = SIM_ACT_LEAVE, .at = 2 * DL_S, .a = 3 };
  g_array_append_val (s.cfg.actions, y);
  g_array_append_val (s.cfg.actions, l);
  WorldRec rec;
  world_rec_init (&rec);
  SimWorld *w;
  const SimResult *res = world_run (&s, &rec, &w);
  ck_assert_uint_eq (res->retries, 0);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  world_assert_peer (w, 1, "hung");
  world_assert_peer (w, 3, "left");
  ck_assert_int_ge (rec.first_close, 5 * DL_S);   /* after the delayed ConnectionsReady */
  world_teardown (w, &rec, &s);
}
END_TEST

static const SimResult *
exchange_then_depart (WorldSetup *s, WorldRec *rec, SimWorld **w, SimActionKind kind)
{
  /* 4 MB weights on 8 Mbit/s uplinks: each of p3's two Payloads takes 4 s
   * to leave its uplink; p3 departs 1 s after Start reached it */
  world_setup_none (s, 3, 1, 1000000);
  s->cfg.proto.min_participants = 2;
  s->cfg.uplink_bps = 8000000;
  SimAction a = { .kind = kind, .round = 1, .after = 1 * DL_S, .a = 3 };
  g_array_append_val (s->cfg.actions, a);
  world_rec_init (rec);
  return world_run (s, rec, w);
}

START_TEST (test_crash_loses_unsent_leave_does_not)
{
  WorldSetup s;
  WorldRec rec;
  SimWorld *w;
  /* a graceful leave: the Payloads already handed to the transport go out */
  const SimResult *res = exchange_then_depart (&s, &rec, &w, SIM_ACT_LEAVE);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "completed");
  world_assert_peer (w, 1, "finished");
  world_teardown (w, &rec, &s);
  /* a crash: what had not fully left p3's uplink is lost; p1 and p2 hang */
  res = exchange_then_depart (&s, &rec, &w, SIM_ACT_CRASH);
  ck_assert_str_eq (sim_outcome_name (res->outcome), "stalled");
  world_assert_peer (w, 1, "hung");
  world_assert_peer (w, 2, "hung");
  world_teardown (w, &rec, &s);
}
END_TEST

static Suite *
disco_world_suite (void)
{
  Suite *s = suite_create ("disco-world");
  TCase *tf = tcase_create ("floors");
  tcase_add_test (tf, test_wall_limit_stops_a_run);
  suite_add_tcase (s, tf);
  TCase *tc = tcase_create ("runs");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_three_peers_converge);
  tcase_add_test (tc, test_bandwidth_charges_weights);
  tcase_add_test (tc, test_stall_detected_s08);
  tcase_add_test (tc, test_crash_during_exchange_hangs_s17);
  tcase_add_test (tc, test_connect_failure_recovers_by_retry);
  tcase_add_test (tc, test_churn_arrivals);
  tcase_add_test (tc, test_stragglers_and_nat);
  tcase_add_loop_test (tc, test_transport_slow_start, 0, 3);
  tcase_add_loop_test (tc, test_transport_idle_restart, 0, 3);
  tcase_add_loop_test (tc, test_bandwidth_trace_follows_the_device, 0, 2);
  tcase_add_test (tc, test_partition_isolates_a_peer);
  tcase_add_test (tc, test_drop_and_delay_actions);
  tcase_add_test (tc, test_graceful_close_after_what_was_sent);
  tcase_add_test (tc, test_crash_loses_unsent_leave_does_not);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (disco_world_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
