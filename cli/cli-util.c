/* cli-util.c — what every command shares: its error line, opening a
 * results database to write (with why it cannot be) or to read, and the
 * command line of a command on one recorded run.  A leaf of cli/: the
 * commands call it, it calls none of them. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-db.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

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
  g_autoptr (GError) local = NULL;
  ResDb *db = res_db_open_wait (path, waiting, &local);
  if (db)
    return db;
  g_autofree char *dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_set_error (error, local->domain, local->code, "%s: cannot create the database: the folder %s does not exist",
                 path, dir);
  else if (!g_file_test (path, G_FILE_TEST_EXISTS) && g_access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code,
                   "%s: cannot create the database: the folder %s is not writable (%s)", path, dir, g_strerror (e));
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS) && g_access (path, W_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code, "%s: cannot write the database: %s", path, g_strerror (e));
    }
  else if (g_file_test (path, G_FILE_TEST_EXISTS) && g_access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, local->domain, local->code,
                   "%s: cannot write the database: its folder %s is not writable (%s), and SQLite writes its "
                   "journal there", path, dir, g_strerror (e));
    }
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
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

int
cli_parse_run_command (const CliRunCommand *c, int argc, char **argv, char **db, gint64 *run, char **output)
{
  g_auto (GStrv) rest = NULL;
  *run = 0;
  *output = NULL;
  *db = NULL;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_INT64, run, c->run_doc, "ID" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, output, c->output_doc, "FILE.ini" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (c->parameter);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, c->summary);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error (c->cmd, "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 1 || *run <= 0 || (c->need_output && !*output))
    {
      cli_error (c->cmd, "%s", c->missing);
      return CLI_EXIT_USAGE;
    }
  *db = g_strdup (rest[0]);
  return CLI_EXIT_OK;
}
