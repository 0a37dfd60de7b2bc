/* dl-avec-private.h — dl-avec.c's move of the records within a block,
 * named for tests/test-base-records.c: whether realloc moves a block to
 * another offset from a line depends on the allocator (never, in the
 * runs counted, under AddressSanitizer's), so the test calls it for
 * every pair of offsets rather than waiting for one. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* bytes of records that start `was` bytes into raw move to `at` bytes
 * into it (the block holds both ranges) */
void _dl_avec_rebase (char *raw, gsize was, gsize at, gsize bytes);

G_END_DECLS
