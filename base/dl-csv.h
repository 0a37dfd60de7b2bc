/* dl-csv.h — reading CSV input files (data sets, availability traces)
 * through libcsv, not by splitting on commas: quoted fields (with commas,
 * quotes and newlines inside), empty fields, CRLF line ends and a UTF-8 BOM
 * all work.  Blank lines are skipped, and so are records whose first field
 * starts with '#' (comments, as the formats allow).
 *
 * Shape: one call, a callback per record. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One record: n fields (whitespace around unquoted fields trimmed), and the
 * line where it ends (1-based).  Return FALSE (with error set) to stop. */
typedef gboolean (*DlCsvRecord) (gpointer ud, char **fields, guint n, gsize line, GError **error);

/* Parses text; name is used in error messages (the file's path). */
gboolean dl_csv_parse (const char *text, gsize len, const char *name, DlCsvRecord record, gpointer ud,
                       GError **error);

G_END_DECLS
