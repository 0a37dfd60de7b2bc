/* dl-sorted.h — binary search of a GPtrArray of records kept in ascending
 * order of a 32-bit id that each record holds at one offset (a
 * coordinator's member table in id order: gossip's GossipMembers, the
 * hierarchical coordinator's members).
 *
 * Why here: two families searched their tables with the same loop; one
 * copy, tested at its edges in tests/test-base.c. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The record of `records` whose id (the uint32_t at id_offset in it) is
 * `id`, or NULL.  `records` is sorted by that id, ascending; of several
 * records with the id, the first.  If `at` is not NULL it is set either
 * way: to the found record's index, or to where a record with `id` would
 * be inserted to keep the order (the index of the first larger id, or
 * records->len). */
gpointer dl_sorted_find (const GPtrArray *records, gsize id_offset, uint32_t id, guint *at);

/* dl_sorted_find on records of TYPE whose id is the uint32_t FIELD. */
#define DL_SORTED_FIND(records, TYPE, FIELD, id, at)                                                               \
  ((TYPE *) dl_sorted_find ((records), G_STRUCT_OFFSET (TYPE, FIELD), (id), (at)))

G_END_DECLS
