/*
 * check_main.c: the one unit-test runner.  Every tests/check_*.c exports
 * `Suite *<name>_suite(void)`; the Makefile collects them into suites.h.
 * CK_RUN_SUITE / CK_RUN_CASE select, CK_FORK=no runs in-process (gdb).
 * The exit status is non-zero when any test failed or none ran.
 */
#include <check.h>
#include <stdlib.h>

#define SUITE(fn) Suite *fn(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
#define SUITE(fn) srunner_add_suite(sr, fn());
#include "suites.h"
#undef SUITE
	srunner_run_all(sr, CK_ENV);
	int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed || run == 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
