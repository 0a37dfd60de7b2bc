/* test-base.h — what the files of tests/test-base share: the sorted
 * search's tests (test-base-sorted.c) and the records' (test-base-
 * records.c) that its main (test-base.c) adds to tcases of their own. */
#pragma once

#include <check.h>

/* adds test-base-sorted.c's tests to tc, in their order */
void test_base_sorted_add (TCase *tc);

/* adds test-base-records.c's tests (slabs, aligned arrays) to tc */
void test_base_records_add (TCase *tc);
