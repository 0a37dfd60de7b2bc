/* dl-error.h — the error domain of base/ (parsing units, distributions). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define DL_ERROR (dl_error_quark ())
GQuark dl_error_quark (void);

typedef enum {
  DL_ERROR_PARSE,   /* text is not of the expected form */
  DL_ERROR_RANGE,   /* well-formed but out of the allowed range */
  DL_ERROR_UNIT,    /* missing or unknown unit */
} DlErrorCode;

G_END_DECLS
