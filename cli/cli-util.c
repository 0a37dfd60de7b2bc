/* cli-util.c — what every command shares: its error line, opening a
 * results database to write (res_db_open_explained: with why it cannot
 * be) or to read, and the check reports (export/).  A leaf of cli/: the
 * commands call it, it calls none of them. */
#include "config.h"

#include "cli/cli.h"
#include "export/export.h"
#include "results/res-db.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>

void
cli_error (const char *cmd, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "dlsim %s: %s\n", cmd, msg);
}

ResDb *
cli_db_open (const char *path, GError **error)
{
  return cli_db_open_wait (path, NULL, error);
}

ResDb *
cli_db_open_wait (const char *path, void (*waiting) (const char *path), GError **error)
{
  return res_db_open_explained (path, waiting, error);
}

struct sqlite3 *
cli_open_results (const char *cmd, const char *path)
{
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      cli_error (cmd, "%s: no such results database", path);
      return NULL;
    }
  g_autoptr (GError) error = NULL;
  struct sqlite3 *db = res_db_open_read (path, &error);
  if (!db)
    cli_error (cmd, "%s", error->message);
  return db;
}

gboolean
cli_write_check_reports (const char *db_path, const char *junit, const char *tap, GError **error)
{
  return export_check_reports (db_path, junit, tap, error);
}
