/* learn-data.h — labelled datasets, their train/test split and their
 * partition over peers.
 *
 * A dataset is row-major float features and int32 labels in [0, classes).
 * Sources: synthetic Gaussian class clusters, or a CSV file (header optional,
 * last column the integer label).  Partitions: IID, Dirichlet(alpha) label
 * skew, or label shards.  All randomness comes from streams the caller hands
 * in, so shards and orders are reproducible from the scenario seed.
 *
 * Shape: learn_dataset_* return (transfer full) LearnDataset, freed with
 * learn_dataset_free (g_autoptr).  LearnPartition likewise. */
#pragma once

#include "base/dl-random.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  gsize n;          /* samples */
  gsize features;
  guint classes;
  float *x;         /* n * features, row-major */
  int32_t *y;       /* n */
} LearnDataset;

void learn_dataset_free (LearnDataset *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LearnDataset, learn_dataset_free)

/* Gaussian clusters: class c's centre is a random direction scaled by
 * `separation`; samples are centre + N(0, I). */
LearnDataset *learn_dataset_synthetic (gsize samples, gsize features, guint classes,
                                       double separation, DlRandom *rng);

#define LEARN_ERROR (learn_error_quark ())
GQuark learn_error_quark (void);
typedef enum {
  LEARN_ERROR_IO,
  LEARN_ERROR_FORMAT,
} LearnErrorCode;

/* Reads a CSV file: comma-separated numbers, the last column an integer label
 * >= 0; an optional first line that is not numeric is a header.  A bad row is
 * an error naming the file and the line. */
LearnDataset *learn_dataset_load_csv (const char *path, GError **error);
gboolean learn_dataset_save_csv (const LearnDataset *d, const char *path, GError **error);

/* Splits d into train and test sets: a shuffled test_fraction goes to test. */
void learn_dataset_split (const LearnDataset *d, double test_fraction, DlRandom *rng,
                          LearnDataset **out_train, LearnDataset **out_test);
/* (transfer full) the rows idx[0..n) of d */
LearnDataset *learn_dataset_subset (const LearnDataset *d, const gsize *idx, gsize n);

typedef enum {
  LEARN_PARTITION_IID,
  LEARN_PARTITION_DIRICHLET,
  LEARN_PARTITION_SHARDS,
} LearnPartitionKind;

typedef struct {
  LearnPartitionKind kind;
  double alpha;   /* dirichlet */
  guint shards;   /* shards per peer */
} LearnPartitionSpec;

/* Parses "iid", "dirichlet(0.5)" or "shards(2)". */
gboolean learn_partition_spec_parse (const char *text, LearnPartitionSpec *out, GError **error);

/* Row indices of each of `parts` shards of d. */
typedef struct {
  guint parts;
  GArray **idx;   /* parts arrays of gsize */
} LearnPartition;

LearnPartition *learn_partition_new (const LearnDataset *d, const LearnPartitionSpec *spec,
                                     guint parts, DlRandom *rng);
void learn_partition_free (LearnPartition *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LearnPartition, learn_partition_free)

G_END_DECLS
