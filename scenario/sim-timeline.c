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

gboolean
_sim_scenario_parse_action (const char *text, SimAction *a, GPtrArray *peer_refs, GError **error)
{
  g_auto (GStrv) w = g_strsplit_set (text, " \t", -1);
  GPtrArray *t = g_ptr_array_new ();
  for (guint i = 0; w[i]; i++)
    if (*w[i])
      g_ptr_array_add (t, w[i]);
  gboolean ok = FALSE;
  const char *verb = t->len ? t->pdata[0] : "";
  const char *usage = NULL;
#define PEER(i, dst) (t->len > (i) && parse_peer_name (t->pdata[i], (dst)) \
                      && (g_ptr_array_add (peer_refs, GUINT_TO_POINTER (*(dst))), TRUE))
  if (strcmp (verb, "join") == 0)
    {
      a->kind = SIM_ACT_JOIN;
      ok = PEER (1, &a->a) && (t->len == 2 || (t->len == 3 && g_str_has_prefix (t->pdata[2], "speed=")
                                                && dl_parse_number ((char *) t->pdata[2] + 6, &a->value, NULL)
                                                && a->value > 0));
      usage = "join pN [speed=X]";
    }
  else if (strcmp (verb, "crash") == 0 && t->len == 2 && strcmp (t->pdata[1], "coordinator") == 0)
    {
      a->kind = SIM_ACT_CRASH_COORD;
      ok = TRUE;
    }
  else if (strcmp (verb, "leave") == 0 || strcmp (verb, "crash") == 0)
    {
      a->kind = verb[0] == 'l' ? SIM_ACT_LEAVE : SIM_ACT_CRASH;
      ok = t->len == 2 && PEER (1, &a->a);
      usage = verb[0] == 'l' ? "leave pN" : "crash pN / crash coordinator";
    }
  else if (strcmp (verb, "link-fail") == 0 || strcmp (verb, "link-down") == 0)
    {
      a->kind = verb[5] == 'f' ? SIM_ACT_LINK_FAIL : SIM_ACT_LINK_DOWN;
      ok = t->len == 3 && PEER (1, &a->a) && PEER (2, &a->b) && a->a != a->b;
      usage = "link-fail pA pB / link-down pA pB";
    }
  else if (strcmp (verb, "link-slow") == 0)
    {
      a->kind = SIM_ACT_LINK_SLOW;
      ok = t->len == 5 && PEER (1, &a->a) && PEER (2, &a->b) && a->a != a->b && strcmp (t->pdata[3], "by") == 0
           && dl_parse_duration (t->pdata[4], &a->delay, NULL);
      usage = "link-slow pA pB by DURATION";
    }
  else if (strcmp (verb, "heal") == 0)
    {
      a->kind = t->len == 2 ? SIM_ACT_HEAL_ALL : SIM_ACT_HEAL;
      ok = t->len == 1 || (t->len == 2 && strcmp (t->pdata[1], "all") == 0);
      usage = "heal / heal all";
    }
  else if (strcmp (verb, "reseed") == 0)
    {
      a->kind = SIM_ACT_RESEED;
      char *end = NULL;
      ok = t->len == 2 && g_ascii_isdigit (((char *) t->pdata[1])[0])
           && (a->salt = g_ascii_strtoull (t->pdata[1], &end, 10), *end == '\0');
      usage = "reseed SALT (a number)";
    }
  else if (strcmp (verb, "slow") == 0)
    {
      a->kind = SIM_ACT_SLOW;
      ok = t->len == 3 && PEER (1, &a->a) && ((char *) t->pdata[2])[0] == 'x'
           && dl_parse_number ((char *) t->pdata[2] + 1, &a->value, NULL) && a->value > 0;
      usage = "slow pN xFACTOR";
    }
  else if (strcmp (verb, "drop") == 0 || strcmp (verb, "delay") == 0)
    {
      gboolean drop = verb[1] == 'r';
      a->kind = drop ? SIM_ACT_DROP : SIM_ACT_DELAY;
      a->count = 1;
      guint next = drop ? 4 : 6;
      int mt = 0;
      ok = t->len >= 4 && sim_timeline_msg_parse (t->pdata[1], &mt, a->msg_label)
           && (strcmp (t->pdata[2], drop ? "to" : "from") == 0
               || (drop && strcmp (t->pdata[2], "from") == 0 && (a->value = 1))
               || (!drop && strcmp (t->pdata[2], "to") == 0 && (a->value = 1)))
           && PEER (3, &a->a);
      a->msg_type = mt;
      if (ok && !drop)
        ok = t->len >= 6 && strcmp (t->pdata[4], "by") == 0 && dl_parse_duration (t->pdata[5], &a->delay, NULL);
      if (ok && t->len > next)
        ok = t->len == next + 2 && strcmp (t->pdata[next], "count") == 0 && _sim_scenario_parse_uint (t->pdata[next + 1], &a->count)
             && a->count > 0;
      else if (ok)
        ok = t->len == next;
      usage = drop ? "drop TYPE to|from pN [count K]" : "delay TYPE from|to pN by DURATION [count K]";
    }
  else if (strcmp (verb, "partition") == 0)
    {
      a->kind = SIM_ACT_PARTITION;
      usage = "partition pA,pB | server,pC,... (unnamed peers stay with the server)";
      ok = parse_partition (text, a, peer_refs);
    }
#undef PEER
  g_ptr_array_unref (t);
  if (!ok)
    {
      if (usage)
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "'%s': expected %s", text, usage);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG,
                     "'%s': unknown action (expected join, leave, crash, link-fail, link-down, "
                     "link-slow, partition, heal, drop, delay, slow or reseed)", text);
      return FALSE;
    }
  return TRUE;
}

