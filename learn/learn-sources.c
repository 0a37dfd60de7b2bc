/* learn-sources.c — data sets from files other projects ship: MNIST-format
 * IDX files (Fashion-MNIST from Debian's dataset-fashion-mnist, MNIST or
 * EMNIST files a user has) and the CSVs of scikit-learn's small data sets
 * (Debian's python3-sklearn).  A leaf of learn/: it calls learn-data.c for
 * the CSV parser and never the other way.
 *
 * The files are untrusted input: an IDX header's dimensions and counts are
 * bounded (LEARN_IDX_MAX_* in learn-data.h) before anything is allocated,
 * and a file that ends early (or a gzip stream that is cut) is an error
 * naming the file, never a read past its end.  Gzip is read through GIO's
 * GZlibDecompressor, every member of the file (LearnGunzipAll), detected by
 * the two magic bytes, so a file may be compressed or not whatever its
 * name.
 *
 * Not supported: IDX types other than unsigned bytes (0x08), labels past
 * 255, and EMNIST's transposed images (a model does not care). */
#include "config.h"

#include "learn/learn-data.h"

#include <string.h>

/* ---------------------------------------------------------------- streams */

/* A gzip file may hold several members, one after the other (`cat a.gz
 * b.gz`, as gzip(1) reads them): GZlibDecompressor stops at the end of
 * the first, so a valid file read as truncated.  LearnGunzipAll is a
 * GConverter over it that starts the next member where one ends; at the
 * end of the input, between members, it is finished.  Bytes after a
 * member that are not a gzip member are an error, as before. */
typedef struct {
  GObject parent;
  GConverter *member;   /* a GZlibDecompressor, reset at each member */
  gboolean between;     /* a member has ended and no byte of the next is read */
} LearnGunzipAll;
typedef struct {
  GObjectClass parent_class;
} LearnGunzipAllClass;

static GType learn_gunzip_all_get_type (void);
static void learn_gunzip_all_converter_init (GConverterIface *iface);
G_DEFINE_TYPE_WITH_CODE (LearnGunzipAll, learn_gunzip_all, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (G_TYPE_CONVERTER, learn_gunzip_all_converter_init))

static GConverterResult
learn_gunzip_all_convert (GConverter *converter, const void *inbuf, gsize inbuf_size, void *outbuf, gsize outbuf_size,
                          GConverterFlags flags, gsize *bytes_read, gsize *bytes_written, GError **error)
{
  LearnGunzipAll *self = (LearnGunzipAll *) converter;
  if (self->between && inbuf_size == 0 && (flags & G_CONVERTER_INPUT_AT_END))
    {
      *bytes_read = *bytes_written = 0;
      return G_CONVERTER_FINISHED;
    }
  GConverterResult r = g_converter_convert (self->member, inbuf, inbuf_size, outbuf, outbuf_size, flags, bytes_read,
                                            bytes_written, error);
  self->between = FALSE;
  if (r != G_CONVERTER_FINISHED)
    return r;
  if (*bytes_read == inbuf_size && (flags & G_CONVERTER_INPUT_AT_END))
    return G_CONVERTER_FINISHED;
  /* more input may follow: the next member */
  g_converter_reset (self->member);
  self->between = TRUE;
  if (*bytes_read == 0 && *bytes_written == 0)
    {
      /* GConverterInputStream takes 0 and 0 with CONVERTED for an error */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, "the next gzip member");
      return G_CONVERTER_ERROR;
    }
  return G_CONVERTER_CONVERTED;
}

static void
learn_gunzip_all_reset (GConverter *converter)
{
  LearnGunzipAll *self = (LearnGunzipAll *) converter;
  g_converter_reset (self->member);
  self->between = FALSE;
}

static void
learn_gunzip_all_converter_init (GConverterIface *iface)
{
  iface->convert = learn_gunzip_all_convert;
  iface->reset = learn_gunzip_all_reset;
}

static void
learn_gunzip_all_finalize (GObject *object)
{
  g_clear_object (&((LearnGunzipAll *) object)->member);
  G_OBJECT_CLASS (learn_gunzip_all_parent_class)->finalize (object);
}

static void
learn_gunzip_all_class_init (LearnGunzipAllClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = learn_gunzip_all_finalize;
}

static void
learn_gunzip_all_init (LearnGunzipAll *self)
{
  self->member = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP));
}

/* (transfer full) `in` itself, or a gunzipping stream over it (every
 * member) when it starts with gzip's magic 1f 8b. */
static GInputStream *
maybe_gunzip (GInputStream *in, const char *name, GError **error)
{
  g_autoptr (GInputStream) buffered = g_buffered_input_stream_new (in);
  g_autoptr (GError) local = NULL;
  gssize got = g_buffered_input_stream_fill (G_BUFFERED_INPUT_STREAM (buffered), 2, NULL, &local);
  if (got < 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: %s", name, local->message);
      return NULL;
    }
  gsize avail = 0;
  const guint8 *head = g_buffered_input_stream_peek_buffer (G_BUFFERED_INPUT_STREAM (buffered), &avail);
  if (avail >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    {
      g_autoptr (GConverter) z = g_object_new (learn_gunzip_all_get_type (), NULL);
      return g_converter_input_stream_new (buffered, z);
    }
  return g_steal_pointer (&buffered);
}

/* Reads exactly n bytes, or fails naming `name`, `what` and how far it got. */
static gboolean
read_exact (GInputStream *in, void *buf, gsize n, const char *name, const char *what, GError **error)
{
  gsize got = 0;
  g_autoptr (GError) local = NULL;
  if (!g_input_stream_read_all (in, buf, n, &got, NULL, &local))
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: reading %s: %s", name, what, local->message);
      return FALSE;
    }
  if (got < n)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: the file ends in %s (%zu of %zu bytes): truncated",
                   name, what, got, n);
      return FALSE;
    }
  return TRUE;
}

/* Checks that `in` is at its end: a gzip stream whose trailer (CRC and
 * length) is cut or wrong fails here, and so does data after the end. */
static gboolean
expect_end (GInputStream *in, const char *name, GError **error)
{
  guint8 extra;
  g_autoptr (GError) local = NULL;
  gssize got = g_input_stream_read (in, &extra, 1, NULL, &local);
  if (got < 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: at the end: %s (truncated or corrupt)", name,
                   local->message);
      return FALSE;
    }
  if (got > 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: data after the last item the header declares", name);
      return FALSE;
    }
  return TRUE;
}

/* ---------------------------------------------------------------- IDX */

/* An IDX header: magic 00 00 TYPE NDIM, then NDIM big-endian u32 sizes. */
static gboolean
read_idx_header (GInputStream *in, const char *name, guint want_min_dims, guint want_max_dims, guint32 *dims,
                 guint *out_ndim, GError **error)
{
  guint8 magic[4];
  if (!read_exact (in, magic, 4, name, "the IDX magic", error))
    return FALSE;
  if (magic[0] != 0 || magic[1] != 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s: not an IDX file (the magic starts %02x %02x, expected 00 00; a gzip file that is cut "
                   "or corrupt reads as this too)", name, magic[0], magic[1]);
      return FALSE;
    }
  if (magic[2] != 0x08)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s: IDX type 0x%02x is not supported (only 0x08, unsigned bytes, as MNIST)", name, magic[2]);
      return FALSE;
    }
  guint ndim = magic[3];
  if (ndim < want_min_dims || ndim > want_max_dims)
    {
      if (want_min_dims == want_max_dims)
        g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: %u dimensions, expected %u", name, ndim,
                     want_min_dims);
      else
        g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: %u dimensions, expected %u to %u", name, ndim,
                     want_min_dims, want_max_dims);
      return FALSE;
    }
  guint8 raw[4 * 4];
  if (!read_exact (in, raw, 4 * ndim, name, "the IDX dimensions", error))
    return FALSE;
  for (guint i = 0; i < ndim; i++)
    {
      dims[i] = (guint32) raw[4 * i] << 24 | (guint32) raw[4 * i + 1] << 16 | (guint32) raw[4 * i + 2] << 8
                | raw[4 * i + 3];
      guint32 max = i == 0 ? LEARN_IDX_MAX_ITEMS : LEARN_IDX_MAX_DIM;
      if (dims[i] == 0 || dims[i] > max)
        {
          g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: dimension %u is %u: out of range (1 to %u)",
                       name, i + 1, dims[i], max);
          return FALSE;
        }
    }
  *out_ndim = ndim;
  return TRUE;
}

LearnDataset *
learn_dataset_read_idx (GInputStream *images, const char *images_name, GInputStream *labels,
                        const char *labels_name, gsize limit, GError **error)
{
  g_autoptr (GInputStream) im = maybe_gunzip (images, images_name, error);
  if (!im)
    return NULL;
  g_autoptr (GInputStream) lb = maybe_gunzip (labels, labels_name, error);
  if (!lb)
    return NULL;
  guint32 idim[4], ldim[1];
  guint indim = 0, lndim = 0;
  if (!read_idx_header (im, images_name, 2, 4, idim, &indim, error)
      || !read_idx_header (lb, labels_name, 1, 1, ldim, &lndim, error))
    return NULL;
  if (idim[0] != ldim[0])
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s has %u images but %s has %u labels", images_name,
                   idim[0], labels_name, ldim[0]);
      return NULL;
    }
  guint64 features = 1;
  for (guint i = 1; i < indim; i++)
    features *= idim[i];
  if (features > LEARN_IDX_MAX_FEATURES)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: %" G_GUINT64_FORMAT
                   " values per image: more than %u", images_name, features, LEARN_IDX_MAX_FEATURES);
      return NULL;
    }
  gsize n = limit > 0 ? MIN ((gsize) idim[0], limit) : idim[0];
  if ((guint64) n * features > LEARN_IDX_MAX_FLOATS)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: %zu images of %" G_GUINT64_FORMAT
                   " values are more than %" G_GUINT64_FORMAT " floats (read fewer: [data] limit)",
                   images_name, n, features, (guint64) LEARN_IDX_MAX_FLOATS);
      return NULL;
    }
  g_autofree guint8 *ys = g_malloc (n);
  if (!read_exact (lb, ys, n, labels_name, "the labels", error))
    return NULL;
  guint8 max_label = 0;
  for (gsize i = 0; i < n; i++)
    max_label = MAX (max_label, ys[i]);
  LearnDataset *d = learn_dataset_new (n, (gsize) features, (guint) max_label + 1);
  for (gsize i = 0; i < n; i++)
    d->y[i] = ys[i];
  /* one image at a time: never more than one row of bytes beside the floats */
  g_autofree guint8 *row = g_malloc ((gsize) features);
  for (gsize i = 0; i < n; i++)
    {
      if (!read_exact (im, row, (gsize) features, images_name, "the images", error))
        {
          g_prefix_error (error, "image %zu of %zu: ", i + 1, n);
          learn_dataset_free (d);
          return NULL;
        }
      float *x = d->x + i * features;
      for (gsize f = 0; f < features; f++)
        x[f] = row[f] / 255.0f;
    }
  /* all items read: both files must end there */
  if (n == idim[0] && (!expect_end (im, images_name, error) || !expect_end (lb, labels_name, error)))
    {
      learn_dataset_free (d);
      return NULL;
    }
  return d;
}

/* What a missing file's error adds. */
#define IDX_HINT " (Fashion-MNIST's IDX files are Debian's package dataset-fashion-mnist: apt-get install " \
                 "dataset-fashion-mnist, then idx:/usr/share/datasets/fashion-mnist)"

/* The one file in dir whose name ends with one of `tails` (each also with
 * .gz); NULL and an error when none or several do. */
static char *
find_idx_file (const char *dir, const char *const *tails, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &local);
  if (!d)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: %s%s", dir, local->message, IDX_HINT);
      return NULL;
    }
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *entry;
  while ((entry = g_dir_read_name (d)) != NULL)
    for (guint t = 0; tails[t]; t++)
      {
        g_autofree char *gz = g_strconcat (tails[t], ".gz", NULL);
        if (g_str_has_suffix (entry, tails[t]) || g_str_has_suffix (entry, gz))
          {
            g_ptr_array_add (found, g_strdup (entry));
            break;
          }
      }
  if (found->len == 0)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: no file named *%s[.gz]%s", dir, tails[0], IDX_HINT);
      return NULL;
    }
  if (found->len > 1)
    {
      g_ptr_array_sort (found, (GCompareFunc) (void *) g_strcmp0);
      g_ptr_array_add (found, NULL);
      g_autofree char *names = g_strjoinv (", ", (char **) found->pdata);
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s: several files end with %s (%s): keep one set of IDX files per folder", dir, tails[0],
                   names);
      return NULL;
    }
  return g_build_filename (dir, found->pdata[0], NULL);
}

static LearnDataset *
load_idx_pair (const char *dir, const char *const *image_tails, const char *const *label_tails, gsize limit,
               GError **error)
{
  g_autofree char *ip = find_idx_file (dir, image_tails, error);
  if (!ip)
    return NULL;
  g_autofree char *lp = find_idx_file (dir, label_tails, error);
  if (!lp)
    return NULL;
  g_autoptr (GFile) fi = g_file_new_for_path (ip);
  g_autoptr (GFile) fl = g_file_new_for_path (lp);
  g_autoptr (GError) local = NULL;
  g_autoptr (GFileInputStream) si = g_file_read (fi, NULL, &local);
  g_autoptr (GFileInputStream) sl = si ? g_file_read (fl, NULL, &local) : NULL;
  if (!si || !sl)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s", local->message);
      return NULL;
    }
  return learn_dataset_read_idx (G_INPUT_STREAM (si), ip, G_INPUT_STREAM (sl), lp, limit, error);
}

gboolean
learn_dataset_load_idx_dir (const char *dir, gsize train_limit, LearnDataset **out_train, LearnDataset **out_test,
                            GError **error)
{
  static const char *const train_images[] = { "train-images-idx3-ubyte", NULL };
  static const char *const train_labels[] = { "train-labels-idx1-ubyte", NULL };
  static const char *const test_images[] = { "t10k-images-idx3-ubyte", "test-images-idx3-ubyte", NULL };
  static const char *const test_labels[] = { "t10k-labels-idx1-ubyte", "test-labels-idx1-ubyte", NULL };
  g_autoptr (LearnDataset) train = load_idx_pair (dir, train_images, train_labels, train_limit, error);
  if (!train)
    return FALSE;
  g_autoptr (LearnDataset) test = load_idx_pair (dir, test_images, test_labels, 0, error);
  if (!test)
    return FALSE;
  if (train->features != test->features)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s: training images have %zu values each, test images %zu", dir, train->features,
                   test->features);
      return FALSE;
    }
  train->classes = test->classes = MAX (train->classes, test->classes);
  *out_train = g_steal_pointer (&train);
  *out_test = g_steal_pointer (&test);
  return TRUE;
}

/* ---------------------------------------------------------------- scikit-learn */

/* The files and shapes of sklearn/datasets/_base.py (load_digits, load_wine,
 * load_breast_cancer, load_iris). */
static const struct {
  const char *name, *file;
  gsize n, features;
  guint classes;
} sklearn_sets[] = {
  { "digits", "digits.csv.gz", 1797, 64, 10 },
  { "wine", "wine_data.csv", 178, 13, 3 },
  { "breast_cancer", "breast_cancer.csv", 569, 30, 2 },
  { "iris", "iris.csv", 150, 4, 3 },
};

LearnDataset *
learn_dataset_load_sklearn (const char *name, const char *dir, GError **error)
{
  guint k = 0;
  while (k < G_N_ELEMENTS (sklearn_sets) && g_strcmp0 (sklearn_sets[k].name, name) != 0)
    k++;
  if (k == G_N_ELEMENTS (sklearn_sets))
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "'%s' is not one of scikit-learn's data sets here (digits, wine, breast_cancer, iris)", name);
      return NULL;
    }
  g_autofree char *path = g_build_filename (dir, sklearn_sets[k].file, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) local = NULL;
  g_autoptr (GFileInputStream) raw = g_file_read (file, NULL, &local);
  if (!raw)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_IO, "%s: %s (Debian's python3-sklearn ships it: apt-get install "
                   "python3-sklearn)", path, local->message);
      return NULL;
    }
  g_autoptr (GInputStream) in = maybe_gunzip (G_INPUT_STREAM (raw), path, error);
  if (!in)
    return NULL;
  /* the largest (digits) is 400 KB of text: 8 MiB is a generous bound */
  const gsize max_bytes = 8u << 20;
  g_autofree char *text = g_malloc (max_bytes + 1);
  gsize len = 0;
  if (!g_input_stream_read_all (in, text, max_bytes + 1, &len, NULL, &local))
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: %s", path, local->message);
      return NULL;
    }
  if (len > max_bytes)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT, "%s: more than %zu bytes: not scikit-learn's file", path,
                   max_bytes);
      return NULL;
    }
  g_autoptr (LearnDataset) d = learn_dataset_parse_csv (text, len, path, error);
  if (!d)
    return NULL;
  if (d->n != sklearn_sets[k].n || d->features != sklearn_sets[k].features || d->classes != sklearn_sets[k].classes)
    {
      g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                   "%s: %zu rows of %zu features in %u classes, but scikit-learn's %s has %zu of %zu in %u", path,
                   d->n, d->features, d->classes, name, sklearn_sets[k].n, sklearn_sets[k].features,
                   sklearn_sets[k].classes);
      return NULL;
    }
  return g_steal_pointer (&d);
}

/* ---------------------------------------------------------------- [data] source */

gboolean
learn_source_parse (const char *text, LearnSourceKind *out_kind, char **out_arg, GError **error)
{
  static const struct {
    const char *prefix;
    LearnSourceKind kind;
  } kinds[] = {
    { "csv:", LEARN_SOURCE_CSV },
    { "idx:", LEARN_SOURCE_IDX },
    { "sklearn:", LEARN_SOURCE_SKLEARN },
  };
  if (g_strcmp0 (text, "synthetic") == 0)
    {
      *out_kind = LEARN_SOURCE_SYNTHETIC;
      if (out_arg)
        *out_arg = NULL;
      return TRUE;
    }
  for (guint i = 0; text && i < G_N_ELEMENTS (kinds); i++)
    if (g_str_has_prefix (text, kinds[i].prefix) && text[strlen (kinds[i].prefix)] != '\0')
      {
        const char *arg = text + strlen (kinds[i].prefix);
        if (kinds[i].kind == LEARN_SOURCE_SKLEARN)
          {
            guint k = 0;
            while (k < G_N_ELEMENTS (sklearn_sets) && strcmp (sklearn_sets[k].name, arg) != 0)
              k++;
            if (k == G_N_ELEMENTS (sklearn_sets))
              {
                g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                             "'%s': expected sklearn:digits, sklearn:wine, sklearn:breast_cancer or sklearn:iris",
                             text);
                return FALSE;
              }
          }
        *out_kind = kinds[i].kind;
        if (out_arg)
          *out_arg = g_strdup (arg);
        return TRUE;
      }
  g_set_error (error, LEARN_ERROR, LEARN_ERROR_FORMAT,
               "'%s': expected synthetic, csv:PATH, idx:DIR or sklearn:NAME", text ? text : "");
  return FALSE;
}
