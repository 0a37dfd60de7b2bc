/* cmd-localize.c — `dlsim explore --localize FOUND.ini`: when did the
 * failure become likely?  cmd-explore.c parses the options and calls
 * this; explore/explore-localize.c makes the runs.  This file prints the
 * curve (cut, failure ratio, runs) and the decisive event, and stores the
 * curve with -o DB for `dlsim plot DB localize`. */
#include "config.h"

#include "cli/cli.h"
#include "explore/explore.h"

#include <stdio.h>

#define MAX_NAMED 12   /* the decisive instant's events printed */

static void
print_curve (const ExploreLocalized *l)
{
  printf ("%14s %8s %6s %7s\n", "cut", "ratio", "runs", "failing");
  for (guint i = 0; i < l->cuts->len; i++)
    {
      const ExploreCut *c = &g_array_index (l->cuts, ExploreCut, i);
      char tb[DL_TIME_STR_LEN];
      printf ("%14s %8.3f %6u %7u%s\n", dl_time_format (c->t, tb), (double) c->failing / MAX (c->runs, 1), c->runs,
              c->failing, (gint) i == l->decisive ? "  <- certain from here on" : "");
    }
}

static void
print_decisive (const ExploreLocalized *l, double certain)
{
  char tb[DL_TIME_STR_LEN];
  if (l->decisive < 0)
    {
      printf ("\nthe failure never becomes certain (ratio >= %.2f) before it happens\n", certain);
      return;
    }
  if (l->decisive_t == DL_TIME_NEVER)
    {
      printf ("\ncertain (ratio >= %.2f) from the start: the scenario itself decides it\n", certain);
      return;
    }
  printf ("\ndecisive event (the last one before the ratio stays >= %.2f), at %s:\n", certain,
          dl_time_format (l->decisive_t, tb));
  guint n = l->decisive_events->len;
  for (guint i = 0; i < n && i < MAX_NAMED; i++)
    {
      g_autofree char *what = cli_shown (l->decisive_events->pdata[i], FALSE);
      printf ("  %s\n", what);
    }
  if (n > MAX_NAMED)
    printf ("  ... and %u more at that instant (dlsim trace on the run -o DB records)\n", n - MAX_NAMED);
}

/* sets, then scenario.seed=SEED if seed >= 0, NULL-ended (transfer full) */
static GPtrArray *
with_seed (char **sets, gint64 seed)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (g_free);
  for (char **s = sets; s && *s; s++)
    g_ptr_array_add (all, g_strdup (*s));
  if (seed >= 0)
    g_ptr_array_add (all, g_strdup_printf ("scenario.seed=%" G_GINT64_FORMAT, seed));
  g_ptr_array_add (all, NULL);
  return all;
}

int
cli_explore_localize (const char *path, char **sets, gint64 seed, guint runs, guint points, guint jobs,
                      double certain, const char *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResDb) db = NULL;
  if (points < 1 || points > 1000 || !(certain > 0 && certain <= 1))
    {
      cli_error ("explore", "--localize: expected --points 1 to 1000 and --certain in (0, 1]");
      return CLI_EXIT_USAGE;
    }
  if (out && !(db = cli_db_open (out, &error)))
    {
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  g_autoptr (GPtrArray) all = with_seed (sets, seed);
  ExploreLocalizeOptions o = { .path = path, .sets = (char **) all->pdata, .runs = runs, .points = points, .jobs = jobs,
                               .certain = certain, .db = db };
  ExploreLocalized l;
  if (!explore_localize (&o, &l, &error))
    {
      explore_localized_clear (&l);
      cli_error ("explore", "%s", error->message);
      return CLI_EXIT_FAILURE;
    }
  char tb[DL_TIME_STR_LEN];
  g_autofree char *sig = cli_shown (l.signature, FALSE);
  printf ("%s (seed %" G_GUINT64_FORMAT "): %s at %s\n", path, l.seed, sig, dl_time_format (l.failed_at, tb));
  printf ("failure ratio when every random stream is re-seeded at the cut (%u runs a cut):\n\n", runs);
  print_curve (&l);
  print_decisive (&l, certain);
  if (out)
    printf ("\nthe found run is run %" G_GINT64_FORMAT " of %s, with its curve: dlsim plot %s localize\n", l.run_id,
            out, out);
  explore_localized_clear (&l);
  return CLI_EXIT_OK;
}
