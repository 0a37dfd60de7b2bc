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
 * such chunks; with cluster_by = latency, by measured round trips
 * (hier-latency.c).  A later peer joins the smallest cluster of its region (a new
 * cluster if its region has none).
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

#include "protocol/hierarchical/hier-coord-private.h"

#include <string.h>

void
hc_observe (HierCoord *c, ProtoOutbox *out, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value,
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
  proto_outbox_observe (out, kind, hier_coord_phase (c), -1, other, type, value, "%s", detail);
}

void
hc_send (HierCoord *c, ProtoOutbox *out, ProtoNodeId to, ProtoMsg *m)
{
  hc_observe (c, out, PROTO_OBS_SENT, to, (int32_t) m->type, -1, NULL);
  proto_outbox_send (out, to, PROTO_VIA_SERVER, m);
}

Member *
hc_find (const HierCoord *c, ProtoNodeId id, guint *at)
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

Cluster *
hc_cluster_new (HierCoord *c, const char *name)
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
      Member *m = hc_find (c, g_array_index (k->members, ProtoNodeId, i), NULL);
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
      hc_send (c, out, g_array_index (k->members, ProtoNodeId, i), &msg);
    }
}

static void
send_cluster (HierCoord *c, ProtoOutbox *out, Cluster *k)
{
  send_cluster_to (c, out, k, PROTO_NO_NODE);
}

/* The heads tree: up to fanin heads exchange all-to-all; above, the heads
 * in id order form groups of fanin, each reporting to its first (lowest id)
 * head, and those first heads form the next level, until at most fanin are
 * left at the top.  Each head gets its parent, its children, and (at the
 * top) the top heads.  Sent once every working cluster has a head. */
static void
send_heads (HierCoord *c, ProtoOutbox *out)
{
  g_autoptr (GArray) heads = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint i = 0; i < c->clusters->len; i++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, i);
      /* a cluster whose members all finished has no more rounds: nobody waits for its head */
      gboolean working = FALSE;
      for (guint j = 0; j < k->members->len && !working; j++)
        {
          Member *m = hc_find (c, g_array_index (k->members, ProtoNodeId, j), NULL);
          working = m && !m->resting;
        }
      if (!working)
        continue;
      if (k->head == PROTO_NO_NODE)
        return;   /* an election is on: the tree goes out when it is over */
      g_array_append_val (heads, k->head);
    }
  g_array_sort (heads, hier_cmp_id);
  guint n = heads->len, fanin = MAX (c->cfg.fanin, 2);
  g_autofree ProtoNodeId *parent = g_new (ProtoNodeId, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    parent[i] = PROTO_NO_NODE;
  g_autoptr (GArray) level = g_array_new (FALSE, FALSE, sizeof (guint));   /* indices into heads */
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
  g_autofree ProtoNodeId *top = g_new (ProtoNodeId, MAX (level->len, 1));
  for (guint i = 0; i < level->len; i++)
    top[i] = g_array_index (heads, ProtoNodeId, g_array_index (level, guint, i));
  c->heads_version++;
  for (guint i = 0; i < n; i++)
    {
      ProtoNodeId h = g_array_index (heads, ProtoNodeId, i);
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
      hc_send (c, out, h, &msg);
    }
  if (level->len < n)
    hc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, level->len, "%u heads: %u at the top (fanin %u)", n,
             level->len, fanin);
}

void
hc_start_election (HierCoord *c, ProtoOutbox *out, Cluster *k, uint32_t epoch, const char *why)
{
  gboolean had_head = k->head != PROTO_NO_NODE;
  k->epoch = epoch;
  k->stuck = FALSE;
  k->head = PROTO_NO_NODE;
  k->deadline = dl_time_add (c->now, c->cfg.election_timeout);
  g_hash_table_remove_all (k->votes);
  hc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, epoch, "cluster %s: election, epoch %u (%s)", k->name, epoch,
           why);
  send_cluster (c, out, k);
  if (had_head)
    send_heads (c, out);
}

gboolean
hc_unreachable_head (const HierCoord *c, const Member *m, const Cluster *k)
{
  if (!m->nat || k->head == PROTO_NO_NODE)
    return FALSE;
  const Member *h = hc_find (c, k->head, NULL);
  return h && h->nat;
}

/* The cluster an all-NAT cluster k merges into: one whose head is not
 * behind symmetric NAT, of k's region (or latency group) first, then the
 * fewest members; -1 if none. */
static int
merge_target (HierCoord *c, const Cluster *k)
{
  const Member *first = k->members->len ? hc_find (c, g_array_index (k->members, ProtoNodeId, 0), NULL) : NULL;
  int best = -1;
  guint best_key = G_MAXUINT;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *o = g_ptr_array_index (c->clusters, q);
      if (o == k || o->head == PROTO_NO_NODE || o->members->len == 0)
        continue;
      const Member *h = hc_find (c, o->head, NULL);
      if (!h || h->nat)
        continue;
      const Member *of = hc_find (c, g_array_index (o->members, ProtoNodeId, 0), NULL);
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
      Member *m = hc_find (c, id, NULL);
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
  hc_observe (c, out, PROTO_OBS_NOTE, o->head, -1, n,
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
      /* eligible first, then the score; members are in ascending id, so a tie keeps the lower */
      guint64 key = ((vote & 1) << 40) | ((vote >> 1) + 1);
      if (key > best_key)
        best_key = key, best = id;
    }
  if (best == PROTO_NO_NODE)
    {
      /* nobody answered: another epoch, unless the cluster is empty */
      k->deadline = k->members->len ? dl_time_add (c->now, c->cfg.election_timeout) : DL_TIME_NEVER;
      hc_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, k->epoch, "cluster %s: no candidacy by the deadline",
               k->name);
      return;
    }
  gboolean eligible = (best_key >> 40) & 1;
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
            hc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, k->epoch,
                        "cluster %s: every candidate is behind symmetric NAT: waits for another cluster's head",
                        k->name);
          k->stuck = TRUE;
          return;
        }
    }
  k->stuck = FALSE;
  k->head = best;
  k->deadline = DL_TIME_NEVER;
  hc_observe (c, out, PROTO_OBS_PROVIDER_CHOSEN, best, -1, k->epoch,
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
      guint n = j - i, size = MAX (c->cfg.cluster_size, 1);
      guint chunks = (n + size - 1) / size;
      for (guint q = 0; q < chunks; q++)
        {
          /* balanced: chunk q takes members [i + n q / chunks, i + n (q + 1) / chunks) */
          g_autofree char *name = chunks > 1 || !*region ? g_strdup_printf ("%s%s%u", region, *region ? "." : "c", q + 1)
                                                         : g_strdup (region);
          Cluster *k = hc_cluster_new (c, name);
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
  hc_clusters_formed (c, out, order->len);
}

void
hc_clusters_formed (HierCoord *c, ProtoOutbox *out, guint n_peers)
{
  c->formed = TRUE;
  hc_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, c->clusters->len, "%u peers in %u clusters", n_peers,
              c->clusters->len);
  for (guint q = 0; q < c->clusters->len; q++)
    hc_start_election (c, out, g_ptr_array_index (c->clusters, q), 1, "formed");
}

/* At least min_participants said hello, and everyone connected so far has
 * (peers that connect together cluster together). */
static void
maybe_form (HierCoord *c, ProtoOutbox *out)
{
  if (c->formed || c->probing)
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
        hc_observe (c, out, PROTO_OBS_TIMER_FIRED, PROTO_NO_NODE, -1, c->members->len - hellos,
                 "election_timeout: the clusters form without the peers that never said hello");
      c->form_deadline = DL_TIME_NEVER;
      if (c->cfg.cluster_by_latency)
        hl_start (c, out);
      else
        form_clusters (c, out);
    }
  else if (c->form_deadline == DL_TIME_NEVER)
    c->form_deadline = dl_time_add (c->now, c->cfg.election_timeout);
}

/* A peer after the clusters formed: the smallest cluster of its region
 * (cluster_by = latency: of its landmark's group, hier-latency.c). */
static void
place_late (HierCoord *c, ProtoOutbox *out, Member *m)
{
  if (c->cfg.cluster_by_latency)
    {
      hl_place_late (c, out, m);
      return;
    }
  Cluster *best = NULL;
  int best_i = -1;
  for (guint q = 0; q < c->clusters->len; q++)
    {
      Cluster *k = g_ptr_array_index (c->clusters, q);
      gboolean same = k->members->len == 0 ? FALSE : strcmp (hc_find (c, g_array_index (k->members, ProtoNodeId, 0), NULL)->region,
                                                             m->region) == 0;
      if (same && k->members->len < MAX (c->cfg.cluster_size, 1) && !hc_unreachable_head (c, m, k)
          && (!best || k->members->len < best->members->len))
        best = k, best_i = (int) q;
    }
  if (!best)
    {
      g_autofree char *name = g_strdup_printf ("%s%s%u", m->region, *m->region ? "." : "c", c->clusters->len + 1);
      hc_cluster_new (c, name);
      best_i = (int) c->clusters->len - 1;
    }
  hc_place_into (c, out, m, (guint) best_i);
}

void
hc_place_into (HierCoord *c, ProtoOutbox *out, Member *m, guint at_cluster)
{
  Cluster *best = g_ptr_array_index (c->clusters, at_cluster);
  m->cluster = (int) at_cluster;
  guint at = 0;
  while (at < best->members->len && g_array_index (best->members, ProtoNodeId, at) < m->id)
    at++;
  g_array_insert_val (best->members, at, m->id);
  hc_observe (c, out, PROTO_OBS_NOTE, m->id, -1, -1, "joins cluster %s", best->name);
  if (best->head == PROTO_NO_NODE && best->deadline == DL_TIME_NEVER)
    hc_start_election (c, out, best, best->epoch + 1, "a peer joined a cluster without a head");
  else
    send_cluster (c, out, best);
}

static void
member_left (HierCoord *c, ProtoOutbox *out, ProtoNodeId id)
{
  guint at;
  Member *m = hc_find (c, id, &at);
  if (!m)
    return;
  hc_observe (c, out, PROTO_OBS_NOTE, id, -1, -1, "stream closed: left");
  hl_member_left (c, out, m);
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
        hc_start_election (c, out, k, k->epoch + 1, "the head left");
      else if (k->head != PROTO_NO_NODE)
        send_cluster (c, out, k);
      else
        try_tally (c, out, k);
      return;
    }
  g_ptr_array_remove_index (c->members, at);
  maybe_form (c, out);   /* it may have been the one hello missing */
}

static void
handle_message (HierCoord *c, ProtoNodeId from, const ProtoMsg *msg, ProtoOutbox *out)
{
  guint at;
  Member *m = hc_find (c, from, &at);
  switch (msg->type)
    {
    case PROTO_MSG_CLIENT_CONNECTED:
      hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
      if (!m)
        {
          m = g_new0 (Member, 1);
          m->id = from;
          m->cluster = -1;
          m->group = -1;
          m->best_group = -1;
          m->best_rtt = G_MAXUINT64;
          m->late_deadline = DL_TIME_NEVER;
          g_ptr_array_insert (c->members, (gint) at, m);
        }
      {
        ProtoMsg r;
        proto_msg_init (&r, PROTO_MSG_NEW_NODE_INFO);
        r.node = from;
        r.joined_mid_training = c->formed;   /* it syncs from its head before it trains */
        hc_send (c, out, from, &r);
      }
      return;
    case PROTO_MSG_HIER_HELLO:
      if (!m || m->region)
        break;
      hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
      m->region = g_strdup (msg->signal_data ? msg->signal_data : "");
      m->score = msg->degree;
      m->nat = msg->helper;
      if (c->formed)
        place_late (c, out, m);
      else
        maybe_form (c, out);
      return;
    case PROTO_MSG_HIER_CANDIDACY:
      {
        if (!m || m->cluster < 0)
          break;
        Cluster *k = g_ptr_array_index (c->clusters, m->cluster);
        if (msg->round > k->epoch)
          hc_start_election (c, out, k, msg->round, "a member lost its head");
        if (msg->round != k->epoch || k->head != PROTO_NO_NODE)
          {
            hc_observe (c, out, PROTO_OBS_REJECTED, from, (int32_t) msg->type, msg->round, "candidacy for epoch %u: %s",
                     msg->round, k->head != PROTO_NO_NODE ? "the election is over" : "another epoch");
            /* it missed an announcement (a lost message): where things are */
            send_cluster_to (c, out, k, from);
            return;
          }
        hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->degree, NULL);
        guint64 vote = ((guint64) msg->degree << 1) | (msg->helper ? 1 : 0);
        g_hash_table_insert (k->votes, GUINT_TO_POINTER (from + 1), GSIZE_TO_POINTER ((gsize) vote + 1));
        try_tally (c, out, k);
        return;
      }
    case PROTO_MSG_HIER_RTT:
      if (!m || !m->region)
        break;
      hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, msg->key > G_MAXINT64 ? -1 : (int64_t) msg->key,
                  NULL);
      hl_rtt (c, out, m, msg);
      return;
    case PROTO_MSG_PEER_IS_READY:
      if (!m || !msg->helper || m->resting)
        break;
      hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
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
      return;
    case PROTO_MSG_SIGNAL_FOR_PEER:
      if (!m || !hc_find (c, msg->node, NULL))
        {
          hc_observe (c, out, PROTO_OBS_REJECTED, msg->node, (int32_t) msg->type, -1, "signal to an unknown peer: dropped");
          return;
        }
      hc_observe (c, out, PROTO_OBS_RECEIVED, from, (int32_t) msg->type, -1, NULL);
      {
        ProtoMsg r;
        proto_msg_init (&r, PROTO_MSG_SIGNAL_FOR_PEER);
        r.node = from;
        r.signal = msg->signal;
        r.signal_data = g_strdup (msg->signal_data);
        hc_send (c, out, msg->node, &r);
      }
      return;
    default:
      break;
    }
  hc_observe (c, out, PROTO_OBS_DROPPED, from, (int32_t) msg->type, -1, NULL);
}

void
hier_coord_handle (HierCoord *c, DlTime now, const ProtoInput *in, ProtoOutbox *out)
{
  c->now = now;
  DlTime before = hier_coord_next_deadline (c);
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
      hl_deadline (c, out);
      for (guint q = 0; q < c->clusters->len; q++)
        try_tally (c, out, g_ptr_array_index (c->clusters, q));
      break;
    default:
      break;
    }
  DlTime after = hier_coord_next_deadline (c);
  if (after != before)
    {
      proto_outbox_simple (out, PROTO_ACT_SET_DEADLINE, PROTO_NO_NODE);
      proto_outbox_get (out, proto_outbox_len (out) - 1)->deadline = after;
    }
}

DlTime
hier_coord_next_deadline (const HierCoord *c)
{
  DlTime d = c->formed || c->probing ? DL_TIME_NEVER : c->form_deadline;
  d = MIN (d, hl_next_deadline (c));
  for (guint q = 0; q < c->clusters->len; q++)
    d = MIN (d, ((Cluster *) g_ptr_array_index (c->clusters, q))->deadline);
  return d;
}

const char *
hier_coord_phase (const HierCoord *c)
{
  return c->formed ? "clustered" : c->probing ? "probing" : "gathering";
}

guint
hier_coord_n_clusters (const HierCoord *c)
{
  return c->clusters->len;
}

ProtoNodeId
hier_coord_head_of (const HierCoord *c, ProtoNodeId member)
{
  Member *m = hc_find (c, member, NULL);
  if (!m || m->cluster < 0)
    return PROTO_NO_NODE;
  return ((Cluster *) g_ptr_array_index (c->clusters, m->cluster))->head;
}

HierCoord *
hier_coord_new (const ProtoConfig *cfg)
{
  HierCoord *c = g_new0 (HierCoord, 1);
  c->cfg = *cfg;
  c->members = g_ptr_array_new_with_free_func (member_free);
  c->clusters = g_ptr_array_new_with_free_func (cluster_free);
  c->form_deadline = DL_TIME_NEVER;
  c->landmarks = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  c->probe_deadline = DL_TIME_NEVER;
  return c;
}

void
hier_coord_free (HierCoord *c)
{
  if (!c)
    return;
  g_ptr_array_unref (c->members);
  g_ptr_array_unref (c->clusters);
  g_array_unref (c->landmarks);
  g_free (c);
}
