/* output/export.c: JSON, CSV and Markdown forms of record's results. */
#include "output/export.h"
#include "base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned min;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, min = 0x10000;
	else
		return 0;
	unsigned cp = p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void export_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", f);	/* JSON is UTF-8: an invalid byte becomes U+FFFD */
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

static const char *verdict_name(enum delta_verdict v)
{
	return v == DELTA_BETTER ? "better" : v == DELTA_WORSE ? "worse" : "none";
}

static const char *basis_name(enum gate_basis b)
{
	return b == GATE_EXACT ? "exact" : b == GATE_INTERVAL ? "interval" : b == GATE_TOO_FEW ? "too_few_runs"
		: b == GATE_OTHER_SESSION ? "other_session" : "unbounded";
}

/* time_running/time_enabled of a counter row, the lowest over the runs; NaN for a row that is no counter or has no run */
static double row_coverage(const struct export_command *ec, const struct report_row *row, const struct export_encoding *en)
{
	if (!ec->runs || (!en && !row->scaled))
		return NAN;
	return row->scaled ? row->coverage : row->not_counted ? 0 : 1;
}

static void json_measurement(FILE *f, const struct export_command *ec, size_t r)
{
	const struct report_row *row = &ec->rows[r];
	bool none = row->not_counted || !ec->runs;
	fputs("\"name\": ", f);
	export_json_str(f, row->name);
	fputs(", \"unit\": ", f);
	export_json_str(f, row->unit);
	const struct { const char *k; double v; } fields[] = {
		{ "mean", row->st.mean }, { "stddev", row->st.sd }, { "min", row->st.min },
		{ "max", row->st.max }, { "q1", row->st.q1 }, { "median", row->st.median },
		{ "q3", row->st.q3 },
	};
	for (size_t k = 0; k < sizeof(fields) / sizeof(*fields); k++) {
		fprintf(f, ", \"%s\": ", fields[k].k);
		json_num(f, none ? NAN : fields[k].v);
	}
	fprintf(f, ", \"outliers\": %zu, \"counted\": %s, \"runs_counted\": %zu", ec->runs ? row->st.outliers : 0,
		row->not_counted ? "false" : "true", row->st.n);
	/* the encoding perf_event_open took, the PMU device, and time_running/time_enabled (the lowest over
	 * the runs; 1: counted all the time): null for a measurement that is not a perf event */
	const struct export_encoding *en = ec->enc && ec->enc[r].perf ? &ec->enc[r] : NULL;
	if (en)
		fprintf(f, ", \"perf_type\": %" PRIu32 ", \"config\": %" PRIu64 ", \"config1\": %" PRIu64, en->type,
			en->config, en->config1);
	else
		fputs(", \"perf_type\": null, \"config\": null, \"config1\": null", f);
	fputs(", \"pmu\": ", f);
	export_json_str(f, en ? en->pmu : NULL);
	fputs(", \"coverage\": ", f);
	json_num(f, row_coverage(ec, row, en));
	if (row->has_delta) {
		const struct lk_delta *d = &row->delta;
		fputs(", \"delta\": {\"percent\": ", f);
		json_num(f, d->valid ? d->pct : NAN);
		fputs(", \"ci95_low\": ", f);
		json_num(f, d->valid && d->bounded ? d->ci_low : NAN);
		fputs(", \"ci95_high\": ", f);
		json_num(f, d->valid && d->bounded ? d->ci_high : NAN);
		fprintf(f, ", \"bounded\": %s, \"verdict\": \"%s\"}", d->valid && d->bounded ? "true" : "false",
			verdict_name(d->verdict));
	}
	fputs(", \"samples\": [", f);
	for (size_t i = 0; i < ec->runs; i++) {
		if (i)
			fputs(", ", f);
		json_num(f, ec->samples[r][i]);
	}
	fputs("]", f);
}

static void json_command(FILE *f, const struct export_command *ec, const char *indent)
{
	fputs("{\"command\": ", f);
	export_json_str(f, ec->command);
	fputs(", \"name\": ", f);
	export_json_str(f, ec->name);
	fprintf(f, ", \"exit_code\": %d, \"failed_step\": ", ec->exit_code);
	export_json_str(f, ec->failed_step);
	fprintf(f, ", \"runs\": %zu, \"checks\": ", ec->runs);
	if (ec->check_passed) {
		fprintf(f, "{\"passed\": %zu, \"total\": %zu, \"samples\": [", ec->checks_passed, ec->runs);
		for (size_t i = 0; i < ec->runs; i++)
			fprintf(f, "%s%s", i ? ", " : "", ec->check_passed[i] ? "true" : "false");
		fputs("]}", f);
	} else
		fputs("null", f);
	fputs(", \"measurements\": [", f);
	for (size_t r = 0; r < ec->nrows; r++) {
		fprintf(f, "%s\n%s  {", r ? "," : "", indent);
		json_measurement(f, ec, r);
		fputc('}', f);
	}
	if (ec->nrows)
		fprintf(f, "\n%s", indent);
	fputs("]", f);
	if (ec->detail && ec->detail_key) {
		fputs(", ", f);
		export_json_str(f, ec->detail_key);
		fprintf(f, ": %s", ec->detail);
	}
	if (ec->diagnosis)
		fprintf(f, ", \"diagnosis\": %s", ec->diagnosis);
	fputs("}", f);
}

/* The row of a measurement by name, or NULL. */
static const struct report_row *find_row(const struct export_command *ec, const char *name, size_t *at)
{
	for (size_t r = 0; r < ec->nrows; r++)
		if (ec->rows[r].name && !strcmp(ec->rows[r].name, name)) {
			*at = r;
			return &ec->rows[r];
		}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * The mean over the runs of a measurement in nanoseconds, in seconds (NaN
 * when the measurement was not taken).
 */
static double mean_seconds(const struct export_command *ec, const char *name)
{
	size_t at;
	if (!find_row(ec, name, &at) || !ec->runs)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < ec->runs; i++)
		sum += ec->samples[at][i] / 1e9;
	return sum / (double)ec->runs;
}

/* A measured user_time/sys_time row, else the rusage every run has (user/system are never null then). */
static double user_or(double measured, bool has, double from_rusage)
{
	return isfinite(measured) || !has ? measured : from_rusage;
}

/*
 * One entry of hyperfine's "results": its statistics of the wall times in
 * seconds as hyperfine defines them (stddev with n - 1, null for one run;
 * the median of the sorted times), user and system as the mean CPU times.
 */
static void json_hyperfine_result(FILE *f, const struct export_command *ec)
{
	size_t at, n = ec->runs;
	const struct report_row *wall = find_row(ec, "wall_time", &at);
	double *t = xcalloc(n ? n : 1, sizeof(*t));
	double sum = 0;
	for (size_t i = 0; wall && i < n; i++) {
		t[i] = ec->samples[at][i] / 1e9;
		sum += t[i];
	}
	size_t m = wall ? n : 0;
	double mean = m ? sum / (double)m : NAN, ss = 0;
	for (size_t i = 0; i < m; i++)
		ss += (t[i] - mean) * (t[i] - mean);
	double *sorted = xcalloc(m ? m : 1, sizeof(*sorted));
	memcpy(sorted, t, m * sizeof(*t));
	qsort(sorted, m, sizeof(*sorted), cmp_double);
	double median = !m ? NAN : m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
	fputs("{\"command\": ", f);
	export_json_str(f, ec->name ? ec->name : ec->command);
	const struct { const char *k; double v; } fields[] = {
		{ "mean", mean }, { "stddev", m > 1 ? sqrt(ss / (double)(m - 1)) : NAN }, { "median", median },
		{ "user", user_or(mean_seconds(ec, "user_time"), ec->has_cpu, ec->user_s) },
		{ "system", user_or(mean_seconds(ec, "sys_time"), ec->has_cpu, ec->system_s) },
		{ "min", m ? sorted[0] : NAN }, { "max", m ? sorted[m - 1] : NAN },
	};
	for (size_t k = 0; k < sizeof(fields) / sizeof(*fields); k++) {
		fprintf(f, ", \"%s\": ", fields[k].k);
		json_num(f, fields[k].v);
	}
	fputs(", \"times\": [", f);
	for (size_t i = 0; i < m; i++) {
		if (i)
			fputs(", ", f);
		json_num(f, t[i]);
	}
	fputs("], \"exit_codes\": [", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? ", " : "", ec->exit_codes ? ec->exit_codes[i] : ec->exit_code);
	fputs("]", f);
	/* hyperfine's parameter values, strings as it writes them; only with -P/-L, as hyperfine */
	if (ec->nparams && ec->param_values) {
		fputs(", \"parameters\": {", f);
		for (size_t k = 0; k < ec->nparams; k++) {
			fputs(k ? ", " : "", f);
			export_json_str(f, ec->param_names[k]);
			fputs(": ", f);
			export_json_str(f, ec->param_values[k]);
		}
		fputs("}", f);
	}
	fputs("}", f);
	free(t);
	free(sorted);
}

void export_json(FILE *f, const struct export_run *r)
{
	fputs("{\n  \"lauka_version\": ", f);
	export_json_str(f, r->lauka_version);
	if (r->incomplete)	/* only then: a complete export's keys stay as they were */
		fputs(",\n  \"complete\": false", f);
	fputs(",\n  \"backend\": ", f);
	export_json_str(f, r->backend);
	fputs(",\n  \"runner_class\": ", f);
	export_json_str(f, r->runner_class);
	fputs(",\n  \"baseline\": ", f);
	export_json_str(f, r->baseline);
	/* What the text says of the baseline, for a bot (issue 37 T8). */
	fputs(",\n  \"baseline_commit\": ", f);
	export_json_str(f, r->baseline ? r->baseline_commit : NULL);
	fputs(",\n  \"baseline_environment\": ", f);
	export_json_str(f, r->baseline ? r->baseline_environment : NULL);
	fprintf(f, ",\n  \"environment_matches\": %s",
		!r->baseline || r->environment_matches < 0 ? "null" : r->environment_matches ? "true" : "false");
	fprintf(f, ",\n  \"order\": \"%s\",\n  \"seed\": ",
		r->interleaved ? "interleaved" : r->parallel ? "parallel" : "sequential");
	if (r->interleaved)
		fprintf(f, "%llu", (unsigned long long)r->seed);
	else
		fputs("null", f);
	fputs(",\n  \"shell\": ", f);
	export_json_str(f, r->shell);
	/* the locale, time zone and hash seeds the commands ran with: counts depend on them */
	fputs(",\n  \"environment\": {", f);
	for (size_t i = 0; i < r->nenv; i++) {
		const char *eq = strchr(r->env[i], '=');
		size_t n = eq ? (size_t)(eq - r->env[i]) : strlen(r->env[i]);
		char *name = xmalloc(n + 1);
		memcpy(name, r->env[i], n);
		name[n] = '\0';
		fputs(i ? ", " : "", f);
		export_json_str(f, name);
		fputs(": ", f);
		export_json_str(f, eq ? eq + 1 : "");
		free(name);
	}
	fputs("}", f);
	fputs(",\n  \"shell_cost\": ", f);
	if (r->shell_cost)
		json_command(f, r->shell_cost, "    ");
	else
		fputs("null", f);
	fputs(",\n  \"commands\": [", f);
	for (size_t c = 0; c < r->ncmds; c++) {
		fputs(c ? ",\n    " : "\n    ", f);
		json_command(f, &r->cmds[c], "      ");
	}
	fputs(r->ncmds ? "\n  ],\n  \"gates\": [" : "],\n  \"gates\": [", f);
	for (size_t g = 0; g < r->ngates; g++) {
		const struct export_gate *eg = &r->gates[g];
		fputs(g ? ",\n    {\"gate\": " : "\n    {\"gate\": ", f);
		export_json_str(f, eg->spec);
		fputs(", \"measurement\": ", f);
		export_json_str(f, eg->measurement);
		fputs(", \"limit_percent\": ", f);
		json_num(f, eg->limit);
		fprintf(f, ", \"command_index\": %zu, \"command\": ", eg->command + 1);
		export_json_str(f, eg->command < r->ncmds ? r->cmds[eg->command].command : NULL);
		fputs(", \"change_percent\": ", f);
		json_num(f, eg->eval.change);
		fputs(", \"ci95_low\": ", f);
		json_num(f, eg->eval.ci_low);
		fputs(", \"ci95_high\": ", f);
		json_num(f, eg->eval.ci_high);
		fputs(", \"confidence\": ", f);
		json_num(f, eg->confidence > 0 ? eg->confidence : 0.95);
		fprintf(f, ", \"basis\": \"%s\", \"result\": \"%s\"}", basis_name(eg->eval.basis),
			eg->eval.failed ? "fail" : eg->eval.inconclusive ? "inconclusive" : "pass");
	}
	fputs(r->ngates ? "\n  ],\n  \"results\": [" : "],\n  \"results\": [", f);
	for (size_t c = 0; c < r->ncmds; c++) {
		fputs(c ? ",\n    " : "\n    ", f);
		json_hyperfine_result(f, &r->cmds[c]);
	}
	fprintf(f, r->ncmds ? "\n  ],\n  \"exit_code\": %d,\n  \"exit_cause\": " : "],\n  \"exit_code\": %d,\n  \"exit_cause\": ",
		r->exit_code);
	export_json_str(f, r->exit_cause);
	fputs("\n}\n", f);
}

void export_csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	/* OWASP's rule against formula injection: a spreadsheet runs a cell that starts so (=cmd|' /C calc'!A0) */
	bool formula = *s && strchr("=+-@\t\r", *s);
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);	/* shown as text, the quote not shown */
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (!isfinite(v))
		return;	/* an empty field */
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

/* record --explain: every command carries a diagnosis (its verdict and delta cause become columns). */
static bool explained(const struct export_run *r)
{
	bool any = false;
	for (size_t c = 0; c < r->ncmds; c++)
		any |= r->cmds[c].verdict != NULL;
	return any;
}

void export_csv(FILE *f, const struct export_run *r)
{
	bool ex = explained(r);
	fputs("command_index,command_name,command,exit_code,runs,measurement,unit,counted,runs_counted,mean,stddev,min,max,"
	      "q1,median,q3,outliers,delta_percent,delta_ci95_low,delta_ci95_high,delta_verdict,checks_passed,"
	      "checks_total,perf_type,config,config1,pmu,coverage", f);
	fputs(ex ? ",verdict,delta_cause\r\n" : "\r\n", f);
	for (size_t c = 0; c < r->ncmds; c++) {
		const struct export_command *ec = &r->cmds[c];
		for (size_t m = 0; m < ec->nrows; m++) {
			const struct report_row *row = &ec->rows[m];
			bool none = row->not_counted || !ec->runs;
			fprintf(f, "%zu,", c + 1);
			export_csv_field(f, ec->name);
			fputc(',', f);
			export_csv_field(f, ec->command);
			fprintf(f, ",%d,%zu,", ec->exit_code, ec->runs);
			export_csv_field(f, row->name);
			fputc(',', f);
			export_csv_field(f, row->unit);
			fprintf(f, ",%s,%zu", row->not_counted ? "false" : "true", row->st.n);
			const double v[] = { row->st.mean, row->st.sd, row->st.min, row->st.max,
					     row->st.q1, row->st.median, row->st.q3 };
			for (size_t k = 0; k < sizeof(v) / sizeof(*v); k++) {
				fputc(',', f);
				csv_num(f, none ? NAN : v[k]);
			}
			fputc(',', f);
			if (ec->runs)
				fprintf(f, "%zu", row->st.outliers);
			const struct lk_delta *d = &row->delta;
			fputc(',', f);
			csv_num(f, row->has_delta && d->valid ? d->pct : NAN);
			fputc(',', f);
			csv_num(f, row->has_delta && d->valid && d->bounded ? d->ci_low : NAN);
			fputc(',', f);
			csv_num(f, row->has_delta && d->valid && d->bounded ? d->ci_high : NAN);
			fprintf(f, ",%s,", row->has_delta ? verdict_name(d->verdict) : "");
			if (ec->check_passed)
				fprintf(f, "%zu,%zu", ec->checks_passed, ec->runs);
			else
				fputc(',', f);
			const struct export_encoding *en = ec->enc && ec->enc[m].perf ? &ec->enc[m] : NULL;
			if (en)
				fprintf(f, ",%" PRIu32 ",0x%" PRIx64 ",0x%" PRIx64 ",", en->type, en->config, en->config1);
			else
				fputs(",,,,", f);
			export_csv_field(f, en ? en->pmu : NULL);
			fputc(',', f);
			csv_num(f, row_coverage(ec, row, en));
			if (ex)
				fprintf(f, ",%s,%s", ec->verdict ? ec->verdict : "", ec->delta_cause ? ec->delta_cause : "");
			fputs("\r\n", f);
		}
	}
}

void export_md_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t')
			fputc(' ', f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\\\x%02x", *p);	/* a control character (ESC) shown, not sent to whoever views the file */
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(f, "\\\\u%04x", *++p);	/* a C1 control in UTF-8 */
		else if (strchr("|\\`*_[]<>", *p))
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
}

static void md_pct(FILE *f, double v)
{
	if (isinf(v))
		fputs(v > 0 ? "+∞" : "−∞", f);
	else if (!isfinite(v))
		fputs("-", f);
	else
		fprintf(f, "%+.2f%%", v);
}

void export_markdown(FILE *f, const struct export_run *r)
{
	bool checks = false;
	for (size_t c = 0; c < r->ncmds; c++)
		checks |= r->cmds[c].check_passed != NULL;
	fputs("| command | measurement | mean ± σ | min … max | delta (95% CI) |", f);
	fputs(checks ? " checks |\n" : "\n", f);
	fputs("|:---|:---|---:|---:|---:|", f);
	fputs(checks ? "---:|\n" : "\n", f);
	for (size_t c = 0; c < r->ncmds; c++) {
		const struct export_command *ec = &r->cmds[c];
		for (size_t m = 0; m < ec->nrows; m++) {
			const struct report_row *row = &ec->rows[m];
			char a[32], b[32];
			fputs("| ", f);
			export_md_text(f, ec->name ? ec->name : ec->command);
			if (ec->exit_code)
				fprintf(f, " (failed: exit code %d)", ec->exit_code);
			fputs(" | ", f);
			export_md_text(f, row->name);
			fputs(" | ", f);
			if (row->not_counted || !ec->runs)
				fputs("not counted | - | ", f);
			else {
				report_fmt_value(row->st.mean, row->unit, a, sizeof(a));
				report_fmt_value(row->st.sd, row->unit, b, sizeof(b));
				fprintf(f, "%s ± %s | ", a, b);
				report_fmt_value(row->st.min, row->unit, a, sizeof(a));
				report_fmt_value(row->st.max, row->unit, b, sizeof(b));
				fprintf(f, "%s … %s", a, b);
				if (row->st.n < ec->runs)
					fprintf(f, " (counted in %zu of %zu runs)", row->st.n, ec->runs);
				fputs(" | ", f);
			}
			const struct lk_delta *d = &row->delta;
			if (!row->has_delta || !d->valid)
				fputs("-", f);
			else {
				md_pct(f, d->pct);
				if (d->bounded) {
					fputs(" [", f);
					md_pct(f, d->ci_low);
					fputs(", ", f);
					md_pct(f, d->ci_high);
					fputs("]", f);
				} else
					fputs(" [unbounded]", f);
				if (row->has_diff) {
					char x[40];
					report_fmt_diff(row->diff, x, sizeof(x));
					fprintf(f, " %s", x);
				}
				fputs(d->verdict == DELTA_WORSE ? " 💩" : d->verdict == DELTA_BETTER ? " ⚡" : "", f);
			}
			if (checks) {
				if (ec->check_passed)
					fprintf(f, " | %zu/%zu", ec->checks_passed, ec->runs);
				else
					fputs(" | -", f);
			}
			fputs(" |\n", f);
		}
	}
	if (explained(r)) {
		fputs("\n| command | verdict | delta cause |\n|:---|:---|:---|\n", f);
		for (size_t c = 0; c < r->ncmds; c++) {
			const struct export_command *ec = &r->cmds[c];
			fputs("| ", f);
			export_md_text(f, ec->name ? ec->name : ec->command);
			fprintf(f, " | %s | %s |\n", ec->verdict ? ec->verdict : "-", ec->delta_cause ? ec->delta_cause : "-");
		}
	}
	if (!r->ngates)
		return;
	fputs("\n| gate | command | change | 95% CI | result |\n|:---|:---|---:|---:|:---|\n", f);
	for (size_t g = 0; g < r->ngates; g++) {
		const struct export_gate *eg = &r->gates[g];
		const struct export_command *ec = eg->command < r->ncmds ? &r->cmds[eg->command] : NULL;
		fputs("| ", f);
		export_md_text(f, eg->spec);
		fputs(" | ", f);
		export_md_text(f, ec ? (ec->name ? ec->name : ec->command) : "");
		fputs(" | ", f);
		md_pct(f, eg->eval.change);
		fputs(" | ", f);
		if (eg->eval.basis == GATE_EXACT)
			fputs("exact (σ = 0)", f);
		else if (eg->eval.basis == GATE_UNBOUNDED)
			fputs("unbounded", f);
		else if (eg->eval.basis == GATE_TOO_FEW)
			fputs("too few runs", f);
		else if (eg->eval.basis == GATE_OTHER_SESSION && !isfinite(eg->eval.ci_low))
			fputs("another session", f);
		else {
			fputs("[", f);
			md_pct(f, eg->eval.ci_low);
			fputs(", ", f);
			md_pct(f, eg->eval.ci_high);
			fputs(eg->eval.basis == GATE_OTHER_SESSION ? "] (another session)" : "]", f);
		}
		fputs(eg->eval.failed ? " | **fail** |\n" : eg->eval.inconclusive ? " | inconclusive |\n" : " | pass |\n", f);
	}
}
