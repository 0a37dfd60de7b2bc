/* dl-error.c — the GError domain shared by base/ parsers. */
#include "config.h"

#include "base/dl-error.h"

G_DEFINE_QUARK (dl-error-quark, dl_error)
