/* testbed-secret.h — the deployment's shared secret: a new one for a run
 * (the orchestrator's, or a node that starts alone), its floor, and the
 * file a node reads it from (testbed-node.c); and the random bytes of the
 * handshake's nonces (testbed-host.c).  The secret's bytes are the HMAC
 * key of every HELLO (testbed-frame.h). */
#pragma once

#include <glib.h>

#define TESTBED_SECRET_MIN_BYTES 16
#define TESTBED_SECRET_MIN_DISTINCT 8       /* distinct bytes besides blanks */
#define TESTBED_SECRET_MAX_FILE_BYTES 4096

/* Fills out with len bytes of /dev/urandom. */
gboolean testbed_random_bytes (guint8 *out, gsize len, GError **error);
/* (transfer full) a new shared secret: 32 bytes from /dev/urandom, in hex. */
char *testbed_secret_new (GError **error);
/* (transfer full) the secret in `path`, without its trailing newline;
 * refused if `path` is not a regular file (a FIFO or a device: it is
 * opened with O_NONBLOCK and checked with fstat before a byte is read),
 * if the file may be read or written by others than its owner or is
 * longer than TESTBED_SECRET_MAX_FILE_BYTES, or if testbed_secret_check
 * refuses the secret. */
char *testbed_secret_load (const char *path, GError **error);
/* A secret of at least TESTBED_SECRET_MIN_BYTES bytes, with at least
 * TESTBED_SECRET_MIN_DISTINCT distinct bytes besides blanks: a floor
 * against a secret of 32 spaces or one letter repeated, not a measure of
 * its entropy.  `where` (the file, or the variable) begins the error. */
gboolean testbed_secret_check (const char *secret, const char *where, GError **error);
