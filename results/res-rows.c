/* res-rows.c — the cursor that res-query.c's questions return: one
 * prepared statement, stepped by the command that asked, its columns read
 * through typed accessors so that no file outside results/ calls SQLite. */
#include "config.h"

#include "results/res-db-private.h"
#include "results/res-rows.h"

struct ResRows {
  sqlite3 *db;
  sqlite3_stmt *st;   /* NULL: the question could not be asked (no rows) */
  int rc;             /* of the last step */
  char *error;
};

ResRows *
_res_rows_new (sqlite3 *db, sqlite3_stmt *st)
{
  ResRows *r = g_new0 (ResRows, 1);
  r->db = db;
  r->st = st;
  r->rc = SQLITE_DONE;
  return r;
}

ResRows *
_res_rows_prepare (sqlite3 *db, const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    {
      sqlite3_finalize (st);
      st = NULL;
    }
  return _res_rows_new (db, st);
}

sqlite3_stmt *
_res_rows_stmt (ResRows *rows)
{
  return rows->st;
}

gboolean
res_rows_next (ResRows *rows)
{
  if (!rows->st)
    {
      rows->rc = SQLITE_MISUSE;
      return FALSE;
    }
  rows->rc = sqlite3_step (rows->st);
  if (rows->rc != SQLITE_ROW && rows->rc != SQLITE_DONE && !rows->error)
    rows->error = g_strdup (sqlite3_errmsg (rows->db));
  return rows->rc == SQLITE_ROW;
}

gboolean
res_rows_failed (const ResRows *rows)
{
  return rows->rc != SQLITE_ROW && rows->rc != SQLITE_DONE;
}

const char *
res_rows_error (const ResRows *rows)
{
  return rows->error ? rows->error : sqlite3_errmsg (rows->db);
}

int
res_rows_n_columns (const ResRows *rows)
{
  return rows->st ? sqlite3_column_count (rows->st) : 0;
}

const char *
res_rows_name (const ResRows *rows, int col)
{
  return sqlite3_column_name (rows->st, col);
}

ResValueKind
res_rows_kind (const ResRows *rows, int col)
{
  switch (sqlite3_column_type (rows->st, col))
    {
    case SQLITE_INTEGER: return RES_VALUE_INTEGER;
    case SQLITE_FLOAT: return RES_VALUE_FLOAT;
    case SQLITE_TEXT: return RES_VALUE_TEXT;
    case SQLITE_BLOB: return RES_VALUE_BLOB;
    default: return RES_VALUE_NULL;
    }
}

gboolean
res_rows_is_null (const ResRows *rows, int col)
{
  return sqlite3_column_type (rows->st, col) == SQLITE_NULL;
}

const char *
res_rows_text (const ResRows *rows, int col)
{
  return (const char *) sqlite3_column_text (rows->st, col);
}

int
res_rows_bytes (const ResRows *rows, int col)
{
  return sqlite3_column_bytes (rows->st, col);
}

gint64
res_rows_int64 (const ResRows *rows, int col)
{
  return sqlite3_column_int64 (rows->st, col);
}

int
res_rows_int (const ResRows *rows, int col)
{
  return sqlite3_column_int (rows->st, col);
}

double
res_rows_double (const ResRows *rows, int col)
{
  return sqlite3_column_double (rows->st, col);
}

void
res_rows_free (ResRows *rows)
{
  if (!rows)
    return;
  sqlite3_finalize (rows->st);
  g_free (rows->error);
  g_free (rows);
}
