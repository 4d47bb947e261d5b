/*
 * check_main.c: the one unit-test runner.  Every tests/check_*.c exports
 * `Suite *<name>_suite(void)`; the Makefile collects them into suites.h.
 * CK_RUN_SUITE / CK_RUN_CASE select, CK_FORK=no runs in-process (gdb).
 * The exit status is non-zero when any test failed or none ran.
 *
 * Unit tests are not time-bound: check kills a test after 4 s by default, and
 * on a loaded machine (12 runnable processes on 2 cores) a test of a few
 * hundred thousand delta formats took longer and was reported as an error.
 * A timeout of 0 disarms check's timer; CK_DEFAULT_TIMEOUT set by hand wins.
 */
#include <check.h>
#include <stdlib.h>

#define SUITE(fn) Suite *fn(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	setenv("CK_DEFAULT_TIMEOUT", "0", 0);
	SRunner *sr = srunner_create(NULL);
#define SUITE(fn) srunner_add_suite(sr, fn());
#include "suites.h"
#undef SUITE
	srunner_run_all(sr, CK_ENV);
	int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed || run == 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
