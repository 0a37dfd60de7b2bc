/* test-disco-shared.c — DISCO's cases of the shared layers' tests, moved
 * here so that tests/ builds and passes without protocol/disco/
 * (tools/family-diff disco): the loader's checks of DISCO's keys
 * (tests/test-scenario.c: any family's), the fault targets explore
 * always drew from DISCO's list (tests/test-explore.c), DISCO's counters
 * in the summary (tests/test-results.c) and the frames fuzz of DISCO
 * at its robust version (tests/test-frame.c, bench/fuzz-frames.c). */
#include "config.h"

#include "bench/fuzz-frames.h"
#include "results/res-query.h"
#include "scenario/sim-scenario.h"
#include "protocol/disco/disco-config.h"
#include "protocol/proto-machine.h"
#include "tests/family-harness.h"
#include "tests/plan-check.h"

#include <check.h>
#include <string.h>

/* ---------------------------------------------------------------- keys */

/* the registry, NULL-terminated */
static const ProtoFamily *const *
families (void)
{
  static const ProtoFamily *f[32];
  for (guint i = 0; proto_family_at (i) && i + 1 < G_N_ELEMENTS (f); i++)
    f[i] = proto_family_at (i);
  return f;
}

/* DISCO's waits at their largest, at its robust version, with its most
 * retries: its stall window and its coordinator's wait do not overflow */
START_TEST (test_disco_largest_values)
{
  SimBuilt b;
  fh_build_largest (proto_family_lookup ("disco"), "version = robust\nmax_connection_retry = 1000\n"
                                                   "straggler_timeout = 1000h\n", &b);
  ck_assert_int_gt (disco_wait_timeout (&b.cfg.proto), 0);
  sim_built_clear (&b);
}
END_TEST

/* DISCO's values that passed the loader and then overflowed a product:
 * refused, naming the file, the section and the key, and the range */
static const struct {
  const char *text, *where, *range;
} out_of_range[] = {
  { "[protocol]\nversion = robust\npeer_connection_timeout = 1281024h\n", "[protocol] peer_connection_timeout",
    "from 0 to 1000h" },
  { "[protocol]\nmax_connection_retry = 2147483647\n", "[protocol] max_connection_retry", "from 0 to 1000" },
};

START_TEST (test_disco_out_of_range)
{
  fh_assert_refused (out_of_range[_i].text, out_of_range[_i].where, out_of_range[_i].range);
}
END_TEST

/* A key of protocol/'s straggler group (proto-keys.c), which DISCO takes
 * and others, and a key DISCO alone declares. */
START_TEST (test_disco_key_families)
{
  ck_assert (g_str_has_prefix (sim_scenario_key_family ("protocol.straggler_policy"), "disco or "));
  ck_assert_str_eq (sim_scenario_key_family ("protocol.max_connection_retry"), "disco");
}
END_TEST

static const ProtoKey retry_rows[] = {
  { "protocol", "max_connection_retry", "3", PROTO_KEY_UINT, "DISCO's key declared again" },
};
static const ProtoFamilyKeys retry_keys = { .rows = retry_rows, .n_rows = G_N_ELEMENTS (retry_rows) };
static const char *const bad_refused[] = { "protocol.max_connection_retry", NULL };
static const ProtoFamilyKeys refuses_family_key = { .refused = bad_refused };

/* The check finds DISCO's key declared again by a family after it, and
 * a family refusing it (it is not common). */
START_TEST (test_disco_keys_check_finds_faults)
{
  const ProtoFamily again = { .name = "again", .keys = &retry_keys };
  const ProtoFamily refuser = { .name = "refuser", .keys = &refuses_family_key };
  const ProtoFamily *const *reg = families ();
  guint n = 0;
  while (reg[n])
    n++;
  const ProtoFamily *fake[] = { &again, &refuser };
  const char *want[] = { "protocol.max_connection_retry is declared twice",
                         "refuser refuses protocol.max_connection_retry" };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      const ProtoFamily *list[34] = { NULL };
      memcpy (list, reg, n * sizeof *list);
      list[n] = fake[k];
      g_autoptr (GError) e = NULL;
      ck_assert (!sim_scenario_keys_check (list, &e));
      ck_assert_msg (strstr (e->message, want[k]) != NULL, "%s", e->message);
    }
}
END_TEST

/* the index of "section.key" in the key table, or -1 */
static gint
table_index (const char *section, const char *key)
{
  g_autofree char *full = g_strdup_printf ("%s.%s", section, key);
  const char *const *t = sim_scenario_key_table ();
  for (guint i = 0; t[i]; i += 3)
    if (strcmp (t[i], full) == 0)
      return (gint) (i / 3);
  return -1;
}

/* A group a family places among its rows (PROTO_KEY_GROUP_HERE) is listed
 * there, between the own rows around the place, when that family is the
 * first of the registry to take it (DISCO alone places one). */
START_TEST (test_group_listed_in_its_place)
{
  guint placed = 0;
  for (guint f = 0; proto_family_at (f); f++)
    {
      const ProtoFamilyKeys *k = proto_family_at (f)->keys;
      for (guint j = 0; k && j < k->n_rows; j++)
        {
          const ProtoKeyGroup *g = k->rows[j].group;
          gboolean first = g != NULL;
          for (guint e = 0; first && e < f; e++)
            for (guint i = 0; proto_family_at (e)->keys && proto_family_at (e)->keys->groups
                              && proto_family_at (e)->keys->groups[i]; i++)
              first = first && proto_family_at (e)->keys->groups[i] != g;
          if (!first)
            continue;
          gint at = table_index (g->rows[0].section, g->rows[0].key);
          if (j > 0 && !k->rows[j - 1].group)
            ck_assert_int_eq (table_index (k->rows[j - 1].section, k->rows[j - 1].key), at - 1);
          if (j + 1 < k->n_rows && !k->rows[j + 1].group)
            ck_assert_int_eq (table_index (k->rows[j + 1].section, k->rows[j + 1].key), at + (gint) g->n_rows);
          placed++;
        }
    }
  ck_assert_uint_gt (placed, 0);
}
END_TEST

/* ---------------------------------------------------------------- explore */

START_TEST (test_disco_fault_targets)
{
  /* DISCO's list is the one explore always drew from, in its order: the
   * same seed draws the same plans, and found files stay reproducible */
  static const char *const disco[] = {
    "PeersForRound to", "StartWeightSharing to", "RetryPeerConnections to", "ConnectionFail to", "Payload to",
    "Payload from", "PeerIsReady from", "ConnectionsReady from", "SignalForPeer to", "EnoughParticipants to",
    "WaitingForMoreParticipants to", "JoinRound from", "NewNodeInfo to", "SharedModel to", "SignalModelProvider to",
  };
  const ProtoMsgFamily *d = proto_msg_family_named ("disco");
  ck_assert_uint_eq (proto_msg_family_n_fault_targets (d), G_N_ELEMENTS (disco));
  for (guint k = 0; k < G_N_ELEMENTS (disco); k++)
    {
      const char *type, *dir;
      proto_msg_family_fault_target (d, k, &type, &dir);
      g_autofree char *got = g_strdup_printf ("%s %s", type, dir);
      ck_assert_str_eq (got, disco[k]);
    }
}
END_TEST

/* DISCO's explore-base.ini draws plans of DISCO's targets only */
START_TEST (test_disco_plans)
{
  ck_assert_uint_gt (plan_check_family ("scenarios/examples/explore-base.ini", "disco", NULL), 20);
}
END_TEST

static void
cov_dropped (FhCov *v, const char *name)
{
  ProtoMsgType t;
  ck_assert (proto_msg_type_from_name (name, &t));
  g_hash_table_add (v->s.dropped, (gpointer) proto_msg_type_name (t));
}

static gboolean
has_word (const char *list, const char *word)
{
  g_auto (GStrv) w = g_strsplit (list, ", ", -1);
  return g_strv_contains ((const char *const *) w, word);
}

START_TEST (test_disco_coverage_types)
{
  /* DISCO's coverage lists DISCO's types, gossip's its own and the DISCO
   * signalling it speaks (its fault targets), never another family's */
  FhCov v;
  fh_cov_init (&v, "disco");
  cov_dropped (&v, "Payload");
  fh_cov_add (v.s.states, "training");
  explore_coverage (&v.s, &v.sp, &v.c);
  ck_assert (!has_word (v.c.dropped_never, "Payload"));
  ck_assert (has_word (v.c.dropped_never, "PeersForRound"));
  ck_assert_msg (!has_word (v.c.dropped_never, "GossipTargets") && !has_word (v.c.dropped_never, "FedHello")
                   && !has_word (v.c.dropped_never, "Guest"), "%s", v.c.dropped_never);
  ck_assert_uint_eq (v.c.n_states, v.sp.family->n_peer_states);
  ck_assert_uint_eq (v.c.states_reached, 1);
  ck_assert_str_eq (v.c.states_seen, "-");
  fh_cov_clear (&v);
  /* DISCO's list is its own types and the session layer's, by type byte,
   * as when they were all DISCO's: explore's coverage lines stay */
  fh_cov_init (&v, "disco");
  explore_coverage (&v.s, &v.sp, &v.c);
  ck_assert_str_eq (v.c.dropped_never,
                    "ClientConnected, NewNodeInfo, JoinRound, PeerIsReady, PeersForRound, ConnectionsReady, "
                    "StartWeightSharing, RetryPeerConnections, ConnectionFail, WaitingForMoreParticipants, "
                    "EnoughParticipants, SignalForPeer, ModelSyncRequest, SignalModelProvider, SignalNewPeer, "
                    "SharedModel, Payload, RoundStaleness");
  fh_cov_clear (&v);
}
END_TEST

/* ---------------------------------------------------------------- results */

/* DISCO declares its three counters (the summary's keys, in its order;
 * each one's tally and place in the summary: tests/test-results.c, for
 * whichever family declares it) and the registry lists them */
START_TEST (test_disco_counters)
{
  static const char *const names[] = { "stale_model_syncs", "empty_rounds_started", "smallest_round_list" };
  const ProtoFamily *d = proto_family_lookup ("disco");
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      ck_assert_str_eq (d->counters[k].name, names[k]);
      ck_assert_ptr_eq (proto_counter_lookup (names[k]), &d->counters[k]);
    }
  ck_assert_ptr_null (d->counters[G_N_ELEMENTS (names)].name);
}
END_TEST

/* ---------------------------------------------------------------- frames */

/* the frames fuzz (tests/test-frame.c: every family at its defaults)
 * with DISCO at its robust version too: hostile messages into its
 * coordinator and peer end no run (a g_return_if_fail ends the test) */
START_TEST (test_disco_fuzz_robust)
{
  BenchFuzzStats st;
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_ERROR);
  ck_assert (bench_fuzz_frames_with (10000, 1, "[protocol]\nfamily = disco\nversion = robust\n", &st));
  ck_assert_uint_eq (st.inputs, 10000);
  ck_assert_uint_gt (st.hostile_fed, 3000);
}
END_TEST

/* ---------------------------------------------------------------- main */

static Suite *
disco_shared_suite (void)
{
  Suite *s = suite_create ("disco-shared");
  TCase *tc = tcase_create ("keys");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_disco_largest_values);
  tcase_add_loop_test (tc, test_disco_out_of_range, 0, G_N_ELEMENTS (out_of_range));
  tcase_add_test (tc, test_disco_key_families);
  tcase_add_test (tc, test_disco_keys_check_finds_faults);
  tcase_add_test (tc, test_group_listed_in_its_place);
  suite_add_tcase (s, tc);
  TCase *ex = tcase_create ("explore");
  tcase_set_timeout (ex, 60);
  tcase_add_test (ex, test_disco_fault_targets);
  tcase_add_test (ex, test_disco_plans);
  tcase_add_test (ex, test_disco_coverage_types);
  suite_add_tcase (s, ex);
  TCase *re = tcase_create ("results and frames");
  tcase_set_timeout (re, 120);
  tcase_add_test (re, test_disco_counters);
  tcase_add_test (re, test_disco_fuzz_robust);
  suite_add_tcase (s, re);
  return s;
}

int
main (void)
{
  /* a GLib warning or critical from the loader is a failure */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  res_init ();
  SRunner *sr = srunner_create (disco_shared_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
