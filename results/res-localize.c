/* res-localize.c — `dlsim explore --localize`'s curve into the results
 * database (res-localize.h). */
#include "config.h"

#include "results/res-localize.h"
#include "results/res-db-private.h"

#include <math.h>
#include <sqlite3.h>

/* one prepared statement run with (run_id, ?2, ?3, ?4) per call */
static gboolean
put (sqlite3_stmt *st, gint64 run_id, double t_s, const char *name, double value)
{
  sqlite3_bind_int64 (st, 1, run_id);
  sqlite3_bind_double (st, 2, t_s);
  sqlite3_bind_text (st, 3, name, -1, SQLITE_STATIC);
  sqlite3_bind_double (st, 4, value);
  gboolean ok = sqlite3_step (st) == SQLITE_DONE;
  sqlite3_reset (st);
  return ok;
}

static gboolean
write_points (sqlite3 *db, gint64 run_id, const ResLocalizePoint *pts, guint n)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, "INSERT INTO metrics (run_id, t_s, round, peer, name, value) VALUES (?1, ?2, NULL,"
                          " NULL, ?3, ?4)", -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < n; i++)
    ok = put (st, run_id, pts[i].t_s, "localize.failure_ratio", (double) pts[i].failing / MAX (pts[i].runs, 1))
         && put (st, run_id, pts[i].t_s, "localize.runs", pts[i].runs);
  sqlite3_finalize (st);
  return ok;
}

static gboolean
write_keys (sqlite3 *db, gint64 run_id, double certain, double decisive_s, const char *decisive)
{
  sqlite3_stmt *st = NULL;
  gboolean ok = sqlite3_prepare_v2 (db, "INSERT INTO summary VALUES (?1, ?2, ?3)", -1, &st, NULL) == SQLITE_OK;
  for (guint i = 0; ok && i < 2; i++)
    {
      double v = i == 0 ? certain : decisive_s;
      sqlite3_bind_int64 (st, 1, run_id);
      sqlite3_bind_text (st, 2, i == 0 ? "localize.certain" : "localize.decisive_s", -1, SQLITE_STATIC);
      if (isnan (v))
        sqlite3_bind_null (st, 3);
      else
        sqlite3_bind_double (st, 3, v);
      ok = sqlite3_step (st) == SQLITE_DONE;
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);
  if (!ok || !decisive)
    return ok;
  ok = sqlite3_prepare_v2 (db, "INSERT INTO params VALUES (?1, 'localize.decisive', ?2)", -1, &st, NULL)
       == SQLITE_OK;
  if (ok)
    {
      sqlite3_bind_int64 (st, 1, run_id);
      sqlite3_bind_text (st, 2, decisive, -1, SQLITE_STATIC);
      ok = sqlite3_step (st) == SQLITE_DONE;
    }
  sqlite3_finalize (st);
  return ok;
}

gboolean
res_localize_write (ResDb *db, gint64 run_id, const ResLocalizePoint *pts, guint n, double certain,
                    double decisive_s, const char *decisive, GError **error)
{
  sqlite3 *h = res_db_handle (db);
  if (!res_db_exec (db, "BEGIN", error))
    return FALSE;
  if (!write_points (h, run_id, pts, n) || !write_keys (h, run_id, certain, decisive_s, decisive))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_SQLITE, "%s: %s", db->path, sqlite3_errmsg (h));
      (void) res_db_exec (db, "ROLLBACK", NULL);
      return FALSE;
    }
  return res_db_exec (db, "COMMIT", error);
}
