/*
 * fuzz_notes.c: libFuzzer target for the git-notes baseline decoder
 * (catalog/notes-json.c), which reads what anyone can push.  One input is
 * one note: its lines are decoded one by one, as the store does.
 *
 * Properties, each an abort when broken:
 *  - a refusal is one line starting "not a lauka baseline: ";
 *  - an accepted line is within the documented bounds (NOTES_MAX_*), its
 *    runs are the count of every sample row, every sample is NaN (null) or
 *    finite and not negative;
 *  - round trip: the accepted baseline encodes to one line that decodes to
 *    the same baseline, and encoding that again gives the same bytes;
 *  - the printable form of every string holds no control character.
 * Built like fuzz_kpep.c (mk/fuzz.mk); replayed in `make check`.
 */
#include "catalog/notes.h"
#include "base/error.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                     \
	do {                                                                                            \
		if (!(cond)) {                                                                          \
			fprintf(stderr, "fuzz_notes: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                        \
		}                                                                                       \
	} while (0)

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_printable(const char *s)
{
	char *p = notes_printable(s);
	for (const unsigned char *c = (const unsigned char *)p; *c; c++) {
		CHECK(*c >= 0x20 && *c != 0x7f);
		CHECK(!(c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f));
	}
	free(p);
}

static void check_bounds(const struct db_baseline *b)
{
	CHECK(b->name && b->runner_class && b->backend && b->lauka_version);
	CHECK(b->nmeas <= NOTES_MAX_MEAS && b->ncmds <= NOTES_MAX_CMDS);
	CHECK(b->created_at >= 0);
	for (size_t m = 0; m < b->nmeas; m++) {
		CHECK(b->meas[m]);
		check_printable(b->meas[m]);
	}
	for (size_t c = 0; c < b->ncmds; c++) {
		const struct db_baseline_cmd *bc = &b->cmds[c];
		CHECK(bc->command && bc->runs <= NOTES_MAX_RUNS);
		check_printable(bc->command);
		for (size_t m = 0; m < b->nmeas; m++)
			for (size_t r = 0; r < bc->runs; r++) {
				double v = bc->samples[m][r];
				CHECK(isnan(v) || (isfinite(v) && v >= 0));
			}
	}
	check_printable(b->name);
	check_printable(b->runner_class);
}

static void check_same(const struct db_baseline *a, const struct db_baseline *b)
{
	CHECK(same_str(a->name, b->name) && same_str(a->runner_class, b->runner_class));
	CHECK(same_str(a->backend, b->backend) && same_str(a->lauka_version, b->lauka_version));
	CHECK(same_str(a->git_commit, b->git_commit) && same_str(a->shell, b->shell));
	CHECK(same_str(a->fingerprint, b->fingerprint) && a->created_at == b->created_at);
	CHECK(a->nmeas == b->nmeas && a->ncmds == b->ncmds);
	for (size_t m = 0; m < a->nmeas; m++)
		CHECK(same_str(a->meas[m], b->meas[m]) && same_str(a->units[m], b->units[m]));
	for (size_t c = 0; c < a->ncmds; c++) {
		const struct db_baseline_cmd *x = &a->cmds[c], *y = &b->cmds[c];
		CHECK(same_str(x->name, y->name) && same_str(x->command, y->command) && x->runs == y->runs);
		for (size_t m = 0; m < a->nmeas; m++)
			for (size_t r = 0; r < x->runs; r++) {
				double u = x->samples[m][r], v = y->samples[m][r];
				CHECK((isnan(u) && isnan(v)) || u == v);
			}
	}
}

static void one_line(const char *p, size_t l)
{
	struct db_baseline b, again;
	char err[256];
	if (notes_baseline_decode(p, l, &b, err, sizeof(err)) < 0) {
		CHECK(!strncmp(err, "not a lauka baseline: ", 22) && !strchr(err, '\n'));
		return;
	}
	check_bounds(&b);
	char *line = notes_baseline_encode(&b);
	CHECK(!strchr(line, '\n'));
	CHECK(notes_baseline_decode(line, strlen(line), &again, err, sizeof(err)) == 0);
	check_same(&b, &again);
	char *line2 = notes_baseline_encode(&again);
	CHECK(!strcmp(line, line2));
	free(line);
	free(line2);
	db_baseline_release(&again);
	db_baseline_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	for (size_t off = 0; off < size;) {
		const char *p = text + off, *nl = memchr(p, '\n', size - off);
		size_t l = nl ? (size_t)(nl - p) : size - off;
		off += l + 1;
		one_line(p, l);
	}
	return 0;
}
