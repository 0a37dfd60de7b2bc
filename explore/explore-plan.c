/* explore-plan.c — the fault space of `dlsim explore` and the plan a run
 * derives from its seed (explore/explore.h). */
#include "config.h"

#include "explore/explore.h"

#include <string.h>

const char *const explore_fault_names[EXPLORE_F_N] = {
  "drop", "delay", "crash", "leave", "join", "partition", "link-fail", "link-down", "link-slow", "slow", "jitter",
  "rejoin", "coordinator-crash",
};

guint
explore_n_msgs (const ExploreSpace *sp)
{
  if (sp->messages)
    return 2 * g_strv_length (sp->messages);
  return sp->msgs ? proto_msg_family_n_fault_targets (sp->msgs) : 0;
}

void
explore_msg_at (const ExploreSpace *sp, guint i, const char **type, const char **dir)
{
  if (sp->messages)
    {
      *type = sp->messages[i / 2];
      *dir = i % 2 ? "from" : "to";
      return;
    }
  proto_msg_family_fault_target (sp->msgs, i, type, dir);
}

gboolean
explore_parse_messages (char **list, ExploreSpace *sp, GError **error)
{
  if (!list || !list[0])
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--messages: expected TYPE[:KIND],...");
      return FALSE;
    }
  for (char **p = list; *p; p++)
    {
      int type;
      char kind[33];
      if (!sim_timeline_msg_parse (*p, &type, kind))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--messages: '%s' is not a message type, or TYPE:KIND with a type whose messages have kinds "
                       "(Guest:Payload)", *p);
          return FALSE;
        }
    }
  sp->messages = list;
  return TRUE;
}


/* uniform in [lo, hi] */
static guint64
uniform_int (DlRandom *r, guint64 lo, guint64 hi)
{
  return lo + dl_random_below (r, hi - lo + 1);
}

/* A timeline WHEN: `round R + D` (R > 0) or an absolute time (R = 0). */
typedef struct {
  guint round, ms;
} When;

static When
when (DlRandom *r, const ExploreSpace *sp)
{
  When w = { 0, 0 };
  if (dl_random_bernoulli (r, 0.2))
    w.ms = (guint) uniform_int (r, 0, 3000);
  else
    {
      w.round = (guint) uniform_int (r, 1, MAX (sp->rounds, 1));
      w.ms = (guint) uniform_int (r, 0, 1500);
    }
  return w;
}

static char *
when_text (When w)
{
  if (w.round == 0)
    return g_strdup_printf ("%ums", w.ms);
  return w.ms ? g_strdup_printf ("round %u + %ums", w.round, w.ms) : g_strdup_printf ("round %u", w.round);
}

static guint
peer (DlRandom *r, const ExploreSpace *sp)
{
  return (guint) uniform_int (r, 1, sp->n_peers);
}

static const char *const delays[] = { "200ms", "2s", "20s", "70s" };

/* Which of the main kinds a run draws: each with odds 1/2, and at least
 * one (from a random place on). */
static void
pick_kinds (DlRandom *r, const ExploreSpace *sp, gboolean on[EXPLORE_F_N])
{
  guint n_on = 0;
  for (int k = 0; k < EXPLORE_F_N_MAIN; k++)
    if (sp->kinds[k] && dl_random_bernoulli (r, 0.5))
      on[k] = TRUE, n_on++;
  if (n_on == 0)
    {
      guint pick = (guint) uniform_int (r, 0, EXPLORE_F_N_MAIN - 1);
      for (guint k = 0; k < EXPLORE_F_N_MAIN; k++)
        if (sp->kinds[(pick + k) % EXPLORE_F_N_MAIN])
          {
            on[(pick + k) % EXPLORE_F_N_MAIN] = TRUE;
            break;
          }
    }
}

/* rejoin: a peer leaves and comes back.  DISCO gives a client that
 * reconnects a new id, so the world has it as a leave and a new peer's
 * join (its own shard), 2 to 30 s later */
static void
plan_rejoin (const ExploreSpace *sp, guint64 seed, guint index, GPtrArray *plan, GHashTable *used,
             GString *kinds_out, guint next_join)
{
  g_autoptr (DlRandom) rr = dl_random_new (seed, "explore-rejoin", index);
  if (sp->kinds[EXPLORE_F_REJOIN] && (dl_random_bernoulli (rr, 0.5) || plan->len == 0))
    {
      g_string_append_printf (kinds_out, "%s%s", kinds_out->len ? "," : "", explore_fault_names[EXPLORE_F_REJOIN]);
      guint a = peer (rr, sp);
      When at = when (rr, sp);
      When back = (When) { at.round, at.ms + (guint) uniform_int (rr, 2000, 30000) };
      g_autofree char *w = when_text (at), *wb = when_text (back);
      if (g_hash_table_add (used, g_strdup (w)) && g_hash_table_add (used, g_strdup (wb)))
        {
          g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=leave p%u", w, a));
          g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=join p%u", wb, next_join++));
        }
    }
}

/* coordinator-crash: the coordinator (with replicas, the leader of the
 * time) crashes, once or (one run in four) twice */
static void
plan_coord_crash (const ExploreSpace *sp, guint64 seed, guint index, GPtrArray *plan, GHashTable *used,
                  GString *kinds_out)
{
  g_autoptr (DlRandom) rc = dl_random_new (seed, "explore-coordinator", index);
  if (sp->kinds[EXPLORE_F_COORD_CRASH] && (dl_random_bernoulli (rc, 0.5) || plan->len == 0))
    {
      g_string_append_printf (kinds_out, "%s%s", kinds_out->len ? "," : "", explore_fault_names[EXPLORE_F_COORD_CRASH]);
      guint n = dl_random_bernoulli (rc, 0.25) ? 2 : 1;
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *w = when_text (when (rc, sp));
          if (g_hash_table_add (used, g_strdup (w)))
            g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=crash coordinator", w));
        }
    }
}

/* --heal: the fault phase ends at 5 to 60 s (an absolute time: a round
 * that never comes would never end it), drawn from a stream of its own */
static void
plan_heal (const ExploreSpace *sp, guint64 seed, guint index, GPtrArray *plan, GHashTable *used)
{
  if (sp->heal)
    {
      g_autoptr (DlRandom) rh = dl_random_new (seed, "explore-heal", index);
      guint ms = (guint) uniform_int (rh, 5000, 60000);
      char *w = when_text ((When) { 0, ms });
      while (!g_hash_table_add (used, w))
        w = when_text ((When) { 0, ++ms });
      g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=heal all", w));
    }
}

/* The plan of one run: "WHEN=ACTION" lines (one action each, distinct WHENs). */
GPtrArray *
explore_plan_make (const ExploreSpace *sp, guint64 seed, guint index, GString *kinds_out)
{
  g_autoptr (DlRandom) r = dl_random_new (seed, "explore", index);
  GPtrArray *plan = g_ptr_array_new_with_free_func (g_free);
  gboolean on[EXPLORE_F_N] = { 0 };
  pick_kinds (r, sp, on);
  GHashTable *used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint next_join = sp->n_peers + 1;
  guint n_msgs = explore_n_msgs (sp);
  for (int k = 0; k < EXPLORE_F_N_MAIN; k++)
    {
      if (!on[k])
        continue;
      g_string_append_printf (kinds_out, "%s%s", kinds_out->len ? "," : "", explore_fault_names[k]);
      guint n = (guint) uniform_int (r, 1, k == EXPLORE_F_JITTER ? 1 : 2);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *action = NULL;
          guint a = peer (r, sp), b = peer (r, sp);
          if (b == a)
            b = a % sp->n_peers + 1;
          switch (k)
            {
            case EXPLORE_F_DROP:
            case EXPLORE_F_DELAY:
              {
                if (n_msgs == 0)
                  continue;
                const char *type, *dir;
                explore_msg_at (sp, (guint) uniform_int (r, 0, n_msgs - 1), &type, &dir);
                action = k == EXPLORE_F_DROP
                           ? g_strdup_printf ("drop %s %s p%u", type, dir, a)
                           : g_strdup_printf ("delay %s %s p%u by %s", type, dir, a,
                                              delays[uniform_int (r, 0, G_N_ELEMENTS (delays) - 1)]);
                break;
              }
            case EXPLORE_F_CRASH: action = g_strdup_printf ("crash p%u", a); break;
            case EXPLORE_F_LEAVE: action = g_strdup_printf ("leave p%u", a); break;
            case EXPLORE_F_JOIN: action = g_strdup_printf ("join p%u", next_join++); break;
            case EXPLORE_F_PARTITION: action = g_strdup_printf ("partition p%u | server", a); break;
            case EXPLORE_F_LINK_FAIL: action = g_strdup_printf ("link-fail p%u p%u", a, b); break;
            case EXPLORE_F_LINK_DOWN: action = g_strdup_printf ("link-down p%u p%u", a, b); break;
            case EXPLORE_F_LINK_SLOW:
              action = g_strdup_printf ("link-slow p%u p%u by %s", a, b,
                                        delays[uniform_int (r, 0, G_N_ELEMENTS (delays) - 1)]);
              break;
            case EXPLORE_F_SLOW: action = g_strdup_printf ("slow p%u x%u", a, (guint) uniform_int (r, 2, 50)); break;
            case EXPLORE_F_JITTER:
              g_ptr_array_add (plan, g_strdup_printf ("network.latency=uniform(%ums, %ums)",
                                                      (guint) uniform_int (r, 1, 20),
                                                      (guint) uniform_int (r, 50, 400)));
              continue;
            }
          When at = when (r, sp);
          if (k == EXPLORE_F_JOIN)
            at = (When) { 0, (guint) uniform_int (r, 0, 5000) };
          g_autofree char *w = when_text (at);
          if (!g_hash_table_add (used, g_strdup (w)))
            continue;   /* one action per WHEN */
          g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=%s", w, action));
          if (k == EXPLORE_F_PARTITION)
            {
              /* healed 30 s later */
              g_autofree char *h = when_text ((When) { at.round, at.ms + 30000 });
              if (g_hash_table_add (used, g_strdup (h)))
                g_ptr_array_add (plan, g_strdup_printf ("timeline.%s=heal", h));
            }
        }
    }
  plan_rejoin (sp, seed, index, plan, used, kinds_out, next_join);
  plan_coord_crash (sp, seed, index, plan, used, kinds_out);
  plan_heal (sp, seed, index, plan, used);
  g_hash_table_unref (used);
  return plan;
}

/* ---------------------------------------------------------------- --guided */

/* a plan line's key (before '=') and value */
static gboolean
line_has (GPtrArray *plan, const char *line, gboolean by_value)
{
  const char *eq = strchr (line, '=');
  gsize klen = eq ? (gsize) (eq - line) : strlen (line);
  for (guint i = 0; i < plan->len; i++)
    {
      const char *o = plan->pdata[i], *oe = strchr (o, '=');
      if (by_value ? (eq && oe && strcmp (eq, oe) == 0) : (strncmp (o, line, klen) == 0 && o[klen] == '='))
        return TRUE;
    }
  return FALSE;
}

/* a line of the plan that is not its heal (G_MAXUINT: none) */
static guint
pick_line (GPtrArray *plan, DlRandom *r, gboolean timeline_only)
{
  g_autoptr (GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < plan->len; i++)
    if (!explore_plan_is_heal (plan->pdata[i]) && (!timeline_only || g_str_has_prefix (plan->pdata[i], "timeline.")))
      g_array_append_val (idx, i);
  return idx->len ? g_array_index (idx, guint, dl_random_below (r, idx->len)) : G_MAXUINT;
}

/* adds a line of fresh that neither names a time of the plan nor repeats
 * an action of it */
static void
mutate_add (GPtrArray *child, GPtrArray *fresh, DlRandom *r)
{
  guint i = pick_line (fresh, r, FALSE);
  if (i != G_MAXUINT && !line_has (child, fresh->pdata[i], FALSE) && !line_has (child, fresh->pdata[i], TRUE))
    g_ptr_array_add (child, g_strdup (fresh->pdata[i]));
}

/* moves a timeline line to a time drawn as a plan draws one */
static void
mutate_move (GPtrArray *child, const ExploreSpace *sp, DlRandom *r)
{
  guint i = pick_line (child, r, TRUE);
  if (i == G_MAXUINT)
    return;
  g_autofree char *w = when_text (when (r, sp));
  g_autofree char *line = g_strdup_printf ("timeline.%s%s", w, strchr (child->pdata[i], '='));
  if (!line_has (child, line, FALSE))
    {
      g_free (child->pdata[i]);
      child->pdata[i] = g_steal_pointer (&line);
    }
}

GPtrArray *
explore_plan_mutate (const ExploreSpace *sp, guint64 seed, guint index, GPtrArray *parent, DlRandom *r)
{
  g_autoptr (GString) kinds = g_string_new (NULL);
  g_autoptr (GPtrArray) fresh = explore_plan_make (sp, seed, index, kinds);
  GPtrArray *child = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < parent->len; i++)
    g_ptr_array_add (child, g_strdup (parent->pdata[i]));
  guint n = 1 + (guint) dl_random_below (r, 2);
  for (guint k = 0; k < n; k++)
    switch (dl_random_below (r, 3))
      {
      case 0: mutate_add (child, fresh, r); break;
      case 1:
        {
          guint i = pick_line (child, r, FALSE);
          if (i != G_MAXUINT && child->len > 1 + (sp->heal ? 1u : 0u))
            g_ptr_array_remove_index (child, i);
          break;
        }
      default: mutate_move (child, sp, r); break;
      }
  return child;
}

gboolean
explore_plan_is_heal (const char *line)
{
  return g_str_has_prefix (line, "timeline.") && g_str_has_suffix (line, "=heal all");
}

gboolean
explore_parse_faults (const char *list, ExploreSpace *sp, GError **error)
{
  if (!list)
    {
      /* all but the coordinator's crash, which is asked for by name: the
       * default search stays what it was (and with one coordinator the
       * crash just ends the session) */
      for (int k = 0; k < EXPLORE_F_N; k++)
        sp->kinds[k] = k != EXPLORE_F_COORD_CRASH;
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);
  for (char **p = parts; *p; p++)
    {
      gboolean known = FALSE;
      for (int k = 0; k < EXPLORE_F_N; k++)
        if (strcmp (g_strstrip (*p), explore_fault_names[k]) == 0)
          sp->kinds[k] = known = TRUE;
      if (!known)
        {
          g_autofree char *all = g_strjoinv (", ", (char **) explore_fault_names);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--faults: unknown kind '%s' (known: %s)",
                       *p, all);
          return FALSE;
        }
    }
  return TRUE;
}

