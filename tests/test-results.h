/* test-results.h — what the files of tests/test-results share: the
 * fixture (a results file in a directory of its own, a scenario and a
 * point to record runs under) and `dlsim compare`'s tests
 * (test-results-compare.c), which its main (test-results.c) adds to its
 * "compare" tcase. */
#pragma once

#include "results/res-db.h"

#include <check.h>

typedef struct {
  char *dir;
  char *path;
  SimScenario scenario;
  SimPoint point;
} Fixture;

/* a fresh directory and file name, an empty scenario and point */
void fixture_init (Fixture *f);
/* removes the file (and its log) and the directory */
void fixture_clear (Fixture *f);
/* adds test-results-compare.c's tests to tc, in their order */
void test_results_compare_add (TCase *tc);
