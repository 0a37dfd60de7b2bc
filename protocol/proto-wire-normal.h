/* proto-wire-normal.h — is a serialized GVariant in normal form, with
 * g_variant_is_normal_form's answer but without its one call per
 * element of a big numeric array (proto-wire-normal.c says how). */
#pragma once

#include <glib.h>

/* TRUE iff g_variant_is_normal_form (v) would be TRUE; v is a serialized
 * value at nesting depth 0 (from g_variant_new_from_bytes). */
gboolean proto_wire_is_normal (GVariant *v);

/* The same with v at nesting depth depth (a child at depth 1, ...), and
 * min_bytes the size from which a container is checked by rebuilding it
 * (proto_wire_is_normal: 64 KiB; tests pass 0 so every path runs). */
gboolean proto_wire_is_normal_at (GVariant *v, guint depth, gsize min_bytes);
