/* learn-data.c — synthetic and CSV datasets, standardizing, split, partition.
 *
 * Dirichlet partition: for each class, proportions over the parts are drawn
 * from Dir(alpha) (GSL) and that class's shuffled rows are cut accordingly.
 * Shards: rows sorted by label are cut into parts * k contiguous shards and
 * each part gets k shards drawn without replacement.  By column: a CSV
 * column names each row's client (LEAF); the split and the partition keep
 * a client's rows together. */
#include "config.h"

#include "base/dl-csv.h"

#include "learn/learn-data.h"

#include <errno.h>
#include <float.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK (learn-error-quark, learn_error)

LearnDataset *
learn_dataset_new (gsize n, gsize features, guint classes)
{
  LearnDataset *d = g_new0 (LearnDataset, 1);
  d->n = n;
  d->features = features;
  d->classes = classes;
  d->x = g_new0 (float, MAX (n * features, 1));
  d->y = g_new0 (int32_t, MAX (n, 1));
  return d;
}

void
learn_dataset_free (LearnDataset *d)
{
  if (!d)
    return;
  g_free (d->x);
  g_free (d->y);
  g_free (d->group);
  g_free (d);
}

LearnDataset *
learn_dataset_synthetic (gsize samples, gsize features, guint classes, double separation,
                         DlRandom *rng)
{
  g_return_val_if_fail (features > 0 && classes > 0, NULL);
  LearnDataset *d = learn_dataset_new (samples, features, classes);
  g_autofree double *centres = g_new (double, classes * features);
  for (guint c = 0; c < classes; c++)
    {
      double norm = 0;
      for (gsize f = 0; f < features; f++)
        {
          centres[c * features + f] = gsl_ran_gaussian_ziggurat (rng, 1.0);
          norm += centres[c * features + f] * centres[c * features + f];
        }
      norm = sqrt (norm);
      for (gsize f = 0; f < features; f++)
        centres[c * features + f] *= separation / (norm > 0 ? norm : 1);
    }
  for (gsize i = 0; i < samples; i++)
    {
      guint c = (guint) (i % classes);
      d->y[i] = (int32_t) c;
      for (gsize f = 0; f < features; f++)
        d->x[i * features + f] = (float) (centres[c * features + f] + gsl_ran_gaussian_ziggurat (rng, 1.0));
    }
  return d;
}

/* The fields of a record as numbers; FALSE if one is not a number. */
static gboolean
parse_row (char **fields, guint n, GArray *vals)
{
  g_array_set_size (vals, 0);
  for (guint i = 0; i < n; i++)
    {
      const char *s = fields[i];
      char *end = NULL;
      double v = g_ascii_strtod (s, &end);
      if (*s == '\0' || end == s || *end != '\0' || !isfinite (v))
        return FALSE;
      g_array_append_val (vals, v);
    }
  return vals->len > 0;
}

typedef struct {
  const char *path;
  GArray *vals, *xs, *ys;
  gsize width;
  int32_t max_label;
  guint records;
  /* by-column: the column's name and index, its values' ids, each row's id */
  const char *group_name;
  guint group_col;
  GHashTable *group_ids;
  GArray *gs;
} CsvLoad;

/* by-column: the header's column named c->group_name, or an error. */
static gboolean
find_group_column (CsvLoad *c, char **fields, guint n, gsize line, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (g_strstrip (fields[i]), c->group_name) == 0)
      {
        c->group_col = i;
        return TRUE;
      }
  g_autofree char *joined = g_strjoinv (", ", fields);
  if (parse_row (fields, n, c->vals))
    g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                 "%s:%zu: by-column(%s) needs a header line naming the columns; the first line is numbers", c->path,
                 line, c->group_name);
  else
    g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s:%zu: no column named '%s' in the header (%s)", c->path,
                 line, c->group_name, joined);
  return FALSE;
}

/* by-column: the record's group (its value of the column, an id in order
 * of first sight) appended to c->gs; the other fields, in order, returned
 * (transfer container), or NULL and an error if the record lacks the
 * column. */
static char **
take_group_field (CsvLoad *c, char **fields, guint n, gsize line, GError **error)
{
  if (c->group_col >= n)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s:%zu: no field for column '%s'", c->path, line,
                   c->group_name);
      return NULL;
    }
  const char *key = fields[c->group_col];
  gpointer id;
  if (!g_hash_table_lookup_extended (c->group_ids, key, NULL, &id))
    {
      id = GUINT_TO_POINTER (g_hash_table_size (c->group_ids));
      g_hash_table_insert (c->group_ids, g_strdup (key), id);
    }
  int32_t g = (int32_t) GPOINTER_TO_UINT (id);
  g_array_append_val (c->gs, g);
  char **rest = g_new0 (char *, n);
  for (guint i = 0, k = 0; i < n; i++)
    if (i != c->group_col)
      rest[k++] = fields[i];
  return rest;
}

/* A row of numbers in c->vals (parsed, at least a feature and a label, as
 * wide as the first row, the label a class): its features and label
 * appended to c->xs and c->ys; FALSE and an error otherwise. */
static gboolean
append_row (CsvLoad *c, gsize line, GError **error)
{
  if (c->vals->len < 2)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s:%zu: a row needs at least one feature and a label",
                   c->path, line);
      return FALSE;
    }
  if (c->width == 0)
    c->width = c->vals->len;
  else if (c->vals->len != c->width)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s:%zu: %u columns, expected %zu like the first row",
                   c->path, line, c->vals->len, c->width);
      return FALSE;
    }
  double label = g_array_index (c->vals, double, c->width - 1);
  if (label < 0 || label != floor (label) || label >= LEARN_CLASSES_MAX)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s:%zu: the label (last column) must be an integer from 0 to %u (at most %u classes), got %g",
                   c->path, line, LEARN_CLASSES_MAX - 1, LEARN_CLASSES_MAX, label);
      return FALSE;
    }
  for (gsize f = 0; f + 1 < c->width; f++)
    {
      double v = g_array_index (c->vals, double, f);
      if (fabs (v) > FLT_MAX)
        {
          /* the column as the file counts it, the by-column one included */
          gsize col = f + 1 + (c->group_name && f >= c->group_col ? 1 : 0);
          g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                       "%s:%zu: column %zu: %g is past a float's range (features are 32-bit floats, at most "
                       "about 3.4e38 in size)", c->path, line, col, v);
          return FALSE;
        }
      float x = (float) v;
      g_array_append_val (c->xs, x);
    }
  int32_t y = (int32_t) label;
  g_array_append_val (c->ys, y);
  c->max_label = MAX (c->max_label, y);
  return TRUE;
}

static gboolean
load_record (gpointer ud, char **fields, guint n, gsize line, GError **error)
{
  CsvLoad *c = ud;
  gboolean first = c->records++ == 0;
  if (c->group_name && first)
    return find_group_column (c, fields, n, line, error);
  g_autofree char **rest = NULL;
  if (c->group_name)
    {
      if (!(rest = take_group_field (c, fields, n, line, error)))
        return FALSE;
      fields = rest;
      n--;
    }
  if (!parse_row (fields, n, c->vals))
    {
      if (first)
        return TRUE;   /* the header: only the first record may be one */
      g_autofree char *joined = g_strjoinv (",", fields);
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s:%zu: not a row of numbers: '%s'", c->path, line,
                   joined);
      return FALSE;
    }
  return append_row (c, line, error);
}

static LearnDataset *parse_csv (const char *text, gsize len, const char *path, const char *column, GError **error);

static LearnDataset *
load_csv (const char *path, const char *column, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: %s", path, local->message);
      return NULL;
    }
  return parse_csv (text, len, path, column, error);
}

LearnDataset *
learn_dataset_load_csv (const char *path, GError **error)
{
  return load_csv (path, NULL, error);
}

LearnDataset *
learn_dataset_load_csv_by_column (const char *path, const char *column, GError **error)
{
  g_return_val_if_fail (column != NULL, NULL);
  return load_csv (path, column, error);
}

LearnDataset *
learn_dataset_parse_csv (const char *text, gsize len, const char *path, GError **error)
{
  return parse_csv (text, len, path, NULL, error);
}

static LearnDataset *
parse_csv (const char *text, gsize len, const char *path, const char *column, GError **error)
{
  g_autoptr (GError) local = NULL;
  CsvLoad c = { path, g_array_new (FALSE, FALSE, sizeof (double)), g_array_new (FALSE, FALSE, sizeof (float)),
                g_array_new (FALSE, FALSE, sizeof (int32_t)), 0, -1, 0, column, 0,
                g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), g_array_new (FALSE, FALSE, sizeof (int32_t)) };
  gboolean ok = dl_csv_parse (text, len, path, load_record, &c, &local);
  if (!ok)
    {
      if (local->domain == LEARN_ERROR)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s", local->message);
    }
  g_array_unref (c.vals);
  if (ok && c.ys->len == 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: no data rows", path);
      ok = FALSE;
    }
  LearnDataset *d = NULL;
  if (ok)
    {
      d = g_new0 (LearnDataset, 1);
      d->n = c.ys->len;
      d->features = c.width - 1;
      d->classes = (guint) c.max_label + 1;
      d->x = (float *) g_array_free (c.xs, FALSE);
      d->y = (int32_t *) g_array_free (c.ys, FALSE);
      if (column)
        {
          d->groups = g_hash_table_size (c.group_ids);
          d->group = (int32_t *) g_array_free (g_steal_pointer (&c.gs), FALSE);
        }
    }
  else
    {
      g_array_unref (c.xs);
      g_array_unref (c.ys);
    }
  if (c.gs)
    g_array_unref (c.gs);
  g_hash_table_unref (c.group_ids);
  return d;
}

gboolean
learn_dataset_save_csv (const LearnDataset *d, const char *path, GError **error)
{
  GString *s = g_string_new (NULL);
  for (gsize f = 0; f < d->features; f++)
    g_string_append_printf (s, "x%zu,", f);
  g_string_append (s, "label\n");
  for (gsize i = 0; i < d->n; i++)
    {
      for (gsize f = 0; f < d->features; f++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.9g", d->x[i * d->features + f]));
          g_string_append_c (s, ',');
        }
      g_string_append_printf (s, "%d\n", d->y[i]);
    }
  g_autoptr (GError) local = NULL;
  gboolean ok = g_file_set_contents (path, s->str, (gssize) s->len, &local);
  g_string_free (s, TRUE);
  if (!ok)
    g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: %s", path, local->message);
  return ok;
}

void
learn_dataset_standardize (LearnDataset *train, LearnDataset *test)
{
  g_return_if_fail (train != NULL);
  g_return_if_fail (test == NULL || test->features == train->features);
  gsize f = train->features;
  g_autofree double *mean = g_new0 (double, MAX (f, 1));
  g_autofree double *sd = g_new0 (double, MAX (f, 1));
  for (gsize i = 0; i < train->n; i++)
    for (gsize j = 0; j < f; j++)
      mean[j] += train->x[i * f + j];
  for (gsize j = 0; j < f; j++)
    mean[j] /= (double) MAX (train->n, 1);
  for (gsize i = 0; i < train->n; i++)
    for (gsize j = 0; j < f; j++)
      {
        double e = train->x[i * f + j] - mean[j];
        sd[j] += e * e;
      }
  for (gsize j = 0; j < f; j++)
    {
      sd[j] = sqrt (sd[j] / (double) MAX (train->n, 1));
      if (!(sd[j] > 0))
        sd[j] = 1;
    }
  LearnDataset *sets[] = { train, test };
  for (guint k = 0; k < 2; k++)
    if (sets[k])
      for (gsize i = 0; i < sets[k]->n; i++)
        for (gsize j = 0; j < f; j++)
          sets[k]->x[i * f + j] = (float) ((sets[k]->x[i * f + j] - mean[j]) / sd[j]);
}

LearnDataset *
learn_dataset_subset (const LearnDataset *d, const gsize *idx, gsize n)
{
  LearnDataset *s = learn_dataset_new (n, d->features, d->classes);
  for (gsize i = 0; i < n; i++)
    {
      memcpy (s->x + i * d->features, d->x + idx[i] * d->features, d->features * sizeof (float));
      s->y[i] = d->y[idx[i]];
    }
  if (d->group)
    {
      s->groups = d->groups;
      s->group = g_new (int32_t, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        s->group[i] = d->group[idx[i]];
    }
  return s;
}

static void
shuffle (gsize *a, gsize n, DlRandom *rng)
{
  for (gsize i = n; i > 1; i--)
    {
      gsize j = (gsize) dl_random_below (rng, i);
      gsize t = a[i - 1];
      a[i - 1] = a[j];
      a[j] = t;
    }
}

void
learn_dataset_split (const LearnDataset *d, double test_fraction, DlRandom *rng,
                     LearnDataset **out_train, LearnDataset **out_test)
{
  g_autofree gsize *idx = g_new (gsize, MAX (d->n, 1));
  double tf = CLAMP (test_fraction, 0.0, 1.0);
  if (d->group == NULL)
    {
      for (gsize i = 0; i < d->n; i++)
        idx[i] = i;
      shuffle (idx, d->n, rng);
      gsize n_test = (gsize) llround (tf * (double) d->n);
      *out_test = learn_dataset_subset (d, idx, n_test);
      *out_train = learn_dataset_subset (d, idx + n_test, d->n - n_test);
      return;
    }
  /* each group's rows shuffled and cut; test rows and training rows each
   * in group order */
  g_autoptr (GArray) test = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GArray) train = g_array_new (FALSE, FALSE, sizeof (gsize));
  for (guint g = 0; g < d->groups; g++)
    {
      gsize m = 0;
      for (gsize i = 0; i < d->n; i++)
        if (d->group[i] == (int32_t) g)
          idx[m++] = i;
      shuffle (idx, m, rng);
      gsize n_test = (gsize) llround (tf * (double) m);
      g_array_append_vals (test, idx, (guint) n_test);
      g_array_append_vals (train, idx + n_test, (guint) (m - n_test));
    }
  *out_test = learn_dataset_subset (d, (const gsize *) (const void *) test->data, test->len);
  *out_train = learn_dataset_subset (d, (const gsize *) (const void *) train->data, train->len);
}

gboolean
learn_partition_spec_parse (const char *text, LearnPartitionSpec *out, GError **error)
{
  g_autofree char *s = g_strstrip (g_strdup (text ? text : ""));
  LearnPartitionSpec p = { .kind = LEARN_PARTITION_IID };
  double v = 0;
  if (strcmp (s, "iid") == 0)
    {
      *out = p;
      return TRUE;
    }
  if (g_str_has_prefix (s, "dirichlet(") && g_str_has_suffix (s, ")"))
    {
      g_autofree char *num = g_strndup (s + 10, strlen (s) - 11);
      char *end = NULL;
      v = g_ascii_strtod (num, &end);
      if (end != num && *end == '\0' && v > 0 && isfinite (v))
        {
          p.kind = LEARN_PARTITION_DIRICHLET;
          p.alpha = v;
          *out = p;
          return TRUE;
        }
    }
  if (g_str_has_prefix (s, "shards(") && g_str_has_suffix (s, ")"))
    {
      g_autofree char *num = g_strndup (s + 7, strlen (s) - 8);
      guint64 k = 0;
      if (g_ascii_string_to_unsigned (num, 10, 1, 1000, &k, NULL))
        {
          p.kind = LEARN_PARTITION_SHARDS;
          p.shards = (guint) k;
          *out = p;
          return TRUE;
        }
    }
  if (g_str_has_prefix (s, "by-column(") && g_str_has_suffix (s, ")"))
    {
      g_autofree char *name = g_strstrip (g_strndup (s + 10, strlen (s) - 11));
      gboolean ok = *name != '\0' && strlen (name) < sizeof p.column;
      for (const char *q = name; ok && *q; q++)
        ok = g_ascii_isalnum (*q) || *q == '_' || *q == '-' || *q == '.';
      if (ok)
        {
          p.kind = LEARN_PARTITION_BY_COLUMN;
          g_strlcpy (p.column, name, sizeof p.column);
          *out = p;
          return TRUE;
        }
    }
  g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
               "'%s' is not a partition (expected iid, dirichlet(ALPHA > 0), shards(K >= 1) or by-column(NAME), "
               "NAME of letters, digits, '_', '-', '.')", s);
  return FALSE;
}

/* dirichlet(alpha): each class's rows shuffled and cut by proportions
 * drawn from Dir(alpha) over the parts */
static void
partition_dirichlet (LearnPartition *p, const LearnDataset *d, double alpha_each, DlRandom *rng)
{
  guint parts = p->parts;
  g_autofree double *alpha = g_new (double, parts);
  g_autofree double *theta = g_new (double, parts);
  for (guint k = 0; k < parts; k++)
    alpha[k] = alpha_each;
  for (guint c = 0; c < d->classes; c++)
    {
      GArray *rows = g_array_new (FALSE, FALSE, sizeof (gsize));
      for (gsize i = 0; i < d->n; i++)
        if (d->y[i] == (int32_t) c)
          g_array_append_val (rows, i);
      shuffle ((gsize *) (void *) rows->data, rows->len, rng);
      gsl_ran_dirichlet (rng, parts, alpha, theta);
      /* cumulative cut points, rounded so every row is assigned once */
      double cum = 0;
      gsize start = 0;
      for (guint k = 0; k < parts; k++)
        {
          cum += theta[k];
          gsize end = k + 1 == parts ? rows->len : (gsize) llround (cum * rows->len);
          end = MIN (MAX (end, start), rows->len);
          for (gsize r = start; r < end; r++)
            g_array_append_val (p->idx[k], g_array_index (rows, gsize, r));
          start = end;
        }
      g_array_unref (rows);
    }
}

/* shards(k): the rows sorted by label cut into parts * k shards, each part
 * given k of them drawn without replacement */
static void
partition_shards (LearnPartition *p, const LearnDataset *d, guint shards, DlRandom *rng)
{
  /* stable sort by label (counting sort) */
  g_autofree gsize *sorted = g_new (gsize, MAX (d->n, 1));
  gsize k = 0;
  for (guint c = 0; c < d->classes; c++)
    for (gsize i = 0; i < d->n; i++)
      if (d->y[i] == (int32_t) c)
        sorted[k++] = i;
  guint n_shards = p->parts * shards;
  g_autofree gsize *order = g_new (gsize, n_shards);
  for (guint s = 0; s < n_shards; s++)
    order[s] = s;
  shuffle (order, n_shards, rng);
  for (guint s = 0; s < n_shards; s++)
    {
      gsize shard = order[s];
      gsize a = shard * d->n / n_shards, b = (shard + 1) * d->n / n_shards;
      for (gsize r = a; r < b; r++)
        g_array_append_val (p->idx[s / shards], sorted[r]);
    }
}

LearnPartition *
learn_partition_new (const LearnDataset *d, const LearnPartitionSpec *spec, guint parts, DlRandom *rng)
{
  g_return_val_if_fail (parts > 0, NULL);
  LearnPartition *p = g_new0 (LearnPartition, 1);
  p->parts = parts;
  p->idx = g_new (GArray *, parts);
  for (guint k = 0; k < parts; k++)
    p->idx[k] = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autofree gsize *all = g_new (gsize, MAX (d->n, 1));
  for (gsize i = 0; i < d->n; i++)
    all[i] = i;

  switch (spec->kind)
    {
    case LEARN_PARTITION_IID:
      shuffle (all, d->n, rng);
      for (gsize i = 0; i < d->n; i++)
        g_array_append_val (p->idx[i % parts], all[i]);
      break;
    case LEARN_PARTITION_DIRICHLET:
      partition_dirichlet (p, d, spec->alpha, rng);
      break;
    case LEARN_PARTITION_BY_COLUMN:
      /* group g to part g mod parts; rows in their order */
      g_return_val_if_fail (d->group != NULL || d->n == 0, p);
      for (gsize i = 0; i < d->n; i++)
        g_array_append_val (p->idx[(guint) d->group[i] % parts], all[i]);
      break;
    case LEARN_PARTITION_SHARDS:
      partition_shards (p, d, spec->shards, rng);
      break;
    }
  return p;
}

void
learn_partition_free (LearnPartition *p)
{
  if (!p)
    return;
  for (guint k = 0; k < p->parts; k++)
    g_array_unref (p->idx[k]);
  g_free (p->idx);
  g_free (p);
}
