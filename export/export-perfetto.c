/* export-perfetto.c — `dlsim trace DB --run ID --format perfetto -o FILE`
 * (cli/cmd-report.c parses and calls it; export/export.h):
 * one run in the Chrome trace-event JSON format, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open as a zoomable timeline.
 *
 * - Each node is a track (a thread of process 1, named S, p1, p2, ...).
 * - Each protocol phase is a complete span ("X"), from its phase event to
 *   the next one (or a leave or crash, or the end of the run).  Every span
 *   closes by construction.
 * - Each message that was sent and then received or dropped is a flow
 *   arrow ("s" at the sender, "f" at the receiver), matched first in, first
 *   out per (sender, receiver, type).  A message lost on the way has no
 *   arrow, so every arrow has both ends.
 * - Everything else (timers, retries, exclusions, violations, world facts)
 *   is an instant event ("i") on the node's track.
 * Times are microseconds of simulated (or, for the testbed, wall) time.
 * --peer and --brief keep the events `dlsim trace` prints with them: what
 * happened at or with one node (its spans, and the arrows to and from it),
 * and no sends or receives (no arrows; drops stay). */
#include "config.h"

#include "export/export.h"
#include "results/res-query.h"

#include <json-glib/json-glib.h>
#include <string.h>

typedef struct {
  JsonBuilder *b;
  GHashTable *tid;      /* node name -> tid (1-based) */
  GPtrArray *names;     /* tid - 1 -> name */
  GHashTable *open;     /* node name -> its open span (Open) */
  GHashTable *sends;    /* "from>to:type" -> queue of send times */
  guint64 flow;         /* the last arrow's id */
} Out;

static gint64
tid_of (Out *o, const char *node)
{
  gpointer v = g_hash_table_lookup (o->tid, node);
  if (v)
    return GPOINTER_TO_INT (v);
  g_ptr_array_add (o->names, g_strdup (node));
  g_hash_table_insert (o->tid, g_strdup (node), GINT_TO_POINTER (o->names->len));
  return o->names->len;
}

static void
event (Out *o, const char *ph, const char *name, const char *cat, double ts_us, gint64 tid)
{
  json_builder_set_member_name (o->b, "ph");
  json_builder_add_string_value (o->b, ph);
  json_builder_set_member_name (o->b, "name");
  json_builder_add_string_value (o->b, name);
  json_builder_set_member_name (o->b, "cat");
  json_builder_add_string_value (o->b, cat);
  json_builder_set_member_name (o->b, "ts");
  json_builder_add_double_value (o->b, ts_us);
  json_builder_set_member_name (o->b, "pid");
  json_builder_add_int_value (o->b, 1);
  json_builder_set_member_name (o->b, "tid");
  json_builder_add_int_value (o->b, tid);
}

typedef struct {
  char *phase;
  double since;
} Open;

static void
close_span (Out *o, const char *node, double t)
{
  Open *op = g_hash_table_lookup (o->open, node);
  if (!op)
    return;
  json_builder_begin_object (o->b);
  event (o, "X", op->phase, "phase", op->since, tid_of (o, node));
  json_builder_set_member_name (o->b, "dur");
  json_builder_add_double_value (o->b, MAX (t - op->since, 0));
  json_builder_end_object (o->b);
  g_hash_table_remove (o->open, node);
}

static void
open_free (gpointer data)
{
  Open *op = data;
  g_free (op->phase);
  g_free (op);
}

/* a sends queue's entries are g_new'd times */
static void
sends_free (gpointer q)
{
  g_queue_free_full (q, g_free);
}

static void
out_clear (Out *o)
{
  g_object_unref (o->b);
  g_hash_table_unref (o->tid);
  g_ptr_array_unref (o->names);
  g_hash_table_unref (o->open);
  g_hash_table_unref (o->sends);
}

/* one row of res_db_trace_timeline, its node's track found */
typedef struct {
  double t;             /* microseconds */
  const char *node, *kind, *other, *detail, *msg;
  gint64 tid;
} Row;

/* a phase event: the node's open span ends, the phase's begins */
static void
on_phase (Out *o, const Row *r)
{
  close_span (o, r->node, r->t);
  Open *op = g_new0 (Open, 1);
  op->phase = g_strdup (r->detail);
  op->since = r->t;
  g_hash_table_insert (o->open, g_strdup (r->node), op);
}

/* a send waits for its receive or drop, first in, first out per
 * (sender, receiver, type) */
static void
on_sent (Out *o, const Row *r)
{
  g_autofree char *key = g_strdup_printf ("%s>%s:%s", r->node, r->other, r->msg);
  GQueue *q = g_hash_table_lookup (o->sends, key);
  if (!q)
    g_hash_table_insert (o->sends, g_strdup (key), q = g_queue_new ());
  double *ts = g_new (double, 1);
  *ts = r->t;
  g_queue_push_tail (q, ts);
}

/* a receive or drop: the arrow from the oldest waiting send, if any */
static void
on_arrival (Out *o, const Row *r)
{
  g_autofree char *key = g_strdup_printf ("%s>%s:%s", r->other, r->node, r->msg);
  GQueue *q = g_hash_table_lookup (o->sends, key);
  g_autofree double *ts = q ? g_queue_pop_head (q) : NULL;
  if (!ts)
    return;
  o->flow++;
  json_builder_begin_object (o->b);
  event (o, "s", r->msg, "message", *ts, tid_of (o, r->other));
  json_builder_set_member_name (o->b, "id");
  json_builder_add_int_value (o->b, (gint64) o->flow);
  json_builder_end_object (o->b);
  json_builder_begin_object (o->b);
  event (o, "f", r->msg, "message", r->t, r->tid);
  json_builder_set_member_name (o->b, "id");
  json_builder_add_int_value (o->b, (gint64) o->flow);
  json_builder_set_member_name (o->b, "bp");
  json_builder_add_string_value (o->b, "e");
  json_builder_end_object (o->b);
}

/* everything else: an instant on the node's track */
static void
on_instant (Out *o, const Row *r)
{
  g_autofree char *name = *r->detail ? g_strdup_printf ("%s: %s", r->kind, r->detail) : g_strdup (r->kind);
  json_builder_begin_object (o->b);
  event (o, "i", name, r->kind, r->t, r->tid);
  json_builder_set_member_name (o->b, "s");
  json_builder_add_string_value (o->b, "t");
  json_builder_end_object (o->b);
}

static void
add_row (Out *o, const Row *r)
{
  const char *kind = r->kind;
  if (strcmp (kind, "phase") == 0)
    {
      on_phase (o, r);
      return;
    }
  if (strcmp (kind, "leave") == 0 || strcmp (kind, "crash") == 0 || strcmp (kind, "disconnect") == 0)
    close_span (o, r->node, r->t);
  gboolean message = *r->other && *r->msg;
  if (strcmp (kind, "sent") == 0 && message)
    {
      on_sent (o, r);
      return;
    }
  if ((strcmp (kind, "received") == 0 || strcmp (kind, "dropped") == 0) && message)
    {
      on_arrival (o, r);
      if (strcmp (kind, "received") == 0)
        return;   /* a drop also stays as an instant */
    }
  on_instant (o, r);
}

/* the run's events in turn, END moved to the last one's time; FALSE
 * with ERROR set if they cannot be read.  --peer and --brief keep the
 * rows `dlsim trace` prints. */
static gboolean
add_rows (Out *o, struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, double *end, GError **error)
{
  ResRows *st = res_db_trace_timeline (db, run, peer, brief);
  while (res_rows_next (st))
    {
      Row r = { res_rows_double (st, 0) * 1e6, res_rows_text (st, 1), res_rows_text (st, 2),
                res_rows_text (st, 3), res_rows_text (st, 4), res_rows_text (st, 5), 0 };
      if (!r.kind)
        r.kind = "?";   /* a damaged row */
      if (!r.node || !*r.node || strcmp (r.node, "world") == 0)
        r.node = "world";
      *end = MAX (*end, r.t);
      r.tid = tid_of (o, r.node);
      add_row (o, &r);
    }
  gboolean failed = res_rows_failed (st);
  if (failed)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "run %" G_GINT64_FORMAT "'s events cannot be read: %s",
                 run, res_rows_error (st));
  res_rows_free (st);
  return !failed;
}

/* spans still open end with the run, in the order of their nodes' names */
static void
close_open_spans (Out *o, double end)
{
  g_autoptr (GList) nodes = g_hash_table_get_keys (o->open);
  GList *copy = NULL;
  for (GList *l = nodes; l; l = l->next)
    copy = g_list_prepend (copy, g_strdup (l->data));
  copy = g_list_sort (copy, (GCompareFunc) strcmp);
  for (GList *l = copy; l; l = l->next)
    close_span (o, l->data, end);
  g_list_free_full (copy, g_free);
}

/* track names, in the order the nodes appeared */
static void
add_track_names (Out *o)
{
  for (guint i = 0; i < o->names->len; i++)
    {
      json_builder_begin_object (o->b);
      json_builder_set_member_name (o->b, "ph");
      json_builder_add_string_value (o->b, "M");
      json_builder_set_member_name (o->b, "name");
      json_builder_add_string_value (o->b, "thread_name");
      json_builder_set_member_name (o->b, "pid");
      json_builder_add_int_value (o->b, 1);
      json_builder_set_member_name (o->b, "tid");
      json_builder_add_int_value (o->b, i + 1);
      json_builder_set_member_name (o->b, "args");
      json_builder_begin_object (o->b);
      json_builder_set_member_name (o->b, "name");
      json_builder_add_string_value (o->b, o->names->pdata[i]);
      json_builder_end_object (o->b);
      json_builder_end_object (o->b);
    }
}

static gboolean
write_json (Out *o, const char *path, GError **error)
{
  g_autoptr (JsonNode) root = json_builder_get_root (o->b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  return json_generator_to_file (gen, path, error);
}

gboolean
export_perfetto (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, const char *path, GError **error)
{
  Out o = { json_builder_new (), g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
            g_ptr_array_new_with_free_func (g_free),
            g_hash_table_new_full (g_str_hash, g_str_equal, g_free, open_free),
            g_hash_table_new_full (g_str_hash, g_str_equal, g_free, sends_free), 0 };
  double end = res_db_run_end_s (db, run) * 1e6;
  json_builder_begin_object (o.b);
  json_builder_set_member_name (o.b, "displayTimeUnit");
  json_builder_add_string_value (o.b, "ms");
  json_builder_set_member_name (o.b, "traceEvents");
  json_builder_begin_array (o.b);
  tid_of (&o, "S");
  gboolean ok = add_rows (&o, db, run, peer, brief, &end, error);
  if (ok)
    {
      close_open_spans (&o, end);
      add_track_names (&o);
      json_builder_end_array (o.b);
      json_builder_end_object (o.b);
      ok = write_json (&o, path, error);
    }
  out_clear (&o);
  return ok;
}
