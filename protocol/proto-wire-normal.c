/* proto-wire-normal.c — normal-form check of untrusted wire bytes.
 * g_variant_is_normal_form walks a fixed-size array one element at a
 * time (GLib's gvariant-serialiser.c, gvs_fixed_sized_array_is_normal),
 * so a 4 MB "ay" Payload costs ~4 M calls: a fifth of the testbed's CPU.
 * This gives the same answer and is fast on such arrays:
 * - an array of a fixed-size number (y n q i u x t h d; not b, whose
 *   bytes must be 0 or 1) is normal iff its size is a multiple of the
 *   element size: GLib's terminal case for those types accepts any
 *   bytes, so its per-element loop only ever fails on the size;
 * - a big container is normal iff every child (as GLib reads it) is
 *   normal and rebuilding the container from the children gives its
 *   bytes back exactly (container_is_normal says why that is the same);
 * - anything else (small, strings, booleans) goes to GLib itself.
 * Depth: GLib refuses a value nested G_VARIANT_MAX_RECURSION_DEPTH (128,
 * a private GLib constant) deep; the walk counts depth the way GLib's
 * g_variant_get_child_value does, one per level, and refuses there too. */
#include "config.h"

#include "protocol/proto-wire-normal.h"

#include <string.h>

#define WIRE_MAX_DEPTH 128   /* GLib's G_VARIANT_MAX_RECURSION_DEPTH */
#define WIRE_REBUILD_MIN_BYTES ((gsize) 64 * 1024)

/* The size of a fixed-size numeric basic type, 0 for any other type. */
static gsize
numeric_size (const GVariantType *t)
{
  if (!g_variant_type_is_basic (t))
    return 0;
  switch (g_variant_type_peek_string (t)[0])
    {
    case 'y': return 1;
    case 'n': case 'q': return 2;
    case 'i': case 'u': case 'h': return 4;
    case 'x': case 't': case 'd': return 8;
    default: return 0;   /* b (0 or 1 only), s, o, g: checked by GLib */
    }
}

/* v (serialized, all children normal) rebuilt from its children as the
 * same-typed container, in tree form; its bytes are GLib's serialization
 * of those children. NULL if v is not a container. */
static GVariant *
rebuild (GVariant *v, GVariant **kids, gsize n)
{
  const GVariantType *t = g_variant_get_type (v);
  if (g_variant_type_is_variant (t))
    return g_variant_new_variant (kids[0]);
  if (g_variant_type_is_maybe (t))
    return g_variant_new_maybe (g_variant_type_element (t), n ? kids[0] : NULL);
  if (g_variant_type_is_array (t))
    return g_variant_new_array (g_variant_type_element (t), kids, n);
  if (g_variant_type_is_dict_entry (t))
    return g_variant_new_dict_entry (kids[0], kids[1]);
  if (g_variant_type_is_tuple (t))
    return g_variant_new_tuple (kids, n);
  return NULL;
}

/* Why this equals g_variant_is_normal_form (v): a value has exactly one
 * normal form (gvariant-serialiser.c, g_variant_serialised_is_normal),
 * and GLib serializes a container of normal children to it. If v is
 * normal, GLib reads each child as the exact slice of v's bytes, which
 * is normal, and rebuilding gives the unique normal form: v's bytes. If
 * v is not normal (bad offsets, padding, a framing size, a variant's
 * type string), either a child as GLib reads it is not normal, or all
 * are and the rebuilt bytes are the normal form of a value, which v's
 * bytes are not, so they differ. A variant whose type would nest too
 * deep reads as "()" (g_variant_get_child_value), which rebuilds to
 * other bytes as well. */
static gboolean
container_is_normal (GVariant *v, guint depth, gsize min_bytes)
{
  gsize n = g_variant_n_children (v);
  GVariant **kids = g_new0 (GVariant *, n ? n : 1);
  gboolean normal = TRUE;
  for (gsize i = 0; i < n && normal; i++)
    {
      kids[i] = g_variant_get_child_value (v, i);
      normal = proto_wire_is_normal_at (kids[i], depth + 1, min_bytes);
    }
  if (normal)
    {
      g_autoptr (GVariant) again = g_variant_ref_sink (rebuild (v, kids, n));
      gsize size = g_variant_get_size (v);
      normal = g_variant_get_size (again) == size
               && (size == 0 || memcmp (g_variant_get_data (again), g_variant_get_data (v), size) == 0);
    }
  for (gsize i = 0; i < n; i++)
    if (kids[i] != NULL)
      g_variant_unref (kids[i]);
  g_free (kids);
  return normal;
}

gboolean
proto_wire_is_normal_at (GVariant *v, guint depth, gsize min_bytes)
{
  const GVariantType *t = g_variant_get_type (v);
  gsize size = g_variant_get_size (v);
  if (depth >= WIRE_MAX_DEPTH)
    return FALSE;
  if (g_variant_type_is_array (t))
    {
      gsize elem = numeric_size (g_variant_type_element (t));
      /* GLib checks each element one level deeper */
      if (elem != 0)
        return size % elem == 0 && (size == 0 || depth + 1 < WIRE_MAX_DEPTH);
    }
  /* a fixed-size tuple GLib could not read has no data: GLib refuses it */
  if (size >= min_bytes && g_variant_type_is_container (t) && (size == 0 || g_variant_get_data (v) != NULL))
    return container_is_normal (v, depth, min_bytes);
  return g_variant_is_normal_form (v);
}

gboolean
proto_wire_is_normal (GVariant *v)
{
  return proto_wire_is_normal_at (v, 0, WIRE_REBUILD_MIN_BYTES);
}
