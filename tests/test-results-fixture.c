/* test-results-fixture.c — the fixture test-results.c's and
 * test-results-compare.c's tests share (test-results.h): a leaf, so
 * that neither of the two calls the other's functions but the tcase
 * test-results.c adds. */
#include "config.h"

#include "tests/test-results.h"
#include "results/res-db.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

void
fixture_init (Fixture *f)
{
  f->dir = g_dir_make_tmp ("dlsim-results-XXXXXX", NULL);
  ck_assert_ptr_nonnull (f->dir);
  f->path = g_build_filename (f->dir, "r.db", NULL);
  memset (&f->scenario, 0, sizeof f->scenario);
  f->scenario.name = (char *) "log";
  f->scenario.path = (char *) "log.ini";
  memset (&f->point, 0, sizeof f->point);
  f->point.label = (char *) "";
  f->point.keys = g_ptr_array_new ();
  f->point.values = g_ptr_array_new ();
}

void
fixture_clear (Fixture *f)
{
  g_ptr_array_unref (f->point.keys);
  g_ptr_array_unref (f->point.values);
  res_db_remove_files (f->path);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}
