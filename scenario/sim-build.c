/* sim-build.c — building a world configuration from a scenario's sweep
 * point and a seed: every resolved value parsed into SimWorldConfig (the
 * protocol family's own keys by the family's configure, protocol/
 * proto-keys.h), the timeline's actions, the data set, the availability
 * trace and the bandwidth trace (sim_scenario_build in sim-scenario.h). */
#include "config.h"

#include "scenario/sim-scenario-private.h"
#include "protocol/proto-machine.h"
#include "scenario/sim-trace.h"
#include "scenario/sim-fedscale.h"
#include "scenario/sim-bwtrace.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- building */

void
sim_built_clear (SimBuilt *b)
{
  sim_world_config_clear (&b->cfg);
  g_clear_pointer (&b->train, learn_dataset_free);
  g_clear_pointer (&b->test, learn_dataset_free);
  g_clear_pointer (&b->warning, g_free);
}

/* The folder the file's relative paths are taken from: [scenario] dir
 * (itself relative to the file's folder), or the file's folder. */
static char *
scenario_dir (const SimScenario *s, const SimPoint *p)
{
  g_autofree char *file_dir = g_path_get_dirname (s->path);
  const char *dir = _sim_scenario_point_value (p, "scenario", "dir");
  if (!*dir)
    return g_steal_pointer (&file_dir);
  return g_path_is_absolute (dir) ? g_strdup (dir) : g_build_filename (file_dir, dir, NULL);
}

static char *
resolve_path (const SimScenario *s, const SimPoint *p, const char *rel)
{
  if (g_path_is_absolute (rel))
    return g_strdup (rel);
  g_autofree char *dir = scenario_dir (s, p);
  return g_build_filename (dir, rel, NULL);
}

#define V(sec, key) _sim_scenario_point_value (p, sec, key)
#define BAD(sec, key, ...) (_sim_scenario_fail_at (error, _sim_scenario_origin (s, sec, key), sec, key, __VA_ARGS__), sim_built_clear (out), FALSE)

/* Parses a value with `fn`, prefixing errors with file, section and key. */
#define PARSE(sec, key, call)                                                     \
  do {                                                                            \
    g_autoptr (GError) _e = NULL;                                                 \
    GError **error_ = &_e;                                                        \
    (void) error_;                                                                \
    if (!(call))                                                                  \
      return BAD (sec, key, "%s", _e ? _e->message : "invalid value");            \
  } while (0)

static guint
uint_of (const char *v)
{
  guint n = 0;
  _sim_scenario_parse_uint (v, &n);
  return n;
}

/* Whether the model of c fits what a run may hold: its weights (a message
 * carries at most SIM_FLOATS_MAX), the copies that the run's peers hold
 * (SIM_RUN_FLOATS_MAX) and a batch's work space (learn-model.c), in
 * floats.  NULL if it fits; else (transfer full) the message, and
 * *out_sec and *out_key the key to blame. */
static char *
model_fault (const SimWorldConfig *c, gsize train_rows, gboolean synthetic, const char *src, const char **out_sec,
             const char **out_key)
{
  gboolean mlp = c->model.kind == LEARN_MODEL_MLP;
  guint64 f = c->model.features, k = c->model.classes, h = c->model.hidden;
  guint64 weights = mlp ? h * f + h + k * h + k : k * f + k;
  g_autofree char *model = mlp ? g_strdup_printf ("an mlp of %" G_GUINT64_FORMAT " features, %" G_GUINT64_FORMAT
                                                  " hidden units and %" G_GUINT64_FORMAT " classes", f, h, k)
                               : g_strdup_printf ("a softmax of %" G_GUINT64_FORMAT " features and %" G_GUINT64_FORMAT
                                                  " classes", f, k);
  *out_sec = mlp ? "model" : "data";
  *out_key = mlp ? "hidden" : synthetic ? "features" : "source";
  if (weights > SIM_FLOATS_MAX)
    return g_strdup_printf ("%s (data.source %s) has %" G_GUINT64_FORMAT " weights: at most %u (a message carries "
                            "at most 1 GiB of floats)", model, src, weights, SIM_FLOATS_MAX);
  guint64 held = weights * ((guint64) c->max_peers + 1);
  if (held > SIM_RUN_FLOATS_MAX)
    return g_strdup_printf ("%s (data.source %s) has %" G_GUINT64_FORMAT " weights, and every one of the run's %u "
                            "peers holds its own: %" G_GUINT64_FORMAT " x (%u peers + 1) = %" G_GUINT64_FORMAT
                            " floats, more than the run's bound of %u (2 GB of model copies; use fewer peers, "
                            "features, classes or hidden units)", model, src, weights, c->max_peers, weights,
                            c->max_peers, held, SIM_RUN_FLOATS_MAX);
  guint64 rows = MIN ((guint64) c->model.batch_size, (guint64) train_rows);
  *out_sec = "model";
  *out_key = "batch_size";
  if (rows * (f + k + (mlp ? 3 * h : 0)) > SIM_FLOATS_MAX)
    return g_strdup_printf ("a batch of %" G_GUINT64_FORMAT " rows needs more than %u floats of work space", rows,
                            SIM_FLOATS_MAX);
  return NULL;
}

/* The replicated coordinator's keys (protocol/replica/) of
 * sim_scenario_build.  FALSE (out cleared) on a bad value. */
static gboolean
build_replicas (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  ProtoConfig *pc = &out->cfg.proto;
  pc->coordinator_replicas = uint_of (V ("protocol", "coordinator_replicas"));
  if (pc->coordinator_replicas < 1 || pc->coordinator_replicas > 9)
    return BAD ("protocol", "coordinator_replicas", "must be 1 (one coordinator) to 9 replicas");
  pc->replication = strcmp (V ("protocol", "coordinator_replication"), "primary-backup") == 0
                    ? PROTO_REPLICATION_PRIMARY_BACKUP : PROTO_REPLICATION_RAFT;
  dl_parse_duration (V ("protocol", "replica_heartbeat"), &pc->replica_heartbeat, NULL);
  dl_parse_duration (V ("protocol", "replica_election_timeout"), &pc->replica_election_timeout, NULL);
  dl_parse_duration (V ("protocol", "resume_timeout"), &pc->resume_timeout, NULL);
  if (pc->replica_heartbeat <= 0)
    return BAD ("protocol", "replica_heartbeat", "must be more than 0");
  if (pc->replica_election_timeout <= pc->replica_heartbeat)
    return BAD ("protocol", "replica_election_timeout", "must be more than replica_heartbeat (%s): a follower "
                "would stand between two heartbeats", V ("protocol", "replica_heartbeat"));
  if (pc->resume_timeout <= 0)
    return BAD ("protocol", "resume_timeout", "must be more than 0");
  return TRUE;
}

/* The [network] keys of sim_scenario_build: latencies, regions, links,
 * transport and crash detection.  FALSE (out cleared) on a bad value. */
static gboolean
build_network (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  dl_dist_parse (V ("network", "latency"), DL_UNIT_DURATION, &c->latency, NULL);
  dl_dist_parse (V ("network", "server_latency"), DL_UNIT_DURATION, &c->server_latency, NULL);
  dl_dist_parse (V ("network", "replica_latency"), DL_UNIT_DURATION, &c->replica_latency, NULL);
  {
    DlTime t;
    dl_parse_duration (V ("network", "replica_crash_detection"), &t, NULL);
    c->replica_crash_detection = dl_dist_constant (DL_UNIT_DURATION, (double) t);
  }
  if (*V ("network", "regions"))
    PARSE ("network", "regions",
           _sim_scenario_parse_regions (V ("network", "regions"), &c->region_names, &c->region_counts, &c->n_regions, &_e));
  if (*V ("network", "local_latency"))
    {
      if (c->n_regions == 0)
        return BAD ("network", "local_latency", "applies with [network] regions only (no peer has a region)");
      dl_dist_parse (V ("network", "local_latency"), DL_UNIT_DURATION, &c->local_latency, NULL);
      c->local_latency_set = TRUE;
    }
  for (int k = 0; k < 2; k++)
    {
      const char *key = k ? "downlink" : "uplink";
      DlDist *d = k ? &c->downlink : &c->uplink;
      uint64_t *bps = k ? &c->downlink_bps : &c->uplink_bps;
      if (strchr (V ("network", key), '('))
        {
          dl_dist_parse (V ("network", key), DL_UNIT_RATE, d, NULL);
          double mean = dl_dist_mean (d);
          if (!(mean >= 1e3 && mean < 1e15))
            return BAD ("network", key, "the distribution's mean must be from 1kbps to below 1000000Gbps (1e15 bit/s)");
          *bps = (uint64_t) llround (mean);
          c->rates_drawn = TRUE;
        }
      else
        {
          dl_parse_rate (V ("network", key), bps, NULL);
          *d = dl_dist_constant (DL_UNIT_RATE, (double) *bps);
        }
    }
  dl_parse_rate (V ("network", "replica_uplink"), &c->replica_uplink_bps, NULL);
  if (c->replica_uplink_bps == 0)
    return BAD ("network", "replica_uplink", "must be more than 0");
  if (c->uplink_bps == 0)
    return BAD ("network", "uplink", "must be more than 0");
  if (c->downlink_bps == 0)
    return BAD ("network", "downlink", "must be more than 0");
  c->sharing_fifo = strcmp (V ("network", "sharing"), "fifo") == 0;
  dl_parse_rate (V ("network", "server_uplink"), &c->server_uplink_bps, NULL);
  dl_parse_rate (V ("network", "server_downlink"), &c->server_downlink_bps, NULL);
  c->transport = strcmp (V ("network", "transport"), "tcp") == 0    ? SIM_TRANSPORT_TCP
                 : strcmp (V ("network", "transport"), "sctp") == 0 ? SIM_TRANSPORT_SCTP
                                                                     : SIM_TRANSPORT_FLUID;
  c->slow_start_after_idle = strcmp (V ("network", "slow_start_after_idle"), "true") == 0;
  c->hystart = strcmp (V ("network", "hystart"), "true") == 0;
  dl_parse_duration (V ("network", "min_rto"), &c->min_rto, NULL);
  dl_parse_number (V ("network", "queue_bdp"), &c->queue_bdp, NULL);
  if (!(c->queue_bdp >= 0 && c->queue_bdp <= 1000))
    return BAD ("network", "queue_bdp", "must be from 0 to 1000");
  dl_parse_size (V ("network", "mss"), &c->mss_bytes, NULL);
  if (c->mss_bytes == 0 || c->mss_bytes > 1 << 20)
    return BAD ("network", "mss", "must be between 1B and 1MiB");
  dl_parse_size (V ("network", "header_bytes"), &c->header_bytes, NULL);
  if (c->header_bytes > 1 << 20)
    return BAD ("network", "header_bytes", "must be at most 1MiB");
  dl_parse_duration (V ("network", "link_setup"), &c->link_setup, NULL);
  _sim_scenario_parse_prob (V ("network", "connect_failure"), &c->connect_failure, NULL);
  _sim_scenario_parse_prob (V ("network", "loss"), &c->loss, NULL);
  c->crash_never_detected = strcmp (V ("network", "crash_detection"), "never") == 0;
  if (!c->crash_never_detected)
    dl_dist_parse (V ("network", "crash_detection"), DL_UNIT_DURATION, &c->crash_detection, NULL);
  return TRUE;
}

/* The [scenario] keys of sim_scenario_build: time limit and properties.
 * FALSE (out cleared) on a bad value. */
static gboolean
build_scenario (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  PARSE ("scenario", "time_limit", dl_parse_duration (V ("scenario", "time_limit"), &c->time_limit, &_e));
  if (c->time_limit <= 0)
    return BAD ("scenario", "time_limit", "must be more than 0");

  const char *props = V ("scenario", "properties");
  if (strcmp (props, "all") != 0 && strcmp (props, "safety") != 0)
    return BAD ("scenario", "properties", "'%s': expected all or safety", props);
  c->safety_only = strcmp (props, "safety") == 0;
  return TRUE;
}

/* The family of sim_scenario_build (protocol/proto-machine.c) into
 * *out_fam, the keys that belong to another family refused, and the
 * family's part of the config from its keys, read through look (made
 * here on dir).  FALSE (out cleared) on a bad value. */
static gboolean
build_family (const SimScenario *s, const SimPoint *p, guint64 seed, const char *dir, const ProtoFamily **out_fam,
              ProtoKeyLookup *look, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  /* the keys that belong to another family: an error, so that nobody
   * tunes a knob that does nothing */
  const char *family = V ("protocol", "family");
  const ProtoFamily *fam = proto_family_lookup (family);
  if (!fam)
    {
      g_autofree char *names = proto_family_names (", ", " or ");
      return BAD ("protocol", "family", "'%s': unknown family (expected %s)", family, names);
    }
  for (guint i = 0; i < p->keys->len; i++)
    {
      const char *full = p->keys->pdata[i], *dot = strchr (full, '.');
      if (dot && !sim_scenario_key_applies (full, family))
        {
          g_autofree char *sec = g_strndup (full, (gsize) (dot - full));
          if (_sim_scenario_point_given (p, sec, dot + 1))
            return BAD (sec, dot + 1, "applies to family = %s only, not to family = %s",
                        sim_scenario_key_family (full), family);
        }
    }
  /* the family's part of the config, from its keys (its folder's *-keys.c) */
  proto_config_init (&c->proto, family);
  c->proto.seed = seed;
  sim_keys_lookup_init (look, p, dir);
  {
    g_autoptr (GError) e = NULL;
    if (fam->keys && !fam->keys->configure (&c->proto, look, &e))
      return BAD (look->bad_section, look->bad_key, "%s", e->message);
  }
  *out_fam = fam;
  return TRUE;
}

/* The [training] keys of sim_scenario_build, the replicated coordinator
 * and what the runtime implies.  FALSE (out cleared) on a bad value. */
static gboolean
build_training (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  ProtoConfig *pc = &c->proto;
  /* a family that refuses the key sets its rounds itself */
  if (sim_scenario_key_applies ("training.rounds", V ("protocol", "family")))
    {
      pc->rounds = uint_of (V ("training", "rounds"));
      if (pc->rounds == 0)
        return BAD ("training", "rounds", "must be at least 1");
    }
  c->epochs_per_round = uint_of (V ("training", "epochs_per_round"));
  if (c->epochs_per_round == 0)
    return BAD ("training", "epochs_per_round", "must be at least 1");
  pc->leave_after_training = strcmp (V ("training", "after_training"), "leave") == 0;
  /* the replicated coordinator (protocol/replica/) */
  if (!build_replicas (s, p, out, error))
    return FALSE;
  /* runtime = webapp is DISCO's browser app, which closes the session
   * after training (D3; DISCO's configure reads the runtime too) */
  if (strcmp (V ("peers", "runtime"), "webapp") == 0)
    pc->leave_after_training = TRUE;
  return TRUE;
}

/* The [peers] and [compute] keys of sim_scenario_build (the count the
 * family's keys give, through look, when peers.count is not given).
 * FALSE (out cleared) on a bad value. */
static gboolean
build_peers (const SimScenario *s, const SimPoint *p, const ProtoFamily *fam, ProtoKeyLookup *look, SimBuilt *out,
             GError **error)
{
  SimWorldConfig *c = &out->cfg;
  c->n_peers = uint_of (V ("peers", "count"));
  guint family_peers;
  if (!_sim_scenario_point_given (p, "peers", "count") && fam->keys && fam->keys->peer_count
      && fam->keys->peer_count (look, &family_peers))
    c->n_peers = family_peers;
  dl_dist_parse (V ("peers", "speed"), DL_UNIT_NUMBER, &c->speed, NULL);
  if (dl_dist_mean (&c->speed) <= 0 && c->speed.kind == DL_DIST_CONSTANT)
    return BAD ("peers", "speed", "must be more than 0");
  _sim_scenario_parse_stragglers (V ("peers", "stragglers"), &c->straggler_share, &c->straggler_slowdown, NULL);
  const char *nat = V ("peers", "nat");
  if (g_str_has_prefix (nat, "symmetric("))
    {
      g_autofree char *num = g_strndup (nat + 10, strlen (nat) - 11);
      dl_parse_number (num, &c->nat_symmetric_share, NULL);
    }
  dl_parse_duration (V ("compute", "sample_cost"), &c->sample_cost, NULL);
  c->none_samples = uint_of (V ("compute", "none_samples"));
  return TRUE;
}

/* The [churn] keys of sim_scenario_build with the files it reads: the
 * churn trace, the capacity file and the bandwidth trace (its path into
 * *out_bw_path, transfer full; NULL without one).  churn.max_peers into
 * *out_churn_max.  FALSE (out cleared) on a bad value. */
static gboolean
build_churn (const SimScenario *s, const SimPoint *p, guint *out_churn_max, char **out_bw_path, SimBuilt *out,
             GError **error)
{
  SimWorldConfig *c = &out->cfg;
  dl_parse_per_time (V ("churn", "arrival_rate"), &c->arrival_rate_per_s, NULL);
  dl_dist_parse (V ("churn", "session"), DL_UNIT_DURATION, &c->session, NULL);
  _sim_scenario_parse_prob (V ("churn", "crash_fraction"), &c->crash_fraction, NULL);
  *out_churn_max = uint_of (V ("churn", "max_peers"));
  const char *trace = V ("churn", "trace");
  const char *trace_format = V ("churn", "trace_format");
  if (strcmp (trace_format, "csv") != 0 && strcmp (trace_format, "fedscale") != 0)
    return BAD ("churn", "trace_format", "'%s': expected csv or fedscale", trace_format);
  if (*trace)
    {
      g_autofree char *tp = resolve_path (s, p, trace);
      if (strcmp (trace_format, "fedscale") == 0)
        PARSE ("churn", "trace", (c->trace = sim_fedscale_load_behaviour (tp, c->time_limit, &_e)) != NULL);
      else
        PARSE ("churn", "trace", (c->trace = sim_trace_load (tp, &_e)) != NULL);
      /* an empty trace once ran with no churn and no word: it runs (a
       * sweep's baseline may be one), with a warning */
      if (c->trace->len == 0)
        out->warning = g_strdup_printf ("%s: [churn] trace: %s: no peer is ever online in it before the time limit "
                                        "(%s): the run has no trace churn", _sim_scenario_origin (s, "churn", "trace"),
                                        tp, strcmp (trace_format, "fedscale") == 0
                                              ? "no line, or every interval after scenario.time_limit"
                                              : "no peer,join,leave row");
    }
  const char *capacity = V ("peers", "capacity");
  if (*capacity)
    {
      g_autofree char *cp = resolve_path (s, p, capacity);
      PARSE ("peers", "capacity", (c->capacity = sim_fedscale_load_capacity (cp, &_e)) != NULL);
    }
  /* a bandwidth trace: its peers are checked once the run's are known */
  const char *bw = V ("network", "bandwidth_trace");
  *out_bw_path = *bw ? resolve_path (s, p, bw) : NULL;
  if (*out_bw_path)
    PARSE ("network", "bandwidth_trace", (c->rates = sim_bwtrace_load (*out_bw_path, &_e)) != NULL);
  const char *return_model = V ("churn", "return_model");
  if (strcmp (return_model, "own") != 0 && strcmp (return_model, "initial") != 0)
    return BAD ("churn", "return_model", "'%s': expected own or initial", return_model);
  c->return_initial = strcmp (return_model, "initial") == 0;
  return TRUE;
}

/* The [timeline] keys of sim_scenario_build into out's actions: the
 * peers the actions name into refs (but a join's), the joined ones into
 * joined and the highest into *max_join.  FALSE (out cleared) on a bad
 * value. */
static gboolean
build_actions (const SimScenario *s, const SimPoint *p, GPtrArray *refs, GArray *joined, guint *max_join,
               SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  for (guint i = 0; i < p->keys->len; i++)
    {
      const char *full = p->keys->pdata[i];
      if (!g_str_has_prefix (full, "timeline."))
        continue;
      const char *when = full + 9;
      SimAction base = { 0 };
      g_autoptr (GError) e = NULL;
      if (!_sim_scenario_parse_when (when, &base, &e))
        return BAD ("timeline", when, "'%s' is not a time: %s", when, e->message);
      g_autoptr (GPtrArray) acts = _sim_scenario_split_top (p->values->pdata[i], ';');
      for (guint k = 0; k < acts->len; k++)
        {
          SimAction a = base;
          guint before = refs->len;
          if (!_sim_scenario_parse_action (acts->pdata[k], &a, refs, &e))
            {
              if (a.groups)
                g_array_unref (a.groups);
              return BAD ("timeline", when, "%s", e->message);
            }
          if (a.kind == SIM_ACT_JOIN && a.a > SIM_PEERS_MAX)
            return BAD ("timeline", when, "'%s': peer p%u is out of range (p1 to p%u)", (char *) acts->pdata[k],
                        a.a, SIM_PEERS_MAX);
          if (a.kind == SIM_ACT_JOIN)
            {
              g_array_append_val (joined, a.a);
              *max_join = MAX (*max_join, a.a);
              g_ptr_array_remove_range (refs, before, refs->len - before);
            }
          g_array_append_val (c->actions, a);
        }
    }
  return TRUE;
}

/* A timeline names peer p<id> that never joins: the error names the
 * timeline time that names it.  FALSE (out cleared), always. */
static gboolean
unknown_peer (const SimScenario *s, const SimPoint *p, guint id, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  for (guint k = 0; k < p->keys->len; k++)
    if (g_str_has_prefix (p->keys->pdata[k], "timeline."))
      {
        g_autofree char *needle = g_strdup_printf ("p%u", id);
        g_autoptr (GPtrArray) words = _sim_scenario_split_top (p->values->pdata[k], ' ');
        for (guint w2 = 0; w2 < words->len; w2++)
          if (strstr (words->pdata[w2], needle))
            return BAD ("timeline", (char *) p->keys->pdata[k] + 9,
                        "'%s': unknown peer p%u (peers.count is %u; add a 'join p%u' first)",
                        (char *) p->values->pdata[k], id, c->n_peers, id);
      }
  return BAD ("timeline", "?", "unknown peer p%u", id);
}

/* The timeline of sim_scenario_build, and the run's peers: those of
 * peers.count, the joins, the churn trace and churn_max, every one the
 * timeline and the bandwidth trace (read from bw_path) name among them.
 * FALSE (out cleared) on a bad value. */
static gboolean
build_timeline (const SimScenario *s, const SimPoint *p, guint churn_max, const char *bw_path, SimBuilt *out,
                GError **error)
{
  SimWorldConfig *c = &out->cfg;
  guint max_join = 0;
  g_autoptr (GPtrArray) refs = g_ptr_array_new ();
  g_autoptr (GArray) joined = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!build_actions (s, p, refs, joined, &max_join, out, error))
    return FALSE;
  guint max_trace = 0;
  for (guint i = 0; c->trace && i < c->trace->len; i++)
    max_trace = MAX (max_trace, g_array_index (c->trace, SimTraceEntry, i).peer);
  guint known = MAX (MAX (c->n_peers, max_join), max_trace);
  if (c->arrival_rate_per_s > 0)
    {
      if (churn_max < c->n_peers)
        return BAD ("churn", "max_peers", "%u is less than peers.count (%u)", churn_max, c->n_peers);
      known = MAX (known, churn_max);
    }
  for (guint i = 0; i < refs->len; i++)
    {
      guint id = GPOINTER_TO_UINT (refs->pdata[i]);
      if (id > known)
        return unknown_peer (s, p, id, out, error);
    }
  if (max_trace > SIM_PEERS_MAX)
    return BAD ("churn", "trace", "peer %u is out of range (1 to %u)", max_trace, SIM_PEERS_MAX);
  if (known == 0)
    return BAD ("peers", "count", "no peer ever joins (count is 0, no join, trace or churn)");
  c->max_peers = known;
  for (guint i = 0; c->rates && i < c->rates->len; i++)
    {
      const SimRateChange *r = &g_array_index (c->rates, SimRateChange, i);
      if (r->peer > known)
        return BAD ("network", "bandwidth_trace", "%s:%u: column 1 (peer): p%u is not in the run (its peers are p1 to "
                    "p%u: peers.count, the peers of joins and the churn trace, churn.max_peers)", bw_path, r->line,
                    r->peer, known);
    }
  return TRUE;
}

/* The data set of [data] source (its kind sk, its argument arg) into
 * *out_all, or, for idx files that carry their own test set, straight
 * into out's train and test.  FALSE (out cleared) on a bad value. */
static gboolean
load_data (const SimScenario *s, const SimPoint *p, LearnSourceKind sk, const char *arg, LearnDataset **out_all,
           SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  switch (sk)
    {
    case LEARN_SOURCE_CSV:
      {
        g_autofree char *path = resolve_path (s, p, arg);
        if (c->partition.kind == LEARN_PARTITION_BY_COLUMN)
          PARSE ("data", "partition",
                 (*out_all = learn_dataset_load_csv_by_column (path, c->partition.column, &_e)) != NULL);
        else
          PARSE ("data", "source", (*out_all = learn_dataset_load_csv (path, &_e)) != NULL);
        break;
      }
    case LEARN_SOURCE_IDX:
      {
        /* the files carry their own test set (t10k-*): test_fraction is not used */
        g_autofree char *idx_dir = resolve_path (s, p, arg);
        gsize limit = uint_of (V ("data", "limit"));
        PARSE ("data", "source", learn_dataset_load_idx_dir (idx_dir, limit, &out->train, &out->test, &_e));
        break;
      }
    case LEARN_SOURCE_SKLEARN:
      PARSE ("data", "source", (*out_all = learn_dataset_load_sklearn (arg, LEARN_SKLEARN_DATA_DIR, &_e)) != NULL);
      break;
    case LEARN_SOURCE_SYNTHETIC:
      {
        guint features = uint_of (V ("data", "features")), classes = uint_of (V ("data", "classes"));
        guint samples = uint_of (V ("data", "samples"));
        double sep;
        dl_parse_number (V ("data", "separation"), &sep, NULL);
        if (features == 0)
          return BAD ("data", "features", "must be at least 1");
        if (classes < 2)
          return BAD ("data", "classes", "must be at least 2");
        if (samples < classes)
          return BAD ("data", "samples", "must be at least data.classes (%u)", classes);
        if ((guint64) samples * features > SIM_FLOATS_MAX)
          return BAD ("data", "samples", "%u samples of %u features are more than %u floats", samples, features,
                      SIM_FLOATS_MAX);
        /* the data set depends on the scenario seed only, not the repeat */
        g_autoptr (DlRandom) dr = dl_random_new (s->seed, "data", DL_RANDOM_NO_NODE);
        *out_all = learn_dataset_synthetic (samples, features, classes, sep, dr);
        break;
      }
    }
  return TRUE;
}

/* The [data] keys of sim_scenario_build, for a model that learns: the
 * data set loaded, split, checked and scaled into out's train and test.
 * FALSE (out cleared) on a bad value. */
static gboolean
build_data (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  learn_partition_spec_parse (V ("data", "partition"), &c->partition, NULL);
  double tf;
  dl_parse_number (V ("data", "test_fraction"), &tf, NULL);
  if (tf >= 1)
    return BAD ("data", "test_fraction", "must be less than 1");
  const char *scale = V ("data", "scale");
  if (strcmp (scale, "none") != 0 && strcmp (scale, "standard") != 0)
    return BAD ("data", "scale", "'%s': expected none or standard", scale);
  g_autoptr (LearnDataset) all = NULL;
  const char *src = V ("data", "source");
  LearnSourceKind sk = LEARN_SOURCE_SYNTHETIC;
  g_autofree char *arg = NULL;
  PARSE ("data", "source", learn_source_parse (src, &sk, &arg, &_e));
  if (!load_data (s, p, sk, arg, &all, out, error))
    return FALSE;
  if (all)
    {
      if (all->classes < 2)
        return BAD ("data", "source", "the data has fewer than 2 classes");
      g_autoptr (DlRandom) sr = dl_random_new (s->seed, "data-split", DL_RANDOM_NO_NODE);
      learn_dataset_split (all, tf, sr, &out->train, &out->test);
    }
  else if (out->train->classes < 2)
    return BAD ("data", "source", "the data has fewer than 2 classes");
  if (out->train->n == 0)
    return BAD ("data", "test_fraction", "leaves no training data");
  if (c->partition.kind == LEARN_PARTITION_BY_COLUMN && sk != LEARN_SOURCE_CSV)
    return BAD ("data", "partition", "by-column(%s) needs a csv:PATH source whose header names the columns",
                c->partition.column);
  if (c->partition.kind == LEARN_PARTITION_BY_COLUMN && all->groups < c->max_peers)
    return BAD ("data", "partition", "column '%s' has %u distinct values for %u peers: each peer needs one "
                "(peers.count, the peers of joins and the trace, churn.max_peers)", c->partition.column,
                all->groups, c->max_peers);
  if (strcmp (scale, "standard") == 0)
    learn_dataset_standardize (out->train, out->test);
  c->train = out->train;
  c->test = out->test->n ? out->test : NULL;
  c->model.features = out->train->features;
  c->model.classes = out->train->classes;
  const char *msec = NULL, *mkey = NULL;
  g_autofree char *why = model_fault (c, out->train->n, sk == LEARN_SOURCE_SYNTHETIC, src, &msec, &mkey);
  if (why)
    return BAD (msec, mkey, "%s", why);
  return TRUE;
}

/* The [model] keys of sim_scenario_build, then its data.  FALSE (out
 * cleared) on a bad value. */
static gboolean
build_model (const SimScenario *s, const SimPoint *p, SimBuilt *out, GError **error)
{
  SimWorldConfig *c = &out->cfg;
  LearnModelKind mk;
  learn_model_kind_from_name (V ("model", "kind"), &mk, NULL);
  c->model = (LearnModel) { .kind = mk, .size = uint_of (V ("model", "size")),
                            .hidden = uint_of (V ("model", "hidden")),
                            .batch_size = uint_of (V ("model", "batch_size")) };
  double lr;
  dl_parse_number (V ("model", "learning_rate"), &lr, NULL);
  c->model.learning_rate = (float) lr;
  if (mk == LEARN_MODEL_NONE && c->model.size == 0)
    return BAD ("model", "size", "must be at least 1");
  if (mk == LEARN_MODEL_MLP && c->model.hidden == 0)
    return BAD ("model", "hidden", "must be at least 1 for an mlp");
  if (mk == LEARN_MODEL_NONE)
    return TRUE;
  if (c->model.batch_size == 0)
    return BAD ("model", "batch_size", "must be at least 1");
  if (!(lr > 0))
    return BAD ("model", "learning_rate", "must be more than 0");
  return build_data (s, p, out, error);
}

gboolean
sim_scenario_build (const SimScenario *s, const SimPoint *p, guint64 seed, SimBuilt *out, GError **error)
{
  memset (out, 0, sizeof *out);
  SimWorldConfig *c = &out->cfg;
  sim_world_config_init (c);
  c->seed = seed;

  /* every key is checked against its kind first */
  if (!_sim_scenario_check_point_values (s, p, error))
    {
      sim_built_clear (out);
      return FALSE;
    }
  const ProtoFamily *fam = NULL;
  ProtoKeyLookup look;
  g_autofree char *dir = scenario_dir (s, p);
  guint churn_max = 0;
  g_autofree char *bw_path = NULL;
  /* each step clears out when it fails */
  return build_scenario (s, p, out, error) && build_family (s, p, seed, dir, &fam, &look, out, error)
         && build_training (s, p, out, error) && build_peers (s, p, fam, &look, out, error)
         && build_network (s, p, out, error) && build_churn (s, p, &churn_max, &bw_path, out, error)
         && build_timeline (s, p, churn_max, bw_path, out, error) && build_model (s, p, out, error);
}

#undef V
#undef BAD
#undef PARSE

