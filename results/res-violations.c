/* res-violations.c — a run's property violations into the database
 * (res-violations.h). */
#include "config.h"

#include "results/res-violations.h"
#include "host/sim-props.h"

#include <string.h>

static const char *const names[] = { SIM_PROP_NAMES, NULL };

typedef struct {
  double t_s;
  char *property, *node, *explanation;
} Row;

struct ResViolations {
  GArray *rows;   /* Row */
};

static void
row_clear (gpointer data)
{
  Row *r = data;
  g_free (r->property);
  g_free (r->node);
  g_free (r->explanation);
}

ResViolations *
res_violations_new (void)
{
  ResViolations *v = g_new0 (ResViolations, 1);
  v->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_array_set_clear_func (v->rows, row_clear);
  return v;
}

void
res_violations_free (ResViolations *v)
{
  if (!v)
    return;
  g_array_unref (v->rows);
  g_free (v);
}

void
res_violations_add (ResViolations *v, DlTime t, const char *property, const char *node, const char *explanation)
{
  Row r = { dl_time_to_s (t), g_strdup (property), g_strdup (node), g_strdup (explanation) };
  g_array_append_val (v->rows, r);
}

gboolean
res_violations_write (ResViolations *v, sqlite3 *db, gint64 run_id)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "INSERT INTO violations VALUES (?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < v->rows->len; i++)
    {
      const Row *r = &g_array_index (v->rows, Row, i);
      sqlite3_bind_int64 (st, 1, run_id);
      sqlite3_bind_double (st, 2, r->t_s);
      sqlite3_bind_text (st, 3, r->property, -1, SQLITE_STATIC);
      sqlite3_bind_text (st, 4, r->node, -1, SQLITE_STATIC);
      sqlite3_bind_text (st, 5, r->explanation, -1, SQLITE_STATIC);
      ok = sqlite3_step (st) == SQLITE_DONE;
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  return ok;
}

void
res_violations_summary (const SimResult *res, GPtrArray *keys, GPtrArray *values)
{
  if (!res->props_checked)
    return;
  for (guint i = 0; names[i]; i++)
    {
      g_ptr_array_add (keys, g_strdup_printf ("violations.%s", names[i]));
      g_ptr_array_add (values, g_strdup_printf ("%u", res->violations[i]));
    }
}

gboolean
res_violations_check (ResViolations *v, const SimResult *res, const SimPoint *point, sqlite3 *db, gint64 run_id,
                      GPtrArray *out_failed, guint *checked)
{
  if (!res->props_checked || point->expects->len == 0)
    return TRUE;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "INSERT INTO expectations VALUES (?,?,'= 0 (implicit: not declared)',?,0)", -1, &st,
                          NULL) != SQLITE_OK)
    return FALSE;
  gboolean ok = TRUE;
  for (guint i = 0; ok && names[i]; i++)
    {
      if (res->violations[i] == 0)
        continue;
      g_autofree char *key = g_strdup_printf ("violations.%s", names[i]);
      gboolean declared = FALSE;
      for (guint k = 0; k < point->expects->len; k++)
        declared |= strcmp (g_array_index (point->expects, SimExpect, k).key, key) == 0;
      if (declared)
        continue;
      const Row *first = NULL;
      for (guint k = 0; !first && k < v->rows->len; k++)
        if (strcmp (g_array_index (v->rows, Row, k).property, names[i]) == 0)
          first = &g_array_index (v->rows, Row, k);
      g_autofree char *actual = g_strdup_printf ("%u", res->violations[i]);
      sqlite3_bind_int64 (st, 1, run_id);
      sqlite3_bind_text (st, 2, key, -1, SQLITE_STATIC);
      sqlite3_bind_text (st, 3, actual, -1, SQLITE_STATIC);
      ok = sqlite3_step (st) == SQLITE_DONE;
      sqlite3_reset (st);
      (*checked)++;
      if (out_failed)
        g_ptr_array_add (out_failed, g_strdup_printf ("%s: %u, not expected (first at %.3fs, %s: %s)", key,
                                                      res->violations[i], first ? first->t_s : 0.0,
                                                      first ? first->node : "?", first ? first->explanation : "?"));
    }
  sqlite3_finalize (st);
  return ok;
}
