/* res-rows.h — the rows that answer one question a command asks of a
 * results database (res-query.c).  A cursor over one prepared statement:
 * the SQL stays in results/, the command reads the columns each question's
 * comment lists, in that order.
 *
 * Shape: made by a res_db_… query; res_rows_next until FALSE;
 * res_rows_free (g_autoptr). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct sqlite3;

typedef struct ResRows ResRows;

/* A column's storage class in the current row. */
typedef enum {
  RES_VALUE_NULL,
  RES_VALUE_INTEGER,
  RES_VALUE_FLOAT,
  RES_VALUE_TEXT,
  RES_VALUE_BLOB,
} ResValueKind;

/* The next row: TRUE while there is one.  A question that could not be
 * asked (an older file without the table) has no rows. */
gboolean res_rows_next (ResRows *rows);
/* After res_rows_next returned FALSE: did the rows end on an error rather
 * than at their end?  res_rows_error says which (SQLite's message). */
gboolean res_rows_failed (const ResRows *rows);
const char *res_rows_error (const ResRows *rows);

int res_rows_n_columns (const ResRows *rows);
const char *res_rows_name (const ResRows *rows, int col);
ResValueKind res_rows_kind (const ResRows *rows, int col);
gboolean res_rows_is_null (const ResRows *rows, int col);
/* The column as text (NULL for NULL), valid until the next res_rows_next. */
const char *res_rows_text (const ResRows *rows, int col);
/* The length in bytes of res_rows_text (or of a blob). */
int res_rows_bytes (const ResRows *rows, int col);
gint64 res_rows_int64 (const ResRows *rows, int col);
int res_rows_int (const ResRows *rows, int col);
double res_rows_double (const ResRows *rows, int col);

void res_rows_free (ResRows *rows);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResRows, res_rows_free)

G_END_DECLS
