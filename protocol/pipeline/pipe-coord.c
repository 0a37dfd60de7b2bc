/* pipe-coord.c — the pipeline family's coordinator: the registry that
 * Petals keeps in its DHT (servers announce their blocks; clients read who
 * serves what), plus the link signalling every family's links use.
 *
 * Roles: the first `sessions` peers are clients (so that `[network]
 * regions` can give them a region of their own whatever the chain's
 * length); the next `servers` are the servers of the configured ranges, in
 * order; any later peer (a join, a churn arrival)
 * is a server of the range with the fewest live servers, lowest range
 * first, as a Petals server picks the blocks the swarm lacks most
 * (server/block_selection.py, choose_best_blocks).  Petals lets a server
 * choose for itself from the DHT; here the registry says, which is the
 * same choice one hop earlier.
 *
 * A client's PipeLookup is answered with the live servers in id order:
 * their ranges, their speed as they announced it (Petals' throughput) and
 * their family, a small code per region.  A server whose stream closes
 * leaves the table; a crashed one stays until the world reports the close
 * (crash_detection), as a stale DHT entry stays until it expires. */
#include "config.h"

#include "protocol/pipeline/pipe.h"
#include "protocol/session/session-msgs.h"
#include "protocol/pipeline/pipe-msgs.h"

#include <string.h>

typedef struct {
  ProtoNodeId id;
  gboolean server;
  guint start, end;
  guint32 speed_milli;
  guint32 family;
} Member;

typedef struct PipeCoord PipeCoord;

struct PipeCoord {
  ProtoMachineBase base;  /* one state, "registry"; no timer */
  ProtoConfig cfg;
  GArray *members;        /* Member, by id */
  GPtrArray *families;    /* region names, index = family code */
  guint32 version;        /* of the table: one more at every change */
};

static void
observe (ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value, const char *detail)
{
  proto_outbox_observe (out, kind, "registry", -1, other, type, value, "%s", detail ? detail : "");
}

static void
send (ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  observe (out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, m);
}

static Member *
find (PipeCoord *c, ProtoNodeId id, guint *at)
{
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = &g_array_index (c->members, Member, i);
      if (m->id == id)
        {
          if (at)
            *at = i;
          return m;
        }
    }
  return NULL;
}

static guint32
family_code (PipeCoord *c, const char *region)
{
  const char *r = region ? region : "";
  for (guint i = 0; i < c->families->len; i++)
    if (strcmp (c->families->pdata[i], r) == 0)
      return i;
  g_ptr_array_add (c->families, g_strdup (r));
  return c->families->len - 1;
}

/* The configured range a later server takes: the one with the fewest live
 * servers (Petals' choose_best_blocks), lowest first. */
static void
least_served_range (PipeCoord *c, guint *start, guint *end)
{
  const PipeConfig *pc = pipe_config (&c->cfg);
  guint best = G_MAXUINT;
  for (guint r = 0; r < pipe_config_n_ranges (pc); r++)
    {
      guint s, e, live = 0;
      /* range r is server r's (listed ranges) or server r x replicas' (even split) */
      pipe_config_range (pc, pc->n_ranges ? r : r * MAX (pc->replicas, 1), &s, &e);
      for (guint i = 0; i < c->members->len; i++)
        {
          const Member *m = &g_array_index (c->members, Member, i);
          live += m->server && m->start == s && m->end == e;
        }
      if (live < best)
        {
          best = live;
          *start = s;
          *end = e;
        }
    }
}

static void
send_role (ProtoOutbox *out, const Member *m)
{
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_PIPE_ROLE);
  r.node = m->id;
  r.helper = m->server;
  r.round = m->start;
  r.comm_round = m->end;
  send (out, m->id, &r);
}

static void
hello (PipeCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  const Member *known = find (c, from, NULL);
  if (known)
    {
      /* its role was lost on the way (a partition): the same again */
      observe (out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, "a second hello: its role again");
      send_role (out, known);
      return;
    }
  observe (out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  Member m = { .id = from, .speed_milli = msg->degree, .family = family_code (c, msg->signal_data) };
  guint sessions = pipe_config (&c->cfg)->sessions, servers = pipe_config (&c->cfg)->servers;
  if (from >= 1 && from <= sessions)
    m.server = FALSE;
  else if (from > sessions && from <= sessions + servers)
    {
      m.server = TRUE;
      pipe_config_range (pipe_config (&c->cfg), from - sessions - 1, &m.start, &m.end);
    }
  else
    {
      m.server = TRUE;
      least_served_range (c, &m.start, &m.end);
    }
  g_array_append_val (c->members, m);
  if (m.server)
    c->version++;
  send_role (out, &m);
  if (m.server)
    observe (out, PROTO_OBS_NOTE, from, -1, m.start, m.end == m.start + 1 ? "a server of one block" : "a server");
}

static void
lookup (PipeCoord *c, ProtoOutbox *out, ProtoNodeId from)
{
  observe (out, PROTO_OBS_RECEIVED, from, PROTO_MSG_PIPE_LOOKUP, -1, NULL);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  g_autoptr (GArray) info = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < c->members->len; i++)
    {
      const Member *m = &g_array_index (c->members, Member, i);
      if (!m->server)
        continue;
      g_array_append_val (ids, m->id);
      guint32 four[4] = { m->start, m->end, m->speed_milli, m->family };
      g_array_append_vals (info, four, 4);
    }
  ProtoMsg r;
  proto_msg_init (&r, PROTO_MSG_PIPE_SERVERS);
  r.round = c->version;
  proto_msg_set_peers (&r, (const ProtoNodeId *) (const void *) ids->data, ids->len);
  if (info->len)
    proto_msg_take_indices (&r, g_memdup2 (info->data, info->len * sizeof (guint32)), info->len);
  send (out, from, &r);
}

static void
signal_for_peer (PipeCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!find (c, from, NULL) || !find (c, msg->node, NULL))
    {
      observe (out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1, "signal to or from an unknown peer: dropped");
      return;
    }
  proto_session_relay_observed (out, "registry", -1, from, msg, TRUE);
}

/* A message: one handler per type; the registry drops the others. */
static void
on_message (PipeCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg)
{
  switch (msg->type)
    {
    case PROTO_MSG_PIPE_HELLO:
      hello (c, out, from, msg);
      return;
    case PROTO_MSG_PIPE_LOOKUP:
      lookup (c, out, from);
      return;
    case PROTO_MSG_SIGNAL:
      signal_for_peer (c, out, from, msg);
      return;
    default:
      observe (out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, "the registry does not handle it");
      return;
    }
}

/* A peer's stream closed: a server leaves the table. */
static void
on_closed (PipeCoord *c, ProtoOutbox *out, ProtoNodeId from)
{
  guint at;
  Member *m = find (c, from, &at);
  if (!m)
    return;
  observe (out, PROTO_OBS_NOTE, from, -1, -1, m->server ? "stream closed: the server leaves the table"
                                                       : "stream closed: a client left");
  if (m->server)
    c->version++;
  g_array_remove_index (c->members, at);
}

static void
pipe_coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  PipeCoord *c = impl;
  (void) now;
  switch (in->kind)
    {
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      on_message (c, out, in->from, in->msg);
      return;
    case PROTO_IN_STREAM_CLOSED:
      on_closed (c, out, in->from);
      return;
    case PROTO_IN_START:
    case PROTO_IN_DEADLINE:
    case PROTO_IN_TRAINING_DONE:
    case PROTO_IN_LINK_UP:
    case PROTO_IN_LINK_FAILED:
    case PROTO_IN_LINK_CLOSED:
    case PROTO_IN_LEAVE:
      return;
    }
}

static void
pipe_coord_free (void *impl)
{
  PipeCoord *c = impl;
  g_array_unref (c->members);
  g_ptr_array_unref (c->families);
  g_free (c);
}

/* it takes every message and drops what it has no use for itself: listens
 * is the default */
static const ProtoMachineClass coord_class = {
  .handle = pipe_coord_handle,
  .free = pipe_coord_free,
};

static const char *const coord_states[] = { "registry" };

ProtoMachine *
pipe_coord_new (const ProtoConfig *cfg)
{
  PipeCoord *c = g_new0 (PipeCoord, 1);
  proto_machine_base_init (&c->base, coord_states, 0);
  c->cfg = *cfg;
  c->members = g_array_new (FALSE, FALSE, sizeof (Member));
  c->families = g_ptr_array_new_with_free_func (g_free);
  return proto_machine_new (&coord_class, &c->base);
}
