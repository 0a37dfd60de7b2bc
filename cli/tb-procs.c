/* tb-procs.c — the peers of `dlsim testbed` as processes: a join spawns a
 * `dlsim node peer` child (inside its network namespace with --netem),
 * whose record lines come back on its stdout; a leave asks it on stdin; a
 * crash is SIGKILL.  The timeline's actions run at their wall-clock time or
 * at `round N`; drop and delay rules go to every live process. */
#include "config.h"

#include "cli/tb-records.h"
#include "cli/tb-run.h"

#include <string.h>

/* ---------------------------------------------------------------- children */

static void read_records (TbPeer *p);

static void
on_record (GObject *src, GAsyncResult *res, gpointer data)
{
  TbPeer *p = data;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (src), res, &len, NULL);
  if (!line)
    {
      p->eof = TRUE;
      return;
    }
  tb_ingest (p->tb, p->id, line);
  read_records (p);
}

static void
read_records (TbPeer *p)
{
  g_data_input_stream_read_line_async (p->records, G_PRIORITY_DEFAULT, NULL, on_record, p);
}

static void
on_exited (GObject *src, GAsyncResult *res, gpointer data)
{
  TbPeer *p = data;
  g_subprocess_wait_finish (G_SUBPROCESS (src), res, NULL);
  p->exited = TRUE;
  if (p->status == TB_ONLINE)
    {
      p->status = TB_LEFT;
      p->left = tb_now (p->tb);
    }
}

void
tb_send_control (TbPeer *p, const char *line)
{
  if (!p->control || p->exited)
    return;
  g_autofree char *l = g_strdup_printf ("%s\n", line);
  g_output_stream_write_all (p->control, l, strlen (l), NULL, NULL, NULL);
}

void
tb_spawn (Tb *tb, ProtoNodeId id)
{
  TbPeer *p = tb_peer_at (tb, id, TRUE);
  if (p->status != TB_ABSENT)
    {
      tb_fact (tb, tb_now (tb), id, PROTO_NO_NODE, "ignored", "join: the peer already joined once");
      return;
    }
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  if (tb->net)
    {
      /* `ip netns exec` execs dlsim in place: the child's pid is the peer's */
      g_ptr_array_add (argv, g_strdup ("ip"));
      g_ptr_array_add (argv, g_strdup ("netns"));
      g_ptr_array_add (argv, g_strdup ("exec"));
      g_ptr_array_add (argv, tb_netns_peer_ns (tb->net, id));
    }
  g_ptr_array_add (argv, g_strdup (tb->self_exe));
  g_ptr_array_add (argv, g_strdup ("node"));
  g_ptr_array_add (argv, g_strdup ("peer"));
  g_ptr_array_add (argv, g_strdup_printf ("--coordinator=%s:%u", tb->net ? tb_netns_coordinator_host (tb->net)
                                                                         : "127.0.0.1",
                                          sim_tb_node_port (tb->coord)));
  if (tb->net)
    {
      g_autofree char *host = tb_netns_peer_host (tb->net, id);
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
  g_autoptr (GError) e = NULL;
  /* the secret in the environment, which only this user may read (argv: anyone) */
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_setenv (launcher, "DLSIM_TESTBED_SECRET", tb->secret, TRUE);
  p->proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &e);
  p->joined = tb_now (tb);
  p->progress = p->joined;
  tb->progress = MAX (tb->progress, p->joined);
  if (!p->proc)
    {
      tb_fact (tb, tb_now (tb), id, PROTO_NO_NODE, "spawn-failed", e->message);
      p->status = TB_LEFT;
      p->exited = p->eof = TRUE;
      return;
    }
  p->status = TB_ONLINE;
  p->control = g_object_ref (g_subprocess_get_stdin_pipe (p->proc));
  p->records = g_data_input_stream_new (g_subprocess_get_stdout_pipe (p->proc));
  read_records (p);
  g_subprocess_wait_async (p->proc, NULL, on_exited, p);
  tb_fact (tb, tb_now (tb), id, PROTO_NO_NODE, "join", "process started");
  for (guint i = 0; i < tb->rules->len; i++)
    {
      g_autofree char *l = tb_rule_line (&g_array_index (tb->rules, SimAction, i));
      tb_send_control (p, l);
    }
}

void
tb_depart (Tb *tb, ProtoNodeId id, gboolean crash)
{
  TbPeer *p = tb_peer_at (tb, id, FALSE);
  if (!p || p->status != TB_ONLINE)
    {
      tb_fact (tb, tb_now (tb), id, PROTO_NO_NODE, "ignored", crash ? "crash: not online" : "leave: not online");
      return;
    }
  tb_fact (tb, tb_now (tb), id, PROTO_NO_NODE, crash ? "crash" : "leave",
              crash ? "SIGKILL" : "asked to leave");
  if (crash)
    {
      p->status = TB_CRASHED;
      p->left = tb_now (tb);
      g_subprocess_force_exit (p->proc);
    }
  else
    {
      p->leave_asked = TRUE;
      tb_send_control (p, "leave");
    }
}

/* ---------------------------------------------------------------- timeline */

typedef struct {
  Tb *tb;
  const SimAction *a;
} Due;

static void
run_action (Tb *tb, const SimAction *a)
{
  switch (a->kind)
    {
    case SIM_ACT_JOIN:
      tb_spawn (tb, a->a);
      break;
    case SIM_ACT_LEAVE:
      tb_depart (tb, a->a, FALSE);
      break;
    case SIM_ACT_CRASH:
      tb_depart (tb, a->a, TRUE);
      break;
    case SIM_ACT_DROP:
    case SIM_ACT_DELAY:
    case SIM_ACT_SLOW:
    case SIM_ACT_LINK_FAIL:
      {
        /* rules go to every process (each keeps what names it), and to
         * those that join later */
        g_array_append_val (tb->rules, *a);
        sim_tb_node_add_rule (tb->coord, a);
        g_autofree char *l = tb_rule_line (a);
        for (guint i = 1; i < tb->peers->len; i++)
          {
            TbPeer *p = g_ptr_array_index (tb->peers, i);
            if (p && p->status == TB_ONLINE)
              tb_send_control (p, l);
          }
        if (a->kind == SIM_ACT_SLOW)
          tb_fact (tb, tb_now (tb), a->a, PROTO_NO_NODE, "slow", l);
        else if (a->kind == SIM_ACT_LINK_FAIL)
          tb_fact (tb, tb_now (tb), a->a, a->b, "link-fail", NULL);
        else
          tb_fact (tb, tb_now (tb), a->a, PROTO_NO_NODE, a->kind == SIM_ACT_DROP ? "drop-rule" : "delay-rule",
                   proto_msg_type_name ((ProtoMsgType) a->msg_type));
        break;
      }
    case SIM_ACT_PARTITION:
      {
        g_autoptr (GError) e = NULL;
        if (tb->net && tb_netns_partition (tb->net, a->groups, MAX (tb->cfg->max_peers, tb->cfg->n_peers), &e))
          tb_fact (tb, tb_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "partition", "blackhole routes between the groups");
        else
          tb_fact (tb, tb_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "ignored", e ? e->message : "partition: no --netem");
        break;
      }
    case SIM_ACT_HEAL:
      if (tb->net)
        tb_netns_heal (tb->net);
      tb_fact (tb, tb_now (tb), PROTO_NO_NODE, PROTO_NO_NODE, "heal", NULL);
      break;
    case SIM_ACT_LINK_DOWN:
    case SIM_ACT_LINK_SLOW:
    case SIM_ACT_CRASH_COORD:
      g_assert_not_reached ();   /* refused before the run */
    }
}

static gboolean
on_due (gpointer data)
{
  Due *d = data;
  d->tb->pending_actions--;
  run_action (d->tb, d->a);
  return G_SOURCE_REMOVE;
}

void
tb_schedule (Tb *tb, const SimAction *a, DlTime in_ns)
{
  Due *d = g_new0 (Due, 1);
  d->tb = tb;
  d->a = a;
  tb->pending_actions++;
  GSource *src = g_timeout_source_new ((guint) MAX ((in_ns + 999999) / 1000000, 0));
  g_source_set_callback (src, on_due, d, g_free);
  g_source_attach (src, NULL);
  g_ptr_array_add (tb->timers, src);
}

void
tb_schedule_round_actions (Tb *tb, guint round)
{
  if (round <= tb->round_started)
    return;
  tb->round_started = round;
  for (guint i = 0; i < tb->cfg->actions->len; i++)
    {
      const SimAction *a = &g_array_index (tb->cfg->actions, SimAction, i);
      if (a->round == round)
        tb_schedule (tb, a, a->after);
    }
}

void
tb_stop_children (Tb *tb, gint64 grace_us)
{
  for (guint i = 1; i < tb->peers->len; i++)
    {
      TbPeer *p = g_ptr_array_index (tb->peers, i);
      if (p && p->proc && !p->exited)
        {
          tb_send_control (p, "leave");
          g_clear_object (&p->control);   /* EOF on its stdin: leave and exit */
        }
    }
  gint64 until = g_get_monotonic_time () + grace_us;
  for (;;)
    {
      gboolean live = FALSE;
      for (guint i = 1; i < tb->peers->len; i++)
        {
          TbPeer *p = g_ptr_array_index (tb->peers, i);
          live |= p && p->proc && (!p->exited || !p->eof);
        }
      if (!live)
        break;
      if (g_get_monotonic_time () >= until)
        {
          for (guint i = 1; i < tb->peers->len; i++)
            {
              TbPeer *p = g_ptr_array_index (tb->peers, i);
              if (p && p->proc && !p->exited)
                g_subprocess_force_exit (p->proc);
            }
          until = G_MAXINT64;   /* now wait for the kills to be reaped */
        }
      g_main_context_iteration (NULL, TRUE);
    }
}

/* ---------------------------------------------------------------- the command */

/* Refuses what the testbed cannot express, naming the key. */
gboolean
tb_supported (const SimBuilt *b, const char *path, gboolean netem, GError **error)
{
  const SimWorldConfig *c = &b->cfg;
  const char *bad = NULL;
  if (c->arrival_rate_per_s > 0)
    bad = "[churn] arrival_rate";
  else if (c->nat_symmetric_share > 0)
    bad = "[peers] nat";
  else if (c->connect_failure > 0)
    bad = "[network] connect_failure";
  else if (c->loss > 0)
    bad = "[network] loss";
  else if (c->rates)
    bad = "[network] bandwidth_trace";
  else if (c->proto.coordinator_replicas > 1)
    bad = "[protocol] coordinator_replicas > 1 (the testbed runs one coordinator)";
  for (guint i = 0; !bad && i < c->actions->len; i++)
    {
      const SimAction *a = &g_array_index (c->actions, SimAction, i);
      switch (a->kind)
        {
        case SIM_ACT_JOIN:
        case SIM_ACT_LEAVE:
        case SIM_ACT_CRASH:
        case SIM_ACT_DROP:
        case SIM_ACT_DELAY:
        case SIM_ACT_SLOW:
        case SIM_ACT_LINK_FAIL:
          break;
        case SIM_ACT_LINK_DOWN: bad = "[timeline] link-down"; break;
        case SIM_ACT_PARTITION:
        case SIM_ACT_HEAL:
          if (!netem)
            bad = a->kind == SIM_ACT_PARTITION ? "[timeline] partition (without --netem)"
                                               : "[timeline] heal (without --netem)";
          break;
        case SIM_ACT_LINK_SLOW: bad = "[timeline] link-slow"; break;
        case SIM_ACT_CRASH_COORD: bad = "[timeline] crash coordinator"; break;
        }
    }
  if (bad)
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s: not supported in the testbed", path, bad);
  return bad == NULL;
}
