/* dl-csv.c — CSV input through libcsv (dl-csv.h). */
#include "config.h"

#include "base/dl-csv.h"
#include "base/dl-error.h"

#include <csv.h>
#include <string.h>

typedef struct {
  GPtrArray *fields;
  gsize line;
  const char *name;
  DlCsvRecord record;
  gpointer ud;
  GError **error;
  gboolean stopped;
} Reader;

static void
on_field (void *s, size_t len, void *data)
{
  Reader *r = data;
  g_ptr_array_add (r->fields, g_strndup (s ? s : "", len));
}

static void
on_record (int term, void *data)
{
  Reader *r = data;
  (void) term;
  if (r->stopped)
    {
      g_ptr_array_set_size (r->fields, 0);
      return;
    }
  guint n = r->fields->len;
  gboolean blank = n == 0 || (n == 1 && *(char *) r->fields->pdata[0] == '\0');
  gboolean comment = n > 0 && *(char *) r->fields->pdata[0] == '#';
  if (!blank && !comment)
    {
      g_ptr_array_add (r->fields, NULL);
      if (!r->record (r->ud, (char **) r->fields->pdata, n, r->line, r->error))
        r->stopped = TRUE;
    }
  g_ptr_array_set_size (r->fields, 0);
}

gboolean
dl_csv_parse (const char *text, gsize len, const char *name, DlCsvRecord record, gpointer ud, GError **error)
{
  struct csv_parser p;
  if (csv_init (&p, CSV_APPEND_NULL) != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "%s: cannot start the CSV parser", name);
      return FALSE;
    }
  /* fields are trimmed of blanks and tabs outside quotes */
  csv_set_space_func (&p, NULL);
  Reader r = { g_ptr_array_new_with_free_func (g_free), 0, name, record, ud, error, FALSE };
  /* a UTF-8 byte order mark is not part of the first field */
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    {
      text += 3;
      len -= 3;
    }
  /* line by line, so that a record knows the line it ends on */
  gsize pos = 0;
  gboolean ok = TRUE;
  while (pos < len && !r.stopped)
    {
      const char *nl = memchr (text + pos, '\n', len - pos);
      gsize end = nl ? (gsize) (nl - text) + 1 : len;
      r.line++;
      if (memchr (text + pos, '\0', end - pos))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "%s:%zu: a NUL byte (a CSV file is text)", name, r.line);
          ok = FALSE;
          break;
        }
      if (csv_parse (&p, text + pos, end - pos, on_field, on_record, &r) != end - pos)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "%s:%zu: %s", name, r.line, csv_strerror (csv_error (&p)));
          ok = FALSE;
          break;
        }
      pos = end;
    }
  if (ok && !r.stopped && csv_fini (&p, on_field, on_record, &r) != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "%s:%zu: %s (an unclosed quote?)", name, r.line,
                   csv_strerror (csv_error (&p)));
      ok = FALSE;
    }
  csv_free (&p);
  g_ptr_array_unref (r.fields);
  return ok && !r.stopped;
}
