/* train-cost.c — the wall time of local training on a real data set, for
 * docs/performance.md: seconds per epoch per 1 000 samples, softmax and
 * MLP, and the time of one evaluation of the test set.
 *
 *   bench/train-cost SOURCE KIND HIDDEN SAMPLES EPOCHS [BATCH]
 *   OPENBLAS_NUM_THREADS=1 bench/train-cost idx:/usr/share/datasets/fashion-mnist mlp 64 10000 3
 *
 * SOURCE is idx:DIR or sklearn:NAME (learn-sources.c); the first SAMPLES
 * training rows are trained on, EPOCHS passes of minibatch SGD (learning
 * rate 0.05, BATCH rows, default 32), as a peer does in learn_model_train.
 * Prints every epoch's wall and CPU time (the machine is shared: the CPU
 * time is the steadier of the two), then the accuracy, so that a reader sees the
 * model did learn.  A benchmark, not a test: the machine is shared. */
#include "config.h"

#include "learn/learn-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The training and test sets of SOURCE (the first `samples` training rows). */
static gboolean
load (const char *source, gsize samples, LearnDataset **out_train, LearnDataset **out_test, GError **error)
{
  LearnSourceKind kind;
  g_autofree char *arg = NULL;
  if (!learn_source_parse (source, &kind, &arg, error))
    return FALSE;
  if (kind == LEARN_SOURCE_IDX)
    return learn_dataset_load_idx_dir (arg, samples, out_train, out_test, error);
  if (kind != LEARN_SOURCE_SKLEARN)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: expected idx:DIR or sklearn:NAME", source);
      return FALSE;
    }
  g_autoptr (LearnDataset) all = learn_dataset_load_sklearn (arg, LEARN_SKLEARN_DATA_DIR, error);
  if (!all)
    return FALSE;
  g_autoptr (DlRandom) sr = dl_random_new (1, "data-split", DL_RANDOM_NO_NODE);
  learn_dataset_split (all, 0.2, sr, out_train, out_test);
  learn_dataset_standardize (*out_train, *out_test);
  return TRUE;
}

int
main (int argc, char **argv)
{
  if (argc < 6)
    {
      fprintf (stderr, "usage: train-cost SOURCE softmax|mlp HIDDEN SAMPLES EPOCHS [BATCH]\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  LearnDataset *train = NULL, *test = NULL;
  gsize samples = (gsize) g_ascii_strtoull (argv[4], NULL, 10);
  guint epochs = (guint) g_ascii_strtoull (argv[5], NULL, 10);
  LearnModel m = { .hidden = (gsize) g_ascii_strtoull (argv[3], NULL, 10), .learning_rate = 0.05f,
                   .batch_size = argc > 6 ? (gsize) g_ascii_strtoull (argv[6], NULL, 10) : 32 };
  if (!learn_model_kind_from_name (argv[2], &m.kind, &error) || !load (argv[1], samples, &train, &test, &error))
    {
      fprintf (stderr, "train-cost: %s\n", error->message);
      return 1;
    }
  m.features = train->features;
  m.classes = train->classes;
  g_autoptr (DlRandom) r = dl_random_new (1, "train-cost", 0);
  LearnWeights *w = learn_model_initial_weights (&m, r);
  printf ("%s %s hidden %zu: %zu training rows of %zu features, %zu test rows, batch %zu\n", argv[1], argv[2],
          m.hidden, train->n, train->features, test->n, m.batch_size);
  for (guint e = 0; e < epochs; e++)
    {
      gint64 t0 = g_get_monotonic_time ();
      clock_t c0 = clock ();
      LearnWeights *next = learn_model_train (&m, w, train, 1, r);
      clock_t c1 = clock ();
      gint64 t1 = g_get_monotonic_time ();
      learn_weights_unref (w);
      w = next;
      double s = (double) (t1 - t0) / 1e6, cpu = (double) (c1 - c0) / CLOCKS_PER_SEC;
      printf ("epoch %u: wall %.3f s (%.4f s per 1000 samples), cpu %.3f s (%.4f s per 1000 samples)\n", e + 1, s,
              s * 1000.0 / (double) train->n, cpu, cpu * 1000.0 / (double) train->n);
    }
  double acc, loss;
  gint64 t0 = g_get_monotonic_time ();
  learn_model_evaluate (&m, w, test, &acc, &loss);
  gint64 t1 = g_get_monotonic_time ();
  printf ("evaluation of %zu test rows: %.3f s; accuracy %.4f, loss %.4f\n", test->n, (double) (t1 - t0) / 1e6, acc,
          loss);
  learn_weights_unref (w);
  learn_dataset_free (train);
  learn_dataset_free (test);
  return 0;
}
