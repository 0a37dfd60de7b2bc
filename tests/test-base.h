/* test-base.h — what the files of tests/test-base share: the sorted
 * search's tests (test-base-sorted.c) that its main (test-base.c) adds to
 * a tcase of their own. */
#pragma once

#include <check.h>

/* adds test-base-sorted.c's tests to tc, in their order */
void test_base_sorted_add (TCase *tc);
