/* guest-line.c — the guest line protocol's words (guest-line.h). */
#include "config.h"

#include "protocol/guest/guest-line.h"
#include "base/dl-units.h"
#include "protocol/guest/guest-msgs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the messages below spell the bound out */
G_STATIC_ASSERT (PROTO_GUEST_MAX_ROUND == 1000000u);

void
proto_guest_act_clear (ProtoGuestAct *a)
{
  g_clear_pointer (&a->text, g_free);
  g_clear_pointer (&a->values, g_free);
  a->n_values = 0;
}

char *
proto_guest_node_name (ProtoNodeId id)
{
  return id == PROTO_SERVER ? g_strdup ("S") : g_strdup_printf ("p%u", id);
}

gboolean
proto_guest_node_parse (const char *s, ProtoNodeId *out)
{
  if (strcmp (s, "S") == 0)
    {
      *out = PROTO_SERVER;
      return TRUE;
    }
  guint64 v;
  if (s[0] != 'p' || !g_ascii_isdigit (s[1]) || s[1] == '0'
      || !g_ascii_string_to_unsigned (s + 1, 10, 1, G_MAXUINT32 - 1, &v, NULL))
    return FALSE;
  *out = (ProtoNodeId) v;
  return TRUE;
}

/* a name: 1..PROTO_GUEST_MAX_TYPE letters, digits, - _ . */
static gboolean
is_name_n (const char *s, gsize n)
{
  if (n == 0 || n > PROTO_GUEST_MAX_TYPE)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
      return FALSE;
  return TRUE;
}

static gboolean
is_name (const char *s)
{
  return is_name_n (s, strlen (s));
}

gboolean
proto_guest_msg_text_ok (const char *text)
{
  const char *sp = text ? strchr (text, ' ') : NULL;
  if (!sp || !is_name_n (text, (gsize) (sp - text)) || sp[1] == '\0')
    return FALSE;
  for (const char *c = sp + 1; *c; c++)
    if ((guchar) *c <= ' ' || *c == 0x7f)
      return FALSE;   /* one word: no space, newline or control byte */
  return TRUE;
}

static const char *
via_name (ProtoVia via)
{
  return via == PROTO_VIA_LINK ? "link" : "stream";
}

char *
proto_guest_line_input (ProtoNodeId node, DlTime now, const ProtoInput *in)
{
  g_autofree char *self = proto_guest_node_name (node);
  g_autofree char *from = proto_guest_node_name (in->from);
  switch (in->kind)
    {
    case PROTO_IN_START:
      return g_strdup_printf ("start %s %" G_GINT64_FORMAT, self, now);
    case PROTO_IN_MESSAGE:
      if (in->msg->type != PROTO_MSG_GUEST || !proto_guest_msg_text_ok (in->msg->signal_data))
        return NULL;   /* nothing but a guest's own messages, as a guest wrote them, reaches a guest */
      return g_strdup_printf ("msg %s %" G_GINT64_FORMAT " %s %s %s", self, now, from, via_name (in->via),
                              in->msg->signal_data);
    case PROTO_IN_DEADLINE:
      return g_strdup_printf ("deadline %s %" G_GINT64_FORMAT, self, now);
    case PROTO_IN_TRAINING_DONE:
      return g_strdup_printf ("trained %s %" G_GINT64_FORMAT, self, now);
    case PROTO_IN_LINK_UP:
      return g_strdup_printf ("link-up %s %" G_GINT64_FORMAT " %s", self, now, from);
    case PROTO_IN_LINK_FAILED:
      return g_strdup_printf ("link-failed %s %" G_GINT64_FORMAT " %s", self, now, from);
    case PROTO_IN_LINK_CLOSED:
      return g_strdup_printf ("link-closed %s %" G_GINT64_FORMAT " %s", self, now, from);
    case PROTO_IN_STREAM_CLOSED:
      return g_strdup_printf ("stream-closed %s %" G_GINT64_FORMAT " %s", self, now, from);
    case PROTO_IN_LEAVE:
      return g_strdup_printf ("leave %s %" G_GINT64_FORMAT, self, now);
    }
  return NULL;
}

static gboolean
bad (GError **error, const char *line, const char *why)
{
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "`%.120s`: %s (docs/guest.md)", line, why);
  return FALSE;
}

static gboolean
uint_of (const char *s, guint64 max, guint64 *out)
{
  return g_ascii_string_to_unsigned (s, 10, 0, max, out, NULL);
}

static int
refused (GError **error, const char *line, const char *why)
{
  bad (error, line, why);
  return -1;
}

/* The facts dlsim counts for its own machines: 1 if w is one (parsed into
 * out), 0 if it is not one of them, -1 if it is one said wrong. */
static int
parse_fact (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  const char *verb = w[0];
  if (strcmp (verb, "start") == 0)
    {
      if (n != 3 || !uint_of (w[1], G_MAXINT32, &out->n) || out->n == 0 || !uint_of (w[2], G_MAXINT32, &out->count))
        return refused (error, line, "start N K: round N's (from 1) exchange starts with K peers");
      out->kind = PROTO_GUEST_START;
      return 1;
    }
  if (strcmp (verb, "retry") == 0)
    {
      /* retry [N]: N the coordinator's retry counter after this timeout's
       * increment, recorded as the C coordinator's (the retry event's value) */
      guint64 c = 0;
      if (n > 2 || (n == 2 && (!uint_of (w[1], G_MAXINT32, &c) || c == 0)))
        return refused (error, line, "retry [N]: N the retry counter after the increment, from 1");
      out->kind = PROTO_GUEST_RETRY;
      out->value = n == 2 ? (gint64) c : -1;
      return 1;
    }
  if (strcmp (verb, "reset") == 0)
    {
      if (n != 1)
        return refused (error, line, "takes no words");
      out->kind = PROTO_GUEST_RESET;
      return 1;
    }
  gboolean excluded = strcmp (verb, "excluded") == 0, synced = strcmp (verb, "synced") == 0;
  if (excluded || synced)
    {
      if ((n != 2 && !(excluded && n == 1))
          || (n == 2 && (!proto_guest_node_parse (w[1], &out->to) || out->to == PROTO_SERVER)))
        return refused (error, line, excluded ? "excluded [PEER], PEER pN" : "synced PEER, PEER pN");
      out->kind = excluded ? PROTO_GUEST_EXCLUDED : PROTO_GUEST_SYNCED;
      return 1;
    }
  if (strcmp (verb, "served") == 0)
    {
      if (n < 2 || n > 3 || !proto_guest_node_parse (w[1], &out->to) || out->to == PROTO_SERVER
          || (n == 3 && strcmp (w[2], "stale") != 0))
        return refused (error, line, "served PEER [stale]: this peer sent its model to PEER, PEER pN");
      out->kind = PROTO_GUEST_SERVED;
      out->value = n == 3;
      return 1;
    }
  if (strcmp (verb, "foreign") == 0)
    {
      if (n != 3 || !proto_guest_node_parse (w[1], &out->to) || out->to == PROTO_SERVER
          || !uint_of (w[2], G_MAXINT32, &out->n) || out->n == 0)
        return refused (error, line, "foreign PEER N: PEER's contribution of round N (from 1), PEER pN");
      out->kind = PROTO_GUEST_FOREIGN;
      return 1;
    }
  return 0;
}

/* The actions' words (guest-line.h, docs/guest.md), a parser per verb:
 * TRUE with OUT filled, or FALSE (ERROR set) if said wrong.
 * send TO stream|link TYPE SIZE DATA: OUT's text is "TYPE DATA". */
static gboolean
parse_send (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  if (n != 6)
    return bad (error, line, "send TO stream|link TYPE SIZE DATA");
  if (!proto_guest_node_parse (w[1], &out->to))
    return bad (error, line, "TO is S or pN");
  if (strcmp (w[2], "stream") == 0)
    out->via = PROTO_VIA_SERVER;
  else if (strcmp (w[2], "link") == 0)
    out->via = PROTO_VIA_LINK;
  else
    return bad (error, line, "the way is stream or link");
  if (!is_name (w[3]))
    return bad (error, line, "TYPE is 1 to 32 letters, digits, '-', '_' or '.'");
  if (!uint_of (w[4], PROTO_GUEST_MAX_SIZE, &out->size))
    return bad (error, line, "SIZE is the bytes it costs, 0 (its text's length) to 2^40");
  out->kind = PROTO_GUEST_SEND;
  out->text = g_strdup_printf ("%s %s", w[3], w[5]);
  if (!proto_guest_msg_text_ok (out->text))
    {
      proto_guest_act_clear (out);
      return bad (error, line, "DATA is one word with no control byte (- for none)");
    }
  return TRUE;
}

/* open TO [initiator], connect TO, close TO: TO a peer. */
static gboolean
parse_link (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  const char *verb = w[0];
  gboolean open = verb[0] == 'o';
  if (n != 2 && !(open && n == 3 && strcmp (w[2], "initiator") == 0))
    return bad (error, line, open ? "open PEER [initiator]" : "connect|close PEER");
  if (!proto_guest_node_parse (w[1], &out->to) || out->to == PROTO_SERVER)
    return bad (error, line, "a link joins two peers: pN");
  out->kind = open ? PROTO_GUEST_OPEN : verb[1] == 'o' ? PROTO_GUEST_CONNECT : PROTO_GUEST_CLOSE;
  out->initiator = n == 3;
  return TRUE;
}

/* disconnect, finished: no words after the verb. */
static gboolean
parse_bare (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  const char *verb = w[0];
  if (n != 1)
    return bad (error, line, "takes no words");
  out->kind = verb[0] == 'd' ? PROTO_GUEST_DISCONNECT : PROTO_GUEST_FINISHED;
  return TRUE;
}

/* train N; round N [K]: aggregation round N done, the peer's K-th. */
static gboolean
parse_round (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  const char *verb = w[0];
  gboolean round = verb[0] == 'r';
  if (n < 2 || n > (round ? 3 : 2) || !uint_of (w[1], PROTO_GUEST_MAX_ROUND, &out->n) || out->n == 0)
    return bad (error, line, "train N | round N [K], N a round number from 1 to " G_STRINGIFY (1000000));
  /* round N K: the coordinator's round N ended, the peer's K-th */
  if (n == 3 && (!uint_of (w[2], PROTO_GUEST_MAX_ROUND, &out->count) || out->count == 0))
    return bad (error, line, "round N K: K, the rounds this peer has done, is a number from 1 to "
                G_STRINGIFY (1000000));
  out->kind = round ? PROTO_GUEST_ROUND : PROTO_GUEST_TRAIN;
  return TRUE;
}

/* list N K: the coordinator's round N begins with K peers. */
static gboolean
parse_list (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  if (n != 3 || !uint_of (w[1], PROTO_GUEST_MAX_ROUND, &out->n) || out->n == 0
      || !uint_of (w[2], G_MAXINT32, &out->count))
    return bad (error, line, "list N K: round N (from 1 to " G_STRINGIFY (1000000) ") begins with K peers");
  out->kind = PROTO_GUEST_LIST;
  return TRUE;
}

/* deadline T|never: T in nanoseconds of simulated time. */
static gboolean
parse_deadline (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  guint64 v;
  if (n != 2)
    return bad (error, line, "deadline T|never");
  out->kind = PROTO_GUEST_DEADLINE;
  if (strcmp (w[1], "never") == 0)
    out->t = DL_TIME_NEVER;
  else if (uint_of (w[1], G_MAXINT64 - 1, &v))
    out->t = (DlTime) v;
  else
    return bad (error, line, "T is nanoseconds of simulated time, or never");
  return TRUE;
}

/* state NAME */
static gboolean
parse_state (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  if (n != 2 || !is_name (w[1]))
    return bad (error, line, "state NAME, NAME 1 to 32 letters, digits, '-', '_' or '.'");
  out->kind = PROTO_GUEST_STATE;
  out->text = g_strdup (w[1]);
  return TRUE;
}

/* metric NAME VALUE [ROUND]: VALUE an integer. */
static gboolean
parse_metric (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  guint64 v;
  gint64 x;
  if (n < 3 || n > 4 || !is_name (w[1]))
    return bad (error, line, "metric NAME VALUE [ROUND]");
  if (!g_ascii_string_to_signed (w[2], 10, G_MININT64 + 1, G_MAXINT64, &x, NULL))
    return bad (error, line, "VALUE is an integer (a NAME ending in _s: nanoseconds)");
  if (n == 4)
    {
      if (!uint_of (w[3], PROTO_GUEST_MAX_ROUND, &v) || v == 0)
        return bad (error, line, "ROUND is a round number from 1 to " G_STRINGIFY (1000000));
      out->round = (int32_t) v;
    }
  out->kind = PROTO_GUEST_METRIC;
  out->value = x;
  out->text = g_strdup (w[1]);
  return TRUE;
}

/* model V1,V2,...: a peer's model (or a digest of it) as numbers. */
static gboolean
parse_model (const char *line, char **w, guint n, ProtoGuestAct *out, GError **error)
{
  if (n != 2)
    return bad (error, line, "model V1,V2,...: the peer's model as numbers, comma-separated");
  g_auto (GStrv) vs = g_strsplit (w[1], ",", -1);
  guint nv = g_strv_length (vs);
  if (nv == 0 || nv > PROTO_GUEST_MODEL_MAX)
    return bad (error, line, "model: 1 to 1048576 numbers");
  float *values = g_new (float, nv);
  for (guint i = 0; i < nv; i++)
    {
      char *end = NULL;
      double d = g_ascii_strtod (vs[i], &end);
      if (!*vs[i] || !end || *end || !isfinite (d) || fabs (d) > G_MAXFLOAT)
        {
          g_free (values);
          return bad (error, line, "model: each value is a finite number");
        }
      values[i] = (float) d;
    }
  out->kind = PROTO_GUEST_MODEL;
  out->values = values;
  out->n_values = nv;
  return TRUE;
}

gboolean
proto_guest_line_parse (const char *line, ProtoGuestAct *out, GError **error)
{
  *out = (ProtoGuestAct) { .round = -1, .to = PROTO_NO_NODE };
  if (*line == '\0' || strchr (line, '\t') || g_str_has_prefix (line, " ") || g_str_has_suffix (line, " ")
      || strstr (line, "  "))
    return bad (error, line, "an action is words separated by single spaces");
  /* the free text of failed and note: the rest of the line */
  if (g_str_has_prefix (line, "failed ") || g_str_has_prefix (line, "note "))
    {
      out->kind = line[0] == 'f' ? PROTO_GUEST_FAILED : PROTO_GUEST_NOTE;
      out->text = g_strdup (strchr (line, ' ') + 1);
      return TRUE;
    }
  g_auto (GStrv) w = g_strsplit (line, " ", -1);
  guint n = g_strv_length (w);
  const char *verb = w[0];
  if (strcmp (verb, "send") == 0)
    return parse_send (line, w, n, out, error);
  if (strcmp (verb, "open") == 0 || strcmp (verb, "connect") == 0 || strcmp (verb, "close") == 0)
    return parse_link (line, w, n, out, error);
  if (strcmp (verb, "disconnect") == 0 || strcmp (verb, "finished") == 0)
    return parse_bare (line, w, n, out, error);
  if (strcmp (verb, "train") == 0 || strcmp (verb, "round") == 0)
    return parse_round (line, w, n, out, error);
  if (strcmp (verb, "list") == 0)
    return parse_list (line, w, n, out, error);
  if (strcmp (verb, "deadline") == 0)
    return parse_deadline (line, w, n, out, error);
  if (strcmp (verb, "state") == 0)
    return parse_state (line, w, n, out, error);
  if (strcmp (verb, "metric") == 0)
    return parse_metric (line, w, n, out, error);
  if (strcmp (verb, "model") == 0)
    return parse_model (line, w, n, out, error);
  int fact = parse_fact (line, w, n, out, error);
  if (fact != 0)
    return fact > 0;
  return bad (error, line, "unknown action (send, open, connect, close, disconnect, train, deadline, state, round, "
                           "list, finished, failed, note, metric, model, start, retry, excluded, synced, reset, "
                           "foreign, quiet)");
}
