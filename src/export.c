/* export.c: the JSON form of record's results. */
#include "export.h"

#include <math.h>

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
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

void export_json(FILE *f, const char *backend, const struct export_command *cmds, size_t n)
{
	fputs("{\n  \"backend\": ", f);
	json_str(f, backend);
	fputs(",\n  \"commands\": [", f);
	for (size_t c = 0; c < n; c++) {
		const struct export_command *ec = &cmds[c];
		fputs(c ? ",\n    {" : "\n    {", f);
		fputs("\"command\": ", f);
		json_str(f, ec->command);
		fprintf(f, ", \"exit_code\": %d, \"runs\": %zu, \"measurements\": [", ec->exit_code, ec->runs);
		for (size_t r = 0; r < ec->nrows; r++) {
			const struct report_row *row = &ec->rows[r];
			fputs(r ? ",\n      {" : "\n      {", f);
			fputs("\"name\": ", f);
			json_str(f, row->name);
			fputs(", \"unit\": ", f);
			if (row->unit)
				json_str(f, row->unit);
			else
				fputs("null", f);
			const struct { const char *k; double v; } fields[] = {
				{ "mean", row->st.mean }, { "stddev", row->st.sd }, { "min", row->st.min },
				{ "max", row->st.max }, { "q1", row->st.q1 }, { "median", row->st.median },
				{ "q3", row->st.q3 },
			};
			for (size_t k = 0; k < sizeof(fields) / sizeof(*fields); k++) {
				fprintf(f, ", \"%s\": ", fields[k].k);
				json_num(f, row->not_counted ? NAN : fields[k].v);
			}
			fprintf(f, ", \"outliers\": %zu, \"counted\": %s", row->st.outliers, row->not_counted ? "false" : "true");
			if (row->scaled) {
				fputs(", \"coverage\": ", f);
				json_num(f, row->coverage);
			}
			if (row->has_delta) {
				fputs(", \"delta\": {\"percent\": ", f);
				json_num(f, row->delta.valid ? row->delta.pct : NAN);
				fputs(", \"ci95_low\": ", f);
				json_num(f, row->delta.valid && row->delta.bounded ? row->delta.ci_low : NAN);
				fputs(", \"ci95_high\": ", f);
				json_num(f, row->delta.valid && row->delta.bounded ? row->delta.ci_high : NAN);
				fprintf(f, ", \"verdict\": \"%s\"}",
					row->delta.verdict == DELTA_BETTER ? "better"
					: row->delta.verdict == DELTA_WORSE ? "worse" : "none");
			}
			fputs(", \"samples\": [", f);
			for (size_t i = 0; i < ec->runs; i++) {
				if (i)
					fputs(", ", f);
				json_num(f, ec->samples[r][i]);
			}
			fputs("]}", f);
		}
		fputs(ec->nrows ? "\n    ]" : "]", f);
		if (ec->detail && ec->detail_key) {
			fputs(", ", f);
			json_str(f, ec->detail_key);
			fprintf(f, ": %s", ec->detail);
		}
		fputs("}", f);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
}
