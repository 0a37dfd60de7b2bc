/* res-compare.c — two runs side by side for `dlsim compare` (res-compare.h
 * says what is compared and what is judged): the rows, from res-query.c's
 * questions; cli/cmd-compare.c prints them. */
#include "config.h"

#include "results/res-compare.h"
#include "results/res-query.h"

#include <math.h>
#include <string.h>

guint
res_compare_pick_run (struct sqlite3 *db, gint64 want, gint64 *out_run, char **out_mode)
{
  ResRows *st = res_db_compare_runs (db, want);
  guint n = 0;
  while (res_rows_next (st))
    if (n++ == 0)
      {
        *out_run = res_rows_int64 (st, 0);
        *out_mode = g_strdup (res_rows_text (st, 1));
      }
  res_rows_free (st);
  return n;
}

gboolean
res_compare_row_differs (const ResCompareRow *r)
{
  return g_strcmp0 (r->a, r->b) != 0;
}

static void
row_free (gpointer p)
{
  ResCompareRow *r = p;
  g_free (r->what);
  g_free (r->a);
  g_free (r->b);
  g_free (r);
}

static void
duration_free (gpointer p)
{
  ResCompareDuration *d = p;
  g_free (d->what);
  g_free (d);
}

/* Adds a row; takes a and b. */
static void
add_row (GPtrArray *rows, const char *what, char *a, char *b, gboolean judged)
{
  ResCompareRow *r = g_new (ResCompareRow, 1);
  *r = (ResCompareRow) { g_strdup (what), a, b, judged };
  g_ptr_array_add (rows, r);
}

static char *
summary (struct sqlite3 *db, gint64 run, const char *key)
{
  char *v = res_db_summary_value (db, run, key);
  return v ? v : g_strdup ("-");
}

static char *
run_outcome (struct sqlite3 *db, gint64 run)
{
  char *v = res_db_run_outcome (db, run);
  return v ? v : g_strdup ("-");
}

/* The first column of the rows as keys of a table (transfer full), with
 * value (st) as their values (NULL: none, a set); frees st. */
static GHashTable *
keyed (ResRows *st, char *(*value) (ResRows *st))
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  while (res_rows_next (st))
    g_hash_table_insert (h, g_strdup (res_rows_text (st, 0)), value ? value (st) : NULL);
  res_rows_free (st);
  return h;
}

/* a peer's "outcome rounds retries fails" */
static char *
peer_value (ResRows *st)
{
  return g_strdup_printf ("%s %d %d %d", res_rows_text (st, 1), res_rows_int (st, 2), res_rows_int (st, 3),
                          res_rows_int (st, 4));
}

/* a type's messages */
static char *
count_value (ResRows *st)
{
  return g_strdup_printf ("%d", res_rows_int (st, 1));
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
res_compare_quantile (const GArray *v, double q)
{
  if (v->len == 0)
    return NAN;
  guint k = (guint) ceil (q * v->len);
  return g_array_index (v, double, MIN (MAX (k, 1), v->len) - 1);
}

void
res_compare_durations (struct sqlite3 *db, gint64 run, GArray *period, GArray *exchange)
{
  ResRows *st = res_db_finished_rounds (db, run);
  double prev = NAN;
  int prev_round = -1;
  while (res_rows_next (st))
    {
      int r = res_rows_int (st, 0);
      double end = res_rows_double (st, 2);
      if (!res_rows_is_null (st, 1))
        {
          double x = end - res_rows_double (st, 1);
          g_array_append_val (exchange, x);
        }
      if (prev_round >= 0 && r == prev_round + 1)
        {
          double p = end - prev;
          g_array_append_val (period, p);
        }
      prev = end;
      prev_round = r;
    }
  res_rows_free (st);
  g_array_sort (period, cmp_double);
  g_array_sort (exchange, cmp_double);
}

static int
str_cmp (gconstpointer a, gconstpointer b)
{
  const char *x = *(char *const *) a, *y = *(char *const *) b;
  /* p2 before p10 */
  if (x[0] == 'p' && y[0] == 'p' && g_ascii_isdigit (x[1]) && g_ascii_isdigit (y[1]))
    return (int) (g_ascii_strtoull (x + 1, NULL, 10) > g_ascii_strtoull (y + 1, NULL, 10))
           - (int) (g_ascii_strtoull (x + 1, NULL, 10) < g_ascii_strtoull (y + 1, NULL, 10));
  return strcmp (x, y);
}

GPtrArray *
res_compare_union_keys (GHashTable *a, GHashTable *b)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTable *all = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *both[2] = { a, b };
  for (int i = 0; i < 2; i++)
    {
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, both[i]);
      while (g_hash_table_iter_next (&it, &k, NULL))
        if (g_hash_table_add (all, k))
          g_ptr_array_add (keys, k);
    }
  g_hash_table_unref (all);
  g_ptr_array_sort (keys, str_cmp);
  return keys;
}

/* The discrete facts of the runs, then final_accuracy. */
static void
fact_rows (GPtrArray *rows, struct sqlite3 *const db[2], const gint64 run[2])
{
  add_row (rows, "outcome", run_outcome (db[0], run[0]), run_outcome (db[1], run[1]), TRUE);
  static const char *const judged[] = { "rounds_completed", "retries", "exclusions", "model_syncs", NULL };
  for (int k = 0; judged[k]; k++)
    add_row (rows, judged[k], summary (db[0], run[0], judged[k]), summary (db[1], run[1], judged[k]), TRUE);
  /* the properties each run broke (a run recorded before properties
   * were checked has no such keys: "-", not judged) */
  g_autoptr (GHashTable) va = keyed (res_db_violation_keys (db[0], run[0]), NULL);
  g_autoptr (GHashTable) vb = keyed (res_db_violation_keys (db[1], run[1]), NULL);
  g_autoptr (GPtrArray) props = res_compare_union_keys (va, vb);
  for (guint i = 0; i < props->len; i++)
    {
      const char *k = props->pdata[i];
      add_row (rows, k, summary (db[0], run[0], k), summary (db[1], run[1], k),
               g_hash_table_contains (va, k) && g_hash_table_contains (vb, k));
    }
  add_row (rows, "final_accuracy", summary (db[0], run[0], "final_accuracy"),
           summary (db[1], run[1], "final_accuracy"), FALSE);
}

/* A row for each key of a or b, in order: its values, or missing. */
static void
keyed_rows (GPtrArray *rows, GHashTable *a, GHashTable *b, const char *missing, gboolean judged)
{
  g_autoptr (GPtrArray) keys = res_compare_union_keys (a, b);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *k = keys->pdata[i];
      const char *va = g_hash_table_lookup (a, k), *vb = g_hash_table_lookup (b, k);
      add_row (rows, k, g_strdup (va ? va : missing), g_strdup (vb ? vb : missing), judged);
    }
}

/* The median and p90 of a and b. */
static void
duration_rows (GPtrArray *rows, const char *what, const GArray *a, const GArray *b)
{
  for (int i = 0; i < 2; i++)
    {
      double q = i == 0 ? 0.5 : 0.9;
      ResCompareDuration *d = g_new (ResCompareDuration, 1);
      *d = (ResCompareDuration) { g_strdup_printf ("%s %s (s)", what, i == 0 ? "median" : "p90"),
                                  res_compare_quantile (a, q), res_compare_quantile (b, q) };
      g_ptr_array_add (rows, d);
    }
}

ResComparison *
res_compare_runs (struct sqlite3 *db_a, gint64 a, struct sqlite3 *db_b, gint64 b)
{
  struct sqlite3 *const db[2] = { db_a, db_b };
  const gint64 run[2] = { a, b };
  ResComparison *c = g_new0 (ResComparison, 1);
  c->facts = g_ptr_array_new_with_free_func (row_free);
  c->peers = g_ptr_array_new_with_free_func (row_free);
  c->messages = g_ptr_array_new_with_free_func (row_free);
  c->durations = g_ptr_array_new_with_free_func (duration_free);
  fact_rows (c->facts, db, run);
  g_autoptr (GHashTable) pa = keyed (res_db_peer_facts (db_a, a), peer_value);
  g_autoptr (GHashTable) pb = keyed (res_db_peer_facts (db_b, b), peer_value);
  keyed_rows (c->peers, pa, pb, "absent", TRUE);
  g_autoptr (GHashTable) ta = keyed (res_db_traffic_messages (db_a, a), count_value);
  g_autoptr (GHashTable) tb = keyed (res_db_traffic_messages (db_b, b), count_value);
  keyed_rows (c->messages, ta, tb, "0", FALSE);
  g_autoptr (GArray) per_a = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) per_b = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ex_a = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ex_b = g_array_new (FALSE, FALSE, sizeof (double));
  res_compare_durations (db_a, a, per_a, ex_a);
  res_compare_durations (db_b, b, per_b, ex_b);
  duration_rows (c->durations, "round period", per_a, per_b);
  duration_rows (c->durations, "exchange", ex_a, ex_b);
  return c;
}

guint
res_comparison_differences (const ResComparison *c)
{
  guint n = 0;
  const GPtrArray *judged[] = { c->facts, c->peers, c->messages };
  for (guint j = 0; j < G_N_ELEMENTS (judged); j++)
    for (guint i = 0; i < judged[j]->len; i++)
      {
        const ResCompareRow *r = judged[j]->pdata[i];
        n += r->judged && res_compare_row_differs (r);
      }
  return n;
}

void
res_comparison_free (ResComparison *c)
{
  if (!c)
    return;
  g_ptr_array_unref (c->facts);
  g_ptr_array_unref (c->peers);
  g_ptr_array_unref (c->messages);
  g_ptr_array_unref (c->durations);
  g_free (c);
}
