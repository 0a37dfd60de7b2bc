/* sim-props.c — properties checked while a run executes (sim-props.h). */
#include "config.h"

#include "sim/sim-props.h"

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
  p->coord_round = -1;
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
  g_free (p);
}

void
sim_props_observe (SimProps *p, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  if (node == PROTO_SERVER)
    {
      switch (o->kind)
        {
        case PROTO_OBS_RESET:
          p->coord_round = -1;
          g_hash_table_remove_all (p->reference);
          g_hash_table_remove_all (p->ref_node);
          break;
        case PROTO_OBS_ROUND_LIST:
        case PROTO_OBS_ROUND_START:
          if (o->round < p->coord_round)
            violated (p, t, "monotone-rounds", PROTO_SERVER, "the coordinator's round went from %d back to %d",
                      p->coord_round, o->round);
          p->coord_round = MAX (p->coord_round, o->round);
          break;
        case PROTO_OBS_EXCLUDED:
          g_hash_table_insert (p->excluded, GUINT_TO_POINTER (o->other), GINT_TO_POINTER (TRUE));
          break;
        default:
          break;
        }
      return;
    }
  switch (o->kind)
    {
    case PROTO_OBS_SENT:
      if (o->msg_type == PROTO_MSG_CLIENT_CONNECTED)
        {
          /* a new session */
          g_hash_table_remove (p->peer_round, GUINT_TO_POINTER (node));
          g_hash_table_remove (p->trained, GUINT_TO_POINTER (node));
        }
      break;
    case PROTO_OBS_RECEIVED:
      if (o->msg_type == PROTO_MSG_CONNECTION_FAIL)
        g_hash_table_remove (p->excluded, GUINT_TO_POINTER (node));
      break;
    case PROTO_OBS_ROUND_END:
      {
        guint last = GPOINTER_TO_UINT (g_hash_table_lookup (p->peer_round, GUINT_TO_POINTER (node)));
        if (last > 0 && (guint) o->round + 1 <= last)
          violated (p, t, "monotone-rounds", node, "p%u finished round %d after round %u", node, o->round,
                    last - 1);
        g_hash_table_insert (p->peer_round, GUINT_TO_POINTER (node), GUINT_TO_POINTER (MAX (last, o->round + 1u)));
        break;
      }
    case PROTO_OBS_FOREIGN_ROUND:
      violated (p, t, "own-round-only", node, "p%u, from p%u: %s", node, o->other, o->detail);
      break;
    default:
      break;
    }
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
  if (!model || learn_weights_is_symbolic (model) || !g_hash_table_add (p->trained, GUINT_TO_POINTER (node)))
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
  if (!model || learn_weights_is_symbolic (model) || g_hash_table_size (p->reference) == 0)
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
  if (!model || learn_weights_is_symbolic (model))
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

void
sim_props_end (SimProps *p, DlTime t, const SimPeerResult *peers, guint n)
{
  /* progress is owed only while at least min_participants peers stay
   * connected and can reach the coordinator (finished peers that stay count:
   * S20; those that left do not, nor those a partition cut off) */
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
      if (r->outcome == SIM_PEER_HUNG && connected >= p->min_participants && !r->cut_off)
        violated (p, t, "progress", i, "p%u is connected but made no progress for the stall window (waits in %s)",
                  i, r->state ? r->state : "?");
      if (g_hash_table_contains (p->excluded, GUINT_TO_POINTER (i)) && r->outcome != SIM_PEER_LEFT
          && r->outcome != SIM_PEER_CRASHED)
        violated (p, t, "excluded-was-told", i, "p%u was excluded but never processed a ConnectionFail (in %s)",
                  i, r->state ? r->state : "?");
    }
}

guint
sim_props_count (const SimProps *p, const char *property)
{
  return p->counts[index_of (property)];
}
