/* guest-proc.h — a guest process and the lines it exchanges with dlsim (a
 * leaf of guest-family.c; docs/guest.md has the line protocol).
 *
 * dlsim writes one line and reads the guest's answer lines up to `quiet`,
 * synchronously: the guest runs only while dlsim waits for it, so the run
 * stays a deterministic function of the scenario, the seed and the guest's
 * code.  The one wall clock here is the limit on how long the guest may
 * take to answer: it ends a run with an error, and never changes what a
 * run that ends records.
 *
 * Shape: proto_guest_proc_new / proto_guest_proc_free. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct ProtoGuestProc ProtoGuestProc;

/* Starts `command` (split as a shell would, no shell run) in folder `dir`,
 * its stdin and stdout a socket to dlsim, its stderr dlsim's. */
ProtoGuestProc *proto_guest_proc_new (const char *command, const char *dir, guint timeout_ms, GError **error);
/* Writes `line` (no newline) and reads the answer: every line up to `quiet`
 * goes into `replies` (g_free'd strings, no newline).  FALSE with an error
 * naming the guest's line (its number, its text) if the guest died, said
 * nothing within the limit, or wrote a line too long or not UTF-8. */
gboolean proto_guest_proc_call (ProtoGuestProc *p, const char *line, GPtrArray *replies, GError **error);
/* Lines read from the guest so far (for errors that name one). */
guint64 proto_guest_proc_lines_read (const ProtoGuestProc *p);
/* Says `bye`, waits a moment for the guest to exit, then kills it. */
void proto_guest_proc_free (ProtoGuestProc *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProtoGuestProc, proto_guest_proc_free)

/* The longest line either side may write. */
#define PROTO_GUEST_MAX_LINE (1u << 20)
/* The most lines, and bytes, one answer (the lines up to `quiet`) may
 * hold: a guest that writes on and never says `quiet` ends the run in
 * error instead of filling memory. */
#define PROTO_GUEST_MAX_ANSWER_LINES 100000u
#define PROTO_GUEST_MAX_ANSWER_BYTES (64u << 20)
/* The most times in a row a node's deadline may come at one instant
 * (guest-family.c): a guest that keeps asking for one at or before now. */
#define PROTO_GUEST_MAX_DUE_AT_ONCE 1000u

G_END_DECLS
