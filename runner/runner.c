/* runner.c — one scenario point, from its build to its recorded rows: the
 * sequence every command that simulates a run shares (runner.h).  What the
 * commands print stays in cli/; wall-clock time is measured here, never in
 * the simulator. */
#include "config.h"

#include "runner/runner.h"

#include <string.h>

void
runner_result_clear (RunnerResult *r)
{
  if (r->failed)
    g_ptr_array_unref (r->failed);
  memset (r, 0, sizeof *r);
}

/* The world's peers' results, [1..n], as results/ takes them (it reads
 * no world). */
static GArray *
world_peers (const SimWorld *w)
{
  guint n = sim_world_n_nodes (w);
  GArray *peers = g_array_sized_new (FALSE, TRUE, sizeof (SimPeerResult), n + 1);
  g_array_set_size (peers, n + 1);
  for (guint i = 1; i <= n; i++)
    g_array_index (peers, SimPeerResult, i) = *sim_world_peer (w, i);
  return peers;
}

/* The world of cfg, with the recorder rec, run to its end into out. */
static gboolean
run_world (const SimWorldConfig *cfg, const SimRecorder *rec, ResRun *run, const RunnerOptions *o,
           RunnerResult *out, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  SimWorld *w = sim_world_new (cfg, rec, error);
  if (!w)
    {
      if (run)
        res_run_abort (run, "error");
      return FALSE;
    }
  if (o->interrupt)
    sim_world_set_interrupt (w, o->interrupt);
  sim_world_set_wall_limit (w, o->wall_limit_us);
  if (o->progress)
    sim_world_set_progress (w, o->progress, o->progress_data);
  const SimResult *res = sim_world_run (w);
  if (run)
    {
      res_run_drain (run);   /* the run's wall time includes writing its rows */
      out->writer_cpu_seconds = res_run_writer_cpu_seconds (run);
    }
  out->end_us = g_get_monotonic_time ();
  out->wall_seconds = (double) (out->end_us - t0) / 1e6;
  out->result = *res;
  out->result.metrics = NULL;
  out->ran = TRUE;
  gboolean ok = TRUE;
  if (run && res->outcome == SIM_OUTCOME_INTERRUPTED)
    res_run_abort (run, "interrupted");
  else if (run && res->outcome == SIM_OUTCOME_ERROR)
    res_run_abort (run, "error");   /* a broken guest: what it recorded stays */
  else if (run)
    {
      g_autoptr (GArray) peers = world_peers (w);
      res_run_set_peers (run, (const SimPeerResult *) (const void *) peers->data, peers->len - 1);
      ok = res_run_finish (run, res, o->no_wall ? 0 : out->wall_seconds, out->failed, &out->checked, error);
    }
  sim_world_free (w);
  return ok;
}

gboolean
runner_run_config (const SimWorldConfig *cfg, const SimScenario *s, const SimPoint *p, guint64 seed,
                   const RunnerOptions *o, RunnerResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->failed = g_ptr_array_new_with_free_func (g_free);
  gboolean ok;
  if (o->db)
    {
      ResRun *run = res_run_begin (o->db, o->run_id, s, p, seed, error);
      if (!run)
        return FALSE;
      out->run_id = res_run_id (run);
      res_run_set_events (run, !o->no_events);
      SimRecorder rec = res_run_recorder (run);
      ok = run_world (cfg, &rec, run, o, out, error);
    }
  else
    ok = run_world (cfg, o->recorder, NULL, o, out, error);
  return ok;
}

gboolean
runner_run_point (const SimScenario *s, const SimPoint *p, guint64 seed, const RunnerOptions *o, RunnerResult *out,
                  GError **error)
{
  SimBuilt built;
  if (!sim_scenario_build (s, p, seed, &built, error))
    {
      memset (out, 0, sizeof *out);
      return FALSE;
    }
  gboolean ok = runner_run_config (&built.cfg, s, p, seed, o, out, error);
  sim_built_clear (&built);
  return ok;
}
