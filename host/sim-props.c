/* sim-props.c — properties checked while a run executes (sim-props.h). */
#include "config.h"

#include "host/sim-props.h"

#include <math.h>
#include <string.h>

static const char *const names[] = { SIM_PROP_NAMES, NULL };

struct SimProps {
  SimRecorder rec;
  guint min_participants;
  guint counts[G_N_ELEMENTS (names)];
  GHashTable *reference;    /* round -> LearnWeights* (the first finisher's model) */
  GHashTable *ref_node;     /* round -> the node that set it */
  GHashTable *peer_round;   /* node -> last finished round + 1 (0: none this session) */
  int coord_round;          /* -1: none since the start or the last reset */
  GHashTable *excluded;     /* node -> TRUE: excluded, ConnectionFail not processed yet */
  GHashTable *trained;      /* node -> TRUE: has trained in this session */
  GHashTable *dropped;      /* node -> message type + 1 it dropped last in its current state */
  GHashTable *retries;      /* node -> Retries the coordinator sent it since the last Start */
  guint max_connection_retry;
  ProtoMsgRole (*kind_role) (const ProtoConfig *, const char *);
  const ProtoConfig *kind_cfg;
  gboolean no_agreement;    /* the family does not promise it */
  gboolean no_model_sync;   /* the family has no model sync for late joiners */
  GHashTable *holds_since;  /* node -> 1 + time it first held a trained model (a round's end, a sync) */
  GHashTable *sync_tried;   /* node -> 1 + time of its last sync failure (SYNC_FAILED) */
  GHashTable *sync_failed;  /* node -> 1 + time its training failed on a sync */
  GHashTable *sync_why;     /* node -> why its last sync failed (owned) */
  GHashTable *round_at;     /* node -> 1 + time it last finished a round */
  DlTime stall_window;      /* the strict progress rule's W (0: off) */
  gboolean no_liveness;     /* safety only: progress and excluded-was-told off */
  DlTime heal_at;           /* the liveness phase's start (`heal all`; DL_TIME_NEVER: none) */
};

static guint
index_of (const char *property)
{
  for (guint i = 0; names[i]; i++)
    if (strcmp (names[i], property) == 0)
      return i;
  g_return_val_if_reached (0);
}

static void
violated (SimProps *p, DlTime t, const char *property, ProtoNodeId node, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
violated (SimProps *p, DlTime t, const char *property, ProtoNodeId node, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  p->counts[index_of (property)]++;
  if (p->rec.violation)
    p->rec.violation (p->rec.user_data, t, property, node, why);
}

SimProps *
sim_props_new (const SimRecorder *rec, guint min_participants)
{
  SimProps *p = g_new0 (SimProps, 1);
  p->min_participants = min_participants;
  if (rec)
    p->rec = *rec;
  p->reference = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) learn_weights_unref);
  p->ref_node = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->peer_round = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->excluded = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->trained = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->dropped = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->retries = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->max_connection_retry = 0;   /* retries-before-exclusion off until set */
  p->holds_since = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->sync_tried = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->sync_failed = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->sync_why = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  p->round_at = g_hash_table_new (g_direct_hash, g_direct_equal);
  p->coord_round = -1;
  p->heal_at = DL_TIME_NEVER;
  return p;
}

void
sim_props_free (SimProps *p)
{
  if (!p)
    return;
  g_hash_table_unref (p->reference);
  g_hash_table_unref (p->ref_node);
  g_hash_table_unref (p->peer_round);
  g_hash_table_unref (p->excluded);
  g_hash_table_unref (p->trained);
  g_hash_table_unref (p->dropped);
  g_hash_table_unref (p->retries);
  g_hash_table_unref (p->holds_since);
  g_hash_table_unref (p->sync_tried);
  g_hash_table_unref (p->sync_failed);
  g_hash_table_unref (p->sync_why);
  g_hash_table_unref (p->round_at);
  g_free (p);
}

void
sim_props_set_agreement (SimProps *p, gboolean checked)
{
  p->no_agreement = !checked;
}

void
sim_props_set_model_sync (SimProps *p, gboolean checked)
{
  p->no_model_sync = !checked;
}

void
sim_props_set_max_connection_retry (SimProps *p, guint m)
{
  p->max_connection_retry = m;
}

void
sim_props_set_kind_role (SimProps *p, ProtoMsgRole (*kind_role) (const ProtoConfig *, const char *),
                         const ProtoConfig *cfg)
{
  p->kind_role = kind_role;
  p->kind_cfg = cfg;
}

/* the role of a SENT or RECEIVED observation's message: its type's, or its
 * kind's (sim_props_set_kind_role) */
static ProtoMsgRole
role_of (const SimProps *p, const ProtoObservation *o)
{
  ProtoMsgRole r = o->msg_type >= 0 ? proto_msg_type_role ((ProtoMsgType) o->msg_type) : PROTO_MSG_ROLE_NONE;
  if (r == PROTO_MSG_ROLE_NONE && p->kind_role && o->detail[0])
    r = p->kind_role (p->kind_cfg, o->detail);
  return r;
}

void
sim_props_set_stall_window (SimProps *p, DlTime w)
{
  p->stall_window = w;
}

void
sim_props_set_liveness (SimProps *p, gboolean checked)
{
  p->no_liveness = !checked;
}

void
sim_props_heal (SimProps *p, DlTime t)
{
  if (p->heal_at == DL_TIME_NEVER)
    p->heal_at = t;
}

gboolean
sim_props_is_liveness (const char *property)
{
  return strcmp (property, "progress") == 0 || strcmp (property, "excluded-was-told") == 0;
}

/* Is liveness owed at t?  Not in safety-only runs; with a heal, only once
 * the stall window has passed since it (the bound progress is owed in). */
static gboolean
liveness_owed (const SimProps *p, DlTime t)
{
  if (p->no_liveness)
    return FALSE;
  return p->heal_at == DL_TIME_NEVER || (t >= p->heal_at && t - p->heal_at >= p->stall_window);
}

/* the coordinator excluded o->other: after its max_connection_retry Retries? */
static void
on_coord_excluded (SimProps *p, DlTime t, const ProtoObservation *o)
{
  g_hash_table_insert (p->excluded, GUINT_TO_POINTER (o->other), GINT_TO_POINTER (TRUE));
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (p->retries, GUINT_TO_POINTER (o->other)));
  if (n < p->max_connection_retry)
    violated (p, t, "retries-before-exclusion", o->other,
              "p%u excluded after %u Retries in this round (max_connection_retry %u)", o->other, n,
              p->max_connection_retry);
}

/* a round list or start: the coordinator's round never goes back */
static void
on_coord_round (SimProps *p, DlTime t, const ProtoObservation *o)
{
  if (o->kind == PROTO_OBS_ROUND_START)
    g_hash_table_remove_all (p->retries);
  if (o->round < p->coord_round)
    violated (p, t, "monotone-rounds", PROTO_SERVER, "the coordinator's round went from %d back to %d",
              p->coord_round, o->round);
  p->coord_round = MAX (p->coord_round, o->round);
}

static void
observe_coordinator (SimProps *p, DlTime t, const ProtoObservation *o)
{
  switch (o->kind)
    {
    case PROTO_OBS_SENT:
      if (role_of (p, o) == PROTO_MSG_ROLE_BARRIER_RETRY)
        {
          guint n = GPOINTER_TO_UINT (g_hash_table_lookup (p->retries, GUINT_TO_POINTER (o->other)));
          g_hash_table_insert (p->retries, GUINT_TO_POINTER (o->other), GUINT_TO_POINTER (n + 1));
        }
      break;
    case PROTO_OBS_RESET:
      g_hash_table_remove_all (p->retries);
      p->coord_round = -1;
      g_hash_table_remove_all (p->reference);
      g_hash_table_remove_all (p->ref_node);
      break;
    case PROTO_OBS_ROUND_LIST:
    case PROTO_OBS_ROUND_START:
      on_coord_round (p, t, o);
      break;
    case PROTO_OBS_EXCLUDED:
      on_coord_excluded (p, t, o);
      break;
    default:
      break;
    }
}

/* NODE holds a trained model from t on, unless it held one already */
static void
holds_from (SimProps *p, ProtoNodeId node, DlTime t)
{
  if (!g_hash_table_contains (p->holds_since, GUINT_TO_POINTER (node)))
    g_hash_table_insert (p->holds_since, GUINT_TO_POINTER (node), GSIZE_TO_POINTER ((gsize) t + 1));
}

/* a peer's phase change: its last drop was in the state it leaves */
static void
on_peer_phase (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  g_hash_table_remove (p->dropped, GUINT_TO_POINTER (node));
  if (g_strcmp0 (o->detail, "failed") == 0)
    {
      /* a training that fails right at a sync failure failed on the sync */
      gpointer at = g_hash_table_lookup (p->sync_tried, GUINT_TO_POINTER (node));
      if (at && GPOINTER_TO_SIZE (at) - 1 == (gsize) t)
        g_hash_table_insert (p->sync_failed, GUINT_TO_POINTER (node), at);
    }
  else if (g_strcmp0 (o->detail, "left") == 0)
    g_hash_table_remove (p->holds_since, GUINT_TO_POINTER (node));
}

/* a peer finished a round: never one it finished already in this session */
static void
on_peer_round_end (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  holds_from (p, node, t);
  guint last = GPOINTER_TO_UINT (g_hash_table_lookup (p->peer_round, GUINT_TO_POINTER (node)));
  if (last > 0 && (guint) o->round + 1 <= last)
    violated (p, t, "monotone-rounds", node, "p%u finished round %d after round %u", node, o->round, last - 1);
  g_hash_table_insert (p->peer_round, GUINT_TO_POINTER (node), GUINT_TO_POINTER (MAX (last, o->round + 1u)));
  g_hash_table_insert (p->round_at, GUINT_TO_POINTER (node), GSIZE_TO_POINTER ((gsize) t + 1));
}

static void
observe_peer (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  switch (o->kind)
    {
    case PROTO_OBS_PHASE:
      on_peer_phase (p, t, node, o);
      break;
    case PROTO_OBS_SYNC_FAILED:
      g_hash_table_insert (p->sync_tried, GUINT_TO_POINTER (node), GSIZE_TO_POINTER ((gsize) t + 1));
      g_hash_table_insert (p->sync_why, GUINT_TO_POINTER (node), g_strdup (o->detail));
      break;
    case PROTO_OBS_SYNC_DONE:
      holds_from (p, node, t);
      break;
    case PROTO_OBS_DROPPED:
      if (o->msg_type >= 0)
        g_hash_table_insert (p->dropped, GUINT_TO_POINTER (node), GINT_TO_POINTER (o->msg_type + 1));
      break;
    case PROTO_OBS_SENT:
      if (role_of (p, o) == PROTO_MSG_ROLE_HELLO)
        {
          /* a new session */
          g_hash_table_remove (p->peer_round, GUINT_TO_POINTER (node));
          g_hash_table_remove (p->trained, GUINT_TO_POINTER (node));
        }
      break;
    case PROTO_OBS_RECEIVED:
      if (role_of (p, o) == PROTO_MSG_ROLE_CONNECTION_FAIL)
        g_hash_table_remove (p->excluded, GUINT_TO_POINTER (node));
      break;
    case PROTO_OBS_ROUND_END:
      on_peer_round_end (p, t, node, o);
      break;
    case PROTO_OBS_FOREIGN_ROUND:
      violated (p, t, "own-round-only", node, "p%u, from p%u: %s", node, o->other, o->detail);
      break;
    default:
      break;
    }
}

void
sim_props_observe (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  if (node == PROTO_SERVER)
    observe_coordinator (p, t, o);
  else
    observe_peer (p, t, node, o);
}

static gboolean
same_weights (LearnWeights *a, LearnWeights *b, double *diff_out)
{
  gsize n = learn_weights_len (a);
  if (n != learn_weights_len (b))
    return FALSE;
  const float *x = learn_weights_data (a), *y = learn_weights_data (b);
  double diff = 0, scale = 0;
  for (gsize i = 0; i < n; i++)
    {
      diff = MAX (diff, fabs ((double) x[i] - (double) y[i]));
      scale = MAX (scale, fabs ((double) y[i]));
    }
  if (diff_out)
    *diff_out = diff;
  return diff <= 1e-4 * (1 + scale);
}

/* Is the model one of the completed rounds' (or is there none yet)?  *latest: the latest round. */
static gboolean
is_trained_model (SimProps *p, LearnWeights *model, guint *latest)
{
  GHashTableIter it;
  gpointer k, v;
  *latest = 0;
  gboolean found = g_hash_table_size (p->reference) == 0;
  g_hash_table_iter_init (&it, p->reference);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      found |= same_weights (model, v, NULL);
      *latest = MAX (*latest, GPOINTER_TO_UINT (k));
    }
  return found;
}

void
sim_props_training_model (SimProps *p, DlTime t, ProtoNodeId node, LearnWeights *model)
{
  if (!model || learn_weights_is_symbolic (model) || p->no_model_sync
      || !g_hash_table_add (p->trained, GUINT_TO_POINTER (node)))
    return;   /* only a session's first training: later ones start from the peer's own aggregation */
  guint latest;
  if (!is_trained_model (p, model, &latest))
    violated (p, t, "no-lost-model", node,
              "p%u starts training from a model that is no completed round's (the latest is round %u)", node,
              latest);
}

void
sim_props_synced_model (SimProps *p, DlTime t, ProtoNodeId node, LearnWeights *model)
{
  if (!model || learn_weights_is_symbolic (model) || p->no_model_sync || g_hash_table_size (p->reference) == 0)
    return;
  GHashTableIter it;
  gpointer k, v;
  guint latest = 0;
  g_hash_table_iter_init (&it, p->reference);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      if (same_weights (model, v, NULL))
        return;
      latest = MAX (latest, GPOINTER_TO_UINT (k));
    }
  violated (p, t, "no-lost-model", node, "p%u synced a model that is no completed round's (the latest is round %u)",
            node, latest);
}

void
sim_props_round_model (SimProps *p, DlTime t, ProtoNodeId node, guint round, LearnWeights *model)
{
  if (!model || learn_weights_is_symbolic (model) || p->no_agreement)
    return;
  LearnWeights *ref = g_hash_table_lookup (p->reference, GUINT_TO_POINTER (round));
  if (!ref)
    {
      g_hash_table_insert (p->reference, GUINT_TO_POINTER (round), learn_weights_ref (model));
      g_hash_table_insert (p->ref_node, GUINT_TO_POINTER (round), GUINT_TO_POINTER (node));
      return;
    }
  if (learn_weights_len (model) != learn_weights_len (ref))
    return;
  double diff = 0;
  if (!same_weights (model, ref, &diff))
    violated (p, t, "agreement", node, "p%u's model after round %u differs from p%u's by %.3g (max |difference|)",
              node, round, GPOINTER_TO_UINT (g_hash_table_lookup (p->ref_node, GUINT_TO_POINTER (round))), diff);
}

/* The strict rule: a peer still running at the end whose last finished
 * round (or, with none, its arrival) lies a stall window or more back goes
 * round without progress, however its state changes. */
static gboolean
going_round (SimProps *p, DlTime t, guint node, const SimPeerResult *r)
{
  if (p->stall_window == 0)
    return FALSE;
  gsize at = GPOINTER_TO_SIZE (g_hash_table_lookup (p->round_at, GUINT_TO_POINTER (node)));
  DlTime since = at > 0 ? MAX ((DlTime) (at - 1), r->joined) : r->joined;
  if (p->heal_at != DL_TIME_NEVER)
    since = MAX (since, p->heal_at);   /* the fault phase owes nothing */
  return t >= since && t - since >= p->stall_window;
}

void
sim_props_end (SimProps *p, DlTime t, const SimPeerResult *peers, guint n)
{
  /* progress is owed only while at least min_participants peers stay
   * connected and can reach the coordinator (finished peers that stay count:
   * S20; those that left do not, nor those a partition cut off) */
  gboolean owed = liveness_owed (p, t);
  guint connected = 0;
  for (guint i = 1; i <= n; i++)
    connected += !peers[i].cut_off
                 && ((peers[i].outcome == SIM_PEER_FINISHED && peers[i].left == DL_TIME_NEVER)
                     || peers[i].outcome == SIM_PEER_HUNG || peers[i].outcome == SIM_PEER_RUNNING);
  for (guint i = 1; i <= n; i++)
    {
      const SimPeerResult *r = &peers[i];
      if (r->outcome == SIM_PEER_ABSENT)
        continue;
      /* a peer cut off from the coordinator by a partition that never
       * healed cannot be owed progress (the property's "can reach") */
      /* what it dropped while in its last state, if anything: the
       * message it may be waiting for (explore's signatures use it) */
      gint d = GPOINTER_TO_INT (g_hash_table_lookup (p->dropped, GUINT_TO_POINTER (i)));
      g_autofree char *drop = d > 0 ? g_strdup_printf ("; dropped %s", proto_msg_type_name ((ProtoMsgType) (d - 1)))
                                    : g_strdup ("");
      if (r->outcome == SIM_PEER_HUNG && owed && connected >= p->min_participants && !r->cut_off)
        violated (p, t, "progress", i, "p%u is connected but made no progress for the stall window (waits in %s%s)",
                  i, r->state ? r->state : "?", drop);
      else if (r->outcome == SIM_PEER_RUNNING && owed && connected >= p->min_participants && !r->cut_off && !r->starved
               && going_round (p, t, i, r))
        violated (p, t, "progress", i,
                  "p%u still runs but finished no round for the stall window (a livelock: in %s%s)", i,
                  r->state ? r->state : "?", drop);
      gpointer failed_at = g_hash_table_lookup (p->sync_failed, GUINT_TO_POINTER (i));
      if (failed_at)
        for (guint h = 1; h <= n; h++)
          {
            gpointer since = g_hash_table_lookup (p->holds_since, GUINT_TO_POINTER (h));
            gboolean there = (peers[h].outcome == SIM_PEER_FINISHED && peers[h].left == DL_TIME_NEVER)
                             || peers[h].outcome == SIM_PEER_HUNG || peers[h].outcome == SIM_PEER_RUNNING;
            if (h != i && since && GPOINTER_TO_SIZE (since) < GPOINTER_TO_SIZE (failed_at) && there
                && !peers[h].cut_off)
              {
                violated (p, t, "sync-served", i,
                          "p%u's model sync failed (%s) while p%u, which held a trained model, stayed connected", i,
                          (const char *) g_hash_table_lookup (p->sync_why, GUINT_TO_POINTER (i)), h);
                break;
              }
          }
      if (owed && g_hash_table_contains (p->excluded, GUINT_TO_POINTER (i)) && r->outcome != SIM_PEER_LEFT
          && r->outcome != SIM_PEER_CRASHED)
        violated (p, t, "excluded-was-told", i, "p%u was excluded but never processed a ConnectionFail (in %s%s)",
                  i, r->state ? r->state : "?", drop);
    }
}

guint
sim_props_count (const SimProps *p, const char *property)
{
  return p->counts[index_of (property)];
}
