/* msg-fill-fedavg.c — fedavg's messages for fill_msg (msg-fill.h): its
 * four types with every field they carry set. */
#include "config.h"

#include "tests/msg-fill.h"
#include "protocol/fedavg/fedavg-msgs.h"

static gboolean
fill_fedavg (ProtoMsg *m, ProtoMsgType t)
{
  static const float w[] = { 1.5f, -2.25f, 3.0f };
  switch (t)
    {
    case PROTO_MSG_FED_HELLO:
      m->key = 1234;
      return TRUE;
    case PROTO_MSG_FED_UPDATE:
      m->key = 77;
      /* fall through */
    case PROTO_MSG_FED_MODEL:
    case PROTO_MSG_FED_DONE:
      {
        m->round = 6;
        g_autoptr (LearnWeights) lw = learn_weights_new_from (w, 3);
        proto_msg_set_weights (m, lw);
        return TRUE;
      }
    default:
      return FALSE;
    }
}

MSG_FILL_REGISTER (fill_fedavg)
