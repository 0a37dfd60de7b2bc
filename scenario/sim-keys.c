/* sim-keys.c — the key table: the common keys with their defaults, kinds
 * (what a value must parse as) and documentation, merged with the keys each
 * protocol family declares (ProtoFamily's `keys`, protocol/proto-keys.h);
 * which family a key applies to; and the check of a point's values against
 * their kinds (sim-scenario-private.h; a common key's kind is checked by
 * its leaf sim-keys-value.c).  The loader (sim-scenario.c),
 * `params` rows and the user guide (`dlsim run --keys`) all read the merged
 * table. */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "scenario/sim-scenario-private.h"
#include "scenario/sim-keys-private.h"
#include "scenario/sim-trace.h"
#include "protocol/proto-machine.h"
#include "base/dl-error.h"
#include "base/dl-units.h"

#include <pthread.h>
#include <math.h>
#include <string.h>

/* The common keys: every family takes them but for those it refuses
 * (ProtoFamilyKeys' refused: the keys of learning under a family without a
 * model).  Each family's keys are in its folder
 * (protocol/FAMILY/FAMILY-keys.c).  A NULL default is the registry's
 * first family (protocol.family). */
static const KeySpec keys[] = {
  { "scenario", "name", "", K_STR, "name of the scenario (default: the file name)" },
  { "scenario", "description", "", K_STR, "one line on what it shows" },
  { "scenario", "seed", "1", K_SEED, "scenario seed; repeats use seed, seed+1, ..." },
  { "scenario", "repeat", "1", K_UINT, "runs per sweep point" },
  { "scenario", "time_limit", "2h", K_DUR, "simulated time limit of a run" },
  { "scenario", "properties", "all", K_STR, "all | safety: which properties a run checks; safety leaves out the liveness ones, progress and excluded-was-told (dlsim explore --safety-only; docs/user-guide.md, Properties)" },
  { "scenario", "dir", "", K_STR, "the folder the file's relative paths are taken from (traces, data, the guest's folder and command), itself relative to the file's folder; empty: the file's folder (dlsim explore --found writes it, so that a found file runs from its own folder)" },
  { "protocol", "family", NULL, K_STR, "the protocol family whose machines run: FAMILIES (docs/families.md; guest: docs/guest.md)" },
  { "protocol", NULL, NULL, K_FAMILY_KEYS, "the families' keys go here, in the registry's order (protocol/<family>/*-keys.c)" },
  { "protocol", "coordinator_replicas", "1", K_UINT, "1 (one coordinator, as DISCO) or up to 9 replicas of it: the coordinator's state kept by a replicated log, peers in sessions that survive the leader's crash (protocol/replica/README.md); not in the testbed" },
  { "protocol", "coordinator_replication", "raft", K_REPLICATION, "with coordinator_replicas > 1: raft | primary-backup: an input is acted on once a majority logged it, or at once by the leader and shipped after (what no backup got is lost with it)" },
  { "protocol", "replica_heartbeat", "50ms", K_DUR, "with coordinator_replicas > 1: the leader's heartbeat (an empty AppendEntries) period" },
  { "protocol", "replica_election_timeout", "150ms", K_DUR, "with coordinator_replicas > 1: a replica that hears no leader for a draw in [t, 2t) stands for election (Raft's 150-300 ms)" },
  { "protocol", "resume_timeout", "10s", K_DUR, "with coordinator_replicas > 1: a new leader counts the stream of a peer that has not resumed its session after this as closed" },
  { "training", "rounds", "5", K_UINT, "rounds each peer trains" },
  { "training", "epochs_per_round", "1", K_UINT, "local epochs per round" },
  { "training", "after_training", "stay", K_AFTER, "leave | stay (DISCO's Disco.train stays connected)" },
  { "model", "kind", "none", K_MODEL, "none | softmax | mlp" },
  { "model", "size", "10000", K_UINT, "floats in the model with kind = none" },
  { "model", "hidden", "32", K_UINT, "hidden units (mlp)" },
  { "model", "learning_rate", "0.1", K_NUM, "SGD learning rate" },
  { "model", "batch_size", "32", K_UINT, "SGD minibatch size" },
  { "data", "source", "synthetic", K_SOURCE, "synthetic | csv:PATH (last column the integer label) | idx:DIR (MNIST-format IDX files, gzipped or not: train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte; Fashion-MNIST: idx:/usr/share/datasets/fashion-mnist from Debian's dataset-fashion-mnist) | sklearn:NAME (digits, wine, breast_cancer or iris from Debian's python3-sklearn) (docs/data.md)" },
  { "data", "features", "20", K_UINT, "synthetic: features" },
  { "data", "classes", "4", K_UINT, "synthetic: classes" },
  { "data", "samples", "4000", K_UINT, "synthetic: samples" },
  { "data", "separation", "2.0", K_NUM, "synthetic: distance of class centres" },
  { "data", "partition", "iid", K_PARTITION, "iid | dirichlet(ALPHA) | shards(K) | by-column(NAME): with a csv:PATH source whose header names NAME, each distinct value of that column is one peer's data (LEAF; docs/data.md)" },
  { "data", "test_fraction", "0.2", K_PROB, "held-out share of the data (idx: not used, its t10k files are the test set)" },
  { "data", "limit", "0", K_UINT, "idx: read only the first N training images (0: all)" },
  { "data", "scale", "none", K_STR, "none | standard: standard centres every feature on the training set's mean and divides by its standard deviation (scikit-learn's StandardScaler), applied to the test set too" },
  { "peers", "count", "3", K_UINT, "peers p1..pN connecting at time 0 (pipeline: sessions + servers unless given; more: extra servers)" },
  { "peers", "speed", "1", K_DIST_NUM, "relative speed: a number or a distribution" },
  { "peers", "stragglers", "0", K_STRAGGLERS, "SHARE xFACTOR, e.g. 0.1 x8 or 10% x8: exactly round(SHARE x count) of the peers (drawn from the seed) train 8x slower" },
  { "peers", "nat", "none", K_NAT, "none | symmetric(SHARE): links between two such peers never come up" },
  { "peers", "capacity", "", K_PATH, "FedScale's device capacity trace as JSON lines (client N is pN; computation: ms per sample, communication: kbit/s): sets a listed peer's speed (3 x computation ms per training sample) and its uplink and downlink; empty: none" },
  { "peers", "runtime", "browser", K_RUNTIME, "browser | node | webapp: in node, an uncaught exception or unhandled rejection ends the client's process (its sockets close); webapp is DISCO's browser app, which closes the session after training and after a training error (as after_training = leave, and on failure)" },
  { "compute", "sample_cost", "1ms", K_DUR, "simulated time per sample per epoch at speed 1" },
  { "compute", "none_samples", "100", K_UINT, "samples per peer for compute time with model none" },
  { "network", "latency", "40ms", K_DIST_DUR, "peer <-> peer one-way latency" },
  { "network", "server_latency", "20ms", K_DIST_DUR, "peer <-> coordinator one-way latency" },
  { "network", "regions", "", K_REGIONS, "NAME:COUNT, ...: p1.. fill the regions in order (then again from the first); empty: none" },
  { "network", "local_latency", "", K_OPT_DIST_DUR, "one-way latency between two peers of one region (default: latency)" },
  { "network", "uplink", "20Mbps", K_DIST_RATE, "per-peer uplink: a rate, or a distribution each peer draws its own from (e.g. uniform(10Mbps, 100Mbps))" },
  { "network", "downlink", "100Mbps", K_DIST_RATE, "per-peer downlink: a rate or a distribution, as uplink" },
  { "network", "sharing", "fair", K_SHARING, "fair | fifo: fair: every message is a flow, concurrent flows share the sender's uplink and the receiver's downlink max-min fairly; fifo: whole message after whole message, uplink then downlink (docs/world.md)" },
  { "network", "transport", "tcp", K_TRANSPORT, "fluid | tcp | sctp: with sharing = fair, fluid: a flow has its share from its first byte; tcp: every message is a flow with TCP's slow start (initial window 10 segments, doubled every round trip of twice the latency until the flow reaches its share; a connection idle longer than its retransmission timeout, or new, starts again from it); sctp: WebRTC's, peer links with SCTP's slow start (initial window 3 segments: RFC 4960's min(4 MTU, max(2 MTU, 4380 bytes))), the coordinator stream with TCP's (docs/world.md)" },
  { "network", "slow_start_after_idle", "true", K_BOOL, "true | false: with transport = tcp or sctp, whether a connection idle longer than its retransmission timeout starts again from its initial window (Linux's net.ipv4.tcp_slow_start_after_idle, on by default); false: it keeps the window it had, as a server tuned for request-response traffic (docs/world.md)" },
  { "network", "hystart", "true", K_BOOL, "true | false: with transport = tcp or sctp, whether a TCP connection (a WebSocket under sctp)'s slow start ends where CUBIC's HyStart would end it (its ACK-train rule as ns-3 3.37 runs it; on in Linux and ns-3); false: it doubles until the flow is at its share, as NewReno (docs/world.md, \"HyStart\")" },
  { "network", "min_rto", "0", K_DUR, "with transport = tcp or sctp: the minimum retransmission timeout (Linux's 200 ms; ns-3's 1 s) a round waits where flows converge on one downlink with too little pipe each: where two or more flows share a receiver's downlink at once and each one's part of (bandwidth-delay product + queue_bdp of them) is under 32 segments, the last of them to end there is delivered this much later (docs/world.md); 0, the default: no such wait (a Linux-like TCP in ns-3 has none there)" },
  { "network", "queue_bdp", "4", K_NUM, "with transport = tcp or sctp: the switch's queue before a receiver's downlink in bandwidth-delay products of the flow's round trip (for min_rto's rule only; a number from 0 to 1000)" },
  { "network", "server_uplink", "0", K_RATE, "with sharing = fair: the coordinator's uplink (FedAvg's server, every server role's, one for all replicas), which its flows share max-min as a peer's do; 0: not rate-limited (the default)" },
  { "network", "server_downlink", "0", K_RATE, "with sharing = fair: the coordinator's downlink, as server_uplink; 0: not rate-limited (the default)" },
  { "network", "bandwidth_trace", "", K_PATH, "CSV peer,time,uplink,downlink with that header line first (time: seconds or a duration; rates as uplink): from each row's time on, that peer's uplink and downlink have its rates (before its first row: uplink, downlink or peers.capacity); sharing = fair re-solves the flows in progress then, under fifo the message on the link goes on at the new rate (docs/world.md); a peer's rows in time order; not in the testbed; empty: none" },
  { "network", "mss", "1448B", K_SIZE, "bytes of a message in one segment on the wire (TCP's MSS over a 1500-byte MTU with timestamps)" },
  { "network", "header_bytes", "66B", K_SIZE, "bytes each segment adds on the wire (Ethernet 14, IPv4 20, TCP with timestamps 32); 0: messages cost only their own bytes" },
  { "network", "link_setup", "200ms", K_DUR, "time to bring a peer link up after signalling" },
  { "network", "connect_failure", "0", K_PROB, "probability that a peer link never comes up" },
  { "network", "loss", "0", K_PROB, "probability that a message on an open peer link is lost (each independently; the coordinator's stream loses nothing)" },
  { "network", "crash_detection", "30s", K_DETECT, "the coordinator notices a crash after this: a duration, a distribution, or never (DISCO has no heartbeat: TCP gives up after minutes, or never)" },
  { "network", "replica_latency", "1ms", K_DIST_DUR, "with coordinator_replicas > 1: one-way latency between two replicas" },
  { "network", "replica_uplink", "1Gbps", K_RATE, "with coordinator_replicas > 1: a replica's uplink to the others (a crash loses what has not left it)" },
  { "network", "replica_crash_detection", "1s", K_DUR, "with coordinator_replicas > 1: a peer notices that its stream's replica crashed after this (the session layer's keepalive; one coordinator: crash_detection)" },
  { "churn", "arrival_rate", "0", K_PER_TIME, "new peers per time (Poisson), e.g. 2/min" },
  { "churn", "session", "exponential(30min)", K_DIST_DUR, "lifetime of peers arriving by churn" },
  { "churn", "crash_fraction", "0.5", K_PROB, "share of churn departures that are crashes" },
  { "churn", "max_peers", "100", K_UINT, "most peers ever with churn arrivals" },
  { "churn", "trace", "", K_PATH, "CSV peer,join,leave (seconds) to replay instead; a peer may have several rows (it leaves and comes back); or with trace_format = fedscale, FedScale's client behaviour trace as JSON lines" },
  { "churn", "trace_format", "csv", K_STR, "csv | fedscale: the format of trace (fedscale: per client a duration, active and inactive times, repeating every finish_time)" },
  { "churn", "return_model", "own", K_STR, "own | initial: the model a peer that comes back starts its new session from: its own last one, or the initial model (DISCO's Disco.train fetches the task's model on every connect)" },
};

/* The keys that belong to one protocol family; every other key applies to
 * all.  Giving one under another family is an error (sim-build.c). */

/* ---------------------------------------------------------------- the merged table */

/* A row of the merged table: a common key (owner and group NULL), one a
 * family declares, or one of a group of protocol/ (proto-keys.h). */
typedef struct {
  char *full;                /* "section.key" */
  const char *section, *key, *def, *doc;
  const KeySpec *common;
  const ProtoKey *fk;
  const ProtoFamily *owner;
  const ProtoKeyGroup *group;
} Row;

static Row *rows;
static guint n_rows;

static gboolean
family_takes_group (const ProtoFamily *f, const ProtoKeyGroup *g)
{
  for (guint i = 0; f->keys && f->keys->groups && f->keys->groups[i]; i++)
    if (f->keys->groups[i] == g)
      return TRUE;
  return FALSE;
}

static void
append_rows (GArray *a, const ProtoKey *fks, guint n, const ProtoFamily *owner, const ProtoKeyGroup *group)
{
  for (guint j = 0; j < n; j++)
    {
      const ProtoKey *fk = &fks[j];
      Row r = { g_strdup_printf ("%s.%s", fk->section, fk->key), fk->section, fk->key, fk->def, fk->doc, NULL,
                fk, owner, group };
      g_array_append_val (a, r);
    }
}

/* Group g of protocol/ if family f takes it and it is not listed yet
 * (listed, bit g: protocol/ has fewer than 64). */
static void
list_group (GArray *a, const ProtoFamily *f, guint g, guint64 *listed)
{
  if (!(*listed & (G_GUINT64_CONSTANT (1) << g)) && family_takes_group (f, proto_key_groups[g]))
    {
      append_rows (a, proto_key_groups[g]->rows, proto_key_groups[g]->n_rows, NULL, proto_key_groups[g]);
      *listed |= G_GUINT64_CONSTANT (1) << g;
    }
}

/* A family's own rows, with the groups it takes listed where its rows
 * place them (PROTO_KEY_GROUP_HERE) if it is the first to take them. */
static void
append_own_rows (GArray *a, const ProtoFamily *f, guint64 *listed)
{
  for (guint j = 0; j < f->keys->n_rows; j++)
    {
      const ProtoKey *fk = &f->keys->rows[j];
      if (!fk->group)
        append_rows (a, fk, 1, f, NULL);
      for (guint g = 0; fk->group && proto_key_groups[g]; g++)
        if (proto_key_groups[g] == fk->group)
          list_group (a, f, g, listed);
    }
}

/* Each family's rows, then the groups of protocol/ it is the first to
 * take whole and has not placed; after them the groups no family takes
 * whole. */
static void
append_family_rows (GArray *a, const ProtoFamily *const *families)
{
  guint64 listed = 0;
  for (guint f = 0; families[f]; f++)
    {
      if (families[f]->keys)
        append_own_rows (a, families[f], &listed);
      for (guint g = 0; proto_key_groups[g]; g++)
        list_group (a, families[f], g, &listed);
    }
  for (guint g = 0; proto_key_groups[g]; g++)
    if (!(listed & (G_GUINT64_CONSTANT (1) << g)))
      append_rows (a, proto_key_groups[g]->rows, proto_key_groups[g]->n_rows, NULL, proto_key_groups[g]);
}

/* The common table with each family's keys (and the groups of protocol/)
 * where its marker stands, in the registry's order (families is
 * NULL-ended). */
static GArray *
merge (const ProtoFamily *const *families)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Row));
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const KeySpec *k = &keys[i];
      if (k->kind != K_FAMILY_KEYS)
        {
          Row r = { g_strdup_printf ("%s.%s", k->section, k->key), k->section, k->key,
                    k->def ? k->def : families[0]->name, k->doc, k, NULL, NULL, NULL };
          if (strstr (k->doc, "FAMILIES"))
            {
              /* the family key's list: the registry's names */
              g_autofree char *names = proto_family_names (" | ", " | ");
              g_auto (GStrv) parts = g_strsplit (k->doc, "FAMILIES", 2);
              g_autofree char *doc = g_strconcat (parts[0], names, parts[1], NULL);
              r.doc = g_intern_string (doc);
            }
          g_array_append_val (a, r);
          continue;
        }
      append_family_rows (a, families);
    }
  return a;
}

/* (the one-time tables below are made under pthread_once, which
 * ThreadSanitizer sees, rather than g_once_init_enter, whose atomics it
 * does not: explore's worker threads load scenarios at once) */
static const ProtoFamily *registry_fams[64];

static void
registry_init (void)
{
  guint n = 0;
  while (n + 1 < G_N_ELEMENTS (registry_fams) && proto_family_at (n))
    {
      registry_fams[n] = proto_family_at (n);
      n++;
    }
}

static const ProtoFamily *const *
registry (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, registry_init);
  return registry_fams;
}

static void
rows_init (void)
{
  GArray *a = merge (registry ());
  n_rows = a->len;
  rows = (Row *) (void *) g_array_free (a, FALSE);
}

static void
ensure_rows (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, rows_init);
}

static const Row *
find_row (const char *section, const char *key)
{
  ensure_rows ();
  for (guint i = 0; i < n_rows; i++)
    if (strcmp (rows[i].section, section) == 0 && strcmp (rows[i].key, key) == 0)
      return &rows[i];
  return NULL;
}

static gboolean
family_shares (const ProtoFamily *f, const char *full)
{
  return f->keys && f->keys->shared && g_strv_contains (f->keys->shared, full);
}

static gboolean
family_refuses (const ProtoFamily *f, const char *full)
{
  return f->keys && f->keys->refused && g_strv_contains (f->keys->refused, full);
}

static gboolean
row_applies (const Row *r, const ProtoFamily *f)
{
  if (r->group)
    return family_takes_group (f, r->group) || r->fk->every_family || family_shares (f, r->full);
  if (!r->owner)
    return !family_refuses (f, r->full);
  return r->owner == f || r->fk->every_family || family_shares (f, r->full);
}

static const char *
declarer (const Row *r)
{
  return r->owner ? r->owner->name : r->group ? "a group of protocol/" : "the common table";
}

/* A family's rows place only groups it takes (`groups`). */
static gboolean
check_places (const ProtoFamily *f, GError **error)
{
  for (guint j = 0; f->keys && j < f->keys->n_rows; j++)
    if (f->keys->rows[j].group && !family_takes_group (f, f->keys->rows[j].group))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                     "%s places a group of protocol/ among its keys that it does not take (groups)", f->name);
        return FALSE;
      }
  return TRUE;
}

gboolean
sim_scenario_keys_check (const ProtoFamily *const *families, GError **error)
{
  g_autoptr (GArray) a = merge (families);
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < a->len; i++)
    {
      const Row *r = &g_array_index (a, Row, i);
      for (guint j = 0; ok && j < i; j++)
        if (strcmp (g_array_index (a, Row, j).full, r->full) == 0)
          {
            const Row *first = &g_array_index (a, Row, j);
            g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s is declared twice: by %s and by %s", r->full,
                         declarer (first), declarer (r));
            ok = FALSE;
          }
    }
  for (guint f = 0; ok && families[f]; f++)
    ok = check_places (families[f], error);
  for (guint f = 0; ok && families[f]; f++)
    for (guint s = 0; ok && families[f]->keys && families[f]->keys->shared && families[f]->keys->shared[s]; s++)
      {
        const char *full = families[f]->keys->shared[s];
        const Row *owner = NULL;
        for (guint i = 0; i < a->len; i++)
          if (strcmp (g_array_index (a, Row, i).full, full) == 0)
            owner = &g_array_index (a, Row, i);
        if (!owner || (!owner->owner && !owner->group) || owner->owner == families[f])
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s takes %s, which no other family declares",
                         families[f]->name, full);
            ok = FALSE;
          }
      }
  for (guint f = 0; ok && families[f]; f++)
    for (guint s = 0; ok && families[f]->keys && families[f]->keys->refused && families[f]->keys->refused[s]; s++)
      {
        const char *full = families[f]->keys->refused[s];
        gboolean common = FALSE;
        for (guint i = 0; i < a->len; i++)
          if (strcmp (g_array_index (a, Row, i).full, full) == 0 && g_array_index (a, Row, i).common)
            common = TRUE;
        if (!common)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s refuses %s, which is not a common key",
                         families[f]->name, full);
            ok = FALSE;
          }
      }
  for (guint i = 0; i < a->len; i++)
    g_free (g_array_index (a, Row, i).full);
  return ok;
}

const char *
sim_scenario_key_family (const char *full_key)
{
  ensure_rows ();
  const Row *r = NULL;
  for (guint i = 0; i < n_rows && !r; i++)
    if (strcmp (rows[i].full, full_key) == 0)
      r = &rows[i];
  if (!r)
    return NULL;
  /* "gossip or hierarchical": the families it applies to, in the
   * registry's order; NULL if every family takes it */
  const ProtoFamily *const *fams = registry ();
  g_autoptr (GString) names = g_string_new (NULL);
  guint n = 0, all = 0;
  for (guint f = 0; fams[f]; f++, all++)
    if (row_applies (r, fams[f]))
      g_string_append_printf (names, "%s%s", n++ ? " or " : "", fams[f]->name);
  return n == all ? NULL : g_intern_string (names->str);
}

gboolean
sim_scenario_key_applies (const char *full_key, const char *family)
{
  const char *f = sim_scenario_key_family (full_key);
  if (f == NULL)
    return TRUE;
  /* "gossip or hierarchical": either */
  g_auto (GStrv) names = g_strsplit (f, " or ", -1);
  return g_strv_contains ((const char *const *) names, family);
}

static const char **key_table;

static void
key_table_init (void)
{
  ensure_rows ();
  key_table = g_new0 (const char *, 3 * n_rows + 1);
  for (guint i = 0; i < n_rows; i++)
    {
      key_table[3 * i] = rows[i].full;
      key_table[3 * i + 1] = rows[i].def;
      key_table[3 * i + 2] = rows[i].doc;
    }
}

const char *const *
sim_scenario_key_table (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, key_table_init);
  return key_table;
}

static gboolean
known_section (const char *s)
{
  if (strcmp (s, "timeline") == 0 || strcmp (s, "expect") == 0)
    return TRUE;
  ensure_rows ();
  for (guint i = 0; i < n_rows; i++)
    if (strcmp (rows[i].section, s) == 0)
      return TRUE;
  return FALSE;
}

guint
sim_keys_n (void)
{
  ensure_rows ();
  return n_rows;
}

SimKeyInfo
sim_key_at (guint i)
{
  ensure_rows ();
  g_return_val_if_fail (i < n_rows, (SimKeyInfo) { 0 });
  return (SimKeyInfo) { rows[i].section, rows[i].key, rows[i].def };
}

gboolean
sim_scenario_key_is_common (const char *full_key)
{
  ensure_rows ();
  for (guint i = 0; i < n_rows; i++)
    if (strcmp (rows[i].full, full_key) == 0)
      return rows[i].common != NULL;
  return FALSE;
}

ProtoKeyPath
sim_scenario_key_path (const char *full_key)
{
  ensure_rows ();
  for (guint i = 0; i < n_rows; i++)
    if (strcmp (rows[i].full, full_key) == 0)
      {
        if (rows[i].fk)
          return rows[i].fk->path;
        return rows[i].common->kind == K_PATH ? PROTO_KEY_PATH
               : rows[i].common->kind == K_SOURCE ? PROTO_KEY_PATH_SOURCE : PROTO_KEY_NOT_PATH;
      }
  return PROTO_KEY_NOT_PATH;
}

const char *
sim_key_default (const char *section, const char *key)
{
  const Row *r = find_row (section, key);
  return r ? r->def : NULL;
}

gboolean
sim_section_known (const char *section)
{
  return known_section (section);
}

/* A point's values as a family's configure looks them up. */
static const char *
lookup_value (const ProtoKeyLookup *l, const char *section, const char *key)
{
  return _sim_scenario_point_value (l->data, section, key);
}

static gboolean
lookup_given (const ProtoKeyLookup *l, const char *section, const char *key)
{
  return _sim_scenario_point_given (l->data, section, key);
}

void
sim_keys_lookup_init (ProtoKeyLookup *l, const SimPoint *p, const char *dir)
{
  *l = (ProtoKeyLookup) { .value = lookup_value, .given = lookup_given, .data = p, .dir = dir };
}

/* ---------------------------------------------------------------- values (parsers: sim-values.c) */

gboolean
_sim_scenario_check_point_values (const SimScenario *s, const SimPoint *p, GError **error)
{
  ensure_rows ();
  for (guint i = 0; i < n_rows; i++)
    {
      const Row *r = &rows[i];
      const char *v = _sim_scenario_point_value (p, r->section, r->key);
      g_autoptr (GError) e = NULL;
      if (!(r->common ? _sim_keys_check_value (r->common, v, &e) : _sim_keys_check_family_value (r->fk, v, &e)))
        return _sim_scenario_fail_at (error, _sim_scenario_origin (s, r->section, r->key), r->section, r->key, "%s", e->message);
    }
  return TRUE;
}
