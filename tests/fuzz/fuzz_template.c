/*
 * fuzz_template.c: libFuzzer target for the Instruments template reader and
 * writer (backend/xctrace/template.c) behind the binary-plist pre-pass
 * (base/bplist.c).  One input is one base template, as
 * LAUKA_XCTRACE_TEMPLATE names it; it is patched with a two-event selection.
 *
 * Properties, each an abort when broken:
 *  - a binary plist the pre-pass refuses is refused by the patcher too;
 *  - a refusal is one line;
 *  - an accepted template's output is an XML plist that libplist reads back
 *    as a dictionary, and that patches again the same way (same layout);
 *  - a legacy template's output names the events it was given.
 * Built like fuzz_kpep.c (mk/fuzz.mk); replayed in `make check`.
 */
#include "backend/xctrace/template.h"
#include "base/bplist.h"
#include "base/error.h"

#include <plist/plist.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                      \
	do {                                                                                             \
		if (!(cond)) {                                                                           \
			fprintf(stderr, "fuzz_template: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                         \
		}                                                                                        \
	} while (0)

static const struct xct_tmpl_event evs[] = {
	{ "FIXED_CYCLES", "Cycles" },
	{ "L1D_CACHE_MISS_LD_NONSPEC", NULL },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (4u << 20))
		return 0;
	struct xct_tmpl_opts o = { .events = evs, .nevents = 2, .sample_us = 1000 };
	char *out = NULL, err[512] = "";
	size_t outlen = 0;
	enum xct_tmpl_kind kind;
	bool refused_early = false;
	if (lk_bplist_is(data, size)) {
		char why[512];
		refused_early = lk_bplist_check(data, size, NULL, NULL, why, sizeof(why)) < 0;
	}
	int r = xct_template_patch(data, size, &o, &out, &outlen, &kind, err, sizeof(err));
	if (refused_early)
		CHECK(r < 0);
	if (r < 0) {
		CHECK(err[0] && !strchr(err, '\n'));
		CHECK(out == NULL);
		return 0;
	}
	CHECK(out && outlen > 0 && strlen(out) == outlen);
	CHECK(!strncmp(out, "<?xml", 5));
	plist_t back = NULL;
	plist_from_xml(out, (uint32_t)outlen, &back);
	CHECK(back && plist_get_node_type(back) == PLIST_DICT);
	plist_free(back);
	if (kind == XCT_TMPL_LEGACY)
		CHECK(strstr(out, "FIXED_CYCLES") && strstr(out, "L1D_CACHE_MISS_LD_NONSPEC"));
	/* Patching the output again: skipped for outputs of megabytes (a plist near the pre-pass's node
	 * limit), which only repeat the same work at sanitizer speed. */
	if (outlen < (1u << 20)) {
		char *again = NULL;
		size_t againlen = 0;
		enum xct_tmpl_kind kind2;
		CHECK(xct_template_patch(out, outlen, &o, &again, &againlen, &kind2, err, sizeof(err)) == 0);
		CHECK(kind2 == kind);
		free(again);
	}
	free(out);
	return 0;
}
