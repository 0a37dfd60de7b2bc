/* testbed-node.c — one testbed process's secret and main loop
 * (testbed-node.h).  A leaf of testbed/: it calls testbed-records.c's
 * rule parser only, and nothing in the folder calls it. */
#include "config.h"

#include "testbed/testbed-node.h"
#include "testbed/testbed-records.h"
#include "testbed/testbed-secret.h"

#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  TestbedHost *node;
  GMainLoop *loop;
  GDataInputStream *control;
  gboolean leaving;
  void (*ignored) (const char *line);
} NodeRun;

static gboolean
on_term (gpointer data)
{
  NodeRun *r = data;
  if (!r->leaving)
    {
      r->leaving = TRUE;
      testbed_host_leave (r->node);
    }
  if (!testbed_host_peer (r->node))
    g_main_loop_quit (r->loop);   /* the coordinator just stops */
  return G_SOURCE_CONTINUE;
}

static void read_control (NodeRun *r);

static void
on_control (GObject *src, GAsyncResult *res, gpointer data)
{
  NodeRun *r = data;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (src), res, &len, NULL);
  if (!line)
    {
      /* the orchestrator went away: a peer leaves; a coordinator stops
       * reading control lines and runs until SIGTERM or SIGINT */
      if (testbed_host_peer (r->node))
        on_term (r);
      return;
    }
  SimAction a;
  if (strcmp (line, "leave") == 0)
    on_term (r);
  else if (testbed_rule_parse (line, &a))
    testbed_host_add_rule (r->node, &a);
  else if (r->ignored)
    r->ignored (line);
  read_control (r);
}

static void
read_control (NodeRun *r)
{
  g_data_input_stream_read_line_async (r->control, G_PRIORITY_DEFAULT, NULL, on_control, r);
}

static gboolean
check_gone (gpointer data)
{
  NodeRun *r = data;
  if (testbed_host_peer (r->node) && testbed_host_gone (r->node))
    g_main_loop_quit (r->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
commit_records (gpointer data)
{
  res_node_commit (data);   /* a node that is killed loses at most a second */
  return G_SOURCE_CONTINUE;
}

void
testbed_node_serve (TestbedHost *node, gboolean control, ResNode *rn, void (*ignored) (const char *line))
{
  NodeRun r = { .node = node, .loop = g_main_loop_new (NULL, FALSE), .ignored = ignored };
  guint t1 = g_unix_signal_add (SIGTERM, on_term, &r);
  guint t2 = g_unix_signal_add (SIGINT, on_term, &r);
  if (control)
    {
      g_autoptr (GInputStream) in = g_unix_input_stream_new (0, FALSE);
      r.control = g_data_input_stream_new (in);
      read_control (&r);
    }
  guint w = g_timeout_add (50, check_gone, &r);
  guint c = rn ? g_timeout_add_seconds (1, commit_records, rn) : 0;
  g_main_loop_run (r.loop);
  g_source_remove (w);
  if (c)
    g_source_remove (c);
  g_source_remove (t1);
  g_source_remove (t2);
  /* let the last writes (a close's queued frames) go out */
  gint64 until = g_get_monotonic_time () + 200000;
  while (g_get_monotonic_time () < until && g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&r.control);
  g_main_loop_unref (r.loop);
}

/* A coordinator's new secret in path (which must not exist), mode 0600. */
static gboolean
create_secret (const char *path, GError **error)
{
  g_autofree char *secret = testbed_secret_new (error);
  if (!secret)
    return FALSE;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", path, g_strerror (err));
      return FALSE;
    }
  g_autofree char *line = g_strdup_printf ("%s\n", secret);
  gsize len = strlen (line);
  gboolean ok = write (fd, line, len) == (gssize) len;
  int err = errno;
  ok &= g_close (fd, NULL);
  if (!ok)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", path, g_strerror (err));
      g_unlink (path);
    }
  return ok;
}

char *
testbed_node_secret (const char *path, gboolean is_peer, gboolean *out_created, GError **error)
{
  *out_created = FALSE;
  const char *env = g_getenv ("DLSIM_TESTBED_SECRET");
  if (!path && env)
    {
      g_autofree char *s = g_strdup (env);
      g_unsetenv ("DLSIM_TESTBED_SECRET");
      if (!testbed_secret_check (s, "DLSIM_TESTBED_SECRET", error))
        return NULL;
      return g_steal_pointer (&s);
    }
  if (!path)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "--secret-file FILE is required: the deployment's shared secret (a coordinator creates FILE; "
                   "copy it to each peer's machine)");
      return NULL;
    }
  if (!is_peer && !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      if (!create_secret (path, error))
        return NULL;
      *out_created = TRUE;
    }
  return testbed_secret_load (path, error);
}

ResNode *
testbed_node_record_begin (ResDb *db, const SimScenario *s, const SimPoint *p, guint64 seed, const char *name,
                           gint64 t0_us, char **sets, const char *scenario_path, GError **error)
{
  /* the node's clock: its t0 on the wall clock, for dlsim merge */
  g_autofree char *t0_unix = g_strdup_printf ("%" G_GINT64_FORMAT,
                                              g_get_real_time () - (g_get_monotonic_time () - t0_us));
  g_autofree char *all_sets = sets ? g_strjoinv ("\n", sets) : g_strdup ("");
  const char *extra[] = { TESTBED_NODE_PARAM_NAME, name, TESTBED_NODE_PARAM_HOST, g_get_host_name (),
                          TESTBED_NODE_PARAM_T0, t0_unix, TESTBED_NODE_PARAM_SETS, all_sets,
                          TESTBED_NODE_PARAM_SCENARIO, scenario_path, NULL };
  return res_node_begin (db, s, p, seed, extra, error);
}
