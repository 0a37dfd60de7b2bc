/* export-check.c — the checked runs of a results database as CI systems
 * read them (`dlsim check --junit FILE.xml` and `--tap FILE`).  One test
 * case per run (file, sweep point, seed); its failures are the
 * expectations that did not hold (explicit ones and the implicit "no
 * undeclared property violation"), each with key, expected and actual.
 *
 * JUnit: the shape Jenkins' JUnit plugin and GitLab's test reports read:
 * <testsuites tests failures> / <testsuite name tests failures time> per
 * scenario file / <testcase classname name time> / <failure message type>.
 * TAP: version 13, a plan line, "ok N - ..." / "not ok N - ...", and a YAML
 * block with the failures.  The runs come through results/' queries
 * (res_db_checked_runs, res_db_failed_expectations). */
#include "config.h"

#include "export/export.h"
#include "results/res-query.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  gint64 run;
  char *file, *label, *outcome;
  gint64 seed;
  double wall;
  GPtrArray *failures;   /* char*[3] key, expected, actual (flattened, 3 per failure) */
} Case;

static void
case_free (gpointer data)
{
  Case *c = data;
  g_free (c->file);
  g_free (c->label);
  g_free (c->outcome);
  g_ptr_array_unref (c->failures);
  g_free (c);
}

static const char *
col (ResRows *st, int i)
{
  const char *t = res_rows_text (st, i);
  return t ? t : "";
}

/* The checked runs (those with expectation rows), in run order. */
static GPtrArray *
load_cases (struct sqlite3 *db)
{
  GPtrArray *cases = g_ptr_array_new_with_free_func (case_free);
  g_autoptr (ResRows) st = res_db_checked_runs (db);
  while (res_rows_next (st))
    {
      Case *c = g_new0 (Case, 1);
      c->run = res_rows_int64 (st, 0);
      c->file = g_strdup (col (st, 1));
      c->label = g_strdup (col (st, 2));
      c->seed = res_rows_int64 (st, 3);
      c->outcome = g_strdup (col (st, 4));
      c->wall = res_rows_double (st, 5);
      c->failures = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (ResRows) ex = res_db_failed_expectations (db, c->run);
      while (res_rows_next (ex))
        for (int k = 0; k < 3; k++)
          g_ptr_array_add (c->failures, g_strdup (col (ex, k)));
      g_ptr_array_add (cases, c);
    }
  return cases;
}

static char *
case_name (const Case *c)
{
  return *c->label ? g_strdup_printf ("[%s] seed %" G_GINT64_FORMAT, c->label, c->seed)
                   : g_strdup_printf ("seed %" G_GINT64_FORMAT, c->seed);
}

static gboolean
write_junit (GPtrArray *cases, FILE *f)
{
  guint failures = 0;
  for (guint i = 0; i < cases->len; i++)
    failures += ((Case *) cases->pdata[i])->failures->len > 0;
  fprintf (f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<testsuites name=\"dlsim check\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n", cases->len, failures);
  for (guint i = 0; i < cases->len;)
    {
      /* one testsuite per scenario file (consecutive runs of a file) */
      guint j = i, fails = 0;
      double time = 0;
      const char *file = ((Case *) cases->pdata[i])->file;
      for (; j < cases->len && strcmp (((Case *) cases->pdata[j])->file, file) == 0; j++)
        {
          fails += ((Case *) cases->pdata[j])->failures->len > 0;
          time += ((Case *) cases->pdata[j])->wall;
        }
      g_autofree char *efile = g_markup_escape_text (file, -1);
      g_autofree char *base = g_path_get_basename (file);
      char *dot = strrchr (base, '.');
      if (dot)
        *dot = '\0';
      g_autofree char *ebase = g_markup_escape_text (base, -1);
      fprintf (f, "  <testsuite name=\"%s\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
               efile, j - i, fails, time);
      for (; i < j; i++)
        {
          Case *c = cases->pdata[i];
          g_autofree char *name = case_name (c);
          g_autofree char *ename = g_markup_escape_text (name, -1);
          fprintf (f, "    <testcase classname=\"%s\" name=\"%s\" time=\"%.3f\"", ebase, ename, c->wall);
          if (c->failures->len == 0)
            {
              fprintf (f, "/>\n");
              continue;
            }
          fprintf (f, ">\n");
          g_autoptr (GString) body = g_string_new (NULL);
          for (guint k = 0; k < c->failures->len; k += 3)
            g_string_append_printf (body, "%s: expected %s, actual %s\n", (char *) c->failures->pdata[k],
                                    (char *) c->failures->pdata[k + 1], (char *) c->failures->pdata[k + 2]);
          g_autofree char *first = g_strdup_printf ("%s: expected %s, actual %s (outcome %s, run %" G_GINT64_FORMAT
                                                    ")", (char *) c->failures->pdata[0],
                                                    (char *) c->failures->pdata[1], (char *) c->failures->pdata[2],
                                                    c->outcome, c->run);
          g_autofree char *emsg = g_markup_escape_text (first, -1);
          g_autofree char *ebody = g_markup_escape_text (body->str, -1);
          fprintf (f, "      <failure message=\"%s\" type=\"expectation\">%s</failure>\n    </testcase>\n", emsg,
                   ebody);
        }
      fprintf (f, "  </testsuite>\n");
    }
  fprintf (f, "</testsuites>\n");
  return !ferror (f);
}

/* A YAML double-quoted scalar. */
static char *
yq (const char *s)
{
  GString *o = g_string_new ("\"");
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c (o, '\\');
      g_string_append_c (o, *s == '\n' ? ' ' : *s);
    }
  g_string_append_c (o, '"');
  return g_string_free (o, FALSE);
}

static gboolean
write_tap (GPtrArray *cases, FILE *f)
{
  fprintf (f, "TAP version 13\n1..%u\n", cases->len);
  for (guint i = 0; i < cases->len; i++)
    {
      Case *c = cases->pdata[i];
      g_autofree char *name = case_name (c);
      gboolean ok = c->failures->len == 0;
      /* '#' would start a TAP directive */
      g_autofree char *desc = g_strdelimit (g_strdup_printf ("%s %s (%s)", c->file, name, c->outcome), "#", '_');
      fprintf (f, "%s %u - %s\n", ok ? "ok" : "not ok", i + 1, desc);
      if (ok)
        continue;
      fprintf (f, "  ---\n  run: %" G_GINT64_FORMAT "\n  failures:\n", c->run);
      for (guint k = 0; k < c->failures->len; k += 3)
        {
          g_autofree char *key = yq (c->failures->pdata[k]);
          g_autofree char *exp = yq (c->failures->pdata[k + 1]);
          g_autofree char *act = yq (c->failures->pdata[k + 2]);
          fprintf (f, "    - key: %s\n      expected: %s\n      actual: %s\n", key, exp, act);
        }
      fprintf (f, "  ...\n");
    }
  return !ferror (f);
}

gboolean
export_check_reports (const char *db_path, const char *junit, const char *tap, GError **error)
{
  if (!junit && !tap)
    return TRUE;
  struct sqlite3 *db = res_db_open_read (db_path, error);
  if (!db)
    return FALSE;
  g_autoptr (GPtrArray) cases = load_cases (db);
  res_db_close_read (db);
  const char *paths[2] = { junit, tap };
  for (int k = 0; k < 2; k++)
    {
      if (!paths[k])
        continue;
      FILE *f = fopen (paths[k], "w");
      if (!f)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s", paths[k], g_strerror (errno));
          return FALSE;
        }
      gboolean ok = k == 0 ? write_junit (cases, f) : write_tap (cases, f);
      if (fclose (f) != 0 || !ok)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: write failed", paths[k]);
          return FALSE;
        }
    }
  return TRUE;
}
