/* test-testbed-secret.c — a node's secret (testbed/testbed-node.c's
 * testbed_node_secret, testbed/testbed-secret.c) without root: made by a
 * coordinator, refused to a peer, from the environment; a FIFO, a device,
 * a folder, a file too long and a guessable secret refused. */
#define _DEFAULT_SOURCE 1   /* mknod, S_IFCHR */
#include "config.h"

#include "testbed/testbed-node.h"
#include "testbed/testbed-secret.h"

#include <check.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* ---------------------------------------------------------------- a node's secret */

START_TEST (test_node_secret)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-tb-secret-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autofree char *path = g_build_filename (dir, "dlsim.secret", NULL);
  gboolean created = TRUE;
  g_unsetenv ("DLSIM_TESTBED_SECRET");
  /* a peer does not make one */
  g_autoptr (GError) e1 = NULL;
  ck_assert_ptr_null (testbed_node_secret (path, TRUE, &created, &e1));
  ck_assert (!created);
  ck_assert (!g_file_test (path, G_FILE_TEST_EXISTS));
  /* a coordinator does: 32 bytes in hex, mode 0600, the same when read again */
  g_autoptr (GError) e2 = NULL;
  g_autofree char *made = testbed_node_secret (path, FALSE, &created, &e2);
  ck_assert_msg (made != NULL, "%s", e2 ? e2->message : "?");
  ck_assert (created);
  ck_assert_uint_eq (strlen (made), 64);
  for (const char *c = made; *c; c++)
    ck_assert (g_ascii_isxdigit (*c));
  GStatBuf st;
  ck_assert_int_eq (g_stat (path, &st), 0);
  ck_assert_int_eq (st.st_mode & 0777, 0600);
  g_autofree char *again = testbed_node_secret (path, TRUE, &created, NULL);
  ck_assert (!created);
  ck_assert_str_eq (again, made);
  /* without a file: none at all, a short one, one from dlsim testbed (then gone from the environment) */
  g_autoptr (GError) e3 = NULL;
  ck_assert_ptr_null (testbed_node_secret (NULL, TRUE, &created, &e3));
  ck_assert (g_str_has_prefix (e3->message, "--secret-file FILE is required"));
  g_setenv ("DLSIM_TESTBED_SECRET", "short", TRUE);
  g_autoptr (GError) e4 = NULL;
  ck_assert_ptr_null (testbed_node_secret (NULL, TRUE, &created, &e4));
  ck_assert_str_eq (e4->message, "DLSIM_TESTBED_SECRET: the secret has 5 bytes, at least 16 are needed");
  ck_assert_ptr_null (g_getenv ("DLSIM_TESTBED_SECRET"));
  g_setenv ("DLSIM_TESTBED_SECRET", "0123456789abcdef0123", TRUE);
  g_autofree char *env = testbed_node_secret (NULL, TRUE, &created, NULL);
  ck_assert_str_eq (env, "0123456789abcdef0123");
  ck_assert_ptr_null (g_getenv ("DLSIM_TESTBED_SECRET"));
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

/* path's secret is refused, with want in the message */
static void
refused_with (const char *path, const char *want)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *got = testbed_secret_load (path, &e);
  ck_assert_msg (got == NULL, "%s: accepted '%s'", path, got);
  ck_assert_msg (strstr (e->message, want) != NULL, "%s: '%s' does not say '%s'", path, e->message, want);
}

static void
write_secret (const char *path, const char *text)
{
  g_unlink (path);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  ck_assert_int_eq (g_chmod (path, 0600), 0);
}

/* Only a regular file holds a secret: a FIFO of mode 0600 blocked the
 * node forever (open waited for a writer), a character device was read
 * until a 4 GiB allocation failed.  A secret of blanks or of a few
 * letters repeated is guessable: refused, from a file or the
 * environment. */
START_TEST (test_secret_refusals)
{
  g_autofree char *dir = g_dir_make_tmp ("dlsim-tb-secret-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autofree char *fifo = g_build_filename (dir, "fifo.secret", NULL);
  ck_assert_int_eq (mkfifo (fifo, 0600), 0);
  refused_with (fifo, "fifo.secret: a FIFO, not a regular file");
  g_unlink (fifo);
  g_autofree char *zero = g_build_filename (dir, "zero.secret", NULL);
  if (mknod (zero, S_IFCHR | 0600, makedev (1, 5)) == 0)   /* /dev/zero's numbers */
    {
      refused_with (zero, "zero.secret: a character device, not a regular file");
      g_unlink (zero);
    }
  else
    fprintf (stderr, "test_secret_refusals: no character device (mknod: %s), that case not tried\n",
             g_strerror (errno));
  refused_with (dir, "a folder, not a regular file");
  g_autofree char *path = g_build_filename (dir, "dlsim.secret", NULL);
  write_secret (path, "                                \n");   /* 32 spaces */
  refused_with (path, "dlsim.secret: the secret has 0 distinct bytes besides blanks, at least 8 are needed");
  write_secret (path, "abcabcabcabcabcabcabcabcabcabcab\n");
  refused_with (path, "the secret has 3 distinct bytes besides blanks");
  write_secret (path, "0123456789abcdef\n");   /* 16 bytes, 16 distinct: the floor's other side */
  g_autofree char *ok = testbed_secret_load (path, NULL);
  ck_assert_str_eq (ok, "0123456789abcdef");
  GString *big = g_string_new (NULL);
  for (int i = 0; i < 300; i++)
    g_string_append (big, "0123456789abcdef");
  write_secret (path, big->str);
  g_string_free (big, TRUE);
  refused_with (path, "4800 bytes is not a secret file (at most 4096)");
  gboolean created;
  g_setenv ("DLSIM_TESTBED_SECRET", "                    ", TRUE);
  g_autoptr (GError) e = NULL;
  ck_assert_ptr_null (testbed_node_secret (NULL, TRUE, &created, &e));
  ck_assert_str_eq (e->message, "DLSIM_TESTBED_SECRET: the secret has 0 distinct bytes besides blanks, at least 8 "
                    "are needed (a guessable secret; let a coordinator make one: 32 random bytes in hex)");
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

static Suite *
secret_suite (void)
{
  Suite *s = suite_create ("testbed-secret");
  TCase *nd = tcase_create ("node");
  tcase_add_test (nd, test_node_secret);
  tcase_add_test (nd, test_secret_refusals);
  suite_add_tcase (s, nd);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (secret_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
