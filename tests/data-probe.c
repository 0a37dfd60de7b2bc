/* data-probe.c — prints what learn/ makes of a data source, for
 * tests/data.sh: the training and test sets' shapes, label ranges, value
 * ranges and a digest of the test labels in order, in the line format of
 * tools/sklearn-reference --data, so that the two can be compared.
 *
 *   tests/data-probe idx:DIR [LIMIT]
 *   tests/data-probe sklearn:NAME SEED TEST_FRACTION
 *
 * The split is the one scenario/sim-build.c makes: the stream "data-split" of
 * the scenario seed. */
#include "config.h"

#include "learn/learn-data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
describe (const char *what, const LearnDataset *d)
{
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  float xlo = 1e30f, xhi = -1e30f;
  for (gsize i = 0; i < d->n; i++)
    {
      lo = MIN (lo, d->y[i]);
      hi = MAX (hi, d->y[i]);
    }
  for (gsize i = 0; i < d->n * d->features; i++)
    {
      xlo = MIN (xlo, d->x[i]);
      xhi = MAX (xhi, d->x[i]);
    }
  printf ("%s rows %zu features %zu classes %u labels %d..%d values %g..%g\n", what, d->n, d->features, d->classes,
          lo, hi, xlo, xhi);
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: data-probe idx:DIR [LIMIT] | sklearn:NAME SEED TEST_FRACTION\n");
      return 2;
    }
  LearnSourceKind kind;
  g_autofree char *arg = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LearnDataset) train = NULL;
  g_autoptr (LearnDataset) test = NULL;
  if (!learn_source_parse (argv[1], &kind, &arg, &error))
    goto fail;
  if (kind == LEARN_SOURCE_IDX)
    {
      gsize limit = argc > 2 ? (gsize) g_ascii_strtoull (argv[2], NULL, 10) : 0;
      if (!learn_dataset_load_idx_dir (arg, limit, &train, &test, &error))
        goto fail;
    }
  else if (kind == LEARN_SOURCE_SKLEARN && argc == 4)
    {
      g_autoptr (LearnDataset) all = learn_dataset_load_sklearn (arg, LEARN_SKLEARN_DATA_DIR, &error);
      if (!all)
        goto fail;
      g_autoptr (DlRandom) sr = dl_random_new (g_ascii_strtoull (argv[2], NULL, 10), "data-split", DL_RANDOM_NO_NODE);
      learn_dataset_split (all, g_ascii_strtod (argv[3], NULL), sr, &train, &test);
    }
  else
    {
      fprintf (stderr, "data-probe: idx:DIR [LIMIT] or sklearn:NAME SEED TEST_FRACTION\n");
      return 2;
    }
  describe ("train", train);
  describe ("test", test);
  guint32 digest = 0;
  for (gsize i = 0; i < test->n; i++)
    digest = digest * 31u + (guint32) test->y[i];
  printf ("data %zu %zu %zu %u %u\n", train->n, test->n, train->features, train->classes, digest);
  return 0;
fail:
  fprintf (stderr, "data-probe: %s\n", error->message);
  return 1;
}
