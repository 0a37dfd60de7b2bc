/* test-sim-flows.c — tests/test-sim's flows suite: the flows' max-min
 * sharing (sim/sim-flows.c) against hand-worked cases, capacities that
 * change mid-flow (the closed form of docs/world.md), cancels, the order
 * of ties and of a resource's flows, the incremental solve against a
 * solve from scratch (with and without windows), and a naive re-solve of
 * everything at every event.  Flows with windows against their analytic
 * bounds are test-sim-windows.c's. */
#include "config.h"

#include "sim/sim-flows.h"
#include "base/dl-random.h"
#include "tests/test-sim.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* One flow alone takes bytes / rate, rounded up to the ns. */
START_TEST (test_flows_alone)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 20 * MBPS);
  sim_flows_set_capacity (f, 1, 100 * MBPS);
  sim_flows_add (f, 5, 0, 1, 4000025, 0);
  DlTime done[1] = { 0 };
  flows_drain (f, 5, done, 1);
  /* 4 000 025 bytes at 20 Mbit/s: 1.60001 s */
  ck_assert_int_eq (done[0], 5 + 1600010000);
}
END_TEST

/* Max-min, worked by hand: A up1->down1, B up1->down2, C up2->down2;
 * up1 10 MB/s, down1 1 MB/s, up2 and down2 100 MB/s.  down1 holds A to
 * 1 MB/s, B takes the 9 MB/s up1 has left, C the 91 MB/s down2 has left;
 * when B is done (9 MB at 1 s) C gets all 100 MB/s. */
START_TEST (test_flows_max_min_by_hand)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 80 * MBPS);    /* up1 */
  sim_flows_set_capacity (f, 1, 8 * MBPS);     /* down1 */
  sim_flows_set_capacity (f, 2, 800 * MBPS);   /* up2 */
  sim_flows_set_capacity (f, 3, 800 * MBPS);   /* down2 */
  sim_flows_add (f, 0, 0, 1, 2000000, 0);      /* A: 2 MB at 1 MB/s: 2 s */
  sim_flows_add (f, 0, 0, 3, 9000000, 1);      /* B: 9 MB at 9 MB/s: 1 s */
  sim_flows_add (f, 0, 2, 3, 182000000, 2);    /* C: 91 MB in 1 s, 91 MB at 100 MB/s: 1.91 s */
  DlTime done[3] = { 0 };
  flows_drain (f, 0, done, 3);
  ck_assert_int_le (llabs (done[0] - 2 * DL_S), 2);
  ck_assert_int_le (llabs (done[1] - DL_S), 2);
  ck_assert_int_le (llabs (done[2] - 1910 * DL_MS), 2);
}
END_TEST

/* Two flows on one uplink: the short one ends at twice its time alone,
 * then the long one has the whole link (processor sharing). */
START_TEST (test_flows_share_then_speed_up)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 8 * MBPS);     /* 1 MB/s */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 3000000, 1);
  DlTime done[2] = { 0 };
  flows_drain (f, 0, done, 2);
  ck_assert_int_le (llabs (done[0] - 2 * DL_S), 2);
  ck_assert_int_le (llabs (done[1] - 4 * DL_S), 2);
}
END_TEST

/* A capacity that changes mid-flow (a bandwidth trace): the flow keeps what
 * it sent at the old rate and sends the rest at the new one.  The analytic
 * bound for one transfer of B bytes whose rate goes from R1 to R2 at t0
 * (B > R1 t0 / 8) is closed-form: T = t0 + (8 B - R1 t0) / R2.  4 MB at
 * 62.5 Mbit/s, 7.8125 Mbit/s (8x less) from 0.2 s: 12.5 Mbit sent by then,
 * 19.5 Mbit left take 2.496 s: T = 2.696 s.  The other way, 7.8125 then
 * 62.5 Mbit/s from 2 s: 15.625 Mbit sent, 16.375 Mbit left take 0.262 s:
 * T = 2.262 s.  (The rates are 2^-7 and 2^-10 bytes per ns, exact in a
 * double: the solver's arithmetic gives the hand's ns.) */
START_TEST (test_flows_capacity_change_one_flow)
{
  static const struct { uint64_t r1, r2; DlTime t0, want; } cases[] = {
    { 62500000, 7812500, 200 * DL_MS, 2696 * DL_MS },
    { 7812500, 62500000, 2 * DL_S, 2262 * DL_MS },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (SimFlows) f = sim_flows_new ();
      sim_flows_set_capacity (f, 0, cases[i].r1);
      sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 0);
      DlTime done[1] = { 0 };
      flows_run (f, 0, 0, cases[i].t0, cases[i].r2, done, 1);
      double t0_s = (double) cases[i].t0 / 1e9;
      double closed_form = t0_s + (8 * 4e6 - (double) cases[i].r1 * t0_s) / (double) cases[i].r2;
      ck_assert_int_eq (done[0], cases[i].want);
      ck_assert_int_eq (done[0], (DlTime) llround (closed_form * 1e9));
    }
}
END_TEST

/* Two flows sharing one uplink whose capacity drops 8x mid-flow: A (1 MB)
 * and B (4 MB) have 31.25 Mbit/s each; at 0.2 s each has sent 781 250 B,
 * then 3.90625 Mbit/s each: A's 218 750 B left take 0.448 s (A done at
 * 0.648 s), by when B has sent as much again; B's 3 000 000 B left, alone
 * at 7.8125 Mbit/s, take 3.072 s: B done at 3.72 s.  (The uplink never
 * idles: 5 MB = 1.5625 MB at 62.5 Mbit/s in 0.2 s and 3.4375 MB at
 * 7.8125 Mbit/s in 3.52 s.)  A flow on another uplink keeps its rate. */
START_TEST (test_flows_capacity_change_two_flows)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 62500000);
  sim_flows_set_capacity (f, 1, 62500000);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);   /* A */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 1);   /* B */
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 5000000, 2);   /* C, elsewhere: 0.64 s */
  DlTime done[3] = { 0 };
  flows_run (f, 0, 0, 200 * DL_MS, 7812500, done, 3);
  ck_assert_int_eq (done[0], 648 * DL_MS);
  ck_assert_int_eq (done[1], 3720 * DL_MS);
  ck_assert_int_eq (done[2], 640 * DL_MS);
}
END_TEST

/* A crashed sender's uplink: its flows end at once and the receiver's
 * downlink goes to the flow left.  A: up1->down1 and B: up1->down2 (up1
 * 8 MB/s), C: up2->down1; down1 is 2 MB/s, so A and C get 1 MB/s, B 7.
 * At 1 s up1 is cancelled: A and B end there, C has 2 MB/s for its 3 MB
 * left (4 MB): done at 2.5 s.  Then a flow that reuses A's or B's record
 * must not be taken for a stale heap entry: D up2->down2, 2 MB from 1 s. */
START_TEST (test_flows_cancel_frees_the_receiver)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 64 * MBPS);    /* up1 */
  sim_flows_set_capacity (f, 1, 16 * MBPS);    /* down1 */
  sim_flows_set_capacity (f, 2, 64 * MBPS);    /* up2 */
  sim_flows_set_capacity (f, 3, 64 * MBPS);    /* down2 */
  sim_flows_add (f, 0, 0, 1, 100000000, 0);    /* A */
  sim_flows_add (f, 0, 0, 3, 100000000, 1);    /* B */
  sim_flows_add (f, 0, 2, 1, 4000000, 2);      /* C */
  sim_flows_update (f, 0);
  ck_assert_int_le (llabs (sim_flows_next (f) - 4 * DL_S), 2);   /* C alone would end at 4 s */
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 2);
  ck_assert_uint_eq (users->len, 2);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 0);
  ck_assert_uint_eq (g_array_index (users, guint64, 1), 1);
  ck_assert_uint_eq (sim_flows_count (f), 1);
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 0);   /* nothing left on up1 */
  sim_flows_add (f, DL_S, 2, 3, 2000000, 3);   /* D, in a freed record */
  DlTime done[4] = { 0 };
  flows_drain (f, DL_S, done, 4);
  ck_assert_int_eq (done[0], 0);
  ck_assert_int_eq (done[1], 0);
  /* C: 1 MB by 1 s, then up2 shared with D: C is held to 2 MB/s by
   * down1, D gets the 6 MB/s up2 has left: D done at 1 s + 2/6 s, C at
   * 1 s + 3/2 s */
  ck_assert_int_le (llabs (done[2] - 2500 * DL_MS), 2);
  ck_assert_int_le (llabs (done[3] - (DL_S + DL_S / 3)), 2);
}
END_TEST

/* Ties at one completion go by the order of adding across the seq
 * counter's wrap at 2^32: the flows added before it (with their heap
 * entries) are renumbered below the ones added after, so four flows
 * ending at one instant come out in the order they were added. */
START_TEST (test_flows_seq_wrap)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 4; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  _sim_flows_set_next_seq (f, (guint64) G_MAXUINT32 - 1);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 0);   /* seq 2^32 - 2 */
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 1000000, 1);   /* seq 2^32 - 1 */
  sim_flows_update (f, 0);                               /* (their heap entries) */
  sim_flows_add (f, 0, 2, SIM_FLOWS_NONE, 1000000, 2);   /* at the wrap */
  sim_flows_add (f, 0, 3, SIM_FLOWS_NONE, 1000000, 3);
  sim_flows_update (f, 0);
  g_autoptr (GString) why = g_string_new (NULL);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  ck_assert_int_eq (sim_flows_next (f), DL_S);
  guint64 u = G_MAXUINT64;
  for (guint64 want = 0; want < 4; want++)
    {
      ck_assert (sim_flows_pop (f, DL_S, &u));
      ck_assert_uint_eq (u, want);
    }
  ck_assert (!sim_flows_pop (f, DL_S, &u) && sim_flows_count (f) == 0);
}
END_TEST

/* Flows that end at one instant come out in the order they were added,
 * whatever order the solve reaches them in (the tie of
 * sim-flows-heap.c, sorted before its first is taken).  Four senders
 * (0-3) to four receivers (4-7), added receiver by receiver (users 0-15),
 * each at a quarter of its sender: the solve settles them sender by
 * sender.  Sender 1's flows are cancelled (stale keys in the tie); a new
 * flow at the same end takes the record of one of them (user 17: its
 * old key must not stand for it); user 16 ends earlier, on its own. */
START_TEST (test_flows_tie_in_order)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 10; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  sim_flows_set_capacity (f, 10, 2 * MBPS);
  sim_flows_set_capacity (f, 11, 8 * MBPS);
  for (guint32 rcv = 4; rcv < 8; rcv++)
    for (guint32 snd = 0; snd < 4; snd++)
      sim_flows_add (f, 0, snd, rcv, 250000, (rcv - 4) * 4 + snd);   /* 1 s */
  sim_flows_add (f, 0, 8, 9, 500000, 16);                               /* 0.5 s */
  sim_flows_update (f, 0);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 1, users), 4);
  sim_flows_add (f, 0, 10, 11, 250000, 17);                             /* 1 s, alone */
  sim_flows_update (f, 0);
  g_autoptr (GString) why = g_string_new (NULL);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  static const guint64 want[] = { 16, 0, 2, 3, 4, 6, 7, 8, 10, 11, 12, 14, 15, 17 };
  guint64 u;
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      DlTime t = sim_flows_next (f);
      ck_assert_int_eq (t, i == 0 ? DL_S / 2 : DL_S);
      ck_assert (sim_flows_pop (f, t, &u));
      ck_assert_uint_eq (u, want[i]);
    }
  ck_assert (!sim_flows_pop (f, 2 * DL_S, &u) && sim_flows_count (f) == 0);
}
END_TEST

/* A tie outnumbered by the entries of another time gives way (its
 * flows go to the heap): six flows end at 1 s (users 0-5, the tie),
 * then seven at 0.5 s (users 6-12: the seventh outvotes the tie and
 * takes its place, the first six went to the heap); each time's flows
 * come out in the order they were added, the earlier time first. */
START_TEST (test_flows_tie_outvoted)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 13; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  for (guint32 u = 0; u < 6; u++)
    sim_flows_add (f, 0, u, SIM_FLOWS_NONE, 1000000, u);   /* 1 s */
  sim_flows_update (f, 0);
  for (guint32 u = 6; u < 13; u++)
    sim_flows_add (f, 0, u, SIM_FLOWS_NONE, 500000, u);    /* 0.5 s */
  sim_flows_update (f, 0);
  guint64 u;
  for (guint64 want = 0; want < 13; want++)
    {
      DlTime t = sim_flows_next (f);
      ck_assert_int_eq (t, want < 7 ? DL_S / 2 : DL_S);
      ck_assert (sim_flows_pop (f, t, &u));
      ck_assert_uint_eq (u, want < 7 ? want + 6 : want - 7);
    }
  ck_assert (!sim_flows_pop (f, 2 * DL_S, &u) && sim_flows_count (f) == 0);
}
END_TEST

static int
key_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The tie's in-place sort against GLib's, on ascending runs (as the
 * solve appends a tie), on random keys and on keys alike, at every
 * depth from heapsort alone (0) to quicksort all the way. */
START_TEST (test_flows_sort_keys)
{
  g_autoptr (DlRandom) rng = dl_random_new (5 + (guint64) _i, "sort", 0);
  static const guint depths[] = { 0, 1, 3, 64 };
  for (guint n = 0; n < 600; n += 1 + n / 4)
    for (guint d = 0; d < G_N_ELEMENTS (depths); d++)
      {
        g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (guint64));
        guint runs = 1 + (guint) dl_random_below (rng, 40), len = n / runs + 1;
        for (guint i = 0; i < n; i++)
          {
            guint64 k = _i == 0 ? (guint64) (i % len) * runs + i / len   /* runs */
                        : _i == 1 ? dl_random_below (rng, 1u << 30) << 32 | i   /* random */
                        : dl_random_below (rng, 4);                         /* alike */
            g_array_append_val (a, k);
          }
        g_autoptr (GArray) want = g_array_copy (a);
        g_array_sort (want, key_cmp);
        _sim_flows_sort_keys ((guint64 *) (void *) a->data, a->len, depths[d]);
        /* n = 0 leaves a->data NULL: memcmp's arguments must not be */
        if (n > 0)
          ck_assert_int_eq (memcmp (a->data, want->data, n * sizeof (guint64)), 0);
        ck_assert_uint_eq (a->len, n);
      }
}
END_TEST

/* A cancelled flow's entry in the completion heap stays stale when its
 * record is reused: the new flow, not solved yet, never completes in its
 * place. */
START_TEST (test_flows_cancel_then_reuse)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  sim_flows_set_capacity (f, 0, 8 * MBPS);
  sim_flows_set_capacity (f, 1, 8 * MBPS);
  sim_flows_add (f, 0, 1, SIM_FLOWS_NONE, 500000, 0);    /* 0.5 s: the heap's top */
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 1000000, 1);   /* 1 s: below it */
  sim_flows_update (f, 0);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), 1);
  ck_assert_uint_eq (g_array_index (users, guint64, 0), 1);
  sim_flows_add (f, 0, 0, SIM_FLOWS_NONE, 4000000, 2);   /* in flow 1's freed record */
  /* before the next update only flow 0 can complete, at 0.5 s */
  guint64 u;
  ck_assert (sim_flows_pop (f, 2 * DL_S, &u));
  ck_assert_uint_eq (u, 0);
  ck_assert (!sim_flows_pop (f, 2 * DL_S, &u));
  DlTime done[3] = { 0 };
  flows_drain (f, 500 * DL_MS, done, 3);
  ck_assert_int_le (llabs (done[2] - 4500 * DL_MS), 2);
}
END_TEST

/* A resource's flows stay in the order they were added (the order of
 * every sum over them) through the holes flows leave and the compaction
 * of those holes: cancel hands them back in that order.  Users 0-11 on
 * resource 0, each to a receiver of its own; 7 of them end early (the
 * holes outnumber the flows: compacted), then 12-14 join and 13 ends
 * (a hole again). */
START_TEST (test_flows_order_through_holes)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  for (guint32 r = 0; r <= 15; r++)
    sim_flows_set_capacity (f, r, 64 * MBPS);
  static const gboolean small[15] = { 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0 };
  for (guint64 u = 0; u < 12; u++)
    sim_flows_add (f, 0, 0, (guint32) u + 1, small[u] ? 1000 : 100000000, u);
  sim_flows_update (f, 0);
  guint64 u;
  for (int n = 0; n < 7; n++)
    ck_assert (sim_flows_pop (f, 100 * DL_MS, &u) && small[u]);
  sim_flows_update (f, 100 * DL_MS);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  for (u = 12; u < 15; u++)
    sim_flows_add (f, 100 * DL_MS, 0, (guint32) u + 1, small[u] ? 1000 : 100000000, u);
  sim_flows_update (f, 100 * DL_MS);
  ck_assert (sim_flows_pop (f, 200 * DL_MS, &u));
  ck_assert_uint_eq (u, 13);
  sim_flows_update (f, 200 * DL_MS);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  static const guint64 want[] = { 2, 5, 7, 9, 11, 12, 14 };
  ck_assert_uint_eq (sim_flows_cancel (f, 0, users), G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    ck_assert_uint_eq (g_array_index (users, guint64, i), want[i]);
  ck_assert_uint_eq (sim_flows_count (f), 0);
}
END_TEST

/* A change re-solves only its component: flows on other resources keep
 * their rates and are not visited. */
START_TEST (test_flows_only_the_component)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint32 r = 0; r < 6; r++)
    sim_flows_set_capacity (f, r, 8 * MBPS);
  for (guint i = 0; i < 10; i++)
    sim_flows_add (f, 0, 0, 1, 1000000, i);   /* component {0, 1} */
  sim_flows_update (f, 0);
  guint64 before = sim_flows_solved (f);
  ck_assert_uint_eq (before, 10);
  sim_flows_add (f, 10, 2, 3, 1000000, 10);   /* component {2, 3} */
  sim_flows_add (f, 10, 4, SIM_FLOWS_NONE, 1000000, 11);
  sim_flows_update (f, 10);
  ck_assert_uint_eq (sim_flows_solved (f) - before, 2);
  DlTime done[12] = { 0 };
  flows_drain (f, 10, done, 12);
  /* ten flows of 1 MB at 0.1 MB/s each: 10 s; the others alone: 1 s */
  ck_assert_int_le (llabs (done[0] - 10 * DL_S), 2);
  ck_assert_int_le (llabs (done[10] - (DL_S + 10)), 2);
}
END_TEST

/* A change re-solves only the resources it can move: ten uplinks of
 * 1 Mbit/s, each sending to two of ten downlinks of 1 Gbit/s (i to i and
 * i + 1), which none of them fills: one component.  One more flow from
 * the first uplink halves that uplink's share; what the other uplinks
 * send does not move, and only the three flows whose rates move count
 * (a solve of the component computes all 21). */
START_TEST (test_flows_only_what_moves)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  for (guint32 r = 0; r < 10; r++)
    {
      sim_flows_set_capacity (f, r, 1 * MBPS);
      sim_flows_set_capacity (f, 10 + r, 1000 * MBPS);
    }
  for (guint32 r = 0; r < 10; r++)
    {
      sim_flows_add (f, 0, r, 10 + r, 125000, 2 * r);             /* 2 s at half the uplink */
      sim_flows_add (f, 0, r, 10 + (r + 1) % 10, 125000, 2 * r + 1);
    }
  sim_flows_update (f, 0);
  guint64 before = sim_flows_solved (f);
  ck_assert_uint_eq (before, 20);
  sim_flows_add (f, DL_S, 0, 10, 62500, 20);
  sim_flows_update (f, DL_S);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  /* uplink 0's three flows: the others into downlinks 10 and 11 are
   * looked at, but their rates do not move */
  ck_assert_uint_eq (sim_flows_solved (f) - before, 3);
  DlTime done[21] = { 0 };
  flows_drain (f, DL_S, done, 21);
  ck_assert_int_eq (done[2], 2 * DL_S);
  ck_assert_int_le (llabs (done[0] - 5 * DL_S / 2), 2);   /* half its bytes left, a third of 1 Mbit/s */
}
END_TEST

/* The incremental solve with windows visits only the flows whose rates
 * can move (moved_next), and those take the rates a solve from scratch
 * gives (sim_flows_check).  Round trips of 1 s (weight 1); F up0 ->
 * down2, G up0 -> down3, H up1 -> down2, 0.5 MB/s each (up0 and down2
 * tie at 0.5 MB/s: up0, the lower id, first).  Then up0 grows to
 * 1.25 MB/s: down2 is re-computed, as up0 came before it, and saturates
 * at its last key, 0.5 MB/s, while up0's key moves to 0.75; F and G, up0's,
 * are settled (G's rate moves), H, down2's only, is not.  Then K, up1 ->
 * down4, starts capped by its window far under both: up1 and down4 are
 * dirty but saturate neither before nor after, so H is not visited
 * again, and K is (it is fresh). */
START_TEST (test_flows_unmoved_not_visited)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  static const guint64 caps[] = { 8 * MBPS, 800 * MBPS, 8 * MBPS, 800 * MBPS, 800 * MBPS };
  for (guint32 r = 0; r < G_N_ELEMENTS (caps); r++)
    sim_flows_set_capacity (f, r, caps[r]);
  SimFlowsWindow big = { .rtt_ns = DL_S, .cwnd_bytes = 100000000 }, small = { .rtt_ns = DL_S, .cwnd_bytes = 10000 };
  sim_flows_add_window (f, 0, 0, 2, 10000000, 0, &big);   /* F */
  sim_flows_add_window (f, 0, 0, 3, 10000000, 1, &big);   /* G */
  sim_flows_add_window (f, 0, 1, 2, 10000000, 2, &big);   /* H */
  sim_flows_update (f, 0);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  guint64 before = sim_flows_solved (f);
  sim_flows_set_capacity (f, 0, 10 * MBPS);
  sim_flows_update (f, DL_S);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  ck_assert_uint_eq (sim_flows_solved (f) - before, 2);   /* F and G */
  before = sim_flows_solved (f);
  sim_flows_add_window (f, 2 * DL_S, 1, 4, 15000, 3, &small);   /* K: 10 kB/s */
  sim_flows_update (f, 2 * DL_S);
  ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
  ck_assert_uint_eq (sim_flows_solved (f) - before, 1);   /* K */
  DlTime done[4] = { 0 };
  flows_drain (f, 2 * DL_S, done, 4);
  /* F and H at 0.5 MB/s throughout; G 0.5 MB in the first second, then
   * 9.5 MB at 0.75 MB/s; K 10 kB in its first round trip, then (it
   * fits in its window) 5 kB at what up1 has left, 99.5 MB/s */
  ck_assert_int_le (llabs (done[0] - 20 * DL_S), 2);
  ck_assert_int_le (llabs (done[2] - 20 * DL_S), 2);
  ck_assert_int_le (llabs (done[1] - (DL_S + 38 * DL_S / 3)), 2);
  ck_assert_int_le (llabs (done[3] - (3 * DL_S + 50252)), 2);
}
END_TEST

/* A flow's completion depends only on its own rates: A (up1 -> down1,
 * held to down1's 1 Mbit/s, 1.25e-4 bytes per ns, not exact in a double)
 * shares up1 with B (up1 -> down2); short flows from up2 into down2 start
 * and end at odd instants, moving B's rate, never A's (up1 is never
 * full).  A ends where its first solve put it, t0 + bytes / rate rounded
 * up to the ns, however many times its component is solved again.  Loop
 * 1 adds a flow with a window elsewhere, so that every update solves the
 * components whole: the same holds there. */
START_TEST (test_flows_unmoved_keeps_its_end)
{
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  sim_flows_set_capacity (f, 0, 80 * MBPS);   /* up1 */
  sim_flows_set_capacity (f, 1, 1 * MBPS);    /* down1 */
  sim_flows_set_capacity (f, 2, 80 * MBPS);   /* up2 */
  sim_flows_set_capacity (f, 3, 16 * MBPS);   /* down2 */
  sim_flows_set_capacity (f, 4, 1 * MBPS);
  const guint64 bytes = 999991;   /* (a recount's rounding moves its ceiling now and then) */
  sim_flows_add (f, 0, 0, 1, bytes, 0);            /* A */
  sim_flows_add (f, 0, 0, 3, 100000000, 1);        /* B: 50 s at least */
  if (_i == 1)
    {
      SimFlowsWindow w = { .rtt_ns = 10 * DL_MS, .cwnd_bytes = 1000000000 };
      sim_flows_add_window (f, 0, 4, SIM_FLOWS_NONE, 10000000, 2, &w);   /* 80 s, never ramping */
    }
  sim_flows_update (f, 0);
  const DlTime want = (DlTime) ceil ((double) bytes / ((double) (1 * MBPS) / 8e9));
  DlTime now = 0, done[3 + 40] = { 0 };
  for (guint k = 0; k < 40; k++)
    {
      now += 20 * DL_MS + 123457 * (DlTime) k + 7;   /* (all before A's end, 8 s) */
      sim_flows_add (f, now, 2, 3, 1000 + 777 * k, 3 + k);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
      DlTime t = sim_flows_next (f);
      ck_assert_int_lt (t, want);   /* (the short flow ends first) */
      now = t;
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        done[u] = now;
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
      ck_assert_int_eq (sim_flows_next (f), want);   /* (A is next: B and the window's flow end later) */
    }
  ck_assert_int_lt (now, want);
  flows_drain (f, now, done, G_N_ELEMENTS (done));
  ck_assert_int_eq (done[0], want);
}
END_TEST

/* The incremental solve against a solve from scratch (sim_flows_check
 * compares every rate, bit for bit): gossip-like traffic, a few flows
 * starting and ending at each instant between 24 senders and 24
 * receivers, capacities from a few values (ties between resources at one
 * share), now and then a capacity changed, or a sender's flows cancelled.
 * Loops 8 to 11 give every resource the same capacity, so that most keys
 * tie and resources are ordered by index alone (slot_kept's test of a
 * moved resource's new key, sim-flows-solve.c, is caught here without
 * windows). */
START_TEST (test_flows_incremental_against_scratch)
{
  g_autoptr (DlRandom) rng = dl_random_new (991 + (guint64) _i, "flows-incr", 0);
  enum { NPEER = 24, STEPS = 400 };
  static const guint64 caps[] = { 4 * MBPS, 8 * MBPS, 10 * MBPS, 24 * MBPS, 100 * MBPS };
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint ncaps = _i >= 8 ? 1 : G_N_ELEMENTS (caps);
  for (guint32 r = 0; r < 2 * NPEER; r++)
    sim_flows_set_capacity (f, r, caps[dl_random_below (rng, ncaps)]);
  DlTime now = 0;
  guint64 user = 0, added = 0;
  for (guint step = 0; step < STEPS; step++)
    {
      DlTime next = sim_flows_next (f);
      now = next != DL_TIME_NEVER && dl_random_below (rng, 2) ? next : now + (DlTime) dl_random_below (rng, 50 * DL_MS);
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        ;
      for (guint n = dl_random_below (rng, 4); n > 0; n--, added++)
        {
          guint32 up = 2 * dl_random_below (rng, NPEER), down = 2 * dl_random_below (rng, NPEER) + 1;
          guint32 a = dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : up;
          guint32 b = a != SIM_FLOWS_NONE && dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : down;
          sim_flows_add (f, now, a, b, 10000 + dl_random_below (rng, 400000), user++);
        }
      if (dl_random_below (rng, 8) == 0)
        sim_flows_set_capacity (f, dl_random_below (rng, 2 * NPEER), caps[dl_random_below (rng, ncaps)]);
      if (dl_random_below (rng, 40) == 0)
        sim_flows_cancel (f, 2 * dl_random_below (rng, NPEER), users);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "step %u: %s", step, why->str);
    }
  ck_assert_uint_gt (added, STEPS);
}
END_TEST

/* The incremental solve with windows (sim-flows.c, incr_windowed): a
 * random sequence of starts, ends, window growths, capacity changes and
 * cancels, most flows in slow start (100 to 400 000 bytes from windows
 * of 14 480: some fit in their first), one round trip for all (loop 1:
 * HyStart, growth x 2 - 1448; loop 2: a fifth of the flows without a
 * window; loop 3: 80 ms instead of 40 into 4 of the 24 receivers, so that
 * some resources mix round trips), every rate and key checked bit for
 * bit against a solve from scratch after each update; and the solves
 * re-computed fewer flows than whole ones would have (each update's flows
 * in flight). */
START_TEST (test_flows_incremental_windows)
{
  g_autoptr (DlRandom) rng = dl_random_new (4401 + (guint64) _i, "flows-incr-win", 0);
  enum { NPEER = 24, STEPS = 600 };
  static const guint64 caps[] = { 4 * MBPS, 8 * MBPS, 10 * MBPS, 24 * MBPS, 100 * MBPS };
  g_autoptr (SimFlows) f = sim_flows_new ();
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GArray) users = g_array_new (FALSE, FALSE, sizeof (guint64));
  SimFlowsWindow win = { 40 * DL_MS, 14480, 2, _i == 1 ? 1448 : 0, _i == 1 ? 1448 : 0 };
  SimFlowsWindow win2 = { 80 * DL_MS, 14480, 2, 0, 0 };
  for (guint32 r = 0; r < 2 * NPEER; r++)
    sim_flows_set_capacity (f, r, caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
  DlTime now = 0;
  guint64 user = 0, in_flight = 0;
  for (guint step = 0; step < STEPS; step++)
    {
      DlTime next = sim_flows_next (f);
      now = next != DL_TIME_NEVER && dl_random_below (rng, 3) ? next : now + (DlTime) dl_random_below (rng, 30 * DL_MS);
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        ;
      for (guint n = dl_random_below (rng, 3); n > 0; n--)
        {
          guint32 up = 2 * dl_random_below (rng, NPEER), down = 2 * dl_random_below (rng, NPEER) + 1;
          guint32 a = dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : up;
          guint32 b = a != SIM_FLOWS_NONE && dl_random_below (rng, 10) == 0 ? SIM_FLOWS_NONE : down;
          gboolean fluid = _i == 2 && dl_random_below (rng, 5) == 0;
          gboolean other = _i == 3 && down < 8;
          sim_flows_add_window (f, now, a, b, 100 + dl_random_below (rng, 400000), user++,
                                fluid ? NULL : other ? &win2 : &win);
        }
      if (dl_random_below (rng, 10) == 0)
        sim_flows_set_capacity (f, dl_random_below (rng, 2 * NPEER), caps[dl_random_below (rng, G_N_ELEMENTS (caps))]);
      if (dl_random_below (rng, 60) == 0)
        sim_flows_cancel (f, 2 * dl_random_below (rng, NPEER), users);
      in_flight += sim_flows_count (f);
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "step %u: %s", step, why->str);
    }
  ck_assert_uint_gt (user, STEPS / 2);
  ck_assert_uint_lt (sim_flows_solved (f), in_flight / 2);
}
END_TEST

/* The naive model: every flow's max-min rate re-solved from scratch at
 * every event (progressive filling over all resources, scanning for the
 * smallest share), in doubles. */
typedef struct {
  double start, bytes, rem, rate, done;
  int res[2];
} NaiveFlow;

static void
naive_rates (NaiveFlow *fl, guint n, double now, const double *cap, guint nres)
{
  g_autofree double *left = g_new (double, nres);
  g_autofree guint *cnt = g_new0 (guint, nres);
  g_autofree gboolean *fixed = g_new0 (gboolean, n);
  memcpy (left, cap, nres * sizeof (double));
  guint unfixed = 0;
  for (guint i = 0; i < n; i++)
    if (fl[i].start <= now && fl[i].done < 0)
      {
        unfixed++;
        for (int k = 0; k < 2; k++)
          if (fl[i].res[k] >= 0)
            cnt[fl[i].res[k]]++;
      }
    else
      fixed[i] = TRUE;
  while (unfixed)
    {
      int best = -1;
      for (guint r = 0; r < nres; r++)
        if (cnt[r] && (best < 0 || left[r] / cnt[r] < left[best] / cnt[best]))
          best = (int) r;
      double share = left[best] / cnt[best];
      for (guint i = 0; i < n; i++)
        if (!fixed[i] && (fl[i].res[0] == best || fl[i].res[1] == best))
          {
            fixed[i] = TRUE;
            unfixed--;
            fl[i].rate = share;
            for (int k = 0; k < 2; k++)
              if (fl[i].res[k] >= 0)
                {
                  left[fl[i].res[k]] -= share;
                  cnt[fl[i].res[k]]--;
                }
          }
    }
}

/* Runs flows fl[0..n) through dlsim's SimFlows f, as sim-net.c drives
 * them (starts and pops at each instant, one update), checking f after
 * each update; done[i]: when flow i ended. */
static void
drive_flows (SimFlows *f, NaiveFlow *fl, guint n, DlTime *done)
{
  g_autoptr (GString) why = g_string_new (NULL);
  DlTime now = 0;
  guint added = 0, finished = 0;
  while (finished < n)
    {
      DlTime next_add = DL_TIME_NEVER;
      for (guint i = 0; i < n; i++)
        if (fl[i].done == -1 && (DlTime) fl[i].start < next_add)
          next_add = (DlTime) fl[i].start;
      DlTime t = MIN (next_add, sim_flows_next (f));
      ck_assert_int_ne (t, DL_TIME_NEVER);
      now = t;
      guint64 u;
      while (sim_flows_pop (f, now, &u))
        {
          done[u] = now;
          finished++;
        }
      for (guint i = 0; i < n; i++)
        if ((DlTime) fl[i].start == now && fl[i].done == -1)
          {
            sim_flows_add (f, now, fl[i].res[0] < 0 ? SIM_FLOWS_NONE : (guint32) fl[i].res[0],
                           fl[i].res[1] < 0 ? SIM_FLOWS_NONE : (guint32) fl[i].res[1], (guint64) fl[i].bytes, i);
            fl[i].done = -2;   /* added */
            added++;
          }
      sim_flows_update (f, now);
      ck_assert_msg (sim_flows_check (f, why), "%s", why->str);
    }
  ck_assert_uint_eq (added, n);
}

/* The same flows in the naive model (naive_rates at each event): fl[i].done. */
static void
naive_run (NaiveFlow *fl, guint n, const double *cap, guint nres)
{
  for (guint i = 0; i < n; i++)
    fl[i].done = -1;
  double tn = 0;
  guint left = n;
  while (left)
    {
      naive_rates (fl, n, tn, cap, nres);
      double next = INFINITY;
      for (guint i = 0; i < n; i++)
        if (fl[i].done < 0)
          next = MIN (next, fl[i].start > tn ? fl[i].start : tn + fl[i].rem / fl[i].rate);
      for (guint i = 0; i < n; i++)
        if (fl[i].done < 0 && fl[i].start <= tn)
          {
            fl[i].rem -= fl[i].rate * (next - tn);
            if (fl[i].rem <= 1e-6 * fl[i].bytes)
              {
                fl[i].done = next;
                left--;
              }
          }
      tn = next;
    }
}

START_TEST (test_flows_against_naive)
{
  g_autoptr (DlRandom) rng = dl_random_new (77 + (guint64) _i, "flows", 0);
  enum { NRES = 16, NFLOWS = 120 };
  double cap[NRES];
  g_autoptr (SimFlows) f = sim_flows_new ();
  for (guint r = 0; r < NRES; r++)
    {
      guint64 bps = (1 + dl_random_below (rng, 100)) * MBPS;
      sim_flows_set_capacity (f, r, bps);
      cap[r] = (double) bps / 8e9;
    }
  NaiveFlow fl[NFLOWS];
  for (guint i = 0; i < NFLOWS; i++)
    {
      /* starts in batches (ties at one instant), senders 0..7, receivers 8..15,
       * a fifth of them to or from the unlimited coordinator */
      fl[i].start = (double) (dl_random_below (rng, 12) * 250 * DL_MS);
      fl[i].bytes = fl[i].rem = (double) (1000 + dl_random_below (rng, 2000000));
      fl[i].res[0] = dl_random_below (rng, 5) == 0 ? -1 : (int) dl_random_below (rng, 8);
      fl[i].res[1] = fl[i].res[0] >= 0 && dl_random_below (rng, 4) == 0 ? -1 : 8 + (int) dl_random_below (rng, 8);
      fl[i].done = -1;
    }
  DlTime done[NFLOWS];
  drive_flows (f, fl, NFLOWS, done);
  naive_run (fl, NFLOWS, cap, NRES);
  for (guint i = 0; i < NFLOWS; i++)
    ck_assert_msg (fabs ((double) done[i] - fl[i].done) <= 1e-6 * fl[i].done + 1000,
                   "flow %u: %" G_GINT64_FORMAT " ns, naive %.0f ns", i, done[i], fl[i].done);
}
END_TEST

Suite *
test_sim_flows_suite (void)
{
  Suite *s = suite_create ("sim-flows");
  TCase *tf = tcase_create ("flows");
  tcase_add_test (tf, test_flows_alone);
  tcase_add_test (tf, test_flows_max_min_by_hand);
  tcase_add_test (tf, test_flows_share_then_speed_up);
  tcase_add_test (tf, test_flows_capacity_change_one_flow);
  tcase_add_test (tf, test_flows_capacity_change_two_flows);
  tcase_add_test (tf, test_flows_only_the_component);
  tcase_add_test (tf, test_flows_only_what_moves);
  tcase_add_test (tf, test_flows_unmoved_not_visited);
  tcase_add_loop_test (tf, test_flows_unmoved_keeps_its_end, 0, 2);
  tcase_add_loop_test (tf, test_flows_incremental_against_scratch, 0, 12);
  tcase_add_loop_test (tf, test_flows_incremental_windows, 0, 4);
  tcase_add_test (tf, test_flows_cancel_frees_the_receiver);
  tcase_add_test (tf, test_flows_cancel_then_reuse);
  tcase_add_test (tf, test_flows_seq_wrap);
  tcase_add_test (tf, test_flows_tie_in_order);
  tcase_add_test (tf, test_flows_tie_outvoted);
  tcase_add_loop_test (tf, test_flows_sort_keys, 0, 3);
  tcase_add_test (tf, test_flows_order_through_holes);
  tcase_add_loop_test (tf, test_flows_against_naive, 0, 8);
  suite_add_tcase (s, tf);
  return s;
}
