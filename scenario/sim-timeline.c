/* sim-timeline.c — the [timeline] section of scenario files: WHEN (a time or
 * `round N [+ D]`) and the actions (sim-scenario-private.h). */
#include "config.h"

#include "scenario/sim-scenario-private.h"
#include "base/dl-units.h"
#include "protocol/proto-message.h"

#include <string.h>

/* ---------------------------------------------------------------- timeline */

static gboolean
parse_peer_name (const char *s, guint *out)
{
  guint64 v;
  if (s[0] != 'p' || !g_ascii_string_to_unsigned (s + 1, 10, 1, G_MAXUINT32 - 1, &v, NULL))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

gboolean
sim_timeline_msg_parse (const char *word, int *msg_type, char kind[33])
{
  const char *colon = strchr (word, ':');
  g_autofree char *type_name = colon ? g_strndup (word, (gsize) (colon - word)) : g_strdup (word);
  ProtoMsgType mt;
  if (!proto_msg_type_from_name (type_name, &mt))
    return FALSE;
  kind[0] = '\0';
  if (colon)
    {
      const char *k = colon + 1;
      gsize n = strlen (k);
      if (n < 1 || n > 32 || !proto_msg_type_has_labels (mt)
          || strspn (k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") != n)
        return FALSE;
      memcpy (kind, k, n + 1);
    }
  *msg_type = (int) mt;
  return TRUE;
}

/* Parses WHEN: "5min", "round 2", "round 3 + 10s". */
gboolean
_sim_scenario_parse_when (const char *when, SimAction *a, GError **error)
{
  g_autofree char *w = g_strstrip (g_strdup (when));
  if (g_str_has_prefix (w, "round"))
    {
      g_auto (GStrv) parts = g_strsplit (w + 5, "+", 2);
      guint r;
      if (!parts[0] || !_sim_scenario_parse_uint (g_strstrip (parts[0]), &r) || r == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "expected 'round N' or 'round N + DURATION' with N >= 1");
          return FALSE;
        }
      a->round = r;
      if (parts[1] && !dl_parse_duration (g_strstrip (parts[1]), &a->after, error))
        return FALSE;
      return TRUE;
    }
  return dl_parse_duration (w, &a->at, error);
}

/* `partition pA,pB | server,pC,...`: a->groups, node -> group, the
 * server's group 0; the peers named go to peer_refs */
static gboolean
parse_partition (const char *text, SimAction *a, GPtrArray *peer_refs)
{
  const char *rest = strstr (text, "partition") + 9;
  g_auto (GStrv) groups = g_strsplit (rest, "|", -1);
  a->groups = g_array_new (FALSE, TRUE, sizeof (guint));
  gboolean ok = g_strv_length (groups) >= 2;
  guint server_group = 0;
  GArray *members = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  for (guint gi = 0; ok && groups[gi]; gi++)
    {
      g_auto (GStrv) names = g_strsplit (groups[gi], ",", -1);
      for (guint k = 0; ok && names[k]; k++)
        {
          char *nm = g_strstrip (names[k]);
          guint id;
          if (strcmp (nm, "server") == 0)
            server_group = gi + 1;
          else if (parse_peer_name (nm, &id))
            {
              guint pair[2] = { id, gi + 1 };
              g_array_append_val (members, pair);
              g_ptr_array_add (peer_refs, GUINT_TO_POINTER (id));
            }
          else
            ok = FALSE;
        }
    }
  /* group numbers: the server's group is 0 */
  for (guint i = 0; ok && i < members->len; i++)
    {
      guint *pair = &g_array_index (members, guint, 2 * i);
      if (pair[0] >= a->groups->len)
        g_array_set_size (a->groups, pair[0] + 1);
      g_array_index (a->groups, guint, pair[0]) = pair[1] == server_group ? 0 : pair[1];
    }
  g_array_unref (members);
  return ok;
}

/* An action's words (empty ones left out), and where the peers it names
 * go. */
typedef struct {
  GPtrArray *t;
  GPtrArray *peer_refs;
  const char *text;   /* the whole action, for partition's groups */
} Words;

static const char *
word (const Words *w, guint i)
{
  return w->t->pdata[i];
}

/* word I names a peer: its number in *DST, and in peer_refs */
static gboolean
peer_at (const Words *w, guint i, guint *dst)
{
  if (w->t->len <= i || !parse_peer_name (word (w, i), dst))
    return FALSE;
  g_ptr_array_add (w->peer_refs, GUINT_TO_POINTER (*dst));
  return TRUE;
}

static gboolean
parse_join (const Words *w, SimAction *a)
{
  guint n = w->t->len;
  a->kind = SIM_ACT_JOIN;
  return peer_at (w, 1, &a->a)
         && (n == 2 || (n == 3 && g_str_has_prefix (word (w, 2), "speed=")
                        && dl_parse_number (word (w, 2) + 6, &a->value, NULL) && a->value > 0));
}

/* leave pN, crash pN, crash coordinator */
static gboolean
parse_leave_crash (const Words *w, SimAction *a)
{
  gboolean leave = word (w, 0)[0] == 'l';
  if (!leave && w->t->len == 2 && strcmp (word (w, 1), "coordinator") == 0)
    {
      a->kind = SIM_ACT_CRASH_COORD;
      return TRUE;
    }
  a->kind = leave ? SIM_ACT_LEAVE : SIM_ACT_CRASH;
  return w->t->len == 2 && peer_at (w, 1, &a->a);
}

/* link-fail pA pB, link-down pA pB */
static gboolean
parse_link (const Words *w, SimAction *a)
{
  a->kind = word (w, 0)[5] == 'f' ? SIM_ACT_LINK_FAIL : SIM_ACT_LINK_DOWN;
  return w->t->len == 3 && peer_at (w, 1, &a->a) && peer_at (w, 2, &a->b) && a->a != a->b;
}

static gboolean
parse_link_slow (const Words *w, SimAction *a)
{
  a->kind = SIM_ACT_LINK_SLOW;
  return w->t->len == 5 && peer_at (w, 1, &a->a) && peer_at (w, 2, &a->b) && a->a != a->b
         && strcmp (word (w, 3), "by") == 0 && dl_parse_duration (word (w, 4), &a->delay, NULL);
}

static gboolean
parse_heal (const Words *w, SimAction *a)
{
  a->kind = w->t->len == 2 ? SIM_ACT_HEAL_ALL : SIM_ACT_HEAL;
  return w->t->len == 1 || (w->t->len == 2 && strcmp (word (w, 1), "all") == 0);
}

static gboolean
parse_reseed (const Words *w, SimAction *a)
{
  a->kind = SIM_ACT_RESEED;
  char *end = NULL;
  return w->t->len == 2 && g_ascii_isdigit (word (w, 1)[0])
         && (a->salt = g_ascii_strtoull (word (w, 1), &end, 10), *end == '\0');
}

static gboolean
parse_slow (const Words *w, SimAction *a)
{
  a->kind = SIM_ACT_SLOW;
  return w->t->len == 3 && peer_at (w, 1, &a->a) && word (w, 2)[0] == 'x'
         && dl_parse_number (word (w, 2) + 1, &a->value, NULL) && a->value > 0;
}

/* drop TYPE to|from pN [count K], delay TYPE from|to pN by DURATION
 * [count K]: the other direction sets a->value */
static gboolean
parse_drop_delay (const Words *w, SimAction *a)
{
  GPtrArray *t = w->t;
  gboolean drop = word (w, 0)[1] == 'r';
  a->kind = drop ? SIM_ACT_DROP : SIM_ACT_DELAY;
  a->count = 1;
  guint next = drop ? 4 : 6;
  int mt = 0;
  gboolean ok = t->len >= 4 && sim_timeline_msg_parse (word (w, 1), &mt, a->msg_label)
                && (strcmp (word (w, 2), drop ? "to" : "from") == 0
                    || (drop && strcmp (word (w, 2), "from") == 0 && (a->value = 1))
                    || (!drop && strcmp (word (w, 2), "to") == 0 && (a->value = 1)))
                && peer_at (w, 3, &a->a);
  a->msg_type = mt;
  if (ok && !drop)
    ok = t->len >= 6 && strcmp (word (w, 4), "by") == 0 && dl_parse_duration (word (w, 5), &a->delay, NULL);
  if (ok && t->len > next)
    return t->len == next + 2 && strcmp (word (w, next), "count") == 0
           && _sim_scenario_parse_uint (word (w, next + 1), &a->count) && a->count > 0;
  return ok && t->len == next;
}

static gboolean
parse_partition_action (const Words *w, SimAction *a)
{
  a->kind = SIM_ACT_PARTITION;
  return parse_partition (w->text, a, w->peer_refs);
}

/* Each verb, its parser and the form the error gives. */
static const struct {
  const char *verb;
  gboolean (*parse) (const Words *w, SimAction *a);
  const char *usage;
} actions[] = {
  { "join", parse_join, "join pN [speed=X]" },
  { "crash", parse_leave_crash, "crash pN / crash coordinator" },
  { "leave", parse_leave_crash, "leave pN" },
  { "link-fail", parse_link, "link-fail pA pB / link-down pA pB" },
  { "link-down", parse_link, "link-fail pA pB / link-down pA pB" },
  { "link-slow", parse_link_slow, "link-slow pA pB by DURATION" },
  { "heal", parse_heal, "heal / heal all" },
  { "reseed", parse_reseed, "reseed SALT (a number)" },
  { "slow", parse_slow, "slow pN xFACTOR" },
  { "drop", parse_drop_delay, "drop TYPE to|from pN [count K]" },
  { "delay", parse_drop_delay, "delay TYPE from|to pN by DURATION [count K]" },
  { "partition", parse_partition_action, "partition pA,pB | server,pC,... (unnamed peers stay with the server)" },
};

gboolean
_sim_scenario_parse_action (const char *text, SimAction *a, GPtrArray *peer_refs, GError **error)
{
  g_auto (GStrv) split = g_strsplit_set (text, " \t", -1);
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  for (guint i = 0; split[i]; i++)
    if (*split[i])
      g_ptr_array_add (t, split[i]);
  Words w = { t, peer_refs, text };
  const char *verb = t->len ? word (&w, 0) : "";
  for (gsize i = 0; i < G_N_ELEMENTS (actions); i++)
    if (strcmp (verb, actions[i].verb) == 0)
      {
        if (actions[i].parse (&w, a))
          return TRUE;
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected %s", text, actions[i].usage);
        return FALSE;
      }
  g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
               "'%s': unknown action (expected join, leave, crash, link-fail, link-down, "
               "link-slow, partition, heal, drop, delay, slow or reseed)", text);
  return FALSE;
}

