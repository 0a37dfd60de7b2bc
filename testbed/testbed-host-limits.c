/* testbed-host-limits.c — what the other ends may cost a testbed node
 * (testbed-host-private.h): its listening socket and that socket's
 * backlog, the scenario's largest frame, the rate limit of the
 * protocol-error facts, the source an accepted stream counts against,
 * and the stream to close when every slot before a HELLO is taken.  A
 * leaf: it decides nothing of the node and calls nothing of
 * testbed-host.c. */
#include "config.h"

#include "testbed/testbed-host-limits.h"
#include "testbed/testbed-host-private.h"

GSocketService *
_testbed_host_listen (const char *host, guint16 port, guint16 *out_port, GError **error)
{
  g_autoptr (GSocketService) service = g_socket_service_new ();
  /* every peer joins at once at the start: GLib's backlog of 10 made the
   * eleventh wait for a SYN retransmission (1 s) */
  g_socket_listener_set_backlog (G_SOCKET_LISTENER (service), 128);
  g_autoptr (GInetAddress) ia = g_inet_address_new_from_string (host);
  if (!ia)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "'%s' is not an IP address", host);
      return NULL;
    }
  g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (ia, port);
  g_autoptr (GSocketAddress) bound = NULL;
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), sa, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                      NULL, &bound, error))
    {
      g_prefix_error (error, "cannot listen on %s:%u: ", host, port);
      return NULL;
    }
  *out_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return g_steal_pointer (&service);
}

guint
testbed_host_max_peer (const SimWorldConfig *cfg)
{
  return MAX (cfg->max_peers, cfg->n_peers);
}

gsize
_testbed_host_largest_floats (const SimWorldConfig *cfg)
{
  const ProtoFamily *f = proto_family_of (&cfg->proto);
  gsize model = learn_model_n_params (&cfg->model);
  return MAX (model, f->largest_floats ? f->largest_floats (&cfg->proto) : 0);
}

gsize
testbed_host_max_frame (const SimWorldConfig *cfg)
{
  /* weights as float32 and, for a sparse payload, an index for each; the
   * lists (peers, a route's four numbers a server) and the headroom take
   * the rest; never over the wire form's own bound */
  guint64 bytes = (guint64) _testbed_host_largest_floats (cfg) * 8 + (guint64) testbed_host_max_peer (cfg) * 32
                  + TESTBED_HOST_FRAME_HEADROOM_BYTES;
  return (gsize) MIN (bytes, (guint64) TESTBED_FRAME_MAX_BODY);
}

char *
_testbed_host_max_frame_why (const SimWorldConfig *cfg)
{
  return g_strdup_printf ("this scenario's largest message: %" G_GSIZE_FORMAT " floats, %u peers, and "
                          "%d KiB of headroom", _testbed_host_largest_floats (cfg), testbed_host_max_peer (cfg),
                          TESTBED_HOST_FRAME_HEADROOM_BYTES / 1024);
}

void
_testbed_host_errors_init (TestbedHostErrors *e, gint64 now_us)
{
  e->tokens = TESTBED_HOST_ERRORS_BURST;
  e->refilled_us = now_us;
  e->suppressed = 0;
  e->recorded = 0;
}

/* A protocol error comes from the socket's other end, who may send them
 * as fast as it likes: at most TESTBED_HOST_ERRORS_BURST at once, then
 * TESTBED_HOST_ERRORS_PER_S a second, TESTBED_HOST_ERRORS_MAX in all; a
 * recorded one says how many were not. */
char *
_testbed_host_errors_admit (TestbedHostErrors *e, gint64 now_us, const char *detail)
{
  e->tokens = MIN (TESTBED_HOST_ERRORS_BURST,
                   e->tokens + (double) (now_us - e->refilled_us) / G_USEC_PER_SEC * TESTBED_HOST_ERRORS_PER_S);
  e->refilled_us = now_us;
  if (e->tokens < 1 || e->recorded >= TESTBED_HOST_ERRORS_MAX)
    {
      e->suppressed++;
      return NULL;
    }
  e->tokens -= 1;
  e->recorded++;
  char *d;
  if (e->recorded == TESTBED_HOST_ERRORS_MAX)
    d = g_strdup_printf ("%s (%u protocol errors recorded: no more will be)", detail, TESTBED_HOST_ERRORS_MAX);
  else if (e->suppressed > 0)
    d = g_strdup_printf ("%s (and %u more protocol errors not recorded, rate limit)", detail, e->suppressed);
  else
    d = g_strdup (detail);
  e->suppressed = 0;
  return d;
}

/* An IPv6 address's /64: one host's or one site's share. */
char *
_testbed_host_source_of (GSocketConnection *sc)
{
  g_autoptr (GSocketAddress) sa = g_socket_connection_get_remote_address (sc, NULL);
  if (!sa || !G_IS_INET_SOCKET_ADDRESS (sa))
    return g_strdup ("?");
  GInetAddress *ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (sa));
  if (g_inet_address_get_family (ia) == G_SOCKET_FAMILY_IPV6)
    {
      g_autoptr (GInetAddressMask) m = g_inet_address_mask_new (ia, 64, NULL);
      if (m)
        return g_inet_address_mask_to_string (m);
    }
  return g_inet_address_to_string (ia);
}

/* The oldest of the source that holds the most of the slots, counting the
 * newcomer's (ties: the source whose oldest is oldest).  A stranger who
 * opens streams faster than a real peer's HELLO can come back only ever
 * closes its own, so real peers from other addresses still get in. */
TestbedConn *
_testbed_host_unauth_victim (const GQueue *unauth, const char *newcomer)
{
  TestbedConn *victim = unauth->head ? unauth->head->data : NULL;
  guint most = 0;
  for (GList *l = unauth->head; l; l = l->next)
    {
      TestbedConn *c = l->data;
      guint count = g_strcmp0 (c->source, newcomer) == 0;
      for (GList *k = unauth->head; k; k = k->next)
        count += g_strcmp0 (((TestbedConn *) k->data)->source, c->source) == 0;
      if (count > most)
        {
          most = count;
          victim = c;
        }
    }
  return victim;
}
