/* dl-units.h — parsing quantities with units, as scenario files write them.
 *
 * Durations: 250ms, 1.5s, 2min, 1h, 1m30s, 9min30s (also ns, us); "0" alone.
 * Rates:     20Mbps, 1Gbps, 500kbps, 64bps (bits per second, SI prefixes).
 * Sizes:     4KiB, 10MB, 512B, or a bare byte count.
 * Per time:  2/min, 0.5/s, 3/h; "0" alone.
 * Every parser trims surrounding blanks, rejects trailing garbage, and sets a
 * DL_ERROR that quotes the text and says what was expected. */
#pragma once

#include "base/dl-time.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum {
  DL_UNIT_NUMBER,    /* plain number, no unit */
  DL_UNIT_DURATION,  /* base unit: ns */
  DL_UNIT_RATE,      /* base unit: bit/s */
  DL_UNIT_SIZE,      /* base unit: byte */
  DL_UNIT_PER_TIME,  /* base unit: 1/s */
} DlUnitKind;

const char *dl_unit_kind_name (DlUnitKind kind);

gboolean dl_parse_number (const char *text, double *out, GError **error);
gboolean dl_parse_int64 (const char *text, int64_t *out, GError **error);
gboolean dl_parse_duration (const char *text, DlTime *out_ns, GError **error);
gboolean dl_parse_rate (const char *text, uint64_t *out_bps, GError **error);
gboolean dl_parse_size (const char *text, uint64_t *out_bytes, GError **error);
gboolean dl_parse_per_time (const char *text, double *out_per_s, GError **error);

/* Any of the above, as a double in the kind's base unit. */
gboolean dl_parse_quantity (DlUnitKind kind, const char *text, double *out,
                            GError **error);

G_END_DECLS
