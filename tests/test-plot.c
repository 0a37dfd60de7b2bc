/* test-plot.c — plot_quote (plots/plot-util.c), the one way text from a
 * file reaches gnuplot: a fuzz of seeded random bytes, mixed with pieces
 * of gnuplot syntax (backquote commands, system(), quotes, newlines,
 * macros), each quoted and printed back by a real gnuplot.  Each must come
 * back as one string: the same text, with a control character (C0, DEL,
 * C1) as a space and invalid UTF-8 as U+FFFD; and no command may run (the folder gnuplot runs
 * in holds only its script afterwards).
 *
 * DLSIM_QUOTE_FUZZ sets the number of strings (default 3000; `make
 * check-scenario-fuzz` runs 200 000). */
#include "config.h"

#include "plots/plot-private.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

/* What gnuplot must print for t: written here without plot_quote's code. */
static char *
expected_text (const char *t)
{
  g_autofree char *v = g_utf8_make_valid (t, -1);
  GString *s = g_string_new (NULL);
  for (const char *p = v; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c < 0x20 || (c >= 0x7f && c < 0xa0))
        g_string_append_c (s, ' ');
      else
        g_string_append_unichar (s, c);
    }
  return g_string_free (s, FALSE);
}

static const char *const pieces[] = {
  "`touch pwned-bq`", "system(\"touch pwned-sys\")", "system('touch pwned-sys1')", "\n! touch pwned-bang\n",
  "\nsystem \"touch pwned-nl\"\n", "'", "''", "\"", "\\", "\\'", "@", "@x", "$", "EOD", "\nEOD\n", "\r", "\t",
  "\033]0;title\007", "\033[2J", "#", ";", "%s", "%d", "{", "}", "_", "^", "&", "~", ".", "caf\xc3\xa9", "\xe9",
  "\xff\xfe", "\xc3", "set output 'pwned-out'", "`", "\x7f", "(", ")", ",", "\xc2\x9b", "\xc2\x85", "\xc2\xa0",
};

/* A random string: bytes 1..255 and pieces of gnuplot syntax. */
static char *
random_text (GRand *rng)
{
  GString *s = g_string_new (NULL);
  guint parts = (guint) g_rand_int_range (rng, 0, 12);
  for (guint i = 0; i < parts; i++)
    {
      if (g_rand_boolean (rng))
        g_string_append (s, pieces[g_rand_int_range (rng, 0, G_N_ELEMENTS (pieces))]);
      else
        for (gint n = g_rand_int_range (rng, 1, 8); n > 0; n--)
          g_string_append_c (s, (char) g_rand_int_range (rng, 1, 256));
    }
  return g_string_free (s, FALSE);
}

static const char *
gnuplot_program (void)
{
  const char *prog = g_getenv ("DLSIM_GNUPLOT");
  return prog && *prog ? prog : DL_GNUPLOT;
}

/* Runs gnuplot on SCRIPT in DIR: (transfer full) what it printed. */
static char *
gnuplot_print (const char *dir, const char *script)
{
  g_autofree char *path = g_build_filename (dir, "script.gp", NULL);
  ck_assert (g_file_set_contents (path, script, -1, NULL));
  const char *argv[] = { gnuplot_program (), "script.gp", NULL };
  char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  gboolean ran = g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error);
  ck_assert_msg (ran, "gnuplot did not start: %s", error ? error->message : "");
  ck_assert_msg (g_spawn_check_wait_status (status, NULL), "gnuplot failed: %s", err);
  g_free (err);
  g_unlink (path);
  return out;
}

/* Only the script was in dir: no command ran. */
static void
assert_empty (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_ptr_nonnull (d);
  const char *name = g_dir_read_name (d);
  ck_assert_msg (name == NULL, "a command ran: %s/%s", dir, name);
}

START_TEST (test_quote_examples)
{
  const char *cases[][2] = {
    { "plain", "\"plain\"" },
    { "it's \"so\" \\n", "\"it's \\\"so\\\" \\\\n\"" },
    { "a`touch x`b @m", "\"a\\140touch x\\140b \\100m\"" },
    { "line\nnext\r\033[2J", "\"line next  [2J\"" },
    { "", "\"\"" },
    { "x\xff", "\"x\xef\xbf\xbd\"" },
    { "c1\xc2\x9b[2J \xc2\xa0", "\"c1 [2J \xc2\xa0\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *q = plot_quote (cases[i][0]);
      ck_assert_str_eq (q, cases[i][1]);
    }
  g_autofree char *f = plot_quotef ("%s = %d", "a'b", 3);
  ck_assert_str_eq (f, "\"a'b = 3\"");
  ck_assert (plot_text_is_plain ("figure 'one'.png"));
  ck_assert (!plot_text_is_plain ("a\nb.png"));
  ck_assert (!plot_text_is_plain ("a\xff.png"));
}
END_TEST

START_TEST (test_quote_fuzz)
{
  const char *env = g_getenv ("DLSIM_QUOTE_FUZZ");
  guint total = env ? (guint) g_ascii_strtoull (env, NULL, 10) : 3000;
  g_autofree char *dir = g_dir_make_tmp ("dlsim-quote-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autoptr (GRand) rng = g_rand_new_with_seed (48);
  const guint batch = 2000;
  for (guint done = 0; done < total; done += batch)
    {
      guint n = MIN (batch, total - done);
      g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
      GString *script = g_string_new ("set print '-'\n");
      for (guint i = 0; i < n; i++)
        {
          char *t = random_text (rng);
          g_ptr_array_add (texts, t);
          g_autofree char *q = plot_quote (t);
          /* as a title too: a string in a command, not only in print */
          g_string_append_printf (script, "set title %s\nprint '<' . %s . '>'\n", q, q);
        }
      g_string_append (script, "print 'end'\n");
      g_autofree char *out = gnuplot_print (dir, script->str);
      g_string_free (script, TRUE);
      assert_empty (dir);
      g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
      ck_assert_uint_ge (g_strv_length (lines), n + 1);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *want = expected_text (texts->pdata[i]);
          g_autofree char *line = g_strdup_printf ("<%s>", want);
          ck_assert_msg (strcmp (lines[i], line) == 0, "string %u: printed %s, wanted %s", done + i, lines[i], line);
        }
      ck_assert_str_eq (lines[n], "end");
    }
  g_rmdir (dir);
}
END_TEST

static Suite *
plot_suite (void)
{
  Suite *s = suite_create ("plot");
  TCase *tc = tcase_create ("quote");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_quote_examples);
  tcase_add_test (tc, test_quote_fuzz);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (plot_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
