/* hier-coord.c — the hierarchical family's coordinator (hier.h): admission,
 * clusters, the tally of each cluster's head election, and the list of
 * heads.  It never sees a model.
 *
 * Clusters form once min_participants peers have said HierHello, and every
 * peer connected so far has (peers that connect together cluster together;
 * election_timeout after the min_participants-th hello they form anyway):
 * by region
 * (the peers' [network] regions label), each region split into balanced
 * chunks of at most cluster_size; without regions, the peers in id order in
 * such chunks; with cluster_by = latency, by measured round trips (the
 * probing below, the computation in hier-latency.c, a leaf).  A later peer
 * joins the smallest cluster of its region (a new cluster if its region
 * has none).
 *
 * An election (epoch e of a cluster): HierCluster(e, members, no head) to
 * every member; each answers HierCandidacy(e, score, eligible); once every
 * member has, or election_timeout after the start, the head is the eligible
 * candidate with the highest score (then the lowest id; an ineligible one
 * only if no candidate is eligible), announced by HierCluster(e, members,
 * head), and every head gets HierHeads (all clusters' heads).  A cluster
 * with no eligible candidate (all behind symmetric NAT) joins one whose head
 * is eligible instead (merge_into).  A candidacy
 * for a later epoch (a member that lost its head), or the head's stream
 * closing, starts the next epoch.  SignalForPeer is relayed as DISCO's
 * controller relays it (server/src/controllers/decentralized_controller.ts). */
#include "config.h"

#include "protocol/hierarchical/hier.h"
#include "protocol/hierarchical/hier-latency-private.h"
#include "protocol/session/session-msgs.h"
#include "protocol/hierarchical/hier-msgs.h"

#include <string.h>

typedef struct {
  ProtoNodeId id;
  char *region;
  guint32 score;
  gboolean nat;
  int cluster;            /* index in clusters, -1 before they form */
  gboolean resting;       /* finished and stays: no update of its is awaited */
  /* cluster_by = latency (below; the computation in hier-latency.c) */
  HierLatencyPlace lat;   /* its group, from its round trips */
  gboolean probed;        /* it was among the peers that formed the clusters */
  gboolean awaited;       /* its round trip to the current landmark is awaited */
  gboolean leaving;       /* its stream closed: it is being removed */
  guint late_left;        /* placed late: answers still awaited, one per landmark */
  DlTime late_deadline;   /* ... until then */
} Member;

typedef struct {
  char *name;
  GArray *members;        /* ProtoNodeId, ascending */
  uint32_t epoch;
  ProtoNodeId head;       /* PROTO_NO_NODE during an election */
  DlTime deadline;        /* the election's end (NEVER: none on) */
  GHashTable *votes;      /* candidate id + 1 -> score << 1 | eligible (this epoch) */
  int group;              /* cluster_by = latency: its landmark's group; -1 by region */
  gboolean stuck;         /* every candidate is behind symmetric NAT: it waits for another cluster's
                             eligible head to merge into */
} Cluster;

/* its phase (the base's state) */
typedef enum {
  COORD_GATHERING,        /* hellos come in */
  COORD_PROBING,          /* cluster_by = latency: the landmarks are being measured: the clusters form after */
  COORD_CLUSTERED,        /* the clusters formed */
} CoordPhase;

static const char *const phase_names[] = { "gathering", "probing", "clustered" };

typedef struct HierCoord HierCoord;

struct HierCoord {
  ProtoMachineBase base;  /* its phase, its deadline */
  ProtoConfig cfg;
  GPtrArray *members;     /* Member*, ascending id */
  GPtrArray *clusters;    /* Cluster* */
  uint32_t heads_version;
  DlTime now;
  DlTime form_deadline;   /* min_participants said hello, some connected peer not yet: form then anyway */
  /* cluster_by = latency (below) */
  GArray *landmarks;      /* ProtoNodeId, in the order chosen: group g's is landmarks[g] */
  guint probe_waiting;    /* answers awaited for the current landmark */
  DlTime probe_deadline;  /* ... until then (election_timeout after the probe went out) */
  guint late_probing;     /* members placed late whose probes are out */
  GArray *cut;            /* ProtoNodeId pairs (member, head): a member stood while that head stayed head */
};

static void observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
                     const char *fmt, ...) G_GNUC_PRINTF (7, 8);
static void clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers);
static void place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at_cluster);
/* clustering by latency (below) */
static void latency_start (HierCoord *c, ProtoOutbox *out);
static void latency_place_late (HierCoord *c, ProtoOutbox *out, Member *m);

static gboolean
formed (const HierCoord *c)
{
  return c->base.state == COORD_CLUSTERED;
}

static gboolean
probing (const HierCoord *c)
{
  return c->base.state == COORD_PROBING;
}

static void
observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
            const char *fmt, ...)
{
  char detail[PROTO_OBS_DETAIL_LEN] = "";
  if (fmt)
    {
      va_list ap;
      va_start (ap, fmt);
      g_vsnprintf (detail, sizeof detail, fmt, ap);
      va_end (ap);
    }
  proto_outbox_observe (out, kind, phase_names[c->base.state], -1, other, type, value, "%s", detail);
}

static void
send_msg (HierCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  observe (c, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, m);
}

static Member *
find_member (const HierCoord *c, ProtoNodeId id, guint *at)
{
  guint lo = 0, hi = c->members->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      Member *m = g_ptr_array_index (c->members, mid);
      if (m->id == id)
        {
          if (at)
            *at = mid;
          return m;
        }
      if (m->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (at)
    *at = lo;
  return NULL;
}

static void
member_free (gpointer p)
{
  Member *m = p;
  g_free (m->region);
  g_free (m);
}

static void
cluster_free (gpointer p)
{
  Cluster *k = p;
  g_free (k->name);
  g_array_unref (k->members);
  g_hash_table_unref (k->votes);
  g_free (k);
}

static Cluster *
cluster_new (HierCoord *c, const char *name)
{
  Cluster *k = g_new0 (Cluster, 1);
  k->name = g_strdup (name);
  k->members = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  k->head = PROTO_NO_NODE;
  k->deadline = DL_TIME_NEVER;
  k->votes = g_hash_table_new (g_direct_hash, g_direct_equal);
  k->group = -1;
  g_ptr_array_add (c->clusters, k);
  return k;
}

/* The members whose updates the head awaits: all but the resting; to
 * every member, or to `only` (PROTO_NO_NODE: all). */
static void
send_cluster_to (HierCoord *c, ProtoOutbox *out, Cluster *k, ProtoNodeId only)
{
  g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < k->members->len; i++)
    {
      Member *m = find_member (c, g_array_index (k->members, ProtoNodeId, i), NULL);
      if (m && !m->resting)
        g_array_append_val (active, m->id);
    }
  for (guint i = 0; i < k->members->len; i++)
    {
      if (only != PROTO_NO_NODE && g_array_index (k->members, ProtoNodeId, i) != only)
        continue;
      ProtoMsg msg;
      proto_msg_init (&msg, PROTO_MSG_HIER_CLUSTER);
      msg.round = k->epoch;
      msg.node = k->head;
      proto_msg_set_peers (&msg, (const ProtoNodeId *) (const void *) active->data, active->len);
      send_msg (c, out, g_array_index (k->members, ProtoNodeId, i), &msg);
    }
}

static void
send_cluster (HierCoord *c, ProtoOutbox *out, Cluster *k)
{
  send_cluster_to (c, out, k, PROTO_NO_NODE);
}

/* send_heads_to's steps: the heads of the clusters that still work into
 * `heads` (a cluster whose members all finished has no more rounds:
 * nobody waits for its head); FALSE if an election is on */
static gboolean
working_heads (const HierCoord *c, GArray *heads)
{
  for (guint i = 0; i < c->clusters->len; i++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, i);
      gboolean working = FALSE;
      for (guint j = 0; j < k->members->len && !working; j++)
        {
          Member *m = find_member (c, g_array_index (k->members, ProtoNodeId, j), NULL);
          working = m && !m->resting;
        }
      if (!working)
        continue;
      if (k->head == PROTO_NO_NODE)
        return FALSE;
      g_array_append_val (heads, k->head);
    }
  return TRUE;
}

/* ... the tree over `heads` (sorted): groups of `fanin` heads, level by
 * level, each under its first, until at most fanin are left at the top;
 * each head's parent into parent[] (PROTO_NO_NODE at the top), and
 * (transfer full) the top level, as indices into heads */
static GArray *
heads_tree (const GArray *heads, guint fanin, ProtoNodeId *parent)
{
  guint n = heads->len;
  for (guint i = 0; i < n; i++)
    parent[i] = PROTO_NO_NODE;
  GArray *level = g_array_new (FALSE, FALSE, sizeof (guint));   /* indices into heads */
  for (guint i = 0; i < n; i++)
    g_array_append_val (level, i);
  while (level->len > fanin)
    {
      g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint g = 0; g < level->len; g += fanin)
        {
          guint leader = g_array_index (level, guint, g);
          g_array_append_val (next, leader);
          for (guint j = g + 1; j < MIN (g + fanin, level->len); j++)
            parent[g_array_index (level, guint, j)] = g_array_index (heads, ProtoNodeId, leader);
        }
      g_array_set_size (level, 0);
      g_array_append_vals (level, next->data, next->len);
    }
  return level;
}

/* The heads tree: up to fanin heads exchange all-to-all; above, the heads
 * in id order form groups of fanin, each reporting to its first (lowest id)
 * head, and those first heads form the next level, until at most fanin are
 * left at the top.  Each head gets its parent, its children, and (at the
 * top) the top heads.  Sent once every working cluster has a head; to
 * every head, or to `only` (PROTO_NO_NODE: all). */
static void
send_heads_to (HierCoord *c, ProtoOutbox *out, ProtoNodeId only)
{
  g_autoptr (GArray) heads = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  if (!working_heads (c, heads))
    return;   /* an election is on: the tree goes out when it is over */
  g_array_sort (heads, hier_cmp_id);
  guint n = heads->len, fanin = MAX (hier_config (&c->cfg)->fanin, 2);
  g_autofree ProtoNodeId *parent = g_new (ProtoNodeId, MAX (n, 1));
  g_autoptr (GArray) level = heads_tree (heads, fanin, parent);
  g_autofree ProtoNodeId *top = g_new (ProtoNodeId, MAX (level->len, 1));
  for (guint i = 0; i < level->len; i++)
    top[i] = g_array_index (heads, ProtoNodeId, g_array_index (level, guint, i));
  c->heads_version++;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId h = g_array_index (heads, ProtoNodeId, i);
      if (only != PROTO_NO_NODE && h != only)
        continue;
      g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint j = 0; j < n; j++)
        if (parent[j] == h)
          g_array_append_val (kids, g_array_index (heads, ProtoNodeId, j));
      ProtoMsg msg;
      proto_msg_init (&msg, PROTO_MSG_HIER_HEADS);
      msg.round = c->heads_version;
      msg.degree = n;
      msg.node = parent[i];
      /* for a late joiner heading a cluster of its own: any other head, a
       * finished cluster's included (it keeps the last global model) */
      msg.key = PROTO_NO_NODE;
      for (guint q = 0; q < c->clusters->len && msg.key == PROTO_NO_NODE; q++)
        {
          ProtoNodeId hh = ((Cluster *) g_ptr_array_index (c->clusters, q))->head;
          if (hh != PROTO_NO_NODE && hh != h)
            msg.key = hh;
        }
      if (parent[i] == PROTO_NO_NODE)
        proto_msg_set_peers (&msg, top, level->len);
      guint nk = kids->len;
      proto_msg_take_indices (&msg, (guint32 *) (void *) g_array_free (g_steal_pointer (&kids), FALSE), nk);
      send_msg (c, out, h, &msg);
    }
  if (level->len < n && only == PROTO_NO_NODE)
    observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, level->len, "%u heads: %u at the top (fanin %u)", n,
             level->len, fanin);
}

static void
send_heads (HierCoord *c, ProtoOutbox *out)
{
  send_heads_to (c, out, PROTO_NO_NODE);
}

static void
start_election (HierCoord *c, ProtoOutbox *out, Cluster *k, uint32_t epoch, const char *why)
{
  gboolean had_head = k->head != PROTO_NO_NODE;
  k->epoch = epoch;
  k->stuck = FALSE;
  k->head = PROTO_NO_NODE;
  k->deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
  g_hash_table_remove_all (k->votes);
  observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, epoch, "cluster %s: election, epoch %u (%s)", k->name, epoch,
           why);
  send_cluster (c, out, k);
  if (had_head)
    send_heads (c, out);
}

/* A member that stands while its head is head lost it (its link failed or
 * died, or no result came): the pair is remembered, so that the same head
 * is not elected again while another candidate can serve the cluster (a
 * link inside a cluster that fails for good re-elected the same head for
 * ever: protocol/hierarchical/scenarios/hier-link-fail-in-cluster.ini). */
static void
note_cut (HierCoord *c, ProtoNodeId member, ProtoNodeId head)
{
  if (head == PROTO_NO_NODE || head == member)
    return;
  ProtoNodeId pair[2] = { member, head };
  g_array_append_vals (c->cut, pair, 2);
}

/* The pair cut each other: each stood once while the other was its head
 * (a link between them that failed for good, or a fault on both sides). */
static gboolean
cut_both_ways (const HierCoord *c, ProtoNodeId a, ProtoNodeId b)
{
  gboolean ab = FALSE, ba = FALSE;
  for (guint i = 0; i + 1 < c->cut->len; i += 2)
    {
      ProtoNodeId x = g_array_index (c->cut, ProtoNodeId, i), y = g_array_index (c->cut, ProtoNodeId, i + 1);
      ab = ab || (x == a && y == b);
      ba = ba || (x == b && y == a);
    }
  return ab && ba;
}

/* m has stood twice against every other member of k while it was m's
 * head, and there are at least two: each was tried again after m lost it
 * and lost again, so none of them can head m (its links to all the
 * others failed).  The others took turns heading and m lost each turn for
 * ever: the fewest cuts counts m's own stands too, so m never headed
 * (protocol/hierarchical/scenarios/hier-lost-every-head.ini).  Once is not enough:
 * a head lost in a partition since healed serves m when tried again
 * (hier-link-never-up.ini).  In a cluster of two m heads itself first
 * (cuts_in_cluster), and cut_both_ways splits it. */
static gboolean
lost_every_head (const HierCoord *c, const Cluster *k, ProtoNodeId m)
{
  guint others = 0;
  for (guint j = 0; j < k->members->len; j++)
    {
      ProtoNodeId x = g_array_index (k->members, ProtoNodeId, j);
      guint lost = 0;
      for (guint i = 0; x != m && i + 1 < c->cut->len; i += 2)
        lost += g_array_index (c->cut, ProtoNodeId, i) == m && g_array_index (c->cut, ProtoNodeId, i + 1) == x;
      if (x != m && lost < 2)
        return FALSE;
      others += x != m;
    }
  return others >= 2;
}

/* m stands against k's head, which once stood against m: neither can head
 * the other, and re-electing between them alternated for ever (a cluster
 * of two whose link failed for good, scenarios/regression/
 * hier-pair-split.ini); or m lost every other member as its head
 * (lost_every_head: both_ways FALSE).  m leaves k for a cluster of its
 * own, whose election is at `epoch` (the one m stood in); k keeps its
 * head.  Returns the new cluster. */
static Cluster *
split_off (HierCoord *c, ProtoOutbox *out, Member *m, Cluster *k, uint32_t epoch, gboolean both_ways)
{
  for (guint i = 0; i < k->members->len; i++)
    if (g_array_index (k->members, ProtoNodeId, i) == m->id)
      {
        g_array_remove_index (k->members, i);
        break;
      }
  g_hash_table_remove (k->votes, GUINT_TO_POINTER (m->id + 1));
  g_autofree char *name = g_strdup_printf ("%s%s%u", m->region, *m->region ? "." : "c", c->clusters->len + 1);
  Cluster *n = cluster_new (c, name);
  n->group = k->group;
  n->epoch = epoch - 1;
  if (both_ways)
    observe (c, out, PROTO_OBS_NOTE, m->id, -1, epoch, "cluster %s: p%u and its head p%u cut each other: p%u leaves for %s",
             k->name, m->id, k->head, m->id, n->name);
  else
    observe (c, out, PROTO_OBS_NOTE, m->id, -1, epoch,
             "cluster %s: p%u lost every other member as its head twice, the last p%u: p%u leaves for %s", k->name, m->id,
             k->head, m->id, n->name);
  send_cluster (c, out, k);
  place_into (c, out, m, c->clusters->len - 1);
  return n;
}

/* How often a candidate was cut from another member of k, each time
 * counted, twice as the head that was lost (a member that lost its head
 * may head the cluster itself): a link that fails for good adds at every
 * re-election, so a candidate a passing fault cut (a partition since
 * healed) wins over it in the end. */
static guint
cuts_in_cluster (const HierCoord *c, const Cluster *k, ProtoNodeId id)
{
  guint n = 0;
  for (guint i = 0; i + 1 < c->cut->len; i += 2)
    {
      ProtoNodeId a = g_array_index (c->cut, ProtoNodeId, i), b = g_array_index (c->cut, ProtoNodeId, i + 1);
      ProtoNodeId other = a == id ? b : b == id ? a : PROTO_NO_NODE;
      for (guint j = 0; other != PROTO_NO_NODE && j < k->members->len; j++)
        n += g_array_index (k->members, ProtoNodeId, j) == other ? (b == id ? 2 : 1) : 0;
    }
  return n;
}

static gboolean
unreachable_head (const HierCoord *c, const Member *m, const Cluster *k)
{
  if (!m->nat || k->head == PROTO_NO_NODE)
    return FALSE;
  const Member *h = find_member (c, k->head, NULL);
  return h && h->nat;
}

/* The cluster an all-NAT cluster k merges into: one whose head is not
 * behind symmetric NAT, of k's region (or latency group) first, then the
 * fewest members; -1 if none. */
static int
merge_target (HierCoord *c, const Cluster *k)
{
  const Member *first = k->members->len ? find_member (c, g_array_index (k->members, ProtoNodeId, 0), NULL) : NULL;
  int best = -1;
  guint best_key = G_MAXUINT;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o == k || o->head == PROTO_NO_NODE || o->members->len == 0)
        continue;
      const Member *h = find_member (c, o->head, NULL);
      if (!h || h->nat)
        continue;
      const Member *of = find_member (c, g_array_index (o->members, ProtoNodeId, 0), NULL);
      gboolean near = k->group >= 0 ? o->group == k->group
                                    : (first && of && first->region && of->region && strcmp (first->region, of->region) == 0);
      guint key = (near ? 0 : 1u << 30) + o->members->len;
      if (key < best_key)
        best_key = key, best = (int) q;
    }
  return best;
}

/* Heads relay for members behind symmetric NAT (a member links to its head
 * only), but a head behind one cannot be linked by them: a cluster where
 * every candidate is behind one joins a cluster with an eligible head. */
static void
merge_into (HierCoord *c, ProtoOutbox *out, Cluster *k, guint into)
{
  Cluster *o = g_ptr_array_index (c->clusters, into);
  guint n = k->members->len;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId id = g_array_index (k->members, ProtoNodeId, i);
      Member *m = find_member (c, id, NULL);
      if (m)
        m->cluster = (int) into;
      guint at = 0;
      while (at < o->members->len && g_array_index (o->members, ProtoNodeId, at) < id)
        at++;
      g_array_insert_val (o->members, at, id);
    }
  /* the members stood in k's epochs: o's announcement must be as new */
  o->epoch = MAX (o->epoch, k->epoch);
  g_array_set_size (k->members, 0);
  g_hash_table_remove_all (k->votes);
  k->head = PROTO_NO_NODE;
  k->deadline = DL_TIME_NEVER;
  k->stuck = FALSE;
  observe (c, out, PROTO_OBS_NOTE, o->head, -1, n,
              "cluster %s: every candidate is behind symmetric NAT: its %u members join cluster %s (head p%u)", k->name,
              n, o->name, o->head);
  send_cluster (c, out, o);
  send_heads (c, out);
}

/* Another cluster's election is on (and not itself stuck): a head may come. */
static gboolean
other_election_on (const HierCoord *c, const Cluster *k)
{
  for (guint q = 0; q < c->clusters->len; q++)
    {
      const Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o != k && o->members->len && o->head == PROTO_NO_NODE && o->deadline != DL_TIME_NEVER && !o->stuck)
        return TRUE;
    }
  return FALSE;
}

/* Every member voted, or the deadline passed: the head is announced. */
static void
try_tally (HierCoord *c, ProtoOutbox *out, Cluster *k)
{
  if (k->head != PROTO_NO_NODE || k->deadline == DL_TIME_NEVER)
    return;
  gboolean all = g_hash_table_size (k->votes) >= k->members->len;
  if (!all && c->now < k->deadline)
    return;
  ProtoNodeId best = PROTO_NO_NODE;
  guint64 best_key = 0;
  for (guint i = 0; i < k->members->len; i++)
    {
      ProtoNodeId id = g_array_index (k->members, ProtoNodeId, i);
      gpointer v = g_hash_table_lookup (k->votes, GUINT_TO_POINTER (id + 1));
      if (!v)
        continue;
      guint64 vote = GPOINTER_TO_SIZE (v) - 1;
      /* eligible first, then the fewest cuts from members (note_cut),
       * then the score; members are in ascending id, so a tie keeps the
       * lower */
      guint cuts = MIN (cuts_in_cluster (c, k, id), 0xFFFFu);
      guint64 key = ((vote & 1) << 62) | ((guint64) (0xFFFFu - cuts) << 40) | ((vote >> 1) + 1);
      if (key > best_key)
        best_key = key, best = id;
    }
  if (best == PROTO_NO_NODE)
    {
      /* nobody answered: another epoch, unless the cluster is empty */
      k->deadline = k->members->len ? dl_time_add (c->now, hier_config (&c->cfg)->election_timeout) : DL_TIME_NEVER;
      observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, k->epoch, "cluster %s: no candidacy by the deadline",
               k->name);
      return;
    }
  gboolean eligible = (best_key >> 62) & 1;
  if (!eligible)
    {
      int into = merge_target (c, k);
      if (into >= 0)
        {
          merge_into (c, out, k, (guint) into);
          return;
        }
      if (c->now < k->deadline && other_election_on (c, k))
        {
          if (!k->stuck)
            observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, k->epoch,
                        "cluster %s: every candidate is behind symmetric NAT: waits for another cluster's head",
                        k->name);
          k->stuck = TRUE;
          return;
        }
    }
  k->stuck = FALSE;
  k->head = best;
  k->deadline = DL_TIME_NEVER;
  observe (c, out, PROTO_OBS_SOURCE_CHOSEN, best, -1, k->epoch,
              "cluster %s: p%u is head (epoch %u, %u of %u candidacies%s%s)", k->name, best, k->epoch,
              g_hash_table_size (k->votes), k->members->len, all ? "" : ", the rest timed out",
              eligible ? "" : ", behind symmetric NAT: no cluster to merge into");
  send_cluster (c, out, k);
  send_heads (c, out);
  /* clusters that waited for a head to merge into, or for the elections to end */
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o->stuck && (eligible || !other_election_on (c, o)))
        try_tally (c, out, o);
    }
}

static gint
cmp_member_region (gconstpointer a, gconstpointer b)
{
  const Member *x = *(Member *const *) a, *y = *(Member *const *) b;
  int r = strcmp (x->region, y->region);
  return r ? r : (x->id > y->id) - (x->id < y->id);
}

/* min_participants peers said hello: the clusters form, elections start. */
static void
form_clusters (HierCoord *c, ProtoOutbox *out)
{
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->region)
        g_ptr_array_add (order, m);
    }
  g_ptr_array_sort (order, cmp_member_region);
  guint i = 0;
  while (i < order->len)
    {
      const char *region = ((Member *) order->pdata[i])->region;
      guint j = i;
      while (j < order->len && strcmp (((Member *) order->pdata[j])->region, region) == 0)
        j++;
      guint n = j - i, size = MAX (hier_config (&c->cfg)->cluster_size, 1);
      guint chunks = (n + size - 1) / size;
      for (guint q = 0; q < chunks; q++)
        {
          /* balanced: chunk q takes members [i + n q / chunks, i + n (q + 1) / chunks) */
          g_autofree char *name = chunks > 1 || !*region ? g_strdup_printf ("%s%s%u", region, *region ? "." : "c", q + 1)
                                                         : g_strdup (region);
          Cluster *k = cluster_new (c, name);
          for (guint r = i + n * q / chunks; r < i + n * (q + 1) / chunks; r++)
            {
              Member *m = order->pdata[r];
              m->cluster = (int) c->clusters->len - 1;
              g_array_append_val (k->members, m->id);
            }
          g_array_sort (k->members, hier_cmp_id);
        }
      i = j;
    }
  clusters_formed (c, out, order->len);
}

static void
clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers)
{
  c->base.state = COORD_CLUSTERED;
  observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, c->clusters->len, "%u peers in %u clusters", n_peers,
              c->clusters->len);
  for (guint q = 0; q < c->clusters->len; q++)
    start_election (c, out, g_ptr_array_index (c->clusters, q), 1, "formed");
}

/* At least min_participants said hello, and everyone connected so far has
 * (peers that connect together cluster together). */
static void
maybe_form (HierCoord *c, ProtoOutbox *out)
{
  if (formed (c) || probing (c))
    return;
  guint hellos = 0;
  for (guint i = 0; i < c->members->len; i++)
    hellos += ((Member *) g_ptr_array_index (c->members, i))->region != NULL;
  if (hellos < MAX (c->cfg.min_participants, 1))
    {
      c->form_deadline = DL_TIME_NEVER;   /* not a timer to fire again and again */
      return;
    }
  if (hellos == c->members->len || c->now >= c->form_deadline)
    {
      if (hellos < c->members->len)
        observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, c->members->len - hellos,
                 "election_timeout: the clusters form without the peers that never said hello");
      c->form_deadline = DL_TIME_NEVER;
      if (hier_config (&c->cfg)->cluster_by_latency)
        latency_start (c, out);
      else
        form_clusters (c, out);
    }
  else if (c->form_deadline == DL_TIME_NEVER)
    c->form_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

/* A peer after the clusters formed: the smallest cluster of its region
 * (cluster_by = latency: of its landmark's group, below). */
static void
place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  if (hier_config (&c->cfg)->cluster_by_latency)
    {
      latency_place_late (c, out, m);
      return;
    }
  Cluster *best = NULL;
  int best_i = -1;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      gboolean same = k->members->len == 0 ? FALSE : strcmp (find_member (c, g_array_index (k->members, ProtoNodeId, 0), NULL)->region,
                                                             m->region) == 0;
      if (same && k->members->len < MAX (hier_config (&c->cfg)->cluster_size, 1) && !unreachable_head (c, m, k)
          && (!best || k->members->len < best->members->len))
        best = k, best_i = (int) q;
    }
  if (!best)
    {
      g_autofree char *name = g_strdup_printf ("%s%s%u", m->region, *m->region ? "." : "c", c->clusters->len + 1);
      cluster_new (c, name);
      best_i = (int) c->clusters->len - 1;
    }
  place_into (c, out, m, (guint) best_i);
}

static void
place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at_cluster)
{
  Cluster *best = g_ptr_array_index (c->clusters, at_cluster);
  m->cluster = (int) at_cluster;
  guint at = 0;
  while (at < best->members->len && g_array_index (best->members, ProtoNodeId, at) < m->id)
    at++;
  g_array_insert_val (best->members, at, m->id);
  observe (c, out, PROTO_OBS_NOTE, m->id, -1, -1, "joins cluster %s", best->name);
  if (best->head == PROTO_NO_NODE && best->deadline == DL_TIME_NEVER)
    start_election (c, out, best, best->epoch + 1, "a peer joined a cluster without a head");
  else
    send_cluster (c, out, best);
}

/* ---- clustering by measured latency (`cluster_by = latency`): peers
 * measure round trips to landmarks over links, and the coordinator groups
 * them (the computation: hier-latency.c, a leaf).
 *
 * Landmark binning (Ratnasamy, Handley, Karp and Shenker, "Topologically-
 * aware overlay construction and server selection", INFOCOM 2002) with the
 * landmarks chosen farthest first (Gonzalez's k-center, 1985) and a radius,
 * as the leader algorithm (Hartigan, "Clustering Algorithms", 1975):
 *
 * 1. the first landmark is the lowest-id peer not behind symmetric NAT;
 * 2. every peer not yet in a group measures its round trip to it
 *    (HierProbe to the peer and to the landmark, which opens the links;
 *    HierPing and HierPong over the link; HierRtt to the coordinator); an
 *    answer missing election_timeout after the probe counts as no link;
 * 3. a peer within cluster_radius joins the landmark's group;
 * 4. the next landmark is the peer still outside every group that is
 *    farthest from all landmarks so far (its shortest round trip the
 *    longest; no link counts as farthest; ties: the lowest id), again not
 *    behind symmetric NAT, and step 2 follows;
 * 5. once every peer is in a group, or only peers behind symmetric NAT are
 *    left (they cannot be a landmark for each other), those join the group
 *    of their nearest landmark, and each group is split into balanced
 *    chunks of at most cluster_size in id order: the clusters lat1, lat2.1,
 *    lat2.2, ...
 *
 * A landmark is one probe round (two link round trips and the signalling
 * of the link), so the clusters form after about one such round per group.
 * A peer after the clusters formed measures every landmark at once and
 * joins the first (in their order) within cluster_radius, else the
 * nearest, in the smallest cluster of that group with room. */

static gboolean
unassigned (const Member *m)
{
  return m->region && m->probed && !m->leaving && m->lat.group < 0;
}

static void
probe (HierCoord *c, ProtoOutbox *out, ProtoNodeId prober, guint32 group, ProtoNodeId landmark)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_set_peers (&m, &landmark, 1);
  send_msg (c, out, prober, &m);
}

static void
probe_landmark (HierCoord *c, ProtoOutbox *out, guint32 group, ProtoNodeId landmark, const ProtoNodeId *probers,
                guint n)
{
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_HIER_PROBE);
  m.round = group;
  proto_msg_take_indices (&m, g_memdup2 (probers, n * sizeof *probers), n);
  send_msg (c, out, landmark, &m);
}


/* Every peer is in a group: the clusters form. */
static void
latency_finish (HierCoord *c, ProtoOutbox *out)
{
  c->base.state = COORD_GATHERING;
  c->probe_deadline = DL_TIME_NEVER;
  guint n = 0, size = MAX (hier_config (&c->cfg)->cluster_size, 1);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      g_array_set_size (ids, 0);
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->region && m->probed && !m->leaving && m->lat.group == (int) g)
            g_array_append_val (ids, m->id);
        }
      guint cnt = ids->len, chunks = (cnt + size - 1) / size;
      n += cnt;
      for (guint q = 0; q < chunks; q++)
        {
          g_autofree char *name = hier_latency_cluster_name (g, q, chunks > 1);
          Cluster *k = cluster_new (c, name);
          k->group = (int) g;
          GString *who = g_string_new (NULL);
          for (guint r = cnt * q / chunks; r < cnt * (q + 1) / chunks; r++)
            {
              ProtoNodeId id = g_array_index (ids, ProtoNodeId, r);
              find_member (c, id, NULL)->cluster = (int) c->clusters->len - 1;
              g_array_append_val (k->members, id);
              g_string_append_printf (who, " p%u", id);
            }
          observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, k->members->len,
                      "cluster %s (landmark p%u):%s", name, g_array_index (c->landmarks, ProtoNodeId, g), who->str);
          g_string_free (who, TRUE);
        }
    }
  clusters_formed (c, out, n);
  /* peers that said hello while the landmarks were measured come in as late ones */
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->region && !m->probed && !m->leaving && m->cluster < 0 && m->late_left == 0)
        latency_place_late (c, out, m);
    }
}

/* next_landmark's steps: the next landmark among the peers outside every
 * group (hier-latency.c picks), NULL if none; their number in *left */
static Member *
pick_landmark (const HierCoord *c, guint *left)
{
  g_autoptr (GPtrArray) outside = g_ptr_array_new ();   /* Member*, ascending id */
  for (guint i = 0; i < c->members->len; i++)
    if (unassigned (g_ptr_array_index (c->members, i)))
      g_ptr_array_add (outside, g_ptr_array_index (c->members, i));
  *left = outside->len;
  g_autofree const HierLatencyPlace **places = g_new (const HierLatencyPlace *, MAX (*left, 1));
  g_autofree gboolean *nat = g_new (gboolean, MAX (*left, 1));
  for (guint i = 0; i < *left; i++)
    {
      places[i] = &((Member *) outside->pdata[i])->lat;
      nat[i] = ((Member *) outside->pdata[i])->nat;
    }
  int at = hier_latency_pick_landmark (places, nat, *left);
  return at >= 0 ? outside->pdata[at] : NULL;
}

/* ... every peer is behind symmetric NAT: no links between them to
 * measure; one group, a landmark in name only */
static void
one_group (HierCoord *c, ProtoOutbox *out, guint left)
{
  Member *pick = NULL;
  for (guint i = 0; i < c->members->len && !pick; i++)
    if (unassigned (g_ptr_array_index (c->members, i)))
      pick = g_ptr_array_index (c->members, i);
  g_array_append_val (c->landmarks, pick->id);
  for (guint i = 0; i < c->members->len; i++)
    if (unassigned (g_ptr_array_index (c->members, i)))
      ((Member *) g_ptr_array_index (c->members, i))->lat.group = 0;
  observe (c, out, PROTO_OBS_NOTE, pick->id, -1, left,
              "every peer is behind symmetric NAT: nothing to measure, one group");
  latency_finish (c, out);
}

/* ... no landmark left to pick: the peers still outside (behind
 * symmetric NAT) join their nearest landmark's group */
static void
nearest_groups (HierCoord *c, ProtoOutbox *out, guint left)
{
  if (left)
    observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, left,
                "%u peers behind symmetric NAT outside every group: each joins its nearest landmark's", left);
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (unassigned (m))
        m->lat.group = MAX (m->lat.best_group, 0);
    }
  latency_finish (c, out);
}

/* The next landmark (step 4), or the end (step 5). */
static void
next_landmark (HierCoord *c, ProtoOutbox *out)
{
  guint left;
  Member *pick = pick_landmark (c, &left);
  if (!pick && left && c->landmarks->len == 0)
    {
      one_group (c, out, left);
      return;
    }
  if (!pick)
    {
      nearest_groups (c, out, left);
      return;
    }
  guint group = c->landmarks->len;
  g_array_append_val (c->landmarks, pick->id);
  pick->lat.group = (int) group;
  pick->lat.best_rtt = 0;
  pick->lat.best_group = (int) group;
  g_autoptr (GArray) probers = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (unassigned (m))
        {
          g_array_append_val (probers, m->id);
          m->awaited = TRUE;
        }
    }
  observe (c, out, PROTO_OBS_NOTE, pick->id, -1, group + 1, "landmark %u: p%u, measured by %u peers", group + 1,
              pick->id, probers->len);
  if (probers->len == 0)
    {
      latency_finish (c, out);
      return;
    }
  probe_landmark (c, out, group, pick->id, (const ProtoNodeId *) (const void *) probers->data, probers->len);
  for (guint i = 0; i < probers->len; i++)
    probe (c, out, g_array_index (probers, ProtoNodeId, i), group, pick->id);
  c->probe_waiting = probers->len;
  c->probe_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

static void
probe_done (HierCoord *c, ProtoOutbox *out)
{
  c->probe_deadline = DL_TIME_NEVER;
  guint g = c->landmarks->len - 1, in = 0;
  for (guint i = 0; i < c->members->len; i++)
    in += ((Member *) g_ptr_array_index (c->members, i))->lat.group == (int) g;
  observe (c, out, PROTO_OBS_NOTE, g_array_index (c->landmarks, ProtoNodeId, g), -1, in,
              "landmark %u: %u peers in its group", g + 1, in);
  next_landmark (c, out);
}

static void
latency_start (HierCoord *c, ProtoOutbox *out)
{
  c->base.state = COORD_PROBING;
  for (guint i = 0; i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      m->probed = m->region != NULL;
    }
  next_landmark (c, out);
}

/* A late peer's answers are all in (or its deadline passed): its cluster. */
static void
late_done (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->late_left = 0;
  m->late_deadline = DL_TIME_NEVER;
  c->late_probing--;
  int g = hier_latency_late_group (&m->lat);
  m->lat.group = g;
  int best = -1;
  guint n_in_group = 0;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      if (k->group != g)
        continue;
      n_in_group++;
      if (k->members->len < MAX (hier_config (&c->cfg)->cluster_size, 1) && !unreachable_head (c, m, k)
          && (best < 0 || k->members->len < ((Cluster *) g_ptr_array_index (c->clusters, best))->members->len))
        best = (int) q;
    }
  if (best < 0)
    {
      g_autofree char *name = hier_latency_cluster_name ((guint) g, n_in_group, TRUE);
      Cluster *k = cluster_new (c, name);
      k->group = g;
      best = (int) c->clusters->len - 1;
    }
  observe (c, out, PROTO_OBS_NOTE, m->id, -1, g + 1, "landmark %d's group (%s)", g + 1,
              m->lat.late_within >= 0 ? "within cluster_radius" : "the nearest");
  place_into (c, out, m, (guint) best);
}

static void
latency_place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->lat.late_within = -1;
  m->lat.best_rtt = G_MAXUINT64;
  m->lat.best_group = -1;
  m->late_left = 0;
  for (guint g = 0; g < c->landmarks->len; g++)
    {
      ProtoNodeId lm = g_array_index (c->landmarks, ProtoNodeId, g);
      Member *l = find_member (c, lm, NULL);
      if (!l || l->leaving || lm == m->id)
        continue;
      probe_landmark (c, out, g, lm, &m->id, 1);
      probe (c, out, m->id, g, lm);
      m->late_left++;
    }
  c->late_probing++;
  if (m->late_left == 0)
    {
      late_done (c, out, m);
      return;
    }
  m->late_deadline = dl_time_add (c->now, hier_config (&c->cfg)->election_timeout);
}

static void
latency_rtt (HierCoord *c, ProtoOutbox *out, Member *m, const ProtoMsg *msg)
{
  guint g = msg->round;
  if (g >= c->landmarks->len || g_array_index (c->landmarks, ProtoNodeId, g) != msg->node)
    return;
  if (m->late_left > 0)
    {
      hier_latency_took (&m->lat, g, msg->key, (guint64) hier_config (&c->cfg)->cluster_radius, TRUE);
      if (--m->late_left == 0)
        {
          m->late_left = 1;   /* late_done counts it down */
          late_done (c, out, m);
        }
      return;
    }
  if (!probing (c) || !m->awaited || g != c->landmarks->len - 1)
    return;
  m->awaited = FALSE;
  hier_latency_took (&m->lat, g, msg->key, (guint64) hier_config (&c->cfg)->cluster_radius, FALSE);
  if (--c->probe_waiting == 0)
    probe_done (c, out);
}

static void
latency_deadline (HierCoord *c, ProtoOutbox *out)
{
  if (probing (c) && c->probe_deadline <= c->now)
    {
      guint missing = 0;
      for (guint i = 0; i < c->members->len; i++)
        {
          Member *m = g_ptr_array_index (c->members, i);
          if (m->awaited)
            m->awaited = FALSE, missing++;
        }
      c->probe_waiting = 0;
      observe (c, out, PROTO_OBS_TIMER_FIRED, g_array_index (c->landmarks, ProtoNodeId, c->landmarks->len - 1),
                  -1, missing, "election_timeout: %u round trips to the landmark unanswered: no link", missing);
      probe_done (c, out);
    }
  for (guint i = 0; c->late_probing && i < c->members->len; i++)
    {
      Member *m = g_ptr_array_index (c->members, i);
      if (m->late_left > 0 && m->late_deadline <= c->now)
        late_done (c, out, m);
    }
}

static DlTime
latency_next_deadline (const HierCoord *c)
{
  DlTime d = probing (c) ? c->probe_deadline : DL_TIME_NEVER;
  for (guint i = 0; c->late_probing && i < c->members->len; i++)
    {
      const Member *m = g_ptr_array_index (c->members, i);
      if (m->late_left > 0)
        d = MIN (d, m->late_deadline);
    }
  return d;
}

static void
latency_member_left (HierCoord *c, ProtoOutbox *out, Member *m)
{
  m->leaving = TRUE;
  if (m->late_left > 0)
    {
      m->late_left = 0;
      c->late_probing--;
    }
  if (probing (c) && m->awaited)
    {
      m->awaited = FALSE;
      if (--c->probe_waiting == 0)
        probe_done (c, out);
    }
}

static void
member_left (HierCoord *c, ProtoOutbox *out, ProtoNodeId id)
{
  guint at;
  Member *m = find_member (c, id, &at);
  if (!m)
    return;
  observe (c, out, PROTO_OBS_NOTE, id, -1, -1, "stream closed: left");
  latency_member_left (c, out, m);
  if (m->cluster >= 0)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      for (guint i = 0; i < k->members->len; i++)
        if (g_array_index (k->members, ProtoNodeId, i) == id)
          {
            g_array_remove_index (k->members, i);
            break;
          }
      g_hash_table_remove (k->votes, GUINT_TO_POINTER (id + 1));
      g_ptr_array_remove_index (c->members, at);
      if (k->head == id)
        start_election (c, out, k, k->epoch + 1, "the head left");
      else if (k->head != PROTO_NO_NODE)
        send_cluster (c, out, k);
      else
        try_tally (c, out, k);
      return;
    }
  g_ptr_array_remove_index (c->members, at);
  maybe_form (c, out);   /* it may have been the one hello missing */
}

/* ClientConnected: a new member, answered with NewNodeInfo. */
static gboolean
on_client_connected (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m,
                     guint at)
{
  /* a member's repeat (its NewNodeInfo was lost: hier-peer.c says
   * ClientConnected again after head_timeout in connecting) is
   * answered as the first was, and it stays one member */
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  if (!m)
    {
      m = g_new0 (Member, 1);
      m->id = from;
      m->cluster = -1;
      m->lat.group = -1;
      m->lat.best_group = -1;
      m->lat.best_rtt = G_MAXUINT64;
      m->late_deadline = DL_TIME_NEVER;
      g_ptr_array_insert (c->members, (gint) at, m);
    }
  {
    ProtoMsg r;
    proto_msg_init (&r, PROTO_MSG_WELCOME);
    r.node = from;
    r.joined_mid_training = formed (c);   /* it syncs from its head before it trains */
    send_msg (c, out, from, &r);
  }
  return TRUE;
}

/* HierCandidacy from a placed member: a vote in its cluster's election,
 * which it may start or split off. */
static gboolean
on_candidacy (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || m->cluster < 0)
    return FALSE;
  Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
  if (msg->round > k->epoch)
    {
      note_cut (c, from, k->head);
      if (k->head != PROTO_NO_NODE && k->head != from && cut_both_ways (c, from, k->head))
        k = split_off (c, out, m, k, msg->round, TRUE);
      else if (k->head != PROTO_NO_NODE && k->head != from && lost_every_head (c, k, from))
        k = split_off (c, out, m, k, msg->round, FALSE);
      else
        start_election (c, out, k, msg->round, "a member lost its head");
    }
  if (msg->round != k->epoch || k->head != PROTO_NO_NODE)
    {
      observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "candidacy for epoch %u: %s",
               msg->round, k->head != PROTO_NO_NODE ? "the election is over" : "another epoch");
      /* it missed an announcement (a lost message): where things are */
      send_cluster_to (c, out, k, from);
      return TRUE;
    }
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
  guint64 vote = ((guint64) msg->degree << 1) | (msg->helper ? 1 : 0);
  g_hash_table_insert (k->votes, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) vote + 1));
  try_tally (c, out, k);
  return TRUE;
}

/* HierHello: a member's score and region, after which the clusters form
 * (or it joins one).  A repeat (hier-peer.c says HierHello again while no
 * HierCluster came, or heading with no heads tree) is counted once;
 * placed, it missed its cluster's announcement, or, a head, the tree (a
 * lost HierHeads kept a head going alone every round). */
static gboolean
on_hello (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || (m->region && m->cluster < 0))
    return FALSE;
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
  if (m->region)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      send_cluster_to (c, out, k, from);
      if (k->head == from)
        send_heads_to (c, out, from);
      return TRUE;
    }
  m->region = g_strdup (msg->signal_data ? msg->signal_data : "");
  m->score = msg->degree;
  m->nat = msg->helper;
  if (formed (c))
    place_late (c, out, m);
  else
    maybe_form (c, out);
  return TRUE;
}

/* HierRtt: a member's round trip to a landmark (cluster_by = latency). */
static gboolean
on_rtt (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !m->region)
    return FALSE;
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->key > G_MAXINT64 ? -1 : (int64_t) msg->key,
              NULL);
  latency_rtt (c, out, m, msg);
  return TRUE;
}

/* PeerIsReady with helper set: a member finished and stays (resting). */
static gboolean
on_peer_is_ready (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !msg->helper || m->resting)
    return FALSE;
  observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
  m->resting = TRUE;
  if (m->cluster >= 0)
    {
      Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
      if (k->head != PROTO_NO_NODE)
        {
          send_cluster (c, out, k);
          send_heads (c, out);
        }
    }
  return TRUE;
}

/* SignalForPeer: relayed to the member it names, from the sender. */
static gboolean
on_signal_for_peer (HierCoord *c, ProtoOutbox *out, ProtoNodeId from, const ProtoMsg *msg, Member *m)
{
  if (!m || !find_member (c, msg->node, NULL))
    {
      observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1, "signal to an unknown peer: dropped");
      return TRUE;
    }
  proto_session_relay_observed (out, phase_names[c->base.state], -1, from, msg, TRUE);
  return TRUE;
}

/* A message: one handler per type; one that does not take it (FALSE), or a
 * type it has none for, is dropped. */
static void
handle_message (HierCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint at;
  Member *m = find_member (c, from, &at);
  gboolean taken = FALSE;
  switch (msg->type)
    {
    case PROTO_MSG_HELLO:
      taken = on_client_connected (c, out, from, msg, m, at);
      break;
    case PROTO_MSG_HIER_HELLO:
      taken = on_hello (c, out, from, msg, m);
      break;
    case PROTO_MSG_HIER_CANDIDACY:
      taken = on_candidacy (c, out, from, msg, m);
      break;
    case PROTO_MSG_HIER_RTT:
      taken = on_rtt (c, out, from, msg, m);
      break;
    case PROTO_MSG_READY:
      taken = on_peer_is_ready (c, out, from, msg, m);
      break;
    case PROTO_MSG_SIGNAL:
      taken = on_signal_for_peer (c, out, from, msg, m);
      break;
    default:
      break;
    }
  if (!taken)
    observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
}

/* when it wants to be called back: forming, probing, an election's end */
static DlTime
coord_deadline (const HierCoord *c)
{
  DlTime d = formed (c) || probing (c) ? DL_TIME_NEVER : c->form_deadline;
  d = MIN (d, latency_next_deadline (c));
  for (guint q = 0; q < c->clusters->len; q++)
    d = MIN (d, ((Cluster *) g_ptr_array_index (c->clusters, q))->deadline);
  return d;
}

static void
coord_handle (void *impl, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  HierCoord *c = impl;
  c->now = now;
  DlTime before = c->base.deadline;
  switch (in->kind)
    {
    case PROTO_IN_MESSAGE:
      g_return_if_fail (in->msg != NULL);
      handle_message (c, in->from, in->msg, out);
      break;
    case PROTO_IN_STREAM_CLOSED:
      member_left (c, out, in->from);
      break;
    case PROTO_IN_DEADLINE:
      maybe_form (c, out);
      latency_deadline (c, out);
      for (guint q = 0; q < c->clusters->len; q++)
        try_tally (c, out, g_ptr_array_index (c->clusters, q));
      break;
    default:
      break;
    }
  c->base.deadline = coord_deadline (c);
  if (c->base.deadline != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = c->base.deadline;
    }
}

guint
hier_coord_n_clusters (const ProtoMachine *m)
{
  const HierCoord *c = m->impl;
  return c->clusters->len;
}

ProtoNodeId
hier_coord_head_of (const ProtoMachine *m, ProtoNodeId member)
{
  const HierCoord *c = m->impl;
  Member *mm = find_member (c, member, NULL);
  if (!mm || mm->cluster < 0)
    return PROTO_NO_NODE;
  return ((Cluster *) g_ptr_array_index (c->clusters, mm->cluster))->head;
}

static void
coord_free (void *impl)
{
  HierCoord *c = impl;
  g_ptr_array_unref (c->members);
  g_ptr_array_unref (c->clusters);
  g_array_unref (c->landmarks);
  g_array_unref (c->cut);
  g_free (c);
}

/* its phase and deadline are the base's; it takes every message and drops
 * what it has no use for itself: listens is the default */
static const ProtoMachineClass coord_class = {
  .handle = coord_handle,
  .free = coord_free,
};

ProtoMachine *
hier_coord_new (const ProtoConfig *cfg)
{
  HierCoord *c = g_new0 (HierCoord, 1);
  proto_machine_base_init (&c->base, phase_names, COORD_GATHERING);
  c->cfg = *cfg;
  c->members = g_ptr_array_new_with_free_func (member_free);
  c->clusters = g_ptr_array_new_with_free_func (cluster_free);
  c->form_deadline = DL_TIME_NEVER;
  c->landmarks = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  c->probe_deadline = DL_TIME_NEVER;
  c->cut = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  return proto_machine_new (&coord_class, &c->base);
}
