/* test-testbed-netns.c — testbed/testbed-netns.c without root: the plan
 * of namespaces, veths, tc tbf qdiscs (their rates, bursts and queues,
 * --queue's included) and partition routes, as the commands --netem would
 * run, and the peer ids it refuses. */
#include "config.h"

#include "testbed/testbed-netns.h"

#include <check.h>
#include <string.h>

/* the plan's commands from number from on, one a line */
static char *
plan_text (TestbedNetns *t, guint from)
{
  GPtrArray *p = testbed_netns_plan (t);
  GString *s = g_string_new (NULL);
  for (guint i = from; i < p->len; i++)
    g_string_append_printf (s, "%s\n", (char *) p->pdata[i]);
  return g_string_free (s, FALSE);
}

/* ---------------------------------------------------------------- the namespaces' plan */

START_TEST (test_netns_plan)
{
  g_autoptr (TestbedNetns) t = testbed_netns_new_plan (4242, 120);
  g_autofree char *bridge = plan_text (t, 0);
  ck_assert_str_eq (bridge, "ip link add dlb4242 type bridge\n"
                            "ip addr add 10.120.0.1/16 dev dlb4242\n"
                            "ip link set dlb4242 up\n"
                            "ip route replace 10.120.0.0/16 dev dlb4242 proto kernel scope link src 10.120.0.1 "
                            "congctl cubic\n");
  ck_assert_str_eq (testbed_netns_coordinator_host (t), "10.120.0.1");
  /* p3 at 8 Mbit/s up (1 MB/s: a 16 KiB burst, the floor; 10 s of queue)
   * and 100 Mbit/s down (12.5 MB/s: a tick at HZ 250 is 50 000 bytes) */
  guint n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_add_peer (t, 3, 8000000, 100000000, NULL));
  g_autofree char *p3 = plan_text (t, n);
  ck_assert_str_eq (p3, "ip netns add dlsim-4242-p3\n"
                        "ip link add dlh4242-3 type veth peer name eth0 netns dlsim-4242-p3\n"
                        "ip link set dlh4242-3 master dlb4242 up\n"
                        "ip netns exec dlsim-4242-p3 ip addr add 10.120.0.4/16 dev eth0\n"
                        "ip netns exec dlsim-4242-p3 ip link set eth0 up\n"
                        "ip netns exec dlsim-4242-p3 ip link set lo up\n"
                        "ip -n dlsim-4242-p3 route replace 10.120.0.0/16 dev eth0 proto kernel scope link src "
                        "10.120.0.4 congctl cubic\n"
                        "ip netns exec dlsim-4242-p3 tc qdisc add dev eth0 root tbf rate 8000000bit burst 16384 "
                        "limit 10000000\n"
                        "tc qdisc add dev dlh4242-3 root tbf rate 100000000bit burst 50000 limit 125000000\n");
  /* unshaped: no qdisc; a slow link's queue is at least 1 MiB */
  n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_add_peer (t, 1, 0, 80000, NULL));
  g_autofree char *p1 = plan_text (t, n);
  ck_assert_ptr_null (strstr (p1, "dev eth0 root tbf"));
  ck_assert_ptr_nonnull (strstr (p1, "tc qdisc add dev dlh4242-1 root tbf rate 80000bit burst 16384 limit 1048576\n"));
  g_autofree char *host = testbed_netns_peer_host (t, 300);
  ck_assert_str_eq (host, "10.120.1.45");   /* 301 = 1 * 256 + 45 */
}
END_TEST

/* --queue: each tbf's limit is that long at its rate, at least a frame */
START_TEST (test_netns_queue_plan)
{
  g_autoptr (TestbedNetns) t = testbed_netns_new_plan (4242, 120);
  testbed_netns_set_queue (t, 8 * DL_MS);
  /* 20 Mbit/s (2.5 MB/s: 20 000 bytes in 8 ms) up, 8 Mbit/s (8 000) down */
  guint n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_add_peer (t, 3, 20000000, 8000000, NULL));
  g_autofree char *p3 = plan_text (t, n);
  ck_assert_ptr_nonnull (strstr (p3, "ip netns exec dlsim-4242-p3 tc qdisc add dev eth0 root tbf rate 20000000bit "
                                     "burst 16384 limit 20000\n"));
  ck_assert_ptr_nonnull (strstr (p3, "tc qdisc add dev dlh4242-3 root tbf rate 8000000bit burst 16384 limit 8000\n"));
  /* 80 kbit/s for 1 ms is 10 bytes: the floor, one Ethernet frame */
  testbed_netns_set_queue (t, DL_MS);
  n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_add_peer (t, 1, 80000, 0, NULL));
  g_autofree char *p1 = plan_text (t, n);
  ck_assert_ptr_nonnull (strstr (p1, "tbf rate 80000bit burst 16384 limit 1514\n"));
  /* 100 Gbit/s for 500 000 h is over 2^64 bytes: the ceiling, 1 GiB, not
   * a cast's wrap to the floor */
  testbed_netns_set_queue (t, (DlTime) 500000 * 60 * DL_MIN);
  n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_add_peer (t, 2, 100000000000, 0, NULL));
  g_autofree char *p2 = plan_text (t, n);
  ck_assert_ptr_nonnull (strstr (p2, " limit 1073741824\n"));
}
END_TEST

/* --congestion-control: the bridge's route at once, each later peer's
 * route, and names that are not a word refused before any command */
START_TEST (test_netns_congestion_plan)
{
  g_autoptr (TestbedNetns) t = testbed_netns_new_plan (4242, 120);
  ck_assert_str_eq (testbed_netns_congestion (t), "cubic");
  guint n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_set_congestion (t, "bbr", NULL));
  ck_assert (testbed_netns_add_peer (t, 2, 0, 0, NULL));
  g_autofree char *cmds = plan_text (t, n);
  ck_assert_ptr_nonnull (
      g_str_has_prefix (cmds, "ip route replace 10.120.0.0/16 dev dlb4242 proto kernel scope link src 10.120.0.1 "
                              "congctl bbr\n") ? cmds : NULL);
  ck_assert_ptr_nonnull (strstr (cmds, "ip -n dlsim-4242-p2 route replace 10.120.0.0/16 dev eth0 proto kernel "
                                       "scope link src 10.120.0.3 congctl bbr\n"));
  ck_assert_str_eq (testbed_netns_congestion (t), "bbr");
  const char *bad[] = { "", "cubic dev lo", "cubic;reboot", "a_name_of_16_chr" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      n = testbed_netns_plan (t)->len;
      ck_assert (!testbed_netns_set_congestion (t, bad[i], &e));
      ck_assert (g_str_has_prefix (e->message, "--netem: congestion control '"));
      ck_assert_uint_eq (testbed_netns_plan (t)->len, n);
      ck_assert_str_eq (testbed_netns_congestion (t), "bbr");
    }
  /* the kernel's list: a name it has not is refused, naming the file */
  g_autoptr (GError) e = NULL;
  ck_assert (!testbed_netns_check_congestion ("no_such_cc", &e));
  ck_assert_ptr_nonnull (strstr (e->message, TESTBED_NETNS_AVAILABLE_CC));
}
END_TEST

START_TEST (test_netns_refuses_ids)
{
  g_autoptr (TestbedNetns) t = testbed_netns_new_plan (4242, 120);
  guint n = testbed_netns_plan (t)->len;
  g_autoptr (GError) e0 = NULL, e1 = NULL;
  ck_assert (!testbed_netns_add_peer (t, 0, 0, 0, &e0));
  ck_assert_str_eq (e0->message, "--netem: peer ids go up to p9999 (p0)");
  /* dlhPID-N must fit an interface name */
  ck_assert (!testbed_netns_add_peer (t, 10000, 0, 0, &e1));
  ck_assert_str_eq (e1->message, "--netem: peer ids go up to p9999 (p10000)");
  ck_assert_uint_eq (testbed_netns_plan (t)->len, n);
  ck_assert (testbed_netns_add_peer (t, 9999, 0, 0, NULL));
}
END_TEST

/* The routes that cut p2 (10.120.0.3) off the server (.1) and p1 (.2),
 * added or deleted (verb), in the order the plan makes them. */
static char *
cut_p2 (const char *verb)
{
  return g_strdup_printf ("ip route %s blackhole 10.120.0.3/32\n"
                          "ip -n dlsim-4242-p1 route %s blackhole 10.120.0.3/32\n"
                          "ip -n dlsim-4242-p2 route %s blackhole 10.120.0.1/32\n"
                          "ip -n dlsim-4242-p2 route %s blackhole 10.120.0.2/32\n", verb, verb, verb, verb);
}

START_TEST (test_netns_partition_plan)
{
  g_autoptr (TestbedNetns) t = testbed_netns_new_plan (4242, 120);
  ck_assert (testbed_netns_add_peer (t, 1, 0, 0, NULL));
  ck_assert (testbed_netns_add_peer (t, 2, 0, 0, NULL));
  /* server and p1 | p2 (p3 has no namespace: left out) */
  g_autoptr (GArray) groups = g_array_new (FALSE, FALSE, sizeof (guint));
  guint g[] = { 0, 0, 1, 1 };
  g_array_append_vals (groups, g, 4);
  guint n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_partition (t, groups, 3, NULL));
  g_autofree char *routes = plan_text (t, n);
  g_autofree char *added = cut_p2 ("add"), *removed = cut_p2 ("del");
  ck_assert_str_eq (routes, added);
  n = testbed_netns_plan (t)->len;
  testbed_netns_heal (t);
  g_autofree char *healed = plan_text (t, n);
  ck_assert_str_eq (healed, removed);
  /* healed twice: nothing left to remove */
  n = testbed_netns_plan (t)->len;
  testbed_netns_heal (t);
  ck_assert_uint_eq (testbed_netns_plan (t)->len, n);
  /* a new partition replaces the old: p2 alone beyond the array's end
   * joins the server's group */
  ck_assert (testbed_netns_partition (t, groups, 3, NULL));
  g_array_set_size (groups, 2);
  g_array_index (groups, guint, 1) = 5;   /* p1 alone */
  n = testbed_netns_plan (t)->len;
  ck_assert (testbed_netns_partition (t, groups, 3, NULL));
  g_autofree char *again = plan_text (t, n);
  g_autofree char *want = g_strconcat (removed,
                           "ip route add blackhole 10.120.0.2/32\n"
                           "ip -n dlsim-4242-p1 route add blackhole 10.120.0.1/32\n"
                           "ip -n dlsim-4242-p1 route add blackhole 10.120.0.3/32\n"
                           "ip -n dlsim-4242-p2 route add blackhole 10.120.0.2/32\n", NULL);
  ck_assert_str_eq (again, want);
}
END_TEST

static Suite *
netns_suite (void)
{
  Suite *s = suite_create ("testbed-netns");
  TCase *ns = tcase_create ("netns");
  tcase_add_test (ns, test_netns_plan);
  tcase_add_test (ns, test_netns_queue_plan);
  tcase_add_test (ns, test_netns_congestion_plan);
  tcase_add_test (ns, test_netns_refuses_ids);
  tcase_add_test (ns, test_netns_partition_plan);
  suite_add_tcase (s, ns);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (netns_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
