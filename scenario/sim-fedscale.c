/* sim-fedscale.c — FedScale's device traces (see sim-fedscale.h): the
 * client behaviour (availability) trace and the device capacity trace,
 * one JSON object per line.
 *
 * FedScale's documentation of both formats:
 * benchmark/dataset/data/device_info/README.md ("Device Trace File
 * Formats"); how its simulator reads them: fedscale/cloud/internal/
 * client_metadata.py (ClientMetadata.is_active, get_completion_time) and
 * fedscale/cloud/aggregation/aggregator.py (model_update_size in kbits).
 *
 * Not modelled: the `model` field (the device's name) is read and
 * ignored; so is `duration` when `finish_time` is given. */
#include "config.h"

#include "scenario/sim-fedscale.h"
#include "scenario/sim-scenario-private.h"   /* SIM_PEERS_MAX */
#include "base/dl-idset.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* The most intervals a behaviour trace may make up to the time limit, all
 * its lines together (an interval is 32 bytes: 32 MB). */
#define SIM_FEDSCALE_INTERVALS_MAX 1000000u

typedef gboolean (*LineFn) (gpointer ud, JsonObject *o, guint line, const char **why);

/* How deep a line may nest arrays and objects: json-glib's parser
 * recurses once a level, so 100 000 `[` overflowed the stack; a trace
 * line needs 2 (an object holding lists). */
#define SIM_FEDSCALE_DEPTH_MAX 16

/* TRUE if l nests `[` and `{` (outside strings) deeper than
 * SIM_FEDSCALE_DEPTH_MAX: a scan, before the recursive parse. */
static gboolean
too_deep (const char *l)
{
  guint depth = 0;
  gboolean in_string = FALSE, escaped = FALSE;
  for (const char *q = l; *q; q++)
    {
      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (*q == '\\')
            escaped = TRUE;
          else if (*q == '"')
            in_string = FALSE;
        }
      else if (*q == '"')
        in_string = TRUE;
      else if ((*q == '[' || *q == '{') && ++depth > SIM_FEDSCALE_DEPTH_MAX)
        return TRUE;
      else if ((*q == ']' || *q == '}') && depth > 0)
        depth--;
    }
  return FALSE;
}

/* Calls fn on each JSON object line of the file; blank lines and lines
 * starting with # are skipped.  Errors name the file and the line. */
static gboolean
each_line (const char *path, LineFn fn, gpointer ud, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s", path, local->message);
      return FALSE;
    }
  if (memchr (text, '\0', len))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: a NUL byte (not a text file)", path);
      return FALSE;
    }
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (JsonParser) parser = json_parser_new ();
  for (guint i = 0; lines[i]; i++)
    {
      char *l = g_strstrip (lines[i]);
      if (*l == '\0' || *l == '#')
        continue;
      g_autoptr (GError) pe = NULL;
      const char *why = NULL;
      JsonNode *root = NULL;
      if (too_deep (l))
        why = "[ and { nest more than " G_STRINGIFY (SIM_FEDSCALE_DEPTH_MAX) " deep (a trace line needs 2)";
      else if (!json_parser_load_from_data (parser, l, -1, &pe))
        why = pe->message;
      else if (!(root = json_parser_get_root (parser)) || !JSON_NODE_HOLDS_OBJECT (root))
        why = "expected one JSON object per line";
      else if (fn (ud, json_node_get_object (root), i + 1, &why))
        continue;
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s:%u: %s", path, i + 1, why);
      return FALSE;
    }
  return TRUE;
}

static gboolean
number_of (JsonObject *o, const char *name, double *out)
{
  JsonNode *n = json_object_get_member (o, name);
  if (!n || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  GType t = json_node_get_value_type (n);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (n);
  return isfinite (*out);
}

/* FedScale's client ids are integers from 1 (load_sim_data numbers them
 * so); client N is peer pN */
static gboolean
client_of (JsonObject *o, guint *out, const char **why)
{
  double id;
  if (!number_of (o, "client_id", &id) || id < 1 || id > SIM_PEERS_MAX || id != floor (id))
    {
      *why = "client_id must be a whole number from 1 (client N is peer pN)";
      return FALSE;
    }
  *out = (guint) id;
  return TRUE;
}

/* ---------------------------------------------------------------- availability */

typedef struct {
  GArray *out;
  DlTime horizon;
  DlIdSet seen;
} Behave;

static gboolean
times_of (JsonObject *o, const char *name, GArray *out)
{
  JsonNode *n = json_object_get_member (o, name);
  if (!n || !JSON_NODE_HOLDS_ARRAY (n))
    return FALSE;
  JsonArray *a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e)
          || (json_node_get_value_type (e) != G_TYPE_INT64 && json_node_get_value_type (e) != G_TYPE_DOUBLE))
        return FALSE;
      double v = json_node_get_double (e);
      if (!isfinite (v) || v < 0 || v > 9e9)
        return FALSE;
      g_array_append_val (out, v);
    }
  return TRUE;
}

static void
add_interval (Behave *b, guint peer, guint line, double from_s, double to_s)
{
  DlTime join = (DlTime) llround (from_s * 1e9), leave = (DlTime) llround (to_s * 1e9);
  if (join >= b->horizon)
    return;
  if (b->out->len > 0)
    {
      /* touching the one before (a period that wraps online): one interval */
      SimTraceEntry *last = &g_array_index (b->out, SimTraceEntry, b->out->len - 1);
      if (last->peer == peer && last->leave >= join)
        {
          last->leave = MAX (last->leave, leave);
          return;
        }
    }
  SimTraceEntry e = { .peer = peer, .join = join, .leave = leave, .line = line };
  g_array_append_val (b->out, e);
}

static gboolean
behave_line (gpointer ud, JsonObject *o, guint line, const char **why)
{
  Behave *b = ud;
  guint peer;
  double duration, period;
  g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) inactive = g_array_new (FALSE, FALSE, sizeof (double));
  if (!client_of (o, &peer, why))
    return FALSE;
  if (!dl_id_set_add (&b->seen, peer))
    return (*why = "this client_id has a line already (one line per client)", FALSE);
  if (!number_of (o, "duration", &duration) || duration < 0)
    return (*why = "duration must be a number of seconds >= 0", FALSE);
  if (!times_of (o, "active", active) || !times_of (o, "inactive", inactive))
    return (*why = "active and inactive must be lists of seconds >= 0", FALSE);
  if (active->len != inactive->len || active->len == 0)
    return (*why = "active and inactive must be lists of one length, at least 1 (interval i is active[i] to inactive[i])",
            FALSE);
  if (json_object_has_member (o, "finish_time"))
    {
      if (!number_of (o, "finish_time", &period) || period <= 0)
        return (*why = "finish_time must be a number of seconds > 0", FALSE);
    }
  else if ((period = duration) <= 0)
    return (*why = "without finish_time, duration (the trace's period) must be > 0", FALSE);
  for (guint i = 0; i < active->len; i++)
    {
      double a = g_array_index (active, double, i), z = g_array_index (inactive, double, i);
      if (z <= a)
        return (*why = "each inactive time must come after its active time", FALSE);
      if (i > 0 && a < g_array_index (inactive, double, i - 1))
        return (*why = "an interval overlaps the one before it (active[i] < inactive[i-1])", FALSE);
      if (z > period)
        return (*why = "a time is past finish_time (the trace's period)", FALSE);
    }
  /* FedScale's is_active takes the time modulo finish_time: the intervals
   * repeat every period, here up to the run's time limit */
  guint64 periods = (guint64) ceil ((double) b->horizon / 1e9 / period);
  if (periods * active->len > SIM_FEDSCALE_INTERVALS_MAX - b->out->len)
    return (*why = "the file's intervals up to the time limit pass 1 000 000 with this line (a bound on the whole "
                   "file: lower scenario.time_limit, or give fewer clients or intervals)", FALSE);
  for (guint64 k = 0; k < periods; k++)
    for (guint i = 0; i < active->len; i++)
      add_interval (b, peer, line, k * period + g_array_index (active, double, i),
                    k * period + g_array_index (inactive, double, i));
  return TRUE;
}

GArray *
sim_fedscale_load_behaviour (const char *path, DlTime horizon, GError **error)
{
  Behave b = { g_array_new (FALSE, FALSE, sizeof (SimTraceEntry)), horizon };
  dl_id_set_init (&b.seen);
  gboolean ok = each_line (path, behave_line, &b, error) && sim_trace_check (b.out, path, error);
  dl_id_set_clear (&b.seen);
  if (!ok)
    g_clear_pointer (&b.out, g_array_unref);
  return b.out;
}

/* ---------------------------------------------------------------- capacity */

static gboolean
capacity_line (gpointer ud, JsonObject *o, guint line, const char **why)
{
  GArray *out = ud;
  guint peer;
  double ms, kbps;
  (void) line;
  if (!client_of (o, &peer, why))
    return FALSE;
  if (!number_of (o, "computation", &ms) || ms <= 0)
    return (*why = "computation must be a number of ms per sample > 0", FALSE);
  if (!number_of (o, "communication", &kbps) || kbps <= 0 || kbps * 1024 < 1e3 || kbps * 1024 > 1e15)
    return (*why = "communication must be a rate in kbit/s from 1 (1 kbit = 1024 bits, as FedScale counts)", FALSE);
  if (out->len <= peer)
    g_array_set_size (out, peer + 1);
  SimCapacity *c = &g_array_index (out, SimCapacity, peer);
  if (c->ms_per_sample > 0)
    return (*why = "this client_id has a line already (one line per client)", FALSE);
  c->ms_per_sample = ms;
  c->bps = (uint64_t) llround (kbps * 1024);
  return TRUE;
}

GArray *
sim_fedscale_load_capacity (const char *path, GError **error)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (SimCapacity));
  if (!each_line (path, capacity_line, out, error))
    g_clear_pointer (&out, g_array_unref);
  return out;
}
