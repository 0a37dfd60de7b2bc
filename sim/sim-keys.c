/* sim-keys.c — the key table: every scenario key with its default, its
 * kind (what its value must parse as) and its documentation, the keys that
 * belong to one protocol family, and the check of a point's values against
 * their kinds (sim-scenario-private.h).  The loader (sim-scenario.c),
 * `params` rows and the user guide (`dlsim run --keys`) all read it. */
#include "config.h"

#include "sim/sim-scenario.h"
#include "sim/sim-scenario-private.h"
#include "sim/sim-trace.h"
#include "base/dl-error.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

typedef enum {
  K_STR, K_UINT, K_SEED, K_NUM, K_PROB, K_DUR, K_DIST_DUR, K_DIST_NUM, K_DETECT, K_RATE, K_PER_TIME,
  K_VERSION, K_AGG, K_AFTER, K_MODEL, K_SOURCE, K_PARTITION, K_STRAGGLERS, K_NAT, K_RUNTIME, K_PATH,
  K_DUR_ROBUST, K_SPARSIFY, K_SHARE, K_ONOFF, K_STRAGGLER_POLICY, K_REGIONS, K_OPT_DIST_DUR, K_DISCOVERY,
  K_SIZE, K_FORWARDING, K_SERVERS, K_CLIENT_COPY, K_REPLICATION, K_CLUSTER_BY, K_SHARING, K_DIST_RATE,
} Kind;

typedef struct {
  const char *section;
  const char *key;
  const char *def;
  Kind kind;
  const char *doc;
} KeySpec;

static const KeySpec keys[] = {
  { "scenario", "name", "", K_STR, "name of the scenario (default: the file name)" },
  { "scenario", "description", "", K_STR, "one line on what it shows" },
  { "scenario", "seed", "1", K_SEED, "scenario seed; repeats use seed, seed+1, ..." },
  { "scenario", "repeat", "1", K_UINT, "runs per sweep point" },
  { "scenario", "time_limit", "2h", K_DUR, "simulated time limit of a run" },
  { "protocol", "family", "disco", K_STR, "the protocol family whose machines run: disco | gossip | hierarchical | pipeline | guest (docs/families.md; guest: docs/guest.md)" },
  { "protocol", "version", "disco-1110", K_VERSION, "disco-1110 | disco-1110-draft | disco-775 | disco-pre775 | robust" },
  { "protocol", "min_participants", "3", K_UINT, "minNbOfParticipants" },
  { "protocol", "max_connection_retry", "3", K_UINT, "maxConnectionRetry (M)" },
  { "protocol", "peer_connection_timeout", "60s", K_DUR, "maxPeerConnectionTime (T)" },
  { "protocol", "model_sync_timeout", "30s", K_DUR, "maxModelSyncTime (disco); gossip: a late joiner waits this long for its provider's model" },
  { "protocol", "aggregation", "mean", K_AGG, "mean | secure" },
  { "protocol", "max_share_value", "100", K_NUM, "secure aggregation share range" },
  { "protocol", "aggregation_wait", "15s", K_DUR, "race per communication round; on expiry the loop breaks and that round's result (secure round 0: the partial sum) ends the round, awaited with no limit" },
  { "protocol", "payload_timeout", "60s", K_DUR, "per-peer Payload receive wait; on expiry that reception is used up" },
  { "protocol", "straggler_timeout", "", K_DUR_ROBUST, "robust only (default 60s): with min ready, the list goes out without the others after this" },
  { "protocol", "fanout", "2", K_UINT, "gossip only: peers each peer draws per step; the step's contact graph joins the draws as undirected edges" },
  { "protocol", "sparsify", "none", K_SPARSIFY, "gossip only: none | random-k | top-k: what a peer sends of its model" },
  { "protocol", "keep", "100%", K_SHARE, "gossip only: share of the coordinates sent with random-k or top-k, 1%..100% (or 0.01..1)" },
  { "protocol", "error_feedback", "off", K_ONOFF, "gossip only, with top-k: on ranks coordinates by the change accumulated since each was last sent" },
  { "protocol", "discovery", "coordinator", K_DISCOVERY, "gossip only: coordinator | kademlia: where peers find partners (kademlia: a routing table filled by FIND_NODE lookups; needs straggler_policy = async)" },
  { "protocol", "dht_k", "8", K_UINT, "gossip, kademlia: bucket size and contacts per answer" },
  { "protocol", "dht_alpha", "3", K_UINT, "gossip, kademlia: calls in flight per lookup" },
  { "protocol", "dht_rpc_timeout", "2s", K_DUR, "gossip, kademlia: a call unanswered this long fails and its contact is dropped" },
  { "protocol", "straggler_policy", "wait", K_STRAGGLER_POLICY, "gossip and hierarchical (and disco's robust): wait | deadline | drop-slowest | async | mixed (hierarchical: all five; robust: all five, its wait and deadline both have its straggler_timeout, async and mixed weigh stale contributions): what a step, a head or robust's coordinator does about peers still training" },
  { "protocol", "round_deadline", "30s", K_DUR, "gossip and hierarchical, straggler_policy = deadline: a step (a head's collection) goes this long after its first ready peer (update), with what came" },
  { "protocol", "drop_factor", "2", K_NUM, "gossip, hierarchical and robust, drop-slowest (gossip: and mixed): a peer is slow when its step took more than this x the median" },
  { "protocol", "drop_rounds", "3", K_UINT, "gossip, hierarchical and robust, drop-slowest: steps (rounds) a slow peer is not waited for" },
  { "protocol", "async_mix", "0.5", K_PROB, "gossip and hierarchical, async and mixed: weight of a fresh pushed model or update (staleness 0)" },
  { "protocol", "staleness_exponent", "0.5", K_NUM, "gossip, hierarchical and robust, async and mixed: a push or update s rounds (head versions) old weighs async_mix x (1 + s)^-exponent (robust: (1 + s)^-exponent against 1 for a fresh one, in the round's mean)" },
  { "protocol", "cluster_size", "10", K_UINT, "hierarchical only: peers per cluster (without regions; a larger region is split)" },
  { "protocol", "cluster_by", "region", K_CLUSTER_BY, "hierarchical only: region | latency: clusters follow [network] regions labels (without labels: id blocks), or measured round trips (landmarks chosen farthest first, each peer in the first landmark's group within cluster_radius)" },
  { "protocol", "cluster_radius", "20ms", K_DUR, "hierarchical, cluster_by = latency: a peer whose round trip to a landmark is at most this joins its group; one farther from every landmark becomes the next landmark" },
  { "protocol", "fanin", "32", K_UINT, "hierarchical only: heads exchange all-to-all up to this many; above, groups of fanin report to a head of heads, recursively" },
  { "protocol", "election_timeout", "5s", K_DUR, "hierarchical only: the coordinator tallies a cluster's candidacies this long at most" },
  { "protocol", "head_timeout", "60s", K_DUR, "hierarchical only: a member waits this long for its head's result, a head for the other heads" },
  { "protocol", "blocks", "80", K_UINT, "pipeline only: transformer blocks of the model" },
  { "protocol", "servers", "4", K_SERVERS, "pipeline only: servers (the peers after the clients), as a count (an even split of blocks over servers / replicas ranges) or one block range each, FIRST-LAST, e.g. 0-39, 40-79" },
  { "protocol", "replicas", "1", K_UINT, "pipeline only, with a count of servers: servers per range" },
  { "protocol", "compute_per_block", "1ms", K_DIST_DUR, "pipeline only: one block's compute for one token at speed 1 (a duration or a distribution)" },
  { "protocol", "hidden_size", "16KiB", K_SIZE, "pipeline only: bytes of hidden states per token" },
  { "protocol", "steps", "32", K_UINT, "pipeline only: tokens each session generates" },
  { "protocol", "sessions", "1", K_UINT, "pipeline only: clients p1..pN, one session each (peers.count defaults to sessions + servers)" },
  { "protocol", "forwarding", "client", K_FORWARDING, "pipeline only: client | next-peer: the client relays every hop, or servers also push their result to the next server" },
  { "protocol", "client_copy", "full", K_CLIENT_COPY, "pipeline only, with next-peer: full | hash: the client relays each hop's hidden states, or only their hash to a server that gets a push (the full copy when it asks: dlsim's extension of the proposal)" },
  { "protocol", "family_hint", "off", K_ONOFF, "pipeline only: on: with next-peer, routing takes a hop inside one family (region) as free" },
  { "protocol", "faulty_share", "0", K_PROB, "pipeline only: share of servers whose pushes are wrong (what the next server's check catches)" },
  { "protocol", "step_timeout", "30s", K_DUR, "pipeline only: a client waits this long for a server's result, then replaces it and replays" },
  { "protocol", "guest_command", "", K_STR, "guest only: the guest's command line, run in the scenario file's folder, its stdin and stdout the line protocol (docs/guest.md), e.g. python3 ../../guests/pushpull/pushpull.py" },
  { "protocol", "guest_timeout", "30s", K_DUR, "guest only: wall-clock time the guest may take to answer one line; past it the run ends with outcome error" },
  { "protocol", "guest_dir", "", K_PATH, "guest only: the folder the guest runs in (relative: to the scenario file's folder; empty: that folder)" },
  { "protocol", "guest_stall", "10min", K_DUR, "guest only: a connected peer that makes no progress for this long is hung (the hang detector's window)" },
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
  { "peers", "stragglers", "0", K_STRAGGLERS, "SHARE xFACTOR, e.g. 0.1 x8: 10% of peers 8x slower" },
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
  { "network", "mss", "1448B", K_SIZE, "bytes of a message in one segment on the wire (TCP's MSS over a 1500-byte MTU with timestamps)" },
  { "network", "header_bytes", "66B", K_SIZE, "bytes each segment adds on the wire (Ethernet 14, IPv4 20, TCP with timestamps 32); 0: messages cost only their own bytes" },
  { "network", "link_setup", "200ms", K_DUR, "time to bring a peer link up after signalling" },
  { "network", "connect_failure", "0", K_PROB, "probability that a peer link never comes up" },
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
static const struct {
  const char *key;
  const char *family;
} family_keys[] = {
  { "protocol.version", "disco" },
  { "protocol.max_connection_retry", "disco" },
  { "protocol.peer_connection_timeout", "disco" },
  { "protocol.model_sync_timeout", "disco or gossip" },
  { "protocol.aggregation", "disco" },
  { "protocol.max_share_value", "disco" },
  { "protocol.aggregation_wait", "disco" },
  { "protocol.straggler_timeout", "disco" },
  { "protocol.fanout", "gossip" },
  { "protocol.sparsify", "gossip" },
  { "protocol.keep", "gossip" },
  { "protocol.error_feedback", "gossip" },
  { "protocol.straggler_policy", "disco or gossip or hierarchical" },
  { "protocol.discovery", "gossip" },
  { "protocol.dht_k", "gossip" },
  { "protocol.dht_alpha", "gossip" },
  { "protocol.dht_rpc_timeout", "gossip" },
  { "protocol.round_deadline", "gossip or hierarchical" },
  { "protocol.drop_factor", "disco or gossip or hierarchical" },
  { "protocol.drop_rounds", "disco or gossip or hierarchical" },
  { "protocol.async_mix", "gossip or hierarchical" },
  { "protocol.staleness_exponent", "disco or gossip or hierarchical" },
  { "protocol.cluster_size", "hierarchical" },
  { "protocol.cluster_by", "hierarchical" },
  { "protocol.cluster_radius", "hierarchical" },
  { "protocol.fanin", "hierarchical" },
  { "protocol.election_timeout", "hierarchical" },
  { "protocol.head_timeout", "hierarchical" },
  { "protocol.blocks", "pipeline" },
  { "protocol.servers", "pipeline" },
  { "protocol.replicas", "pipeline" },
  { "protocol.compute_per_block", "pipeline" },
  { "protocol.hidden_size", "pipeline" },
  { "protocol.steps", "pipeline" },
  { "protocol.sessions", "pipeline" },
  { "protocol.forwarding", "pipeline" },
  { "protocol.family_hint", "pipeline" },
  { "protocol.client_copy", "pipeline" },
  { "protocol.faulty_share", "pipeline" },
  { "protocol.step_timeout", "pipeline" },
  { "protocol.guest_command", "guest" },
  { "protocol.guest_timeout", "guest" },
  { "protocol.guest_dir", "guest" },
  { "protocol.guest_stall", "guest" },
  /* the keys of learning: every family but the pipeline's, which infers */
  { "protocol.min_participants", "disco or gossip or hierarchical or guest" },
  { "training.rounds", "disco or gossip or hierarchical or guest" },
  { "training.epochs_per_round", "disco or gossip or hierarchical" },
  { "training.after_training", "disco or gossip or hierarchical" },
  { "model.kind", "disco or gossip or hierarchical" },
  { "model.size", "disco or gossip or hierarchical" },
  { "model.hidden", "disco or gossip or hierarchical" },
  { "model.learning_rate", "disco or gossip or hierarchical" },
  { "model.batch_size", "disco or gossip or hierarchical" },
};

const char *
sim_scenario_key_family (const char *full_key)
{
  for (gsize i = 0; i < G_N_ELEMENTS (family_keys); i++)
    if (strcmp (family_keys[i].key, full_key) == 0)
      return family_keys[i].family;
  return NULL;
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

const char *const *
sim_scenario_key_table (void)
{
  static const char *table[G_N_ELEMENTS (keys) * 3 + 1];
  static char names[G_N_ELEMENTS (keys)][64];
  if (table[0] == NULL)
    for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
      {
        g_snprintf (names[i], sizeof names[i], "%s.%s", keys[i].section, keys[i].key);
        table[3 * i] = names[i];
        table[3 * i + 1] = keys[i].def;
        table[3 * i + 2] = keys[i].doc;
      }
  return table;
}

static const KeySpec *
find_key (const char *section, const char *key)
{
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].section, section) == 0 && strcmp (keys[i].key, key) == 0)
      return &keys[i];
  return NULL;
}

static gboolean
known_section (const char *s)
{
  if (strcmp (s, "timeline") == 0 || strcmp (s, "expect") == 0)
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (keys[i].section, s) == 0)
      return TRUE;
  return FALSE;
}

guint
sim_keys_n (void)
{
  return G_N_ELEMENTS (keys);
}

SimKeyInfo
sim_key_at (guint i)
{
  g_return_val_if_fail (i < G_N_ELEMENTS (keys), (SimKeyInfo) { 0 });
  return (SimKeyInfo) { keys[i].section, keys[i].key, keys[i].def };
}

const char *
sim_key_default (const char *section, const char *key)
{
  const KeySpec *k = find_key (section, key);
  return k ? k->def : NULL;
}

gboolean
sim_section_known (const char *section)
{
  return known_section (section);
}

/* ---------------------------------------------------------------- values (parsers: sim-values.c) */

/* The whole numbers with a bound below 2^32 - 1 (sim-scenario-private.h
 * says why); `min` is only said in the message (sim-build.c checks it,
 * with its reason). */
static const struct {
  const char *section, *key;
  guint min, max;
  const char *what;
} uint_ranges[] = {
  { "scenario", "repeat", 1, 1000000, NULL },
  { "protocol", "min_participants", 1, SIM_PEERS_MAX, NULL },
  { "protocol", "max_connection_retry", 0, 1000, NULL },
  { "protocol", "fanout", 0, SIM_PEERS_MAX, NULL },
  { "protocol", "dht_k", 1, SIM_PEERS_MAX, NULL },
  { "protocol", "dht_alpha", 1, SIM_PEERS_MAX, NULL },
  { "protocol", "drop_rounds", 1, 1000000, NULL },
  { "protocol", "cluster_size", 1, SIM_PEERS_MAX, NULL },
  { "protocol", "fanin", 2, SIM_PEERS_MAX, NULL },
  { "protocol", "replicas", 1, SIM_PEERS_MAX, NULL },
  { "protocol", "steps", 1, 1000000, NULL },
  { "protocol", "sessions", 1, SIM_PEERS_MAX, NULL },
  { "training", "rounds", 1, 1000000, NULL },
  { "training", "epochs_per_round", 1, 1000000, NULL },
  { "model", "size", 1, SIM_FLOATS_MAX, "a message carries at most 1 GiB of floats" },
  { "model", "hidden", 1, 1000000, NULL },
  { "model", "batch_size", 1, 1000000, NULL },
  { "data", "features", 1, 1000000, NULL },
  { "data", "classes", 2, 1000000, NULL },
  { "data", "samples", 1, SIM_FLOATS_MAX, NULL },
  { "peers", "count", 0, SIM_PEERS_MAX, NULL },
  { "churn", "max_peers", 0, SIM_PEERS_MAX, NULL },
};

/* A whole number in its key's range; a number out of it (4294967296,
 * 1e12) is said to be out of range, with the range. */
static gboolean
check_uint (const KeySpec *k, const char *v, GError **error)
{
  guint min = 0, max = G_MAXUINT32;
  const char *what = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (uint_ranges); i++)
    if (strcmp (uint_ranges[i].section, k->section) == 0 && strcmp (uint_ranges[i].key, k->key) == 0)
      min = uint_ranges[i].min, max = uint_ranges[i].max, what = uint_ranges[i].what;
  guint n;
  double x;
  gboolean whole = parse_uint (v, &n);
  if (whole && n <= max)
    return TRUE;
  if (whole || (dl_parse_number (v, &x, NULL) && x > max && x == floor (x)))
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (a whole number from %u to %u%s%s)", v,
                 min, max, what ? ": " : "", what ? what : "");
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not a whole number >= 0", v);
  return FALSE;
}

/* A duration up to SIM_DURATION_MAX (time_limit: SIM_TIME_LIMIT_MAX). */
static gboolean
check_duration (const KeySpec *k, const char *v, GError **error)
{
  DlTime t, max = strcmp (k->key, "time_limit") == 0 ? SIM_TIME_LIMIT_MAX : SIM_DURATION_MAX;
  g_autoptr (GError) e = NULL;
  if (dl_parse_duration (v, &t, &e) && t <= max)
    return TRUE;
  if (e && !g_error_matches (e, DL_ERROR, DL_ERROR_RANGE))
    {
      g_propagate_error (error, g_steal_pointer (&e));
      return FALSE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (a duration from 0 to %" G_GINT64_FORMAT "h)",
               v, max / DL_H);
  return FALSE;
}

/* A distribution of durations whose every duration argument is at most
 * SIM_DURATION_MAX (a sample from a heavy tail may still be longer: the
 * world adds them saturating). */
static gboolean
check_dist_duration (const char *v, DlDist *d, GError **error)
{
  if (!dl_dist_parse (v, DL_UNIT_DURATION, d, error))
    return FALSE;
  gboolean a = d->kind != DL_DIST_GAMMA, b = d->kind == DL_DIST_UNIFORM || d->kind == DL_DIST_NORMAL
                                             || d->kind == DL_DIST_GAMMA;
  if ((!a || d->a <= (double) SIM_DURATION_MAX) && (!b || d->b <= (double) SIM_DURATION_MAX))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is out of range (durations from 0 to %" G_GINT64_FORMAT "h)",
               v, SIM_DURATION_MAX / DL_H);
  return FALSE;
}

static gboolean
check_value (const KeySpec *k, const char *v, GError **error)
{
  DlDist d;
  double x;
  uint64_t u;
  switch (k->kind)
    {
    case K_STR:
    case K_PATH:
      return TRUE;
    case K_UINT:
      return check_uint (k, v, error);
    case K_SEED:
      {
        guint64 s;
        if (g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT64, &s, NULL))
          return TRUE;
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not a whole number >= 0", v);
        return FALSE;
      }
    case K_NUM:
      return dl_parse_number (v, &x, error);
    case K_PROB:
      return parse_prob (v, &x, error);
    case K_DUR:
      return check_duration (k, v, error);
    case K_DUR_ROBUST:
      return *v == '\0' || check_duration (k, v, error);
    case K_SPARSIFY:
      {
        ProtoSparsify sp;
        return proto_sparsify_from_name (v, &sp, error);
      }
    case K_SHARE:
      return parse_share (v, &x, error);
    case K_REGIONS:
      return *v == '\0' || parse_regions (v, NULL, NULL, NULL, error);
    case K_OPT_DIST_DUR:
      return *v == '\0' || check_dist_duration (v, &d, error);
    case K_DISCOVERY:
      if (strcmp (v, "coordinator") == 0 || strcmp (v, "kademlia") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected coordinator or kademlia", v);
      return FALSE;
    case K_STRAGGLER_POLICY:
      {
        ProtoStragglerPolicy sp;
        return proto_straggler_policy_from_name (v, &sp, error);
      }
    case K_ONOFF:
      {
        gboolean b;
        return parse_on_off (v, &b, error);
      }
    case K_DIST_DUR:
      return check_dist_duration (v, &d, error);
    case K_SIZE:
      return dl_parse_size (v, &u, error);
    case K_FORWARDING:
      if (strcmp (v, "client") == 0 || strcmp (v, "next-peer") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected client or next-peer", v);
      return FALSE;
    case K_SERVERS:
      return parse_servers (v, NULL, NULL, NULL, NULL, error);
    case K_CLIENT_COPY:
      if (strcmp (v, "full") == 0 || strcmp (v, "hash") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected full or hash", v);
      return FALSE;
    case K_CLUSTER_BY:
      if (strcmp (v, "region") == 0 || strcmp (v, "latency") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected region or latency", v);
      return FALSE;
    case K_DIST_RATE:
      if (strchr (v, '('))
        return dl_dist_parse (v, DL_UNIT_RATE, &d, error);
      return dl_parse_rate (v, &u, error);
    case K_SHARING:
      if (strcmp (v, "fair") == 0 || strcmp (v, "fifo") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected fair or fifo", v);
      return FALSE;
    case K_REPLICATION:
      if (strcmp (v, "raft") == 0 || strcmp (v, "primary-backup") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected raft or primary-backup", v);
      return FALSE;
    case K_DIST_NUM:
      return dl_dist_parse (v, DL_UNIT_NUMBER, &d, error);
    case K_DETECT:
      if (strcmp (v, "never") == 0)
        return TRUE;
      if (dl_dist_parse (v, DL_UNIT_DURATION, &d, NULL))
        return check_dist_duration (v, &d, error);
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                   "'%s' is neither a duration, a distribution of durations, nor never", v);
      return FALSE;
    case K_RATE:
      return dl_parse_rate (v, &u, error);
    case K_PER_TIME:
      return dl_parse_per_time (v, &x, error);
    case K_VERSION:
      {
        ProtoVersion pv;
        return proto_version_from_name (v, &pv, error);
      }
    case K_AGG:
      if (strcmp (v, "mean") == 0 || strcmp (v, "secure") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s' is not an aggregation (expected mean or secure)", v);
      return FALSE;
    case K_AFTER:
      if (strcmp (v, "leave") == 0 || strcmp (v, "stay") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected leave or stay", v);
      return FALSE;
    case K_MODEL:
      {
        LearnModelKind mk;
        return learn_model_kind_from_name (v, &mk, error);
      }
    case K_SOURCE:
      {
        LearnSourceKind sk;
        return learn_source_parse (v, &sk, NULL, error);
      }
    case K_PARTITION:
      {
        LearnPartitionSpec ps;
        return learn_partition_spec_parse (v, &ps, error);
      }
    case K_STRAGGLERS:
      {
        double share, factor;
        g_auto (GStrv) f = g_strsplit_set (v, " \t", -1);
        guint m = 0;
        const char *parts[2] = { NULL, NULL };
        for (guint i = 0; f[i]; i++)
          if (*f[i] && m < 2)
            parts[m++] = f[i];
        if (strcmp (v, "0") == 0)
          return TRUE;
        if (m == 2 && parts[1][0] == 'x' && dl_parse_number (parts[0], &share, NULL) && share >= 0
            && share <= 1 && dl_parse_number (parts[1] + 1, &factor, NULL) && factor >= 1)
          return TRUE;
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                     "'%s': expected SHARE xFACTOR with SHARE in [0, 1] and FACTOR >= 1, e.g. 0.1 x8", v);
        return FALSE;
      }
    case K_RUNTIME:
      if (strcmp (v, "browser") == 0 || strcmp (v, "node") == 0 || strcmp (v, "webapp") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected browser, node or webapp", v);
      return FALSE;
    case K_NAT:
      {
        if (strcmp (v, "none") == 0)
          return TRUE;
        double share;
        if (g_str_has_prefix (v, "symmetric(") && g_str_has_suffix (v, ")"))
          {
            g_autofree char *num = g_strndup (v + 10, strlen (v) - 11);
            if (dl_parse_number (num, &share, NULL) && share >= 0 && share <= 1)
              return TRUE;
          }
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected none or symmetric(SHARE in [0, 1])", v);
        return FALSE;
      }
    }
  return TRUE;
}

gboolean
check_point_values (const SimScenario *s, const SimPoint *p, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr (GError) e = NULL;
      if (!check_value (&keys[i], point_value (p, keys[i].section, keys[i].key), &e))
        return fail_at (error, _sim_scenario_origin (s, keys[i].section, keys[i].key), keys[i].section, keys[i].key,
                        "%s", e->message);
    }
  return TRUE;
}
