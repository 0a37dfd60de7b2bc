/* testbed-records.c — the testbed's record and control lines
 * (testbed-records.h): a leaf that calls no other file of testbed/. */
#include "config.h"

#include "testbed/testbed-records.h"
#include "protocol/proto-machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
clean (char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || *s == '\r')
      *s = ' ';
}

/* A record line (with its newline) to stdout and/or the line callback. */
static void
emit (TestbedRecordSink *k, char *line)
{
  if (k->out)
    {
      fputs (line, k->out);
      fflush (k->out);
    }
  if (k->line)
    {
      line[strcspn (line, "\n")] = '\0';
      k->line (k->line_ud, line);
    }
  g_free (line);
}

static void
sink_observation (gpointer ud, DlTime t, ProtoNodeId node, const ProtoObservation *o)
{
  TestbedRecordSink *k = ud;
  char detail[PROTO_OBS_DETAIL_LEN];
  g_strlcpy (detail, o->detail, sizeof detail);
  clean (detail);
  emit (k, g_strdup_printf ("O\t%" G_GINT64_FORMAT "\t%u\t%d\t%s\t%d\t%u\t%d\t%" G_GINT64_FORMAT "\t%s\n", t, node,
           (int) o->kind, o->state ? o->state : "", o->round, o->other, o->msg_type, o->value, detail));
  LearnWeights *w = o->kind == PROTO_OBS_ROUND_END && k->peer ? proto_machine_model (k->peer) : NULL;
  if (w && !learn_weights_is_symbolic (w))   /* a family without a model (the pipeline) has none */
    {
      g_autofree char *b64 = g_base64_encode ((const guchar *) learn_weights_data (w), learn_weights_byte_size (w));
      emit (k, g_strdup_printf ("W\t%u\t%s\n", node, b64));
    }
}

static void
sink_fact (gpointer ud, DlTime t, ProtoNodeId node, ProtoNodeId other, const char *kind, const char *detail)
{
  TestbedRecordSink *k = ud;
  g_autofree char *d = g_strdup (detail ? detail : "");
  g_autofree char *kd = g_strdup (kind ? kind : "");
  clean (d);
  clean (kd);
  emit (k, g_strdup_printf ("F\t%" G_GINT64_FORMAT "\t%u\t%u\t%s\t%s\n", t, node, other, kd, d));
}

static void
sink_metric (gpointer ud, DlTime t, int round, ProtoNodeId peer, const char *name, double value)
{
  TestbedRecordSink *k = ud;
  emit (k, g_strdup_printf ("M\t%" G_GINT64_FORMAT "\t%d\t%u\t%s\t%.17g\n", t, round, peer, name, value));
}

static void
sink_traffic (gpointer ud, ProtoMsgType type, gsize bytes)
{
  TestbedRecordSink *k = ud;
  emit (k, g_strdup_printf ("T\t%d\t%zu\n", (int) type, bytes));
}

void
testbed_record_sink_init (TestbedRecordSink *sink, FILE *out)
{
  memset (sink, 0, sizeof *sink);
  sink->out = out;
}

SimRecorder
testbed_record_sink_recorder (TestbedRecordSink *sink)
{
  return (SimRecorder) { sink_observation, sink_fact, sink_metric, sink_traffic, sink };
}

static gboolean
int64_of (const char *s, gint64 min, gint64 max, gint64 *out)
{
  return g_ascii_string_to_signed (s, 10, min, max, out, NULL);
}

gboolean
testbed_record_parse (const char *line, const SimRecorder *rec)
{
  g_auto (GStrv) f = g_strsplit (line, "\t", 11);
  guint n = g_strv_length (f);
  gint64 t, a, b, c, d, e;
  if (n == 10 && strcmp (f[0], "O") == 0)
    {
      if (!int64_of (f[1], 0, G_MAXINT64, &t) || !int64_of (f[2], 0, G_MAXUINT32, &a)
          || !int64_of (f[3], 0, PROTO_OBS_N_KINDS - 1, &b) || !int64_of (f[5], -1, G_MAXINT32, &c)
          || !int64_of (f[6], 0, G_MAXUINT32, &d) || !int64_of (f[7], -1, PROTO_MSG_TYPE_LIMIT - 1, &e)
          || (e >= 0 && !proto_msg_type_known ((ProtoMsgType) e)))
        return FALSE;
      gint64 v;
      if (!int64_of (f[8], G_MININT64, G_MAXINT64, &v))
        return FALSE;
      ProtoObservation o = { .kind = (ProtoObsKind) b, .state = g_intern_string (f[4]), .round = (int32_t) c,
                             .other = (ProtoNodeId) d, .msg_type = (int32_t) e, .value = v };
      g_strlcpy (o.detail, f[9], sizeof o.detail);
      if (rec->observation)
        rec->observation (rec->user_data, t, (ProtoNodeId) a, &o);
      return TRUE;
    }
  if (n == 6 && strcmp (f[0], "F") == 0)
    {
      if (!int64_of (f[1], 0, G_MAXINT64, &t) || !int64_of (f[2], 0, G_MAXUINT32, &a)
          || !int64_of (f[3], 0, G_MAXUINT32, &b))
        return FALSE;
      if (rec->fact)
        rec->fact (rec->user_data, t, (ProtoNodeId) a, (ProtoNodeId) b, g_intern_string (f[4]), f[5]);
      return TRUE;
    }
  if (n == 6 && strcmp (f[0], "M") == 0)
    {
      char *end = NULL;
      double v = g_ascii_strtod (f[5], &end);
      if (!int64_of (f[1], 0, G_MAXINT64, &t) || !int64_of (f[2], -1, G_MAXINT32, &a)
          || !int64_of (f[3], 0, G_MAXUINT32, &b) || !end || *end)
        return FALSE;
      if (rec->metric)
        rec->metric (rec->user_data, t, (int) a, (ProtoNodeId) b, g_intern_string (f[4]), v);
      return TRUE;
    }
  if (n == 3 && strcmp (f[0], "T") == 0)
    {
      if (!int64_of (f[1], 0, PROTO_MSG_TYPE_LIMIT - 1, &a) || !proto_msg_type_known ((ProtoMsgType) a)
          || !int64_of (f[2], 0, G_MAXINT64, &b))
        return FALSE;
      if (rec->traffic)
        rec->traffic (rec->user_data, (ProtoMsgType) a, (gsize) b);
      return TRUE;
    }
  return FALSE;
}

gboolean
testbed_record_parse_model (const char *line, ProtoNodeId *out_node, LearnWeights **out_weights)
{
  g_auto (GStrv) f = g_strsplit (line, "\t", 4);
  gint64 node;
  if (g_strv_length (f) != 3 || strcmp (f[0], "W") != 0 || !int64_of (f[1], 1, G_MAXUINT32, &node))
    return FALSE;
  gsize len = 0;
  g_autofree guchar *raw = g_base64_decode (f[2], &len);
  if (len % sizeof (float) != 0)
    return FALSE;
  *out_node = (ProtoNodeId) node;
  *out_weights = learn_weights_new_from ((const float *) (const void *) raw, len / sizeof (float));
  return TRUE;
}

char *
testbed_rule_line (const SimAction *a)
{
  if (a->kind == SIM_ACT_SLOW)
    return g_strdup_printf ("rule slow %u %.17g", a->a, a->value);
  if (a->kind == SIM_ACT_LINK_FAIL)
    return g_strdup_printf ("rule link-fail %u %u", a->a, a->b);
  return g_strdup_printf ("rule %s %d %u %d %u %" G_GINT64_FORMAT, a->kind == SIM_ACT_DROP ? "drop" : "delay",
                          a->msg_type, a->a, a->value == 1, a->count, a->delay);
}

gboolean
testbed_rule_parse (const char *line, SimAction *out)
{
  g_auto (GStrv) f = g_strsplit (line, " ", 0);
  gint64 type, node, from, count, delay, other;
  guint nf = g_strv_length (f);
  if (nf == 4 && strcmp (f[0], "rule") == 0 && strcmp (f[1], "slow") == 0)
    {
      char *end = NULL;
      double v = g_ascii_strtod (f[3], &end);
      if (!int64_of (f[2], 1, G_MAXUINT32, &node) || !end || *end || !(v > 0) || !isfinite (v))
        return FALSE;
      memset (out, 0, sizeof *out);
      out->kind = SIM_ACT_SLOW;
      out->a = (ProtoNodeId) node;
      out->value = v;
      return TRUE;
    }
  if (nf == 4 && strcmp (f[0], "rule") == 0 && strcmp (f[1], "link-fail") == 0)
    {
      if (!int64_of (f[2], 1, G_MAXUINT32, &node) || !int64_of (f[3], 1, G_MAXUINT32, &other))
        return FALSE;
      memset (out, 0, sizeof *out);
      out->kind = SIM_ACT_LINK_FAIL;
      out->a = (ProtoNodeId) node;
      out->b = (ProtoNodeId) other;
      return TRUE;
    }
  if (g_strv_length (f) != 7 || strcmp (f[0], "rule") != 0
      || (strcmp (f[1], "drop") != 0 && strcmp (f[1], "delay") != 0)
      || !int64_of (f[2], 0, PROTO_MSG_TYPE_LIMIT - 1, &type) || !proto_msg_type_known ((ProtoMsgType) type)
      || !int64_of (f[3], 0, G_MAXUINT32, &node)
      || !int64_of (f[4], 0, 1, &from) || !int64_of (f[5], 0, G_MAXUINT32, &count)
      || !int64_of (f[6], 0, G_MAXINT64, &delay))
    return FALSE;
  memset (out, 0, sizeof *out);
  out->kind = strcmp (f[1], "drop") == 0 ? SIM_ACT_DROP : SIM_ACT_DELAY;
  out->msg_type = (int) type;
  out->a = (ProtoNodeId) node;
  out->value = from ? 1 : 0;
  out->count = (guint) count;
  out->delay = delay;
  return TRUE;
}
