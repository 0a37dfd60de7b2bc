/* testbed-secret.c — the deployment's shared secret (its making, its
 * floor and its file) and the random bytes the testbed's handshake draws.
 * A leaf: it knows no node, stream or frame.  See testbed-secret.h. */
#include "config.h"

#include "testbed/testbed-secret.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean
testbed_random_bytes (guint8 *out, gsize len, GError **error)
{
  g_autoptr (GFile) f = g_file_new_for_path ("/dev/urandom");
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, error);
  gsize got = 0;
  if (!in || !g_input_stream_read_all (G_INPUT_STREAM (in), out, len, &got, NULL, error))
    {
      g_prefix_error (error, "/dev/urandom: ");
      return FALSE;
    }
  if (got != len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "/dev/urandom: %" G_GSIZE_FORMAT " bytes read of %"
                   G_GSIZE_FORMAT, got, len);
      return FALSE;
    }
  return TRUE;
}


char *
testbed_secret_new (GError **error)
{
  guint8 b[32];
  if (!testbed_random_bytes (b, sizeof b, error))
    return NULL;
  GString *hex = g_string_sized_new (2 * sizeof b);
  for (gsize i = 0; i < sizeof b; i++)
    g_string_append_printf (hex, "%02x", b[i]);
  return g_string_free (hex, FALSE);
}

gboolean
testbed_secret_check (const char *secret, const char *where, GError **error)
{
  gsize len = strlen (secret);
  if (len < TESTBED_SECRET_MIN_BYTES)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: the secret has %" G_GSIZE_FORMAT
                   " bytes, at least %d are needed", where, len, TESTBED_SECRET_MIN_BYTES);
      return FALSE;
    }
  gboolean seen[256] = { FALSE };
  guint distinct = 0;
  for (const guchar *b = (const guchar *) secret; *b; b++)
    if (!g_ascii_isspace (*b) && !seen[*b])
      {
        seen[*b] = TRUE;
        distinct++;
      }
  if (distinct < TESTBED_SECRET_MIN_DISTINCT)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: the secret has %u distinct bytes besides blanks, "
                   "at least %d are needed (a guessable secret; let a coordinator make one: 32 random bytes in "
                   "hex)", where, distinct, TESTBED_SECRET_MIN_DISTINCT);
      return FALSE;
    }
  return TRUE;
}

static const char *
file_kind (mode_t mode)
{
  return S_ISFIFO (mode) ? "a FIFO" : S_ISCHR (mode) ? "a character device" : S_ISBLK (mode) ? "a block device"
       : S_ISDIR (mode) ? "a folder" : S_ISSOCK (mode) ? "a socket" : "not a regular file";
}

/* The secret file's mode, kind and size, on the open descriptor. */
static gboolean
secret_file_ok (int fd, const char *path, GError **error)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", path, g_strerror (err));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %s, not a regular file: the secret must be in "
                   "a file", path, file_kind (st.st_mode));
      return FALSE;
    }
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                   "%s: the secret file may be read or written by others (mode %03o): chmod 600 %s", path,
                   (unsigned) (st.st_mode & 0777), path);
      return FALSE;
    }
  if (st.st_size > TESTBED_SECRET_MAX_FILE_BYTES)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %" G_GINT64_FORMAT " bytes is not a secret file "
                   "(at most %d)", path, (gint64) st.st_size, TESTBED_SECRET_MAX_FILE_BYTES);
      return FALSE;
    }
  return TRUE;
}

/* Reads at most TESTBED_SECRET_MAX_FILE_BYTES + 1 bytes of fd into buf. */
static gssize
secret_read (int fd, char *buf)
{
  gsize got = 0;
  while (got <= TESTBED_SECRET_MAX_FILE_BYTES)
    {
      gssize r = read (fd, buf + got, TESTBED_SECRET_MAX_FILE_BYTES + 1 - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      if (r == 0)
        break;
      got += (gsize) r;
    }
  return (gssize) got;
}

char *
testbed_secret_load (const char *path, GError **error)
{
  /* O_NONBLOCK: a FIFO opens at once (and is then refused) instead of
   * waiting for a writer; fstat on what was opened, not on the name */
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", path, g_strerror (err));
      return NULL;
    }
  g_autofree char *text = g_malloc (TESTBED_SECRET_MAX_FILE_BYTES + 2);
  gssize got = secret_file_ok (fd, path, error) ? secret_read (fd, text) : -2;
  int err = errno;
  g_close (fd, NULL);
  if (got == -1)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", path, g_strerror (err));
  else if (got > TESTBED_SECRET_MAX_FILE_BYTES)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: more than %d bytes is not a secret file", path,
                 TESTBED_SECRET_MAX_FILE_BYTES);
  if (got < 0 || got > TESTBED_SECRET_MAX_FILE_BYTES)
    return NULL;
  gsize len = (gsize) got;
  text[len] = '\0';
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
    text[--len] = '\0';
  if (strlen (text) != len)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: the secret has a NUL byte", path);
      return NULL;
    }
  if (!testbed_secret_check (text, path, error))
    return NULL;
  return g_steal_pointer (&text);
}
