/* guest-proc.c — a guest process and the lines it exchanges with dlsim
 * (guest-proc.h). */
#include "config.h"

#include "protocol/guest/guest-proc.h"
#include "protocol/proto-message.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct ProtoGuestProc {
  int fd;                 /* our end of the socket; -1 once closed */
  GPid pid;
  gboolean reaped;
  int status;             /* its wait status once reaped */
  guint timeout_ms;
  char *command;
  GString *buf;           /* bytes read and not yet a whole line */
  guint64 lines;          /* lines read so far */
  char *last_sent;        /* the last line written, for errors */
};

static gboolean
fail (GError **error, const ProtoGuestProc *p, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (GError **error, const ProtoGuestProc *p, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "guest `%s`: %s (after dlsim's line `%.80s`)",
               p->command, what, p->last_sent ? p->last_sent : "");
  return FALSE;
}

ProtoGuestProc *
proto_guest_proc_new (const char *command, const char *dir, guint timeout_ms, GError **error)
{
  g_auto (GStrv) argv = NULL;
  if (!g_shell_parse_argv (command, NULL, &argv, error))
    return NULL;
  int sv[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "socketpair: %s", g_strerror (errno));
      return NULL;
    }
  GPid pid = 0;
  /* the child's stdin and stdout are its end of the socket; its stderr is
   * ours (a traceback reaches the user) */
  if (!g_spawn_async_with_pipes_and_fds (dir, (const char *const *) argv, NULL,
                                         G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, sv[1], sv[1],
                                         -1, NULL, NULL, 0, &pid, NULL, NULL, NULL, error))
    {
      close (sv[0]);
      close (sv[1]);
      return NULL;
    }
  close (sv[1]);
  ProtoGuestProc *p = g_new0 (ProtoGuestProc, 1);
  p->fd = sv[0];
  p->pid = pid;
  p->timeout_ms = timeout_ms;
  p->command = g_strdup (command);
  p->buf = g_string_new (NULL);
  return p;
}

guint64
proto_guest_proc_lines_read (const ProtoGuestProc *p)
{
  return p->lines;
}

/* Its exit, if it has exited within `ms` (TRUE, status set). */
static gboolean
reap (ProtoGuestProc *p, guint ms)
{
  for (guint waited = 0; !p->reaped; waited += 10)
    {
      pid_t r = waitpid (p->pid, &p->status, WNOHANG);
      if (r == p->pid || (r < 0 && errno == ECHILD))
        {
          p->reaped = TRUE;
          break;
        }
      if (waited >= ms)
        return FALSE;
      g_usleep (10000);
    }
  return TRUE;
}

static const char *
exit_text (ProtoGuestProc *p, char *buf, gsize n)
{
  if (!reap (p, 1000))
    g_snprintf (buf, n, "closed its output");
  else if (WIFEXITED (p->status))
    g_snprintf (buf, n, "exited with status %d", WEXITSTATUS (p->status));
  else if (WIFSIGNALED (p->status))
    g_snprintf (buf, n, "was killed by signal %d", WTERMSIG (p->status));
  else
    g_snprintf (buf, n, "ended");
  return buf;
}

static gboolean
write_line (ProtoGuestProc *p, const char *line, GError **error)
{
  g_free (p->last_sent);
  p->last_sent = g_strdup (line);
  g_autofree char *s = g_strconcat (line, "\n", NULL);
  gsize len = strlen (s), done = 0;
  while (done < len)
    {
      ssize_t k = send (p->fd, s + done, len - done, MSG_NOSIGNAL);
      if (k < 0 && errno == EINTR)
        continue;
      if (k < 0)
        {
          /* it closed its end: said as when its output ends (which of the
           * two dlsim sees first is a race) */
          char why[64];
          return fail (error, p, "%s after its line %" G_GUINT64_FORMAT, exit_text (p, why, sizeof why), p->lines);
        }
      done += (gsize) k;
    }
  return TRUE;
}

/* The next whole line, waiting up to the limit for it. */
static char *
read_line (ProtoGuestProc *p, GError **error)
{
  gint64 until = g_get_monotonic_time () + (gint64) p->timeout_ms * 1000;
  for (;;)
    {
      char *nl = memchr (p->buf->str, '\n', p->buf->len);
      if (nl)
        {
          gsize n = (gsize) (nl - p->buf->str);
          char *line = g_strndup (p->buf->str, n);
          g_string_erase (p->buf, 0, (gssize) n + 1);
          p->lines++;
          if (n && line[n - 1] == '\r')
            line[--n] = '\0';
          if (strlen (line) != n || !g_utf8_validate (line, -1, NULL))
            {
              fail (error, p, "its line %" G_GUINT64_FORMAT " is not UTF-8 text", p->lines);
              g_free (line);
              return NULL;
            }
          return line;
        }
      if (p->buf->len > PROTO_GUEST_MAX_LINE)
        {
          fail (error, p, "its line %" G_GUINT64_FORMAT " is longer than %u bytes", p->lines + 1,
                PROTO_GUEST_MAX_LINE);
          return NULL;
        }
      gint64 left = until - g_get_monotonic_time ();
      if (left <= 0)
        {
          fail (error, p, "said nothing for %u ms (after its line %" G_GUINT64_FORMAT "; limit: [protocol] guest_timeout)",
                p->timeout_ms, p->lines);
          return NULL;
        }
      struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
      int r = poll (&pfd, 1, (int) MIN (left / 1000 + 1, G_MAXINT));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        continue;   /* the limit is checked above */
      char chunk[65536];
      ssize_t k = recv (p->fd, chunk, sizeof chunk, 0);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        {
          char why[64];
          fail (error, p, "%s after its line %" G_GUINT64_FORMAT, exit_text (p, why, sizeof why), p->lines);
          return NULL;
        }
      g_string_append_len (p->buf, chunk, k);
    }
}

gboolean
proto_guest_proc_call (ProtoGuestProc *p, const char *line, GPtrArray *replies, GError **error)
{
  if (p->fd < 0)
    return fail (error, p, "is gone");
  if (!write_line (p, line, error))
    return FALSE;
  gsize bytes = 0;
  for (;;)
    {
      char *l = read_line (p, error);
      if (!l)
        return FALSE;
      if (strcmp (l, "quiet") == 0)
        {
          g_free (l);
          return TRUE;
        }
      bytes += strlen (l) + 1;
      g_ptr_array_add (replies, l);
      if (replies->len >= PROTO_GUEST_MAX_ANSWER_LINES || bytes >= PROTO_GUEST_MAX_ANSWER_BYTES)
        return fail (error, p, "answered `%.60s` with %u lines (%" G_GSIZE_FORMAT " bytes) and no `quiet` "
                     "(bounds: %u lines, %u bytes an answer)", line, replies->len, bytes,
                     PROTO_GUEST_MAX_ANSWER_LINES, PROTO_GUEST_MAX_ANSWER_BYTES);
    }
}

void
proto_guest_proc_free (ProtoGuestProc *p)
{
  if (!p)
    return;
  if (p->fd >= 0)
    {
      (void) send (p->fd, "bye\n", 4, MSG_NOSIGNAL);
      shutdown (p->fd, SHUT_WR);
    }
  if (!reap (p, 2000))
    {
      kill (p->pid, SIGKILL);
      reap (p, 2000);
    }
  g_spawn_close_pid (p->pid);
  if (p->fd >= 0)
    close (p->fd);
  g_string_free (p->buf, TRUE);
  g_free (p->command);
  g_free (p->last_sent);
  g_free (p);
}
