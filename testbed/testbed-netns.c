/* testbed-netns.c — the namespaces, bridge, veths and tbf qdiscs of
 * `dlsim testbed --netem` (testbed-netns.h), made with iproute2's `ip` and
 * `tc`; or, for a plan (testbed_netns_new_plan), the same commands kept as
 * strings and not run.  A leaf: it calls no other file of testbed/. */
#include "config.h"

#include "testbed/testbed-netns.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_PEER_ID 9999u   /* dlhPID-N must fit IFNAMSIZ - 1 = 15 characters */

struct TestbedNetns {
  guint pid;
  guint subnet;           /* 10.SUBNET.0.0/16 */
  char *bridge;
  char *coord_host;
  GArray *peers;          /* guint: ids whose namespace exists */
  GPtrArray *routes;      /* "NS|IP" of the partition's blackhole routes (NS "" = ours) */
  GPtrArray *plan;        /* a plan: the commands, kept instead of run; NULL: run them */
  DlTime queue;           /* each tbf's queue, in time at its rate; 0: the default (shape) */
  char *congestion;       /* every route's congctl (testbed_netns_set_congestion) */
};

/* Runs a command given as one string of space-separated words (none of ours
 * has spaces inside a word).  On failure: the command and what it said. */
static gboolean
run (TestbedNetns *t, GError **error, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
run (TestbedNetns *t, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *cmd = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (t && t->plan)
    {
      g_ptr_array_add (t->plan, g_steal_pointer (&cmd));
      return TRUE;
    }
  g_auto (GStrv) argv = g_strsplit (cmd, " ", -1);
  g_autofree char *err = NULL;
  gint status = 0;
  g_autoptr (GError) e = NULL;
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                     &status, &e))
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "%s: %s", cmd, e->message);
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_strstrip (err);
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "%s: %s", cmd, *err ? err : "failed");
      return FALSE;
    }
  return TRUE;
}

static char *
output_of (const char *cmd)
{
  g_auto (GStrv) argv = g_strsplit (cmd, " ", -1);
  char *out = NULL;
  gint status = 0;
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_free (out);
      return g_strdup ("");
    }
  return out;
}

static gboolean
pid_alive (guint64 pid)
{
  return pid > 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}

/* "PREFIXpid..." -> pid, or 0 */
static guint64
pid_of (const char *name, const char *prefix)
{
  if (!g_str_has_prefix (name, prefix))
    return 0;
  return g_ascii_strtoull (name + strlen (prefix), NULL, 10);
}

guint
testbed_netns_sweep_stale (char **report)
{
  g_autoptr (GString) done = g_string_new (NULL);
  guint n = 0;
  g_autofree char *ns = output_of ("ip netns list");
  g_auto (GStrv) lines = g_strsplit (ns, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) w = g_strsplit (*l, " ", 2);
      if (!w[0] || !*w[0])
        continue;
      guint64 pid = pid_of (w[0], "dlsim-");
      if (pid && !pid_alive (pid) && run (NULL, NULL, "ip netns del %s", w[0]))
        {
          g_string_append_printf (done, "%snamespace %s", n++ ? ", " : "", w[0]);
        }
    }
  /* "12: dlb123: <...>" or "13: dlh123-4@if2: <...>" */
  g_autofree char *links = output_of ("ip -o link show");
  g_auto (GStrv) ll = g_strsplit (links, "\n", -1);
  for (char **l = ll; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, ": ", 3);
      if (!f[0] || !f[1])
        continue;
      char *at = strchr (f[1], '@');
      if (at)
        *at = '\0';
      guint64 pid = pid_of (f[1], "dlb");
      if (!pid)
        pid = pid_of (f[1], "dlh");
      if (pid && !pid_alive (pid) && run (NULL, NULL, "ip link del %s", f[1]))
        g_string_append_printf (done, "%slink %s", n++ ? ", " : "", f[1]);
    }
  if (report)
    *report = g_string_free (g_steal_pointer (&done), FALSE);
  return n;
}

/* a /16 in 10.0.0.0/8 that no interface of this namespace uses */
static guint
free_subnet (guint pid)
{
  g_autofree char *addrs = output_of ("ip -o -4 addr show");
  for (guint k = 0; k < 150; k++)
    {
      guint x = 100 + (pid + k) % 150;
      g_autofree char *needle = g_strdup_printf (" 10.%u.", x);
      if (!strstr (addrs, needle))
        return x;
    }
  return 0;
}

static char *
rate_arg (guint64 bps)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT "bit", bps);
}

/* The bytes of a tbf's queue at bytes_s: by default 10 s of it, at least
 * 1 MiB, so that TCP is never dropped at the shaper (the simulator's uplink
 * is an unbounded FIFO); else queue's worth, at least one Ethernet frame
 * (tc refuses a limit of 0; below a frame no full-size segment fits).
 * At most 1 GiB (checked before the cast: a double over 2^64 has no
 * guint64). */
static guint64
queue_limit (DlTime queue, guint64 bytes_s)
{
  if (queue == 0)
    return CLAMP (bytes_s * 10, 1 << 20, 1u << 30);
  double bytes = (double) bytes_s * (double) queue / (double) DL_S;
  if (bytes >= (double) (1u << 30))
    return 1u << 30;
  return MAX ((guint64) bytes, TESTBED_NETNS_MIN_QUEUE_BYTES);
}

/* tbf on dev (run inside ns if ns), its queue as queue_limit says */
static gboolean
shape (TestbedNetns *t, const char *ns, const char *dev, guint64 bps, GError **error)
{
  if (bps == 0)
    return TRUE;
  guint64 bytes_s = bps / 8;
  guint64 burst = MAX (bytes_s / 250, 16 * 1024);       /* one tick at HZ 250, at least 16 KiB */
  guint64 limit = queue_limit (t->queue, bytes_s);
  g_autofree char *rate = rate_arg (bps);
  if (ns)
    return run (t, error, "ip netns exec %s tc qdisc add dev %s root tbf rate %s burst %" G_GUINT64_FORMAT
                       " limit %" G_GUINT64_FORMAT, ns, dev, rate, burst, limit);
  return run (t, error, "tc qdisc add dev %s root tbf rate %s burst %" G_GUINT64_FORMAT " limit %" G_GUINT64_FORMAT,
              dev, rate, burst, limit);
}

/* The subnet's route in ns (NULL: ours, on the bridge), from src, with
 * the run's congestion control: the kernel's own route for the address,
 * replaced with the same one and `congctl`, which every connection over
 * it takes (a socket may still set its own with TCP_CONGESTION: ours do
 * not). */
static gboolean
route_congestion (TestbedNetns *t, const char *ns, const char *src, GError **error)
{
  if (ns)
    return run (t, error, "ip -n %s route replace 10.%u.0.0/16 dev eth0 proto kernel scope link src %s congctl %s", ns,
                t->subnet, src, t->congestion);
  return run (t, error, "ip route replace 10.%u.0.0/16 dev %s proto kernel scope link src %s congctl %s", t->subnet,
              t->bridge, src, t->congestion);
}

/* The bridge of pid's run on 10.subnet.0.0/16 (subnet 0: none is free);
 * plan non-NULL: its commands are kept there, not run. */
static TestbedNetns *
make (guint pid, guint subnet, GPtrArray *plan, GError **error)
{
  TestbedNetns *t = g_new0 (TestbedNetns, 1);
  t->pid = pid;
  t->plan = plan;
  t->peers = g_array_new (FALSE, FALSE, sizeof (guint));
  t->routes = g_ptr_array_new_with_free_func (g_free);
  t->subnet = subnet;
  t->bridge = g_strdup_printf ("dlb%u", t->pid);
  t->coord_host = g_strdup_printf ("10.%u.0.1", t->subnet);
  t->congestion = g_strdup (TESTBED_NETNS_CONGESTION);
  if (t->subnet == 0)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "--netem: no free 10.x.0.0/16 subnet");
      testbed_netns_free (t);
      return NULL;
    }
  if (!run (t, error, "ip link add %s type bridge", t->bridge)
      || !run (t, error, "ip addr add %s/16 dev %s", t->coord_host, t->bridge)
      || !run (t, error, "ip link set %s up", t->bridge) || !route_congestion (t, NULL, t->coord_host, error))
    {
      g_prefix_error (error, "--netem: ");
      testbed_netns_free (t);
      return NULL;
    }
  return t;
}

TestbedNetns *
testbed_netns_new (GError **error)
{
  if (geteuid () != 0)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_PERM,
                   "--netem needs root (it creates network namespaces with ip netns)");
      return NULL;
    }
  g_autofree char *ip = g_find_program_in_path ("ip");
  g_autofree char *tc = g_find_program_in_path ("tc");
  if (!ip || !tc)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
                   "--netem needs iproute2's ip and tc (apt install iproute2)");
      return NULL;
    }
  guint pid = (guint) getpid ();
  return make (pid, free_subnet (pid), NULL, error);
}

TestbedNetns *
testbed_netns_new_plan (guint pid, guint subnet)
{
  g_return_val_if_fail (subnet > 0 && subnet < 256, NULL);
  return make (pid, subnet, g_ptr_array_new_with_free_func (g_free), NULL);
}

void
testbed_netns_set_queue (TestbedNetns *t, DlTime queue)
{
  g_return_if_fail (queue >= 0);
  t->queue = queue;
}

/* whether name is a word of the space-separated list */
static gboolean
listed (const char *list, const char *name)
{
  g_auto (GStrv) w = g_strsplit_set (list, " \t\n", -1);
  return g_strv_contains ((const char *const *) w, name);
}

/* a name that fits a command's word and TCP_CA_NAME_MAX */
static gboolean
congestion_word (const char *name, GError **error)
{
  gboolean word = *name != '\0' && strlen (name) < 16;
  for (const char *c = name; word && *c; c++)
    word = g_ascii_isalnum (*c) || *c == '_';
  if (!word)
    g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                 "congestion control '%s': expected a kernel's name for one, such as cubic", name);
  return word;
}

gboolean
testbed_netns_check_congestion (const char *name, GError **error)
{
  if (!congestion_word (name, error))
    return FALSE;
  g_autofree char *avail = NULL;
  if (g_file_get_contents (TESTBED_NETNS_AVAILABLE_CC, &avail, NULL, NULL) && listed (avail, name))
    return TRUE;
  g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
               "congestion control '%s' is not one this kernel offers (%s: %s)", name, TESTBED_NETNS_AVAILABLE_CC,
               avail ? g_strstrip (avail) : "not readable");
  return FALSE;
}

gboolean
testbed_netns_set_congestion (TestbedNetns *t, const char *name, GError **error)
{
  if (!(t->plan ? congestion_word (name, error) : testbed_netns_check_congestion (name, error)))
    {
      g_prefix_error (error, "--netem: ");
      return FALSE;
    }
  g_free (t->congestion);
  t->congestion = g_strdup (name);
  if (route_congestion (t, NULL, t->coord_host, error))
    return TRUE;
  g_prefix_error (error, "--netem: ");
  return FALSE;
}

const char *
testbed_netns_congestion (const TestbedNetns *t)
{
  return t->congestion;
}

GPtrArray *
testbed_netns_plan (TestbedNetns *t)
{
  return t->plan;
}

char *
testbed_netns_peer_ns (const TestbedNetns *t, guint id)
{
  return g_strdup_printf ("dlsim-%u-p%u", t->pid, id);
}

char *
testbed_netns_peer_host (const TestbedNetns *t, guint id)
{
  guint k = id + 1;   /* .0.1 is the bridge */
  return g_strdup_printf ("10.%u.%u.%u", t->subnet, k >> 8, k & 255);
}

const char *
testbed_netns_coordinator_host (const TestbedNetns *t)
{
  return t->coord_host;
}

gboolean
testbed_netns_add_peer (TestbedNetns *t, guint id, guint64 uplink_bps, guint64 downlink_bps, GError **error)
{
  if (id == 0 || id > MAX_PEER_ID)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "--netem: peer ids go up to p%u (p%u)",
                   MAX_PEER_ID, id);
      return FALSE;
    }
  g_autofree char *ns = testbed_netns_peer_ns (t, id);
  g_autofree char *host = testbed_netns_peer_host (t, id);
  g_autofree char *veth = g_strdup_printf ("dlh%u-%u", t->pid, id);
  if (!run (t, error, "ip netns add %s", ns))
    goto fail;
  g_array_append_val (t->peers, id);
  if (!run (t, error, "ip link add %s type veth peer name eth0 netns %s", veth, ns)
      || !run (t, error, "ip link set %s master %s up", veth, t->bridge)
      || !run (t, error, "ip netns exec %s ip addr add %s/16 dev eth0", ns, host)
      || !run (t, error, "ip netns exec %s ip link set eth0 up", ns)
      || !run (t, error, "ip netns exec %s ip link set lo up", ns) || !route_congestion (t, ns, host, error)
      || !shape (t, ns, "eth0", uplink_bps, error)     /* the peer's uplink */
      || !shape (t, NULL, veth, downlink_bps, error))  /* its downlink */
    goto fail;
  return TRUE;
fail:
  g_prefix_error (error, "--netem: p%u: ", id);
  return FALSE;
}

void
testbed_netns_free (TestbedNetns *t)
{
  if (!t)
    return;
  for (guint i = 0; i < t->peers->len; i++)
    {
      guint id = g_array_index (t->peers, guint, i);
      g_autofree char *ns = testbed_netns_peer_ns (t, id);
      /* the kernel frees a namespace's devices later: delete the pair now */
      run (t, NULL, "ip link del dlh%u-%u", t->pid, id);
      run (t, NULL, "ip netns del %s", ns);
    }
  testbed_netns_heal (t);
  if (t->subnet)
    run (t, NULL, "ip link del %s", t->bridge);
  g_array_unref (t->peers);
  g_ptr_array_unref (t->routes);
  g_free (t->bridge);
  g_free (t->coord_host);
  g_free (t->congestion);
  if (t->plan)
    g_ptr_array_unref (t->plan);
  g_free (t);
}

static gboolean
has_peer (const TestbedNetns *t, guint id)
{
  for (guint i = 0; i < t->peers->len; i++)
    if (g_array_index (t->peers, guint, i) == id)
      return TRUE;
  return FALSE;
}

/* a blackhole route to ip in node's namespace (node 0: ours) */
static gboolean
blackhole (TestbedNetns *t, guint node, const char *ip, GError **error)
{
  g_autofree char *ns = node ? testbed_netns_peer_ns (t, node) : g_strdup ("");
  gboolean ok = node ? run (t, error, "ip -n %s route add blackhole %s/32", ns, ip)
                     : run (t, error, "ip route add blackhole %s/32", ip);
  if (ok)
    g_ptr_array_add (t->routes, g_strdup_printf ("%s|%s", ns, ip));
  return ok;
}

gboolean
testbed_netns_partition (TestbedNetns *t, const GArray *groups, guint n_peers, GError **error)
{
  testbed_netns_heal (t);
  guint server = groups && groups->len ? g_array_index (groups, guint, 0) : 0;
  for (guint a = 0; a <= n_peers; a++)
    for (guint b = 0; b <= n_peers; b++)
      {
        if (a == b || (a && !has_peer (t, a)) || (b && !has_peer (t, b)))
          continue;
        guint ga = a < (groups ? groups->len : 0) ? g_array_index (groups, guint, a) : server;
        guint gb = b < (groups ? groups->len : 0) ? g_array_index (groups, guint, b) : server;
        if (ga == gb)
          continue;
        g_autofree char *ip = b ? testbed_netns_peer_host (t, b) : g_strdup (t->coord_host);
        if (!blackhole (t, a, ip, error))
          {
            g_prefix_error (error, "--netem partition: ");
            return FALSE;
          }
      }
  return TRUE;
}

void
testbed_netns_heal (TestbedNetns *t)
{
  for (guint i = 0; i < t->routes->len; i++)
    {
      g_auto (GStrv) f = g_strsplit (t->routes->pdata[i], "|", 2);
      if (*f[0])
        run (t, NULL, "ip -n %s route del blackhole %s/32", f[0], f[1]);
      else
        run (t, NULL, "ip route del blackhole %s/32", f[1]);
    }
  g_ptr_array_set_size (t->routes, 0);
}
