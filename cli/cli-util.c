/* cli-util.c — what every command shares: its error line, parsing its
 * options (cli_parse_options), opening a results database to write
 * (res_db_open_explained: with why it cannot be) or to read, the check
 * reports (export/), the command line of a command on one recorded run,
 * and text from a file or a database made safe to print (cli_shown).  A
 * leaf of cli/: the commands call it, it calls none of them. */
#include "config.h"

#include "cli/cli.h"
#include "export/export.h"
#include "results/res-db.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
cli_error (const char *cmd, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* a message may quote a file or a database: shown, its lines kept */
  g_autofree char *shown = cli_shown (msg, TRUE);
  fprintf (stderr, "dlsim %s: %s\n", cmd, shown);
}

/* One character of t at p (n bytes, or -1 for a byte of invalid UTF-8) as
 * shown: itself, or an escape for what a terminal would act on. */
static void
shown_char (GString *s, const char *p, int n, gboolean keep_lines)
{
  if (n < 0)
    {
      g_string_append_printf (s, "\\x%02x", (unsigned char) *p);
      return;
    }
  gunichar c = g_utf8_get_char (p);
  if ((c == '\n' || c == '\t') && keep_lines)
    g_string_append_unichar (s, c);
  else if (c < 0x20 || c == 0x7f)
    g_string_append_printf (s, "\\x%02x", c);
  else if (c >= 0x80 && c < 0xa0)
    g_string_append_printf (s, "\\u%04x", c);
  else
    g_string_append_len (s, p, n);
}

char *
cli_shown (const char *t, gboolean keep_lines)
{
  if (!t)
    return NULL;
  GString *s = g_string_sized_new (strlen (t));
  const char *end = t + strlen (t);
  for (const char *p = t; p < end;)
    {
      const char *next = g_utf8_find_next_char (p, end);
      int n = next ? (int) (next - p) : (int) (end - p);
      gboolean valid = g_utf8_validate (p, n, NULL);
      shown_char (s, p, valid ? n : -1, keep_lines);
      p += valid ? n : 1;
    }
  return g_string_free (s, FALSE);
}

gboolean
cli_is_shown (const char *t)
{
  if (!t)
    return TRUE;
  if (!g_utf8_validate (t, -1, NULL))
    return FALSE;
  for (const char *p = t; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        return FALSE;
    }
  return TRUE;
}

gboolean
cli_check_sets (const char *cmd, char **sets)
{
  for (char **s = sets; s && *s; s++)
    {
      const char *eq = strchr (*s, '='), *dot = strchr (*s, '.');
      if (!eq || !dot || dot > eq || dot == *s)
        {
          cli_error (cmd, "--set %s: --set needs SECTION.KEY=VALUE, as one argument (--set peers.count=4)", *s);
          return FALSE;
        }
    }
  return TRUE;
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

gboolean
cli_parse_options (const char *cmd, GOptionContext *ctx, int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;
  if (g_option_context_parse (ctx, argc, argv, &error))
    return TRUE;
  cli_error (cmd, "%s", error->message);
  return FALSE;
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
  if (!cli_parse_options (c->cmd, ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (!rest || g_strv_length (rest) != 1 || *run <= 0 || (c->need_output && !*output))
    {
      cli_error (c->cmd, "%s", c->missing);
      return CLI_EXIT_USAGE;
    }
  *db = g_strdup (rest[0]);
  return CLI_EXIT_OK;
}
