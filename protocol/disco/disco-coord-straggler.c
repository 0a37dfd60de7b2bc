/* disco-coord-straggler.c — the straggler policies' bookkeeping for DISCO's
 * coordinator under `robust` (docs/families.md): which policy judges and
 * which weighs, each trainer's time to PeerIsReady, drop-slowest's verdict
 * on the slowest of a collect and the trainers it does not wait for, and
 * the staleness that async and mixed send after a list.  A leaf of
 * disco-coord.c (disco-coord-private.h): the coordinator decides when the
 * round goes on; this file records, counts and sends what it is told to,
 * through disco-coord-effects.c, and calls nothing of disco-coord.c. */
#include "config.h"

#include "protocol/disco/disco-coord-private.h"
#include "protocol/disco/disco-msgs.h"

/* drop-slowest and mixed judge; mixed and async weigh by staleness */
gboolean
_disco_coord_straggler_judges (const DiscoCoord *c)
{
  return c->cfg.straggler_policy == PROTO_STRAGGLER_DROP_SLOWEST || c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED;
}

gboolean
_disco_coord_straggler_weighs (const DiscoCoord *c)
{
  return c->cfg.straggler_policy == PROTO_STRAGGLER_ASYNC || c->cfg.straggler_policy == PROTO_STRAGGLER_MIXED;
}

/* straggler_policy = drop-slowest: how long after the round began each
 * trainer said PeerIsReady (its exchange and its training) */
void
_disco_coord_straggler_note_ready (DiscoCoord *c, ProtoNodeId id, DlTime now)
{
  if (!_disco_coord_straggler_judges (c))
    return;
  ReadyTime t = { id, now - c->round_began };
  g_array_append_val (c->ready_after, t);
}

static gboolean
dropped_now (const DiscoCoord *c, ProtoNodeId id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->dropped, GUINT_TO_POINTER (id))) > c->round;
}

/* trainers not ready that drop-slowest does not wait for */
guint
_disco_coord_straggler_dropped_waiting (const DiscoCoord *c)
{
  guint n = 0;
  for (guint i = 0; i < proto_omap_len (&c->round_peers); i++)
    n += !proto_omap_at (&c->round_peers, i)->flag && dropped_now (c, proto_omap_at (&c->round_peers, i)->id);
  return n;
}

static gint
cmp_time (gconstpointer a, gconstpointer b)
{
  DlTime x = *(const DlTime *) a, y = *(const DlTime *) b;
  return (x > y) - (x < y);
}

/* drop-slowest, as the gossip and hierarchical families do it (gossip's
 * README): a trainer whose time to PeerIsReady in this collect was over
 * drop_factor x the median is not waited for in the next drop_rounds rounds */
void
_disco_coord_straggler_judge_slowest (DiscoCoord *c, ProtoOutbox *out)
{
  GArray *v = c->ready_after;
  if (v->len >= 2)
    {
      g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (DlTime), v->len);
      for (guint i = 0; i < v->len; i++)
        g_array_append_val (sorted, g_array_index (v, ReadyTime, i).after);
      g_array_sort (sorted, cmp_time);
      DlTime median = g_array_index (sorted, DlTime, (sorted->len - 1) / 2);
      for (guint i = 0; i < v->len; i++)
        {
          const ReadyTime *t = &g_array_index (v, ReadyTime, i);
          if ((double) t->after <= c->cfg.drop_factor * (double) median || dropped_now (c, t->id))
            continue;
          g_hash_table_insert (c->dropped, GUINT_TO_POINTER (t->id), GUINT_TO_POINTER (c->round + 1 + c->cfg.drop_rounds));
          g_autofree char *d = g_strdup_printf ("drop-slowest: ready %.3g s after the round began, over %.3g x the "
                                                "median %.3g s: not waited for in the next %u rounds",
                                                (double) t->after / 1e9, c->cfg.drop_factor, (double) median / 1e9,
                                                c->cfg.drop_rounds);
          _disco_coord_observe (c, out, PROTO_OBS_NOTE, t->id, -1, -1, d);
        }
    }
  g_array_set_size (v, 0);
}

/* async and mixed: after the list, every listed peer gets every listed
 * peer's staleness (rounds since the list it was last in: a peer that was
 * not waited for trained from an older round's model), so that every peer
 * weighs the same contributions the same (disco-aggregator.c) and the
 * round's mean stays one model. */
void
_disco_coord_straggler_send_staleness (DiscoCoord *c, ProtoOutbox *out, const ProtoNodeId *ids, guint n)
{
  g_autofree guint32 *stale = g_new (guint32, MAX (n, 1));
  guint n_stale = 0;
  for (guint i = 0; i < n; i++)
    {
      guint last = GPOINTER_TO_UINT (g_hash_table_lookup (c->last_listed, GUINT_TO_POINTER (ids[i])));
      stale[i] = last && c->round > last ? c->round - last : 0;   /* last is 1 + its round */
      n_stale += stale[i] > 0;
      g_hash_table_insert (c->last_listed, GUINT_TO_POINTER (ids[i]), GUINT_TO_POINTER (c->round + 1));
    }
  for (guint i = 0; i < n; i++)
    {
      ProtoMsg m;
      proto_msg_init (&m, DISCO_MSG_ROUND_STALENESS);
      m.round = c->round;
      proto_msg_set_peers (&m, ids, n);
      proto_msg_take_indices (&m, g_memdup2 (stale, n * sizeof *stale), n);
      _disco_coord_send (c, out, ids[i], &m);
    }
  if (n_stale)
    {
      g_autofree char *d = g_strdup_printf ("%s: %u of %u listed peers trained from an older round: weighed by "
                                            "staleness", proto_straggler_policy_name (c->cfg.straggler_policy),
                                            n_stale, n);
      _disco_coord_observe (c, out, PROTO_OBS_NOTE, PROTO_NO_NODE, -1, n_stale, d);
    }
}
