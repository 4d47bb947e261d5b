/*
 * fuzz_valgrind.c: libFuzzer target for the readers of valgrind's output
 * files (backend/valgrind.c's valgrind_parse_out and valgrind_out_cmd,
 * backend/callgrind.c's cg_parse and its line parser), which read files the
 * measured command can write.
 *
 * Properties, each an abort when broken:
 *  - a refusal is one line (no newline, no control character but tab);
 *  - the line parser given the file line by line, each line in a buffer
 *    of its own size without a NUL (ASan: nothing is read past a line),
 *    accepts what cg_parse accepts on the whole, with the same total.
 * Built like fuzz_kpep.c (mk/fuzz.mk); replayed in `make check`.
 */
#include "backend/callgrind.h"
#include "backend/valgrind.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                       \
	do {                                                                                              \
		if (!(cond)) {                                                                            \
			fprintf(stderr, "fuzz_valgrind: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                          \
		}                                                                                         \
	} while (0)

static void check_refusal(const char *err)
{
	CHECK(*err);
	CHECK(!strchr(err, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[512] = "";
	static const char *const names[] = { "Ir", "Dr", "Dw", "I1mr", "Bc", "Bcm" };
	uint64_t sums[6] = { 0 }, missing = 0;
	if (valgrind_parse_out(text, size, names, 6, sums, &missing, err, sizeof(err)) < 0)
		check_refusal(err);
	free(valgrind_out_cmd(text, size));

	struct cg_table whole = { 0 };
	err[0] = '\0';
	int rw = cg_parse(text, size, "Ir", 0, &whole, err, sizeof(err));
	if (rw < 0)
		check_refusal(err);

	/* line by line, each line copied alone into a buffer of its own size */
	struct cg_table lines = { 0 };
	struct cg_parser *p = cg_parser_new("Ir", 0, &lines);
	int rl = 0;
	char why[512] = "";
	for (size_t at = 0; at < size && rl == 0;) {
		const char *nl = memchr(text + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - (text + at)) + 1 : size - at;
		char *line = malloc(n ? n : 1);
		memcpy(line, text + at, n);
		rl = cg_parser_line(p, line, n, why, sizeof(why));
		free(line);
		at += n;
	}
	int rf = cg_parser_finish(p, why, sizeof(why));	/* frees p, after a failed line too */
	rl = rl ? rl : rf;
	CHECK((rl == 0) == (rw == 0));
	if (rw == 0)
		CHECK(cg_table_total(&whole) == cg_table_total(&lines));
	cg_table_release(&whole);
	cg_table_release(&lines);
	return 0;
}
