/* check_export.c: quoting in the JSON, CSV and Markdown exports, and the shape of each. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/export.h"

static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, s);
	fclose(f);
	return buf;
}

static const struct {
	const char *in, *csv, *md, *json;
} quote_cases[] = {
	{ "plain", "plain", "plain", "\"plain\"" },
	{ "a,b", "\"a,b\"", "a,b", "\"a,b\"" },
	{ "say \"hi\"", "\"say \"\"hi\"\"\"", "say \"hi\"", "\"say \\\"hi\\\"\"" },
	{ "two\nlines", "\"two\nlines\"", "two lines", "\"two\\u000alines\"" },
	{ "a|b", "a|b", "a\\|b", "\"a|b\"" },
	{ "wall_time", "wall_time", "wall\\_time", "\"wall_time\"" },
	{ "back\\slash", "back\\slash", "back\\\\slash", "\"back\\\\slash\"" },
	{ "`x` *y* [z] <w>", "`x` *y* [z] <w>", "\\`x\\` \\*y\\* \\[z\\] \\<w\\>", "\"`x` *y* [z] <w>\"" },
	{ "σ … ⚡", "σ … ⚡", "σ … ⚡", "\"σ … ⚡\"" },
	/* JSON is UTF-8: bytes that are not become U+FFFD (a lone continuation byte, an overlong NUL, a surrogate). */
	{ "a\x80z", "a\x80z", "a\x80z", "\"a\\ufffdz\"" },
	{ "\xc0\x80", "\xc0\x80", "\xc0\x80", "\"\\ufffd\\ufffd\"" },
	{ "\xed\xa0\x80", "\xed\xa0\x80", "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
	/* issue 31 D-16: OWASP's CSV injection rule (a leading ' inside quotes); Markdown shows control characters */
	{ "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"", "=cmd\\|' /C calc'!A0", "\"=cmd|' /C calc'!A0\"" },
	{ "+1", "\"'+1\"", "+1", "\"+1\"" },
	{ "-2+3", "\"'-2+3\"", "-2+3", "\"-2+3\"" },
	{ "@SUM(A1)", "\"'@SUM(A1)\"", "@SUM(A1)", "\"@SUM(A1)\"" },
	{ "\t=1", "\"'\t=1\"", " =1", "\"\\u0009=1\"" },
	{ "\r=1", "\"'\r=1\"", " =1", "\"\\u000d=1\"" },
	{ "=\"a\",b", "\"'=\"\"a\"\",b\"", "=\"a\",b", "\"=\\\"a\\\",b\"" },
	{ "a=b", "a=b", "a=b", "\"a=b\"" },
	{ "e\033[2Jx\x7f", "e\033[2Jx\x7f", "e\\\\x1b\\[2Jx\\\\x7f", "\"e\\u001b[2Jx\x7f\"" },
	{ "c1\xc2\x9b" "1m", "c1\xc2\x9b" "1m", "c1\\\\u009b1m", "\"c1\xc2\x9b" "1m\"" },
};

START_TEST(test_quoting)
{
	char *csv = capture(export_csv_field, quote_cases[_i].in);
	char *md = capture(export_md_text, quote_cases[_i].in);
	char *json = capture(export_json_str, quote_cases[_i].in);
	ck_assert_str_eq(csv, quote_cases[_i].csv);
	ck_assert_str_eq(md, quote_cases[_i].md);
	ck_assert_str_eq(json, quote_cases[_i].json);
	free(csv);
	free(md);
	free(json);
}
END_TEST

/* Two commands, two measurements; the second command failed on its first run.  Ir was not
 * counted in the first command's second run (NAN): it has statistics over 2 of the 3 runs. */
static void sample_run(struct export_run *r, struct export_command *cmds, struct report_row rows[2][2],
		       const double *samples[2][2], struct export_gate *gate)
{
	static const double wall[3] = { 10, 11, 12 }, ir[3] = { 5, NAN, 5 };
	static const bool checks[3] = { true, false, true };
	memset(rows, 0, sizeof(struct report_row) * 4);
	rows[0][0] = (struct report_row){ .name = "wall_time", .unit = "ns", .st = { .n = 3, .mean = 11, .sd = 1, .min = 10, .max = 12 } };
	rows[0][1] = (struct report_row){ .name = "Ir", .st = { .n = 2, .mean = 5, .min = 5, .max = 5 } };
	rows[1][0] = (struct report_row){ .name = "wall_time", .unit = "ns" };
	rows[1][1] = (struct report_row){ .name = "Ir" };
	samples[0][0] = wall;
	samples[0][1] = ir;
	samples[1][0] = samples[1][1] = NULL;
	cmds[0] = (struct export_command){ .command = "prog --a,b", .name = "old", .runs = 3, .rows = rows[0],
					   .samples = samples[0], .nrows = 2, .check_passed = checks, .checks_passed = 2 };
	cmds[1] = (struct export_command){ .command = "sh -c 'exit 3' | x", .exit_code = 3, .failed_step = "command",
					   .runs = 0, .rows = rows[1], .samples = samples[1], .nrows = 2 };
	*gate = (struct export_gate){ .spec = "Ir=1%", .measurement = "Ir", .limit = 1, .command = 0,
				      .eval = { .basis = GATE_EXACT, .change = 0, .ci_low = NAN, .ci_high = NAN } };
	*r = (struct export_run){ .backend = "valgrind", .lauka_version = "0.1.0", .runner_class = "ci",
				  .cmds = cmds, .ncmds = 2, .gates = gate, .ngates = 1 };
}

static char *run_writer(void (*w)(FILE *, const struct export_run *))
{
	struct export_run r;
	struct export_command cmds[2];
	struct report_row rows[2][2];
	const double *samples[2][2];
	struct export_gate gate;
	sample_run(&r, cmds, rows, samples, &gate);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	w(f, &r);
	fclose(f);
	return buf;
}

START_TEST(test_csv_shape)
{
	char *csv = run_writer(export_csv);
	/* A header and one row per command x measurement, CRLF-terminated (RFC 4180). */
	size_t lines = 0;
	for (char *p = csv; (p = strstr(p, "\r\n")); p += 2)
		lines++;
	ck_assert_uint_eq(lines, 1 + 2 * 2);
	ck_assert_ptr_nonnull(strstr(csv, "\r\n1,old,\"prog --a,b\",0,3,wall_time,ns,true,3,11,1,10,12,"));
	ck_assert_ptr_nonnull(strstr(csv, "\r\n1,old,\"prog --a,b\",0,3,Ir,,true,2,5,0,5,5,"));
	/* The command that never completed a run: empty statistics, its exit code. */
	ck_assert_ptr_nonnull(strstr(csv, "\r\n2,,sh -c 'exit 3' | x,3,0,Ir,,true,0,,,,,,,,,,,,,,,,,,,\r\n"));
	free(csv);
}
END_TEST

START_TEST(test_markdown_shape)
{
	char *md = run_writer(export_markdown);
	/* Every table line starts and ends with an unescaped pipe; the first table has 6 columns (checks). */
	char *save, *line = strtok_r(md, "\n", &save);
	ck_assert_str_eq(line, "| command | measurement | mean ± σ | min … max | delta (95% CI) | checks |");
	line = strtok_r(NULL, "\n", &save);
	ck_assert_str_eq(line, "|:---|:---|---:|---:|---:|---:|");
	int rows = 0;
	while ((line = strtok_r(NULL, "\n", &save)) && strncmp(line, "| gate", 6)) {
		size_t pipes = 0;
		for (char *p = line; *p; p++)
			pipes += *p == '|' && (p == line || p[-1] != '\\');
		ck_assert_msg(pipes == 7, "%zu cells in: %s", pipes - 1, line);
		rows++;
	}
	ck_assert_int_eq(rows, 4);
	ck_assert_ptr_nonnull(line);
	free(md);
	md = run_writer(export_markdown);
	ck_assert_ptr_nonnull(strstr(md, "| sh -c 'exit 3' \\| x (failed: exit code 3) | Ir | not counted | - | - | - |"));
	ck_assert_ptr_nonnull(strstr(md, "| Ir=1% | old | +0.00% | exact (σ = 0) | pass |"));
	ck_assert_ptr_nonnull(strstr(md, "| Ir | 5 ± 0 | 5 … 5 (counted in 2 of 3 runs) |"));
	free(md);
}
END_TEST

START_TEST(test_json_fields)
{
	char *js = run_writer(export_json);
	ck_assert_ptr_nonnull(strstr(js, "\"checks\": {\"passed\": 2, \"total\": 3, \"samples\": [true, false, true]}"));
	ck_assert_ptr_nonnull(strstr(js, "\"exit_code\": 3, \"failed_step\": \"command\", \"runs\": 0"));
	ck_assert_ptr_nonnull(strstr(js, "\"mean\": null"));	/* no runs: no statistics */
	/* the run Ir was not counted in is null among its samples, and left out of runs_counted */
	ck_assert_ptr_nonnull(strstr(js, "\"counted\": true, \"runs_counted\": 2, \"perf_type\": null, \"config\": null, "
					 "\"config1\": null, \"pmu\": null, \"coverage\": null, \"samples\": [5, null, 5]"));
	ck_assert_ptr_nonnull(strstr(js, "\"basis\": \"exact\", \"result\": \"pass\""));
	ck_assert_ptr_nonnull(strstr(js, "\"order\": \"sequential\",\n  \"seed\": null"));
	/* hyperfine's shape: one result per command; a command without runs has no statistics and no times */
	const char *res = strstr(js, "\n  \"results\": [\n    {\"command\": ");
	ck_assert_ptr_nonnull(res);
	ck_assert_ptr_nonnull(strstr(res, "\"mean\": null, \"stddev\": null, \"median\": null, \"user\": null, "
					  "\"system\": null, \"min\": null, \"max\": null, \"times\": [], \"exit_codes\": []}"));
	ck_assert_ptr_nonnull(strstr(res, "\"exit_codes\": [0, 0, 0]}"));
	free(js);
}
END_TEST

/* Issue 36 P11: a perf event's row carries perf_event_attr's type, config and config1, its PMU device
 * and time_running/time_enabled (the lowest over the runs), in both exports; other rows null/empty. */
START_TEST(test_encoding_fields)
{
	struct export_run r;
	struct export_command cmds[2];
	struct report_row rows[2][2];
	const double *samples[2][2];
	struct export_gate gate;
	sample_run(&r, cmds, rows, samples, &gate);
	r.backend = "perf";
	rows[0][1].scaled = true;
	rows[0][1].coverage = 0.75;
	const struct export_encoding enc[2] = {
		{ .perf = false },
		{ .perf = true, .type = 8, .config = 0x23, .config1 = 0, .pmu = "armv8_cortex_a72" },
	};
	cmds[0].enc = cmds[1].enc = enc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	export_json(f, &r);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\"runs_counted\": 2, \"perf_type\": 8, \"config\": 35, \"config1\": 0, "
					  "\"pmu\": \"armv8_cortex_a72\", \"coverage\": 0.75, \"samples\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\": \"wall_time\", "));
	ck_assert_ptr_nonnull(strstr(buf, "\"perf_type\": null, \"config\": null, \"config1\": null, \"pmu\": null, "
					  "\"coverage\": null"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	export_csv(f, &r);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, ",checks_total,perf_type,config,config1,pmu,coverage\r\n"));
	ck_assert_ptr_nonnull(strstr(buf, ",Ir,,true,2,"));
	ck_assert_ptr_nonnull(strstr(buf, ",2,3,8,0x23,0x0,armv8_cortex_a72,0.75\r\n"));
	/* the command without runs: its encoding, no coverage */
	ck_assert_ptr_nonnull(strstr(buf, "| x,3,0,Ir,,true,0,,,,,,,,,,,,,,,8,0x23,0x0,armv8_cortex_a72,\r\n"));
	free(buf);
}
END_TEST

/* -P/-L: hyperfine's "parameters" after "exit_codes", values as JSON strings; none without a scan. */
START_TEST(test_json_parameters)
{
	struct export_run r;
	struct export_command cmds[2];
	struct report_row rows[2][2];
	const double *samples[2][2];
	struct export_gate gate;
	sample_run(&r, cmds, rows, samples, &gate);
	static const char *const names[] = { "n", "size \"x\"" };
	static const char *const values[] = { "1.50", "a,b" };
	cmds[0].param_names = names;
	cmds[0].param_values = values;
	cmds[0].nparams = 2;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	export_json(f, &r);
	fclose(f);
	const char *res = strstr(buf, "\n  \"results\": [");
	ck_assert_ptr_nonnull(res);
	ck_assert_ptr_nonnull(strstr(res, "\"exit_codes\": [0, 0, 0], \"parameters\": {\"n\": \"1.50\", "
					  "\"size \\\"x\\\"\": \"a,b\"}}"));
	ck_assert_ptr_nonnull(strstr(res, "\"exit_codes\": []}"));	/* the second command: no values */
	ck_assert_ptr_null(strstr(buf, "\"parameters\": {}"));
	free(buf);
}
END_TEST

extern Suite *export_suite(void);
Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");
	tcase_add_loop_test(tc, test_quoting, 0, sizeof(quote_cases) / sizeof(*quote_cases));
	tcase_add_test(tc, test_csv_shape);
	tcase_add_test(tc, test_markdown_shape);
	tcase_add_test(tc, test_json_fields);
	tcase_add_test(tc, test_json_parameters);
	tcase_add_test(tc, test_encoding_fields);
	suite_add_tcase(s, tc);
	return s;
}
