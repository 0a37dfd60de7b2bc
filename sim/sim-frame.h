/* sim-frame.h — the testbed's framing on a byte stream (TCP): each frame is
 * a 4-byte big-endian body length, then the body: one kind byte and its
 * data.  MSG frames carry one protocol message in its wire form
 * (proto_msg_encode); HELLO frames open a peer link with the sender's node
 * id (4 bytes, big endian).
 *
 * Every byte from a socket is untrusted: the reader refuses an empty body,
 * a body over SIM_FRAME_MAX_BODY, an unknown kind and a HELLO of the wrong
 * size, with a SIM_FRAME_ERROR; the connection is then closed by its owner.
 * MSG data is checked by proto_msg_decode.
 *
 * Shape: SimFrameReader is sim_frame_reader_new / _free. */
#pragma once

#include "protocol/proto-message.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SIM_FRAME_MSG = 1,
  SIM_FRAME_HELLO = 2,
} SimFrameKind;

#define SIM_FRAME_MAX_BODY (PROTO_MAX_WIRE_BYTES + 1)

#define SIM_FRAME_ERROR (sim_frame_error_quark ())
GQuark sim_frame_error_quark (void);
typedef enum { SIM_FRAME_ERROR_MALFORMED } SimFrameErrorCode;

/* (transfer full) the frame bytes of a message, or of a HELLO. */
GBytes *sim_frame_encode_msg (const ProtoMsg *msg);
GBytes *sim_frame_encode_hello (ProtoNodeId id);

typedef struct SimFrameReader SimFrameReader;

SimFrameReader *sim_frame_reader_new (void);
void sim_frame_reader_free (SimFrameReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimFrameReader, sim_frame_reader_free)

/* Appends bytes read from the stream. */
void sim_frame_reader_push (SimFrameReader *r, const guint8 *data, gsize len);

typedef enum {
  SIM_FRAME_NEED_MORE,   /* no complete frame buffered */
  SIM_FRAME_OK,          /* *out_kind and exactly one of *out_msg / *out_hello are set */
  SIM_FRAME_BAD,         /* malformed: the stream cannot be trusted any more */
} SimFrameResult;

/* The next frame.  On SIM_FRAME_OK with a MSG frame, *out_msg is the
 * decoded message (clear it with proto_msg_clear). */
SimFrameResult sim_frame_reader_next (SimFrameReader *r, SimFrameKind *out_kind, ProtoMsg *out_msg,
                                      ProtoNodeId *out_hello, GError **error);

G_END_DECLS
