/* learn-data.h — labelled datasets, their train/test split and their
 * partition over peers.
 *
 * A dataset is row-major float features and int32 labels in [0, classes).
 * Sources: synthetic Gaussian class clusters, a CSV file (header optional,
 * last column the integer label), MNIST-format IDX files, or the CSVs that
 * scikit-learn ships (learn-sources.c).  Partitions: IID, Dirichlet(alpha) label
 * skew, or label shards.  All randomness comes from streams the caller hands
 * in, so shards and orders are reproducible from the scenario seed.
 *
 * Shape: learn_dataset_* return (transfer full) LearnDataset, freed with
 * learn_dataset_free (g_autoptr).  LearnPartition likewise. */
#pragma once

#include "base/dl-random.h"

#include <gio/gio.h>
#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct {
  gsize n;          /* samples */
  gsize features;
  guint classes;
  float *x;         /* n * features, row-major */
  int32_t *y;       /* n */
  int32_t *group;   /* n, or NULL: the client a row belongs to (by-column), 0..groups-1 */
  guint groups;
} LearnDataset;

/* (transfer full) n rows of zeros */
LearnDataset *learn_dataset_new (gsize n, gsize features, guint classes);
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

/* The most classes a data set may have (a CSV label is at most this - 1;
 * an IDX label is a byte). */
#define LEARN_CLASSES_MAX 65536u

/* Reads a CSV file: comma-separated numbers, the last column an integer label
 * from 0 to LEARN_CLASSES_MAX - 1; an optional first line that is not
 * numeric is a header.  A bad row, or a feature past a float's range (1e39
 * would be inf), is an error naming the file, the line (and the column). */
LearnDataset *learn_dataset_load_csv (const char *path, GError **error);
/* The same, with a column that is not a feature but says whose row it is
 * (LEAF's writer or user): the header must name `column`; its distinct
 * values, in order of first appearance, are the groups 0, 1, ...; the
 * other columns are read as by learn_dataset_load_csv. */
LearnDataset *learn_dataset_load_csv_by_column (const char *path, const char *column, GError **error);
/* The same from text already in memory; `name` is what errors call it. */
LearnDataset *learn_dataset_parse_csv (const char *text, gsize len, const char *name, GError **error);
gboolean learn_dataset_save_csv (const LearnDataset *d, const char *path, GError **error);

/* Splits d into train and test sets: a shuffled test_fraction goes to test.
 * With groups, each group's rows are split so (LEAF's split within each
 * user), the groups in order. */
void learn_dataset_split (const LearnDataset *d, double test_fraction, DlRandom *rng,
                          LearnDataset **out_train, LearnDataset **out_test);
/* Standardizes every feature of train and test (which may be NULL) with the
 * mean and the population standard deviation (ddof 0, as scikit-learn's
 * StandardScaler) of train; a constant feature is only centred. */
void learn_dataset_standardize (LearnDataset *train, LearnDataset *test);
/* (transfer full) the rows idx[0..n) of d */
LearnDataset *learn_dataset_subset (const LearnDataset *d, const gsize *idx, gsize n);

typedef enum {
  LEARN_PARTITION_IID,
  LEARN_PARTITION_DIRICHLET,
  LEARN_PARTITION_SHARDS,
  LEARN_PARTITION_BY_COLUMN,
} LearnPartitionKind;

#define LEARN_COLUMN_NAME_MAX 64

typedef struct {
  LearnPartitionKind kind;
  double alpha;   /* dirichlet */
  guint shards;   /* shards per peer */
  char column[LEARN_COLUMN_NAME_MAX];   /* by-column: the CSV header's name */
} LearnPartitionSpec;

/* Parses "iid", "dirichlet(0.5)", "shards(2)" or "by-column(NAME)" (NAME of
 * letters, digits, '_', '-' and '.').  by-column deals group g's rows to
 * part g mod parts: with as many groups as parts, one group a part. */
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

/* ---- learn-sources.c: MNIST-format IDX files and scikit-learn's CSVs ---- */

/* Bounds on what an IDX header may declare (the files are untrusted input):
 * a dimension, the items, the features of one item, and the floats that
 * the first `limit` items make. */
#define LEARN_IDX_MAX_DIM 65536u
#define LEARN_IDX_MAX_ITEMS 10000000u
#define LEARN_IDX_MAX_FEATURES 1048576u
#define LEARN_IDX_MAX_FLOATS (G_GUINT64_CONSTANT (1) << 28)

/* Reads an IDX images stream (unsigned bytes, two or more dimensions: items
 * x ...) and its labels stream (unsigned bytes, one dimension); each may be
 * gzipped (detected by its magic).  At most `limit` items are read (0: all);
 * pixel values are scaled to [0, 1].  classes is the largest label + 1.
 * A bad magic, a dimension or count past the bounds above, counts that
 * differ, or a stream that ends early is an error naming `images_name` or
 * `labels_name`. */
LearnDataset *learn_dataset_read_idx (GInputStream *images, const char *images_name, GInputStream *labels,
                                      const char *labels_name, gsize limit, GError **error);

/* Loads DIR's training and test sets: the files whose names end with
 * train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte
 * and t10k-labels-idx1-ubyte (test- for t10k- also), each optionally .gz.
 * At most `train_limit` training items (0: all); both sets get the larger
 * class count. */
gboolean learn_dataset_load_idx_dir (const char *dir, gsize train_limit, LearnDataset **out_train,
                                     LearnDataset **out_test, GError **error);

/* Where Debian's python3-sklearn puts its data sets. */
#define LEARN_SKLEARN_DATA_DIR "/usr/lib/python3/dist-packages/sklearn/datasets/data"

/* Loads scikit-learn's `digits`, `wine`, `breast_cancer` or `iris` from the
 * CSV files in dir (LEARN_SKLEARN_DATA_DIR), checking the shape scikit-learn
 * documents for each. */
LearnDataset *learn_dataset_load_sklearn (const char *name, const char *dir, GError **error);

typedef enum {
  LEARN_SOURCE_SYNTHETIC,
  LEARN_SOURCE_CSV,
  LEARN_SOURCE_IDX,
  LEARN_SOURCE_SKLEARN,
} LearnSourceKind;

/* Parses `synthetic`, `csv:PATH`, `idx:DIR` or `sklearn:NAME`; *out_arg
 * (transfer full, NULL for synthetic) is PATH, DIR or NAME. */
gboolean learn_source_parse (const char *text, LearnSourceKind *out_kind, char **out_arg, GError **error);

G_END_DECLS
