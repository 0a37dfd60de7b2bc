/* cmd-compare.c — `dlsim compare A.db B.db`: two runs side by side (a
 * simulated one and a testbed one, typically), and whether their discrete
 * facts agree.
 *
 * Discrete facts (a difference makes the exit status 1):
 *   the run's outcome, rounds completed, retries, exclusions, model syncs,
 *   the violations of each property (violations.NAME; judged when both
 *   runs checked it), and for each peer its outcome, rounds, retries and
 *   fails received.
 * Shown, not judged: message counts per type, round durations (median and
 * p90 of the round period, end to end, and of the exchange, PeersForRound
 * to the last aggregation) with their ratio B/A, and final accuracy. */
#include "config.h"

#include "cli/cli.h"
#include "results/res-query.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *path;
  struct sqlite3 *db;
  gint64 run;
  char *mode;
} Side;

/* Picks the run: the one given, or the only one in the file. */
static gboolean
pick_run (Side *s, gint64 want, const char *opt)
{
  ResRows *st = res_db_compare_runs (s->db, want);
  guint n = 0;
  while (res_rows_next (st))
    {
      if (n++ == 0)
        {
          s->run = res_rows_int64 (st, 0);
          s->mode = g_strdup (res_rows_text (st, 1));
        }
    }
  res_rows_free (st);
  if (n == 0)
    {
      if (want)
        cli_error ("compare", "%s: no run %" G_GINT64_FORMAT, s->path, want);
      else
        cli_error ("compare", "%s has no runs", s->path);
      return FALSE;
    }
  if (n > 1)
    {
      cli_error ("compare", "%s has %u runs: choose one with %s ID", s->path, n, opt);
      return FALSE;
    }
  return TRUE;
}

static char *
summary (Side *s, const char *key)
{
  char *v = res_db_summary_value (s->db, s->run, key);
  return v ? v : g_strdup ("-");
}

static char *
run_outcome (Side *s)
{
  char *v = res_db_run_outcome (s->db, s->run);
  return v ? v : g_strdup ("-");
}

/* name -> "outcome rounds retries fails" for each peer of the run. */
static GHashTable *
peer_facts (Side *s)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ResRows *st = res_db_peer_facts (s->db, s->run);
  while (res_rows_next (st))
    g_hash_table_insert (h, g_strdup (res_rows_text (st, 0)),
                         g_strdup_printf ("%s %d %d %d", res_rows_text (st, 1), res_rows_int (st, 2),
                                          res_rows_int (st, 3), res_rows_int (st, 4)));
  res_rows_free (st);
  return h;
}

/* The run's violations.NAME summary keys (a set). */
static GHashTable *
violation_keys (Side *s)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ResRows *st = res_db_violation_keys (s->db, s->run);
  while (res_rows_next (st))
    g_hash_table_add (h, g_strdup (res_rows_text (st, 0)));
  res_rows_free (st);
  return h;
}

static GHashTable *
traffic (Side *s)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ResRows *st = res_db_traffic_messages (s->db, s->run);
  while (res_rows_next (st))
    g_hash_table_insert (h, g_strdup (res_rows_text (st, 0)),
                         GINT_TO_POINTER (res_rows_int (st, 1)));
  res_rows_free (st);
  return h;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Nearest-rank quantile of a sorted array; NAN when empty. */
static double
quantile (GArray *v, double q)
{
  if (v->len == 0)
    return NAN;
  guint k = (guint) ceil (q * v->len);
  return g_array_index (v, double, MIN (MAX (k, 1), v->len) - 1);
}

/* Round periods (end_s of round k minus end_s of round k-1, from round 2
 * on) and exchanges (end_s - list_s), sorted. */
static void
durations (Side *s, GArray *period, GArray *exchange)
{
  ResRows *st = res_db_finished_rounds (s->db, s->run);
  double prev = NAN;
  int prev_round = -1;
  while (res_rows_next (st))
    {
      int r = res_rows_int (st, 0);
      double end = res_rows_double (st, 2);
      if (!res_rows_is_null (st, 1))
        {
          double x = end - res_rows_double (st, 1);
          g_array_append_val (exchange, x);
        }
      if (prev_round >= 0 && r == prev_round + 1)
        {
          double p = end - prev;
          g_array_append_val (period, p);
        }
      prev = end;
      prev_round = r;
    }
  res_rows_free (st);
  g_array_sort (period, cmp_double);
  g_array_sort (exchange, cmp_double);
}

static guint differences;

static void
row (const char *what, const char *a, const char *b, gboolean judged)
{
  gboolean same = g_strcmp0 (a, b) == 0;
  const char *mark = same ? "" : judged ? "  DIFFERS" : "  (differs)";
  if (!same && judged)
    differences++;
  printf ("  %-34s %-22s %-22s%s\n", what, a, b, mark);
}

static void
duration_rows (const char *what, GArray *a, GArray *b)
{
  for (int i = 0; i < 2; i++)
    {
      double q = i == 0 ? 0.5 : 0.9;
      double x = quantile (a, q), y = quantile (b, q);
      g_autofree char *l = g_strdup_printf ("%s %s (s)", what, i == 0 ? "median" : "p90");
      g_autofree char *sa = isnan (x) ? g_strdup ("-") : g_strdup_printf ("%.3f", x);
      g_autofree char *sb = isnan (y) ? g_strdup ("-") : g_strdup_printf ("%.3f", y);
      printf ("  %-34s %-22s %-22s", l, sa, sb);
      if (!isnan (x) && !isnan (y) && x > 0)
        printf ("  ratio %.2f", y / x);
      printf ("\n");
    }
}

static int
str_cmp (gconstpointer a, gconstpointer b)
{
  const char *x = *(char *const *) a, *y = *(char *const *) b;
  /* p2 before p10 */
  if (x[0] == 'p' && y[0] == 'p' && g_ascii_isdigit (x[1]) && g_ascii_isdigit (y[1]))
    return (int) (g_ascii_strtoull (x + 1, NULL, 10) > g_ascii_strtoull (y + 1, NULL, 10))
           - (int) (g_ascii_strtoull (x + 1, NULL, 10) < g_ascii_strtoull (y + 1, NULL, 10));
  return strcmp (x, y);
}

static GPtrArray *
union_keys (GHashTable *a, GHashTable *b)
{
  GPtrArray *keys = g_ptr_array_new ();
  GHashTable *all = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *both[2] = { a, b };
  for (int i = 0; i < 2; i++)
    {
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, both[i]);
      while (g_hash_table_iter_next (&it, &k, NULL))
        if (g_hash_table_add (all, k))
          g_ptr_array_add (keys, k);
    }
  g_hash_table_unref (all);
  g_ptr_array_sort (keys, str_cmp);
  return keys;
}

/* Prints the comparison; returns the number of discrete facts that differ. */
static guint
print_comparison (Side *s)
{
  differences = 0;
  g_autofree char *ha = g_strdup_printf ("A: %s run %" G_GINT64_FORMAT, s[0].mode, s[0].run);
  g_autofree char *hb = g_strdup_printf ("B: %s run %" G_GINT64_FORMAT, s[1].mode, s[1].run);
  printf ("A = %s\nB = %s\n\n", s[0].path, s[1].path);
  printf ("  %-34s %-22s %-22s\n", "", ha, hb);
  {
    g_autofree char *oa = run_outcome (&s[0]), *ob = run_outcome (&s[1]);
    row ("outcome", oa, ob, TRUE);
  }
  static const char *const judged[] = { "rounds_completed", "retries", "exclusions", "model_syncs", NULL };
  for (int k = 0; judged[k]; k++)
    {
      g_autofree char *a = summary (&s[0], judged[k]), *b = summary (&s[1], judged[k]);
      row (judged[k], a, b, TRUE);
    }
  /* the properties each run broke (a run recorded before properties
   * were checked has no such keys: "-", not judged) */
  g_autoptr (GHashTable) va = violation_keys (&s[0]);
  g_autoptr (GHashTable) vb = violation_keys (&s[1]);
  g_autoptr (GPtrArray) props = union_keys (va, vb);
  for (guint i = 0; i < props->len; i++)
    {
      const char *k = props->pdata[i];
      g_autofree char *a = summary (&s[0], k), *b = summary (&s[1], k);
      row (k, a, b, g_hash_table_contains (va, k) && g_hash_table_contains (vb, k));
    }
  {
    g_autofree char *a = summary (&s[0], "final_accuracy"), *b = summary (&s[1], "final_accuracy");
    row ("final_accuracy", a, b, FALSE);
  }

  printf ("\n  %-34s %-22s %-22s\n", "peer: outcome rounds retries fails", "", "");
  g_autoptr (GHashTable) pa = peer_facts (&s[0]);
  g_autoptr (GHashTable) pb = peer_facts (&s[1]);
  g_autoptr (GPtrArray) names = union_keys (pa, pb);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = names->pdata[i];
      const char *a = g_hash_table_lookup (pa, n), *b = g_hash_table_lookup (pb, n);
      row (n, a ? a : "absent", b ? b : "absent", TRUE);
    }

  printf ("\n  %-34s %-22s %-22s\n", "messages", "", "");
  g_autoptr (GHashTable) ta = traffic (&s[0]);
  g_autoptr (GHashTable) tb = traffic (&s[1]);
  g_autoptr (GPtrArray) types = union_keys (ta, tb);
  for (guint i = 0; i < types->len; i++)
    {
      const char *t = types->pdata[i];
      g_autofree char *a = g_strdup_printf ("%d", GPOINTER_TO_INT (g_hash_table_lookup (ta, t)));
      g_autofree char *b = g_strdup_printf ("%d", GPOINTER_TO_INT (g_hash_table_lookup (tb, t)));
      row (t, a, b, FALSE);
    }

  printf ("\n");
  g_autoptr (GArray) per_a = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) per_b = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ex_a = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ex_b = g_array_new (FALSE, FALSE, sizeof (double));
  durations (&s[0], per_a, ex_a);
  durations (&s[1], per_b, ex_b);
  duration_rows ("round period", per_a, per_b);
  duration_rows ("exchange", ex_a, ex_b);

  printf ("\n%s\n", differences ? "discrete facts DIFFER" : "discrete facts agree");
  return differences;
}

int
cli_cmd_compare (int argc, char **argv)
{
  gint64 run_a = 0, run_b = 0;
  g_auto (GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "run-a", 0, 0, G_OPTION_ARG_INT64, &run_a, "the run of A.db (default: its only run)", "ID" },
    { "run-b", 0, 0, G_OPTION_ARG_INT64, &run_b, "the run of B.db (default: its only run)", "ID" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("A.db B.db - two runs side by side");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
      "Prints two runs side by side (typically the simulator's and the testbed's\n"
      "run of one scenario file).\n"
      "\n"
      "Discrete facts, judged: the run's outcome, rounds completed, retries,\n"
      "exclusions, model syncs, the violations of each property both runs checked,\n"
      "and each peer's outcome, rounds, retries and fails received.  Shown only: messages per type, round durations (median and p90\n"
      "of the round period, end to end from round 2 on, and of the exchange,\n"
      "PeersForRound to the last aggregation) with their ratio B/A, and the final\n"
      "accuracy.\n"
      "\n"
      "Exit status: 0 the discrete facts agree; 1 they differ (or a file or run\n"
      "cannot be read); 2 usage error.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      cli_error ("compare", "%s", error->message);
      return CLI_EXIT_USAGE;
    }
  if (!rest || g_strv_length (rest) != 2)
    {
      cli_error ("compare", "expected two results databases (dlsim compare --help)");
      return CLI_EXIT_USAGE;
    }
  Side s[2] = { { .path = rest[0] }, { .path = rest[1] } };
  int rc = CLI_EXIT_FAILURE;
  for (int i = 0; i < 2; i++)
    if (!(s[i].db = cli_open_results ("compare", s[i].path))
        || !pick_run (&s[i], i == 0 ? run_a : run_b, i == 0 ? "--run-a" : "--run-b"))
      goto out;

  rc = print_comparison (s) ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
out:
  for (int i = 0; i < 2; i++)
    {
      res_db_close_read (s[i].db);
      g_free (s[i].mode);
    }
  return rc;
}
