/* gossip-dht.c — Kademlia discovery for the gossip family (discovery =
 * kademlia; Maymounkov & Mazières, "Kademlia: A Peer-to-peer Information
 * System Based on the XOR Metric", IPTPS 2002).
 *
 * A peer's key is dl_mix64 of its id (anyone can compute anyone's); the
 * distance between two keys is their XOR.  The routing table has a bucket
 * per bit of distance, each with at most dht_k contacts, the most recently
 * seen last; a full bucket keeps its old contacts (Kademlia's preference for
 * long-lived nodes) and a contact that fails a call leaves.  A lookup for a
 * key keeps a shortlist of the dht_k closest contacts it knows, calls
 * DhtFindNode on up to dht_alpha of them at a time, merges the DhtNodes
 * answers, and ends when the dht_k closest have all answered or failed; a
 * call unanswered for dht_rpc_timeout fails.  Calls go over peer links, set
 * up through the coordinator as every link is, so discovery has the cost and
 * latency of real traffic, and churn makes calls fail.  The coordinator only
 * hands a newcomer its bootstrap contacts (the last dht_k peers that joined,
 * DhtNodes call 0); each peer looks its own key up first, and a random key
 * after each of its rounds (a bucket refresh).
 *
 * A leaf (gossip-dht-private.h): the table decides, and queues its sends
 * and observations as effects that the peer carries out. */
#include "config.h"

#include "protocol/gossip/gossip-dht-private.h"
#include "base/dl-random.h"
#include "protocol/session/session-links.h"
#include "protocol/gossip/gossip-msgs.h"

#include <string.h>

#define N_BUCKETS 64

typedef enum { SL_NEW, SL_ASKED, SL_ANSWERED, SL_FAILED } SlState;

typedef struct {
  ProtoNodeId id;
  guint64 dist;
  SlState state;
} Candidate;

typedef struct {
  guint32 id;
  guint64 target;
  GArray *shortlist;     /* Candidate, by distance */
  guint inflight;
  gboolean done;
} Lookup;

typedef struct {
  guint32 id;            /* the call's id (0 is the bootstrap's) */
  ProtoNodeId to;
  guint32 lookup;        /* the lookup it serves */
  DlTime deadline;
} Call;

struct GossipDht {
  ProtoNodeId self;
  guint k;                      /* dht_k */
  guint alpha;                  /* dht_alpha */
  DlTime rpc_timeout;           /* dht_rpc_timeout */
  guint64 self_key;
  GArray *buckets[N_BUCKETS];   /* ProtoNodeId, most recently seen last */
  GArray *lookups;              /* Lookup */
  GArray *calls;                /* Call */
  guint32 next_call;
  guint32 next_lookup;
  GArray *fx;                   /* GossipDhtEffect: decided, not carried out yet */
};

static guint64
key_of (ProtoNodeId id)
{
  return dl_mix64 ((guint64) id * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) + 1);
}

static int
bucket_of (const GossipDht *d, guint64 key)
{
  guint64 x = d->self_key ^ key;
  return x ? 63 - __builtin_clzll (x) : -1;
}

static void
send (GossipDht *d, ProtoNodeId to, ProtoMsg *m)
{
  GossipDhtEffect e = { .kind = GOSSIP_DHT_SEND, .to = to, .msg = *m };
  g_array_append_val (d->fx, e);
}

static void
observe_kind (GossipDht *d, ProtoObsKind kind, ProtoNodeId other, int32_t type, int64_t value, const char *detail)
{
  GossipDhtEffect e = { .kind = GOSSIP_DHT_OBSERVE, .to = other, .obs = kind, .type = type, .value = value };
  g_strlcpy (e.detail, detail, sizeof e.detail);
  g_array_append_val (d->fx, e);
}

static void
observe (GossipDht *d, ProtoNodeId other, int32_t type, int64_t value, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
observe (GossipDht *d, ProtoNodeId other, int32_t type, int64_t value, const char *fmt, ...)
{
  char detail[PROTO_OBS_DETAIL_LEN];
  va_list ap;
  va_start (ap, fmt);
  g_vsnprintf (detail, sizeof detail, fmt, ap);
  va_end (ap);
  observe_kind (d, PROTO_OBS_NOTE, other, type, value, detail);
}

GossipDhtEffect *
gossip_dht_effects (GossipDht *d, guint *n)
{
  *n = d && d->fx->len ? d->fx->len : 0;
  return *n ? &g_array_index (d->fx, GossipDhtEffect, 0) : NULL;
}

void
gossip_dht_effects_done (GossipDht *d)
{
  if (!d)
    return;
  for (guint i = 0; i < d->fx->len; i++)
    if (g_array_index (d->fx, GossipDhtEffect, i).kind == GOSSIP_DHT_SEND)
      proto_msg_clear (&g_array_index (d->fx, GossipDhtEffect, i).msg);
  g_array_set_size (d->fx, 0);
}

/* A contact seen alive: to the tail of its bucket, or in if there is room. */
static void
touch (GossipDht *d, ProtoNodeId id)
{
  if (id == d->self || id == PROTO_SERVER || id == PROTO_NO_NODE)
    return;
  int b = bucket_of (d, key_of (id));
  if (b < 0)
    return;
  GArray *bk = d->buckets[b];
  for (guint i = 0; i < bk->len; i++)
    if (g_array_index (bk, ProtoNodeId, i) == id)
      {
        g_array_remove_index (bk, i);
        g_array_append_val (bk, id);
        return;
      }
  if (bk->len < d->k)
    g_array_append_val (bk, id);
}

static void
forget (GossipDht *d, ProtoNodeId id)
{
  int b = bucket_of (d, key_of (id));
  if (b < 0)
    return;
  GArray *bk = d->buckets[b];
  for (guint i = 0; i < bk->len; i++)
    if (g_array_index (bk, ProtoNodeId, i) == id)
      {
        g_array_remove_index (bk, i);
        return;
      }
}

static gint
cmp_candidate (gconstpointer a, gconstpointer b)
{
  const Candidate *x = a, *y = b;
  return (x->dist > y->dist) - (x->dist < y->dist);
}

/* Every contact, in id order. */
guint
gossip_dht_contacts (const GossipDht *d, ProtoNodeId **out)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  for (guint b = 0; d && b < N_BUCKETS; b++)
    g_array_append_vals (all, d->buckets[b]->data, d->buckets[b]->len);
  g_array_sort (all, proto_node_id_cmp);
  guint n = all->len;
  *out = (ProtoNodeId *) (void *) g_array_free (all, FALSE);
  return n;
}

/* The k contacts closest to key (ascending distance, then id). */
static GArray *
closest (GossipDht *d, guint64 key, guint k)
{
  g_autofree ProtoNodeId *ids = NULL;
  guint n = gossip_dht_contacts (d, &ids);
  GArray *c = g_array_new (FALSE, FALSE, sizeof (Candidate));
  for (guint i = 0; i < n; i++)
    {
      Candidate x = { .id = ids[i], .dist = key_of (ids[i]) ^ key, .state = SL_NEW };
      g_array_append_val (c, x);
    }
  g_array_sort (c, cmp_candidate);
  if (c->len > k)
    g_array_set_size (c, k);
  return c;
}

static Lookup *
find_lookup (GossipDht *d, guint32 id)
{
  for (guint i = 0; i < d->lookups->len; i++)
    if (g_array_index (d->lookups, Lookup, i).id == id)
      return &g_array_index (d->lookups, Lookup, i);
  return NULL;
}

static void
send_call (GossipDht *d, DlTime now, Lookup *l, Candidate *c)
{
  Call call = { .id = ++d->next_call, .to = c->id, .lookup = l->id,
                .deadline = dl_time_add (now, d->rpc_timeout) };
  g_array_append_val (d->calls, call);
  c->state = SL_ASKED;
  l->inflight++;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_DHT_FIND_NODE);
  m.round = call.id;
  m.key = l->target;
  send (d, c->id, &m);
}

/* As many calls as alpha allows to the closest not asked yet; the lookup
 * ends when the k closest have answered or failed. */
static void
advance (GossipDht *d, DlTime now, Lookup *l)
{
  if (l->done)
    return;
  guint k = MIN (l->shortlist->len, d->k), considered = 0;
  gboolean pending = FALSE;
  for (guint i = 0; i < l->shortlist->len && considered < k; i++)
    {
      Candidate *c = &g_array_index (l->shortlist, Candidate, i);
      if (c->state == SL_FAILED)
        continue;   /* a failed contact does not count among the k */
      considered++;
      if (c->state == SL_NEW && l->inflight < d->alpha)
        send_call (d, now, l, c);
      if (c->state == SL_NEW || c->state == SL_ASKED)
        pending = TRUE;
    }
  if (pending || l->inflight > 0)
    return;
  l->done = TRUE;
  guint answered = 0;
  for (guint i = 0; i < l->shortlist->len; i++)
    answered += g_array_index (l->shortlist, Candidate, i).state == SL_ANSWERED;
  g_autofree ProtoNodeId *ids = NULL;
  guint n = gossip_dht_contacts (d, &ids);
  observe (d, PROTO_NO_NODE, PROTO_MSG_DHT_FIND_NODE, n,
           "kademlia: lookup %u done: %u of the closest answered; %u contacts known", l->id, answered, n);
}

static void
start_lookup (GossipDht *d, DlTime now, guint64 target)
{
  Lookup l = { .id = ++d->next_lookup, .target = target, .shortlist = closest (d, target, d->k) };
  g_array_append_val (d->lookups, l);
  advance (d, now, &g_array_index (d->lookups, Lookup, d->lookups->len - 1));
}

static void
drop_done_lookups (GossipDht *d)
{
  for (guint i = d->lookups->len; i > 0; i--)
    {
      Lookup *l = &g_array_index (d->lookups, Lookup, i - 1);
      if (l->done)
        {
          g_array_unref (l->shortlist);
          g_array_remove_index (d->lookups, i - 1);
        }
    }
}

/* A call ended: answered with contacts (answer != NULL) or failed. */
static void
call_ended (GossipDht *d, DlTime now, guint ci, const ProtoMsg *answer)
{
  Call call = g_array_index (d->calls, Call, ci);
  g_array_remove_index (d->calls, ci);
  if (!answer)
    {
      forget (d, call.to);
      observe (d, call.to, PROTO_MSG_DHT_FIND_NODE, call.id, "kademlia: call %u unanswered: contact dropped",
               call.id);
    }
  else
    {
      touch (d, call.to);
      for (guint i = 0; i < answer->n_peers; i++)
        touch (d, answer->peers[i]);
    }
  Lookup *l = find_lookup (d, call.lookup);
  if (!l)
    return;
  l->inflight--;
  for (guint i = 0; i < l->shortlist->len; i++)
    {
      Candidate *c = &g_array_index (l->shortlist, Candidate, i);
      if (c->id == call.to)
        c->state = answer ? SL_ANSWERED : SL_FAILED;
    }
  if (answer)
    {
      /* merge what it knows */
      for (guint i = 0; i < answer->n_peers; i++)
        {
          ProtoNodeId id = answer->peers[i];
          if (id == d->self)
            continue;
          gboolean known = FALSE;
          for (guint j = 0; j < l->shortlist->len && !known; j++)
            known = g_array_index (l->shortlist, Candidate, j).id == id;
          if (!known)
            {
              Candidate c = { .id = id, .dist = key_of (id) ^ l->target, .state = SL_NEW };
              g_array_append_val (l->shortlist, c);
            }
        }
      g_array_sort (l->shortlist, cmp_candidate);
    }
  advance (d, now, l);
  drop_done_lookups (d);
}

GossipDht *
gossip_dht_new (ProtoNodeId self, guint k, guint alpha, DlTime rpc_timeout)
{
  GossipDht *d = g_new0 (GossipDht, 1);
  d->self = self;
  d->k = k;
  d->alpha = alpha;
  d->rpc_timeout = rpc_timeout;
  d->self_key = key_of (self);
  for (guint b = 0; b < N_BUCKETS; b++)
    d->buckets[b] = g_array_new (FALSE, FALSE, sizeof (ProtoNodeId));
  d->lookups = g_array_new (FALSE, FALSE, sizeof (Lookup));
  d->calls = g_array_new (FALSE, FALSE, sizeof (Call));
  d->fx = g_array_new (FALSE, FALSE, sizeof (GossipDhtEffect));
  return d;
}

void
gossip_dht_free (GossipDht *d)
{
  if (!d)
    return;
  for (guint b = 0; b < N_BUCKETS; b++)
    g_array_unref (d->buckets[b]);
  for (guint i = 0; i < d->lookups->len; i++)
    g_array_unref (g_array_index (d->lookups, Lookup, i).shortlist);
  g_array_unref (d->lookups);
  gossip_dht_effects_done (d);
  g_array_unref (d->fx);
  g_array_unref (d->calls);
  g_free (d);
}

void
gossip_dht_handle_nodes (GossipDht *d, DlTime now, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!d)
    return;
  if (from == PROTO_SERVER && msg->round == 0)
    {
      for (guint i = 0; i < msg->n_peers; i++)
        touch (d, msg->peers[i]);
      observe (d, PROTO_NO_NODE, PROTO_MSG_DHT_NODES, msg->n_peers, "kademlia: %u bootstrap contacts",
               msg->n_peers);
      start_lookup (d, now, d->self_key);
      return;
    }
  for (guint i = 0; i < d->calls->len; i++)
    if (g_array_index (d->calls, Call, i).id == msg->round && g_array_index (d->calls, Call, i).to == from)
      {
        call_ended (d, now, i, msg);
        return;
      }
  observe_kind (d, PROTO_OBS_REJECTED, from, PROTO_MSG_DHT_NODES, msg->round, "kademlia: an answer to no call");
}

void
gossip_dht_handle_find (GossipDht *d, ProtoNodeId from, const ProtoMsg *msg)
{
  if (!d)
    return;
  touch (d, from);   /* whoever calls is alive */
  g_autoptr (GArray) c = closest (d, msg->key, d->k);
  g_autofree ProtoNodeId *ids = g_new (ProtoNodeId, MAX (c->len, 1));
  for (guint i = 0; i < c->len; i++)
    ids[i] = g_array_index (c, Candidate, i).id;
  ProtoMsg m;
  proto_msg_init (&m, PROTO_MSG_DHT_NODES);
  m.round = msg->round;
  proto_msg_set_peers (&m, ids, c->len);
  send (d, from, &m);
}

void
gossip_dht_refresh (GossipDht *d, DlTime now, guint64 target)
{
  if (!d)
    return;
  start_lookup (d, now, target);
}

void
gossip_dht_link_lost (GossipDht *d, DlTime now, ProtoNodeId other)
{
  if (!d)
    return;
  for (guint i = d->calls->len; i > 0; i--)
    if (g_array_index (d->calls, Call, i - 1).to == other)
      call_ended (d, now, i - 1, NULL);
}

void
gossip_dht_deadline (GossipDht *d, DlTime now)
{
  if (!d)
    return;
  for (guint i = d->calls->len; i > 0; i--)
    if (i - 1 < d->calls->len && g_array_index (d->calls, Call, i - 1).deadline <= now)
      call_ended (d, now, i - 1, NULL);
}

DlTime
gossip_dht_next_deadline (const GossipDht *d)
{
  DlTime t = DL_TIME_NEVER;
  if (d)
    for (guint i = 0; i < d->calls->len; i++)
      t = MIN (t, g_array_index (d->calls, Call, i).deadline);
  return t;
}
