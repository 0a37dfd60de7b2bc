/* test-sync.c — DISCO's model sync for late joiners (protocol/disco/
 * disco-peer-sync.c and the coordinator's provider choice): the latest
 * model reaches a newcomer, a provider mid-round serves after its round, a
 * provider that leaves is replaced (and DISCO's failure S10 in the draft),
 * a sync without a provider times out, the coordinator's reset when
 * everyone left, and disco-775's newcomer that trains from the initial
 * model.  Time is hand-held (proto-harness.c). */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "learn/learn-weights.h"
#include "protocol/disco/disco-msgs.h"

#include <check.h>
#include <string.h>

/* p1, p2 (min 2) train round 0; returns with both training round 1. */
static Harness *
two_after_round0 (DiscoVersion v, guint n_peers)
{
  ProtoConfig c = h_cfg (v, 2, 5);
  Harness *h = h_pair_training (&c, n_peers);
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_settle (h);
  assert_state (h, 1, DISCO_PEER_TRAINING);
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[1]), 1);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);
  return h;
}

START_TEST (test_sync_late_joiner_gets_latest_model)
{
  Harness *h = two_after_round0 (DISCO_VERSION_1110, 3);
  ProtoNodeId provider = disco_coord_provider (h->coord);
  ck_assert (provider == 1 || provider == 2);
  /* the provider is the first ConnectionsReady sender */
  ck_assert_uint_eq (h_count_log (h, "provider-chosen"), 1);
  h_start (h, 3);
  h_settle (h);
  ck_assert (disco_peer_synced (h->peers[3]));
  assert_state (h, 3, DISCO_PEER_TRAINING);
  ck_assert (learn_weights_equal (proto_machine_model (h->m[3]),
                                  disco_peer_latest_model (h->peers[provider])));
  ck_assert_uint_eq (h_count_log (h, "sync-served"), 1);
  ck_assert (!disco_coord_is_syncing (h->coord, 3));
  h_free (h);
}
END_TEST

START_TEST (test_sync_provider_waits_for_round_aggregate)
{
  /* SignalNewPeer reaches the provider between Start and the end of its round:
   * it serves that round's aggregate, not the previous one. */
  Harness *h = two_after_round0 (DISCO_VERSION_1110, 3);
  g_autoptr (LearnWeights) round0 = learn_weights_ref (disco_peer_latest_model (h->peers[1]));
  h_finish_training (h, 1);
  h_finish_training (h, 2);
  h_hold (h, DISCO_MSG_START_WEIGHT_SHARING, PROTO_SERVER);
  h_settle (h);
  ck_assert_uint_eq (h_queued (h, DISCO_MSG_START_WEIGHT_SHARING, PROTO_NO_NODE), 2);
  ProtoNodeId p = disco_coord_provider (h->coord), other = p == 1 ? 2 : 1;
  ck_assert (h_deliver_one (h, DISCO_MSG_START_WEIGHT_SHARING, p));
  assert_state (h, p, DISCO_PEER_EXCHANGING);
  h_hold (h, DISCO_MSG_PAYLOAD, p);   /* keep the round open */
  h_start (h, 3);
  h_settle (h);
  ck_assert (!disco_peer_synced (h->peers[3]));
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_MODEL);
  ck_assert_uint_eq (h_count_log (h, "sync-served"), 0);   /* waiting for the round */
  h_unhold (h);
  ck_assert (h_deliver_one (h, DISCO_MSG_START_WEIGHT_SHARING, other));
  h_settle (h);
  ck_assert (disco_peer_synced (h->peers[3]));
  ck_assert_uint_eq (proto_machine_rounds_done (h->m[p]), 2);
  ck_assert (learn_weights_equal (proto_machine_model (h->m[3]), disco_peer_latest_model (h->peers[p])));
  ck_assert (!learn_weights_equal (proto_machine_model (h->m[3]), round0));
  h_free (h);
}
END_TEST

/* Provider leaves while a newcomer is syncing: disco-1110 picks the first
 * connected non-syncing node; disco-1110-draft the first map entry, which
 * after the delete is the syncing newcomer itself (S10). */
static Harness *
provider_leaves (DiscoVersion v)
{
  Harness *h = two_after_round0 (v, 3);
  /* make p1 the provider and the first connection */
  ck_assert_uint_eq (disco_coord_provider (h->coord), 1);
  h_hold (h, PROTO_MSG_SYNC_REQUEST, 3);
  h_start (h, 3);
  h_settle (h);
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_PROVIDER);
  h_leave (h, 1);
  h_unhold (h);
  h_settle (h);
  return h;
}

START_TEST (test_sync_provider_replaced_1110)
{
  Harness *h = provider_leaves (DISCO_VERSION_1110);
  ck_assert_uint_eq (disco_coord_provider (h->coord), 2);
  ck_assert (disco_peer_synced (h->peers[3]));
  h_free (h);
}
END_TEST

START_TEST (test_s10_draft_replacement_is_the_syncing_newcomer)
{
  Harness *h = provider_leaves (DISCO_VERSION_1110_DRAFT);
  ck_assert_uint_eq (disco_coord_provider (h->coord), 3);
  assert_state (h, 3, DISCO_PEER_FAILED);
  ck_assert (strstr (proto_machine_base (h->m[3])->error, "contains our id") != NULL);
  ck_assert_uint_eq (h_count_log (h, "provider-replaced node=3"), 1);
  ck_assert (!disco_peer_synced (h->peers[3]));
  h_free (h);
}
END_TEST

START_TEST (test_sync_no_provider_times_out)
{
  /* S11: all non-syncing peers leave while a newcomer syncs: no provider;
   * the request is ignored and the newcomer fails after model_sync_timeout. */
  Harness *h = two_after_round0 (DISCO_VERSION_1110, 3);
  h_hold (h, PROTO_MSG_SYNC_REQUEST, 3);
  h_start (h, 3);
  h_settle (h);
  h_leave (h, 2);
  h_leave (h, 1);
  ck_assert_uint_eq (disco_coord_provider (h->coord), PROTO_NO_NODE);
  ck_assert_uint_eq (disco_coord_round (h->coord), 1);   /* no reset: 3 is still connected */
  h_unhold (h);
  h_settle (h);
  ck_assert_uint_eq (h_count_log (h, "There is no provider node"), 1);
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_PROVIDER);
  h_advance (h, h->cfg.model_sync_timeout - 1);
  assert_state (h, 3, DISCO_PEER_SYNC_WAIT_PROVIDER);
  h_advance (h, 1);
  assert_state (h, 3, DISCO_PEER_FAILED);
  ck_assert (strstr (proto_machine_base (h->m[3])->error, "SignalModelProvider") != NULL);
  h_free (h);
}
END_TEST

START_TEST (test_775_late_joiner_trains_from_initial_model)
{
  /* disco-775 has no model sync: a late joiner starts from the initial model
   * (S3 at the protocol level). */
  Harness *h = two_after_round0 (DISCO_VERSION_775, 3);
  h_start (h, 3);
  h_settle (h);
  assert_state (h, 3, DISCO_PEER_TRAINING);
  ck_assert (!disco_peer_synced (h->peers[3]));
  ck_assert_uint_eq (h_count_log (h, "ModelSyncRequest"), 0);
  const float *w = learn_weights_data (proto_machine_model (h->m[3]));
  for (int k = 0; k < 4; k++)
    ck_assert_float_eq (w[k], 0.0f);
  ck_assert (!learn_weights_equal (proto_machine_model (h->m[3]), disco_peer_latest_model (h->peers[1])));
  h_free (h);
}
END_TEST

START_TEST (test_reset_after_everyone_leaves)
{
  /* S25 / DISCO's e2e: after everyone left, two new peers train with no sync. */
  Harness *h = two_after_round0 (DISCO_VERSION_1110, 4);
  h_leave (h, 1);
  h_leave (h, 2);
  ck_assert_uint_eq (disco_coord_round (h->coord), 0);
  h->auto_train = TRUE;
  h_start (h, 3);
  h_start (h, 4);
  h_settle (h);
  for (guint i = 3; i <= 4; i++)
    {
      assert_state (h, i, DISCO_PEER_DONE);
      ck_assert (!disco_peer_synced (h->peers[i]));
    }
  ck_assert (learn_weights_equal (proto_machine_model (h->m[3]), proto_machine_model (h->m[4])));
  ck_assert_uint_eq (h_count_log (h, "sync-started"), 0);
  h_free (h);
}
END_TEST

static Suite *
sync_suite (void)
{
  Suite *s = suite_create ("sync");
  TCase *tc = tcase_create ("sync");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_sync_late_joiner_gets_latest_model);
  tcase_add_test (tc, test_sync_provider_waits_for_round_aggregate);
  tcase_add_test (tc, test_sync_provider_replaced_1110);
  tcase_add_test (tc, test_sync_no_provider_times_out);
  tcase_add_test (tc, test_reset_after_everyone_leaves);
  tcase_add_test (tc, test_775_late_joiner_trains_from_initial_model);
  suite_add_tcase (s, tc);
  tc = tcase_create ("failures");
  tcase_add_test (tc, test_s10_draft_replacement_is_the_syncing_newcomer);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sync_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
