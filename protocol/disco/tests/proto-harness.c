/* proto-harness.c — DISCO's rules for the hand-held world (proto-harness.h
 * over harness.c). */
#include "config.h"

#include "protocol/disco/tests/proto-harness.h"
#include "protocol/disco/disco-msgs.h"
#include "protocol/session/session-msgs.h"

#include <check.h>

/* DISCO's links are WebRTC pairs that may fail; its peers end their
 * sessions with a close the coordinator sees; training ends lowest id
 * first and moves weight k by step * id * (k + 1). */
static const HarnessRules disco_rules = {
  .seed = 7,
  .pair_links = TRUE,
  .links_at_once = TRUE,
  .train_lowest_first = TRUE,
  .train_by_index = TRUE,
  .close_on_disconnect = TRUE,
  .needs_connected = TRUE,
  .log_times = TRUE,
};

Harness *
h_new (const ProtoConfig *cfg, guint n_peers, gsize model_len)
{
  return harness_new (cfg, n_peers, model_len, NULL, &disco_rules);
}

void
h_start (Harness *h, guint i)
{
  harness_feed (h, i, &(ProtoInput) { .kind = PROTO_IN_START });
}

void
h_hold (Harness *h, ProtoMsgType type, ProtoNodeId from)
{
  harness_hold (h, type, from, PROTO_NO_NODE);
}

void
h_hold_to (Harness *h, ProtoMsgType type, ProtoNodeId to)
{
  harness_hold (h, type, PROTO_NO_NODE, to);
}

void
h_advance (Harness *h, DlTime dt)
{
  harness_advance_to (h, h->now + dt);
}

void
h_wait (Harness *h, DlTime dt)
{
  h_advance (h, dt);
  h_settle (h);
}

void
h_leave (Harness *h, guint i)
{
  harness_feed (h, i, &(ProtoInput) { .kind = PROTO_IN_LEAVE });
  h->training[i] = FALSE;
  /* graceful leaves are seen at once */
  harness_deliver_close (h, i);
}

void
h_to_coord (Harness *h, ProtoNodeId from, ProtoMsgType type)
{
  ProtoMsg m;
  proto_msg_init (&m, type);
  harness_feed (h, PROTO_SERVER, &(ProtoInput) { .kind = PROTO_IN_MESSAGE, .from = from, .msg = &m });
}

void
h_to_peer (Harness *h, guint i, ProtoNodeId from, const ProtoMsg *msg)
{
  ProtoInput in = { .kind = PROTO_IN_MESSAGE, .from = from,
                    .via = from == PROTO_SERVER ? PROTO_VIA_SERVER : PROTO_VIA_LINK, .msg = msg };
  harness_feed (h, i, &in);
}

ProtoConfig
h_cfg (DiscoVersion v, guint min, guint rounds)
{
  ProtoConfig c;
  disco_config_init (&c, v);
  c.min_participants = min;
  c.rounds = rounds;
  return c;
}

gboolean
h_state_is (Harness *h, guint i, DiscoPeerState s)
{
  if (proto_machine_state (h->m[i]) == s)
    return TRUE;
  h_dump (h);
  return FALSE;
}

Harness *
h_pair_training (const ProtoConfig *c, guint n_peers)
{
  Harness *h = h_new (c, n_peers, 4);
  h->auto_train = FALSE;
  h_start (h, 1);
  h_start (h, 2);
  h_settle (h);
  return h;
}

Harness *
h_two_training (DiscoVersion v, guint rounds)
{
  ProtoConfig c = h_cfg (v, 2, rounds);
  return h_pair_training (&c, 2);
}

void
h_members (Harness *h, guint n, guint ready)
{
  for (ProtoNodeId id = 1; id <= n; id++)
    h_to_coord (h, id, PROTO_MSG_HELLO);
  for (ProtoNodeId id = 1; id <= ready; id++)
    {
      h_to_coord (h, id, DISCO_MSG_JOIN_ROUND);
      h_to_coord (h, id, PROTO_MSG_READY);
    }
}

Harness *
h_s09_opening (DiscoVersion v)
{
  ProtoConfig c = h_cfg (v, 2, 1);
  Harness *h = h_new (&c, 3, 4);
  h_fail_link (h, 1, 3);
  for (guint i = 1; i <= 3; i++)
    h_start (h, i);
  h_settle (h);
  assert_state (h, 2, DISCO_PEER_WAIT_DECISION);
  h_wait (h, T60);
  return h;
}
