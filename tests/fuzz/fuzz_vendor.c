/*
 * fuzz_vendor.c: libFuzzer target for the vendors' event tables, files
 * anyone can hand to `lauka counters --import` or leave in a catalogue
 * directory: Intel's perfmon JSON (catalog/perfmon.c) and Arm's PMU JSON
 * (catalog/armpmu.c), read with base/json.c, made into catalogues
 * (vendor_catalog, vendor_arm_catalog) and laid over a shipped table's
 * catalogue (the overlays: vendor_apply, vendor_arm_apply).
 *
 * Properties, each an abort when broken:
 *  - a refusal is one line (no newline, no control character);
 *  - an accepted table's names and text are valid UTF-8 without control
 *    characters, names at most 255 bytes, at most 65,536 events;
 *  - every catalogue built from it passes pmu_validate.
 * Built like fuzz_kpep.c (mk/fuzz.mk); replayed in `make check`.
 */
#include "base/json.h"
#include "catalog/armpmu.h"
#include "catalog/perfmon.h"
#include "catalog/pmu.h"
#include "catalog/vendor-arm.h"
#include "catalog/vendor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                      \
	do {                                                                                             \
		if (!(cond)) {                                                                           \
			fprintf(stderr, "fuzz_vendor: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                         \
		}                                                                                        \
	} while (0)

static void check_text(const char *s, size_t max)
{
	if (!s)
		return;
	CHECK(strlen(s) <= max);
	CHECK(!json_text_problem(s, strlen(s)));
}

static void check_refusal(const char *err)
{
	CHECK(*err);
	for (const unsigned char *p = (const unsigned char *)err; *p; p++)
		CHECK(*p >= 0x20 && *p != 0x7f);
}

static void check_pmu(struct lk_pmu *p)
{
	char why[256];
	CHECK(pmu_validate(p, why, sizeof(why)) == 0);
	pmu_release(p);
}

static void intel(const char *text, size_t len)
{
	struct perfmon_table t;
	char err[512] = "";
	if (perfmon_parse(text, len, &t, err, sizeof(err)) < 0) {
		check_refusal(err);
		return;
	}
	CHECK(t.n <= PERFMON_MAX_EVENTS);
	check_text(t.info, JSON_MAX_STRING);
	check_text(t.version, JSON_MAX_STRING);
	for (size_t i = 0; i < t.n; i++) {
		check_text(t.events[i].name, PERFMON_MAX_NAME);
		check_text(t.events[i].brief, JSON_MAX_STRING);
	}
	struct lk_pmu p;
	vendor_catalog(&t, "fuzz", &p);
	check_pmu(&p);
	/* the overlay: the table laid over the catalogue of a shipped one */
	static struct perfmon_table base;	/* parsed once: it never changes */
	static int have_base;
	if (!have_base) {
		size_t blen;
		const char *btext = vendor_builtin("skl", &blen);
		have_base = btext && perfmon_parse(btext, blen, &base, err, sizeof(err)) == 0 ? 1 : -1;
	}
	if (have_base > 0) {
		vendor_catalog(&base, "skl", &p);
		vendor_apply(&p, &t, "fuzz", false);
		check_pmu(&p);
	}
	perfmon_release(&t);
}

static void arm(const char *text, size_t len)
{
	struct armpmu_table t;
	char err[512] = "";
	if (armpmu_parse(text, len, &t, err, sizeof(err)) < 0) {
		check_refusal(err);
		return;
	}
	CHECK(t.n <= ARMPMU_MAX_EVENTS);
	check_text(t.cpu, JSON_MAX_STRING);
	for (size_t i = 0; i < t.n; i++) {
		check_text(t.events[i].name, ARMPMU_MAX_NAME);
		check_text(t.events[i].trm_name, ARMPMU_MAX_NAME);
		check_text(t.events[i].description, JSON_MAX_STRING);
	}
	struct lk_pmu p;
	vendor_arm_catalog(&t, "fuzz", &p);
	check_pmu(&p);
	static struct armpmu_table base;
	static int have_base;
	if (!have_base) {
		size_t blen;
		const char *btext = vendor_arm_builtin("arm_n1", &blen);
		have_base = btext && armpmu_parse(btext, blen, &base, err, sizeof(err)) == 0 ? 1 : -1;
	}
	if (have_base > 0) {
		vendor_arm_catalog(&base, "arm_n1", &p);
		vendor_arm_apply(&p, &t, "fuzz");
		check_pmu(&p);
	}
	armpmu_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	/* both readers see every input; the sniff decides only which error an import shows */
	(void)armpmu_sniff(text, size);
	intel(text, size);
	arm(text, size);
	return 0;
}
