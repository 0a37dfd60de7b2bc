/* test-learn.h — what the files of tests/test-learn share: the readers'
 * tests (test-learn-sources.c) that its main (test-learn.c) adds to its
 * "data" tcase. */
#pragma once

#include <check.h>

/* adds learn-sources.c's tests to tc, in their order */
void test_learn_sources_add (TCase *tc);
