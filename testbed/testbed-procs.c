/* testbed-procs.c — the peers of `dlsim testbed` as processes: a join
 * spawns a `dlsim node peer` child (inside its network namespace with
 * --netem), whose record lines come back on its stdout and go to the
 * run's tally (testbed-tally.c); a leave asks it on stdin; a crash is
 * SIGKILL; at the end every child is asked to leave, killed if it does
 * not, and reaped.  The orchestrator (testbed.c) calls it; it never calls
 * the orchestrator. */
#include "config.h"

#include "testbed/testbed-records.h"
#include "testbed/testbed-private.h"

#include <string.h>

/* ---------------------------------------------------------------- children */

static void read_records (TestbedPeer *p);

static void
on_record (GObject *src, GAsyncResult *res, gpointer data)
{
  TestbedPeer *p = data;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (src), res, &len, NULL);
  if (!line)
    {
      p->eof = TRUE;
      return;
    }
  _testbed_run_ingest (p->tb, p->id, line);
  read_records (p);
}

static void
read_records (TestbedPeer *p)
{
  g_data_input_stream_read_line_async (p->records, G_PRIORITY_DEFAULT, NULL, on_record, p);
}

static void
on_exited (GObject *src, GAsyncResult *res, gpointer data)
{
  TestbedPeer *p = data;
  g_subprocess_wait_finish (G_SUBPROCESS (src), res, NULL);
  p->exited = TRUE;
  if (p->status == TESTBED_PEER_ONLINE)
    {
      p->status = TESTBED_PEER_LEFT;
      p->left = _testbed_run_now (p->tb);
    }
}

void
_testbed_procs_send_control (TestbedPeer *p, const char *line)
{
  if (!p->control || p->exited)
    return;
  g_autofree char *l = g_strdup_printf ("%s\n", line);
  g_output_stream_write_all (p->control, l, strlen (l), NULL, NULL, NULL);
}

GStrv
_testbed_procs_argv (const TestbedRun *tb, ProtoNodeId id, guint16 coordinator_port)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  if (tb->net)
    {
      /* `ip netns exec` execs dlsim in place: the child's pid is the peer's */
      g_ptr_array_add (argv, g_strdup ("ip"));
      g_ptr_array_add (argv, g_strdup ("netns"));
      g_ptr_array_add (argv, g_strdup ("exec"));
      g_ptr_array_add (argv, testbed_netns_peer_ns (tb->net, id));
    }
  g_ptr_array_add (argv, g_strdup (tb->self_exe));
  g_ptr_array_add (argv, g_strdup ("node"));
  g_ptr_array_add (argv, g_strdup ("peer"));
  g_ptr_array_add (argv, g_strdup_printf ("--coordinator=%s:%u", tb->net ? testbed_netns_coordinator_host (tb->net)
                                                                         : "127.0.0.1",
                                          coordinator_port));
  if (tb->net)
    {
      g_autofree char *host = testbed_netns_peer_host (tb->net, id);
      g_ptr_array_add (argv, g_strdup_printf ("--listen=%s", host));
    }
  if (tb->emulate_latency)
    g_ptr_array_add (argv, g_strdup ("--emulate-latency"));
  g_ptr_array_add (argv, g_strdup_printf ("--name=p%u", id));
  g_ptr_array_add (argv, g_strdup_printf ("--scenario=%s", tb->scenario->path));
  g_ptr_array_add (argv, g_strdup_printf ("--seed=%" G_GUINT64_FORMAT, tb->seed));
  g_ptr_array_add (argv, g_strdup_printf ("--point=%u", tb->point->index));
  g_ptr_array_add (argv, g_strdup_printf ("--t0=%" G_GINT64_FORMAT, tb->t0_us));
  g_ptr_array_add (argv, g_strdup ("--report"));
  for (char **s = tb->sets; s && *s; s++)
    g_ptr_array_add (argv, g_strdup_printf ("--set=%s", *s));
  g_ptr_array_add (argv, NULL);
  return (GStrv) g_ptr_array_free (argv, FALSE);
}

void
_testbed_procs_spawn (TestbedRun *tb, ProtoNodeId id)
{
  TestbedPeer *p = _testbed_run_peer (tb, id, TRUE);
  if (p->status != TESTBED_PEER_ABSENT)
    {
      _testbed_run_fact (tb, _testbed_run_now (tb), id, PROTO_NO_NODE, "ignored", "join: the peer already joined once");
      return;
    }
  g_auto (GStrv) argv = _testbed_procs_argv (tb, id, testbed_host_port (tb->coord));
  g_autoptr (GError) e = NULL;
  /* the secret in the environment, which only this user may read (argv: anyone) */
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_setenv (launcher, "DLSIM_TESTBED_SECRET", tb->secret, TRUE);
  p->proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv, &e);
  p->joined = _testbed_run_now (tb);
  p->progress = p->joined;
  tb->progress = MAX (tb->progress, p->joined);
  if (!p->proc)
    {
      _testbed_run_fact (tb, _testbed_run_now (tb), id, PROTO_NO_NODE, "spawn-failed", e->message);
      p->status = TESTBED_PEER_LEFT;
      p->exited = p->eof = TRUE;
      return;
    }
  p->status = TESTBED_PEER_ONLINE;
  p->control = g_object_ref (g_subprocess_get_stdin_pipe (p->proc));
  p->records = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p->proc));
  read_records (p);
  g_subprocess_wait_async (p->proc, NULL, on_exited, p);
  _testbed_run_fact (tb, _testbed_run_now (tb), id, PROTO_NO_NODE, "join", "process started");
  for (guint i = 0; i < tb->rules->len; i++)
    {
      g_autofree char *l = testbed_rule_line (&g_array_index (tb->rules, SimAction, i));
      _testbed_procs_send_control (p, l);
    }
}

void
_testbed_procs_depart (TestbedRun *tb, ProtoNodeId id, gboolean crash)
{
  TestbedPeer *p = _testbed_run_peer (tb, id, FALSE);
  if (!p || p->status != TESTBED_PEER_ONLINE)
    {
      _testbed_run_fact (tb, _testbed_run_now (tb), id, PROTO_NO_NODE, "ignored", crash ? "crash: not online" : "leave: not online");
      return;
    }
  _testbed_run_fact (tb, _testbed_run_now (tb), id, PROTO_NO_NODE, crash ? "crash" : "leave",
              crash ? "SIGKILL" : "asked to leave");
  if (crash)
    {
      p->status = TESTBED_PEER_CRASHED;
      p->left = _testbed_run_now (tb);
      g_subprocess_force_exit (p->proc);
    }
  else
    {
      p->leave_asked = TRUE;
      _testbed_procs_send_control (p, "leave");
    }
}

void
_testbed_procs_stop_children (TestbedRun *tb, gint64 grace_us)
{
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TestbedPeer *p = g_ptr_array_index (tb->peers, i);
      if (p && p->proc && !p->exited)
        {
          _testbed_procs_send_control (p, "leave");
          g_clear_object (&p->control);   /* EOF on its stdin: leave and exit */
        }
    }
  gint64 until = g_get_monotonic_time () + grace_us;
  for (;;)
    {
      gboolean live = FALSE;
      for (guint i = 1; i < tb->peers->len; i++)
        {
          TestbedPeer *p = g_ptr_array_index (tb->peers, i);
          live |= p && p->proc && (!p->exited || !p->eof);
        }
      if (!live)
        break;
      if (g_get_monotonic_time () >= until)
        {
          for (guint i = 1; i < tb->peers->len; i++)
            {
              TestbedPeer *p = g_ptr_array_index (tb->peers, i);
              if (p && p->proc && !p->exited)
                g_subprocess_force_exit (p->proc);
            }
          until = G_MAXINT64;   /* now wait for the kills to be reaped */
        }
      g_main_context_iteration (NULL, TRUE);
    }
}

