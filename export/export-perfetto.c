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
close_span (Out *o, GHashTable *open, const char *node, double t)
{
  Open *op = g_hash_table_lookup (open, node);
  if (!op)
    return;
  json_builder_begin_object (o->b);
  event (o, "X", op->phase, "phase", op->since, tid_of (o, node));
  json_builder_set_member_name (o->b, "dur");
  json_builder_add_double_value (o->b, MAX (t - op->since, 0));
  json_builder_end_object (o->b);
  g_hash_table_remove (open, node);
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

gboolean
export_perfetto (struct sqlite3 *db, gint64 run, const char *peer, gboolean brief, const char *path, GError **error)
{
  Out o = { json_builder_new (), g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
            g_ptr_array_new_with_free_func (g_free) };
  g_autoptr (GHashTable) open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, open_free);
  g_autoptr (GHashTable) sends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, sends_free);
  double end = res_db_run_end_s (db, run) * 1e6;
  json_builder_begin_object (o.b);
  json_builder_set_member_name (o.b, "displayTimeUnit");
  json_builder_add_string_value (o.b, "ms");
  json_builder_set_member_name (o.b, "traceEvents");
  json_builder_begin_array (o.b);
  tid_of (&o, "S");
  /* --peer and --brief keep the rows `dlsim trace` prints */
  ResRows *st = res_db_trace_timeline (db, run, peer, brief);
  guint64 flow = 0;
  while (res_rows_next (st))
    {
      double t = res_rows_double (st, 0) * 1e6;
      const char *node = res_rows_text (st, 1);
      const char *kind = res_rows_text (st, 2);
      const char *other = res_rows_text (st, 3);
      const char *detail = res_rows_text (st, 4);
      const char *msg = res_rows_text (st, 5);
      if (!kind)
        kind = "?";   /* a damaged row */
      if (!node || !*node || strcmp (node, "world") == 0)
        node = "world";
      end = MAX (end, t);
      gint64 tid = tid_of (&o, node);
      if (strcmp (kind, "phase") == 0)
        {
          close_span (&o, open, node, t);
          Open *op = g_new0 (Open, 1);
          op->phase = g_strdup (detail);
          op->since = t;
          g_hash_table_insert (open, g_strdup (node), op);
          continue;
        }
      if (strcmp (kind, "leave") == 0 || strcmp (kind, "crash") == 0 || strcmp (kind, "disconnect") == 0)
        close_span (&o, open, node, t);
      if (strcmp (kind, "sent") == 0 && *other && *msg)
        {
          g_autofree char *key = g_strdup_printf ("%s>%s:%s", node, other, msg);
          GQueue *q = g_hash_table_lookup (sends, key);
          if (!q)
            g_hash_table_insert (sends, g_strdup (key), q = g_queue_new ());
          double *ts = g_new (double, 1);
          *ts = t;
          g_queue_push_tail (q, ts);
          continue;
        }
      if ((strcmp (kind, "received") == 0 || strcmp (kind, "dropped") == 0) && *other && *msg)
        {
          g_autofree char *key = g_strdup_printf ("%s>%s:%s", other, node, msg);
          GQueue *q = g_hash_table_lookup (sends, key);
          g_autofree double *ts = q ? g_queue_pop_head (q) : NULL;
          if (ts)
            {
              flow++;
              json_builder_begin_object (o.b);
              event (&o, "s", msg, "message", *ts, tid_of (&o, other));
              json_builder_set_member_name (o.b, "id");
              json_builder_add_int_value (o.b, (gint64) flow);
              json_builder_end_object (o.b);
              json_builder_begin_object (o.b);
              event (&o, "f", msg, "message", t, tid);
              json_builder_set_member_name (o.b, "id");
              json_builder_add_int_value (o.b, (gint64) flow);
              json_builder_set_member_name (o.b, "bp");
              json_builder_add_string_value (o.b, "e");
              json_builder_end_object (o.b);
            }
          if (strcmp (kind, "received") == 0)
            continue;
        }
      /* everything else: an instant on the node's track */
      g_autofree char *name = *detail ? g_strdup_printf ("%s: %s", kind, detail) : g_strdup (kind);
      json_builder_begin_object (o.b);
      event (&o, "i", name, kind, t, tid);
      json_builder_set_member_name (o.b, "s");
      json_builder_add_string_value (o.b, "t");
      json_builder_end_object (o.b);
    }
  gboolean failed = res_rows_failed (st);
  if (failed)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "run %" G_GINT64_FORMAT "'s events cannot be read: %s",
                 run, res_rows_error (st));
  res_rows_free (st);
  if (failed)
    {
      g_object_unref (o.b);
      g_hash_table_unref (o.tid);
      g_ptr_array_unref (o.names);
      return FALSE;
    }
  /* spans still open end with the run */
  g_autoptr (GList) nodes = g_hash_table_get_keys (open);
  GList *copy = NULL;
  for (GList *l = nodes; l; l = l->next)
    copy = g_list_prepend (copy, g_strdup (l->data));
  copy = g_list_sort (copy, (GCompareFunc) strcmp);
  for (GList *l = copy; l; l = l->next)
    close_span (&o, open, l->data, end);
  g_list_free_full (copy, g_free);
  /* track names, in the order the nodes appeared */
  for (guint i = 0; i < o.names->len; i++)
    {
      json_builder_begin_object (o.b);
      json_builder_set_member_name (o.b, "ph");
      json_builder_add_string_value (o.b, "M");
      json_builder_set_member_name (o.b, "name");
      json_builder_add_string_value (o.b, "thread_name");
      json_builder_set_member_name (o.b, "pid");
      json_builder_add_int_value (o.b, 1);
      json_builder_set_member_name (o.b, "tid");
      json_builder_add_int_value (o.b, i + 1);
      json_builder_set_member_name (o.b, "args");
      json_builder_begin_object (o.b);
      json_builder_set_member_name (o.b, "name");
      json_builder_add_string_value (o.b, o.names->pdata[i]);
      json_builder_end_object (o.b);
      json_builder_end_object (o.b);
    }
  json_builder_end_array (o.b);
  json_builder_end_object (o.b);
  g_autoptr (JsonNode) root = json_builder_get_root (o.b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  gboolean ok = json_generator_to_file (gen, path, error);
  g_object_unref (o.b);
  g_hash_table_unref (o.tid);
  g_ptr_array_unref (o.names);
  return ok;
}
