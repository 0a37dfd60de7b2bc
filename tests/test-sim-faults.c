/* test-sim-faults.c — the timeline's link faults driven through the
 * world: a `link-slow pA pB by D` action (sim/sim-churn.c) makes each
 * setup of the pair's link (sim/sim-net-links.c) take D longer while it holds,
 * and no other pair's; `heal all` lifts it, for a link set up again and
 * for one made before its second peer existed (in the world's table);
 * the delay waits in the world's link_slow map, flagged in the link
 * record, and a record taken again does not inherit it.  The world is
 * built but not run (as tests/test-net-body.c): its timed actions are
 * scheduled as a run schedules them (sim_churn_start, with no initial
 * peers), and a script of the test's own events brings peers online and
 * opens, connects and closes links, while the test takes the link-up
 * inputs in place of the machines (SimWorldCallbacks). */
#include "config.h"

#include "sim/sim-world-private.h"
#include "tests/world-harness.h"

#include <check.h>
#include <string.h>

#define SETUP (200 * DL_MS)   /* [network] link_setup's default */
#define SLOW (5 * DL_S)       /* the link-slow actions' D */
#define MAX_UPS 16

typedef enum { OP_ONLINE, OP_CONNECT, OP_CLOSE, OP_GIVE_BACK } StepOp;

/* one of the test's events: at `at`, op on the pair (a, b) (OP_ONLINE: a) */
typedef struct {
  DlTime at;
  StepOp op;
  ProtoNodeId a, b;
} Step;

/* a link that came up: its pair (a < b) and when */
typedef struct {
  ProtoNodeId a, b;
  DlTime at;
} Up;

typedef struct {
  Up ups[MAX_UPS];
  guint n_ups;
  const Link *given;   /* OP_GIVE_BACK's record */
  guint retaken;       /* OP_CONNECTs whose link is that record */
} Tap;

static Tap tap;

static void
tap_peer (SimWorld *w, Node *n, const ProtoInput *in)
{
  /* ev_link_up tells the lower id first; one row per link that came up */
  if (in->kind != PROTO_IN_LINK_UP || n->id > in->from)
    return;
  ck_assert_uint_lt (tap.n_ups, MAX_UPS);
  tap.ups[tap.n_ups++] = (Up) { n->id, in->from, sim_engine_now (w->engine) };
}

static void
tap_server (SimWorld *w, guint k, const ProtoInput *in)
{
  (void) w, (void) k, (void) in;
}

static const SimWorldCallbacks tap_cb = { .dispatch_peer = tap_peer, .dispatch_server = tap_server };

/* The world forgets the pair's link and gives its record back to the
 * slab, as a world that freed links would: the next link made takes it. */
static void
give_back (SimWorld *w, ProtoNodeId a, ProtoNodeId b)
{
  guint32 ref = dl_id_map_steal32 (&sim_node_at (w, a)->links, b);
  ck_assert_uint_ne (ref, 0);
  ck_assert_uint_eq (dl_id_map_steal32 (&sim_node_at (w, b)->links, a), ref);
  Link *l = sim_link_at (w, ref);
  tap.given = l;
  dl_slab_give_index (&w->link_slab, l, ref - 1);
}

static void
ev_step (SimEngine *e, void *ctx, uint64_t arg)
{
  SimWorld *w = ctx;
  const Step *st = (const Step *) (uintptr_t) arg;
  Link *l;
  switch (st->op)
    {
    case OP_ONLINE:
      sim_ensure_node (w, st->a)->status = NODE_ONLINE;
      break;
    case OP_CONNECT:
      /* both ends hold a link object (the transport's open_link), then
       * the setup starts */
      l = sim_link_get (w, st->a, st->b, TRUE);
      sim_link_set_obj (l, sim_link_side (st->a, st->b), TRUE);
      sim_link_set_obj (l, sim_link_side (st->b, st->a), TRUE);
      if (l == tap.given)
        tap.retaken++;
      sim_net_connect_link (w, st->a, st->b);
      break;
    case OP_CLOSE:
      sim_net_close_link (w, st->a, st->b, FALSE);
      sim_net_close_link (w, st->b, st->a, FALSE);
      break;
    case OP_GIVE_BACK:
      give_back (w, st->a, st->b);
      break;
    }
  (void) e;
}

static SimAction
link_slow (DlTime at, ProtoNodeId a, ProtoNodeId b)
{
  return (SimAction) { .kind = SIM_ACT_LINK_SLOW, .at = at, .a = a, .b = b, .delay = SLOW };
}

static SimAction
heal_all_at (DlTime at)
{
  return (SimAction) { .kind = SIM_ACT_HEAL_ALL, .at = at };
}

/* A world of no initial peers with these timeline actions, run with the
 * test's steps to its end; the links that came up are in tap.  The
 * caller frees it (world_teardown). */
static SimWorld *
run_script (WorldSetup *s, WorldRec *rec, const SimAction *acts, guint n_acts, const Step *steps,
            guint n_steps)
{
  world_setup_none (s, 0, 1, 1000);
  s->cfg.proto.min_participants = 1;
  ck_assert_int_eq (s->cfg.link_setup, SETUP);
  for (guint i = 0; i < n_acts; i++)
    g_array_append_val (s->cfg.actions, acts[i]);
  world_rec_init (rec);
  SimWorld *w = world_build (s, rec);
  w->cb = &tap_cb;
  memset (&tap, 0, sizeof tap);
  /* the actions first, as in a run: one at a step's instant comes first */
  sim_churn_start (w);
  for (guint i = 0; i < n_steps; i++)
    sim_engine_schedule_at (w->engine, steps[i].at, ev_step, w, (uint64_t) (uintptr_t) &steps[i]);
  ck_assert_int_eq (sim_engine_run_until (w->engine, DL_TIME_NEVER), SIM_RUN_EMPTY);
  return w;
}

/* the links that came up are these, in this order */
static void
assert_ups (const Up *want, guint n)
{
  for (guint i = 0; i < MAX (n, tap.n_ups); i++)
    {
      char got[64] = "nothing", exp[64] = "nothing";
      if (i < tap.n_ups)
        g_snprintf (got, sizeof got, "p%u-p%u at %" G_GINT64_FORMAT " ms", tap.ups[i].a, tap.ups[i].b,
                    (gint64) (tap.ups[i].at / DL_MS));
      if (i < n)
        g_snprintf (exp, sizeof exp, "p%u-p%u at %" G_GINT64_FORMAT " ms", want[i].a, want[i].b,
                    (gint64) (want[i].at / DL_MS));
      ck_assert_msg (i < n && i < tap.n_ups && tap.ups[i].a == want[i].a && tap.ups[i].b == want[i].b
                         && tap.ups[i].at == want[i].at,
                     "link-up %u: %s, expected %s", i + 1, got, exp);
    }
}

/* While a link-slow action holds, every setup of the pair's link takes D
 * longer, a second one too (docs/user-guide.md: "their links take D
 * longer to come up"); a setup before the action and another pair's are
 * at the usual pace. */
START_TEST (test_link_slow_while_set)
{
  const SimAction acts[] = { link_slow (DL_S, 1, 2) };
  const Step steps[] = {
    { 0, OP_ONLINE, 1, 0 }, { 0, OP_ONLINE, 2, 0 }, { 0, OP_ONLINE, 3, 0 },
    { 0, OP_CONNECT, 1, 2 },
    { 2 * DL_S, OP_CLOSE, 1, 2 }, { 2 * DL_S, OP_CONNECT, 1, 2 }, { 2 * DL_S, OP_CONNECT, 1, 3 },
    { 8 * DL_S, OP_CLOSE, 1, 2 }, { 8 * DL_S, OP_CONNECT, 1, 2 },
  };
  WorldSetup s;
  WorldRec rec;
  SimWorld *w = run_script (&s, &rec, acts, G_N_ELEMENTS (acts), steps, G_N_ELEMENTS (steps));
  const Up want[] = {
    { 1, 2, SETUP },
    { 1, 3, 2 * DL_S + SETUP },
    { 1, 2, 2 * DL_S + SETUP + SLOW },
    { 1, 2, 8 * DL_S + SETUP + SLOW },
  };
  assert_ups (want, G_N_ELEMENTS (want));
  ck_assert (sim_link_get (w, 1, 2, FALSE)->slow);
  ck_assert (!sim_link_get (w, 1, 3, FALSE)->slow);
  ck_assert_uint_eq (dl_word_map_size (w->link_slow), 1);
  world_teardown (w, &rec, &s);
}
END_TEST

/* `heal all` lifts a link-slow delay: the pair's link set up again after
 * it, and a slowed pair's first setup after it, come up at the usual
 * pace; the map keeps no entry; a link-slow action after it is ignored. */
START_TEST (test_link_slow_gone_after_heal_all)
{
  const SimAction acts[] = { link_slow (DL_S, 1, 2), link_slow (DL_S, 1, 3), heal_all_at (10 * DL_S),
                             link_slow (12 * DL_S, 1, 2) };
  const Step steps[] = {
    { 0, OP_ONLINE, 1, 0 }, { 0, OP_ONLINE, 2, 0 }, { 0, OP_ONLINE, 3, 0 },
    { 2 * DL_S, OP_CONNECT, 1, 2 },
    { 8 * DL_S, OP_CLOSE, 1, 2 },
    { 11 * DL_S, OP_CONNECT, 1, 2 }, { 11 * DL_S, OP_CONNECT, 1, 3 },
    { 13 * DL_S, OP_CLOSE, 1, 2 }, { 13 * DL_S, OP_CONNECT, 1, 2 },
  };
  WorldSetup s;
  WorldRec rec;
  SimWorld *w = run_script (&s, &rec, acts, G_N_ELEMENTS (acts), steps, G_N_ELEMENTS (steps));
  const Up want[] = {
    { 1, 2, 2 * DL_S + SETUP + SLOW },
    { 1, 2, 11 * DL_S + SETUP },
    { 1, 3, 11 * DL_S + SETUP },
    { 1, 2, 13 * DL_S + SETUP },
  };
  assert_ups (want, G_N_ELEMENTS (want));
  ck_assert (!sim_link_get (w, 1, 2, FALSE)->slow);
  ck_assert (!sim_link_get (w, 1, 3, FALSE)->slow);
  ck_assert_uint_eq (dl_word_map_size (w->link_slow), 0);
  world_teardown (w, &rec, &s);
}
END_TEST

/* A link-slow action that names a peer not there yet makes the link in
 * the world's table (sim_link_get); the peer comes, the link is slowed;
 * `heal all` lifts it there too. */
START_TEST (test_link_slow_later_peer_healed)
{
  const SimAction acts[] = { link_slow (DL_S, 1, 4), heal_all_at (10 * DL_S) };
  const Step steps[] = {
    { 0, OP_ONLINE, 1, 0 },
    { 2 * DL_S, OP_ONLINE, 4, 0 }, { 2 * DL_S, OP_CONNECT, 1, 4 },
    { 8 * DL_S, OP_CLOSE, 1, 4 },
    { 11 * DL_S, OP_CONNECT, 1, 4 },
  };
  WorldSetup s;
  WorldRec rec;
  SimWorld *w = run_script (&s, &rec, acts, G_N_ELEMENTS (acts), steps, G_N_ELEMENTS (steps));
  ck_assert_uint_eq (dl_word_map_size (w->links), 1);
  const Up want[] = {
    { 1, 4, 2 * DL_S + SETUP + SLOW },
    { 1, 4, 11 * DL_S + SETUP },
  };
  assert_ups (want, G_N_ELEMENTS (want));
  ck_assert_uint_eq (dl_word_map_size (w->link_slow), 0);
  world_teardown (w, &rec, &s);
}
END_TEST

/* The world keeps a link record as long as itself, but the delay is the
 * record's only while its flag says so: a slowed record given back to
 * the slab and taken again by another pair's new link (its entry in
 * link_slow, keyed by the record's address, still there) does not slow
 * that link. */
START_TEST (test_link_slow_not_inherited)
{
  const SimAction acts[] = { link_slow (DL_S, 1, 2) };
  const Step steps[] = {
    { 0, OP_ONLINE, 1, 0 }, { 0, OP_ONLINE, 2, 0 }, { 0, OP_ONLINE, 3, 0 },
    { 2 * DL_S, OP_GIVE_BACK, 1, 2 }, { 2 * DL_S, OP_CONNECT, 1, 3 },
  };
  WorldSetup s;
  WorldRec rec;
  SimWorld *w = run_script (&s, &rec, acts, G_N_ELEMENTS (acts), steps, G_N_ELEMENTS (steps));
  ck_assert_uint_eq (tap.retaken, 1);
  ck_assert_uint_eq (dl_word_map_size (w->link_slow), 1);
  const Up want[] = { { 1, 3, 2 * DL_S + SETUP } };
  assert_ups (want, G_N_ELEMENTS (want));
  world_teardown (w, &rec, &s);
}
END_TEST

static Suite *
sim_faults_suite (void)
{
  Suite *s = suite_create ("sim-faults");
  TCase *tc = tcase_create ("link-slow");
  tcase_add_test (tc, test_link_slow_while_set);
  tcase_add_test (tc, test_link_slow_gone_after_heal_all);
  tcase_add_test (tc, test_link_slow_later_peer_healed);
  tcase_add_test (tc, test_link_slow_not_inherited);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sim_faults_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
