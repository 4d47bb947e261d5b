/*
 * fuzz_kpep.c: libFuzzer target for the kpep importer.  One input is one
 * plist file as `lauka counters --import` would read it; it goes through
 * everything that file would reach: kpep_parse (libplist, validation),
 * the lookups (exact, case-insensitive, aliases, suggestions), the
 * scheduler (assignment, passes, incompat labels) and a round trip through
 * an in-memory database (import, load, same catalogue back).
 *
 * Built with clang -fsanitize=fuzzer by `make fuzz` (mk/fuzz.mk); the
 * same function is driven by tests/fuzz/replay.c in `make check`, which
 * replays tests/fuzz/corpus and tests/fuzz/crashes without clang.  Any
 * broken invariant aborts, so the fuzzer reports it as a crash.
 */
#include "catalog/db.h"
#include "base/error.h"
#include "catalog/kpep.h"
#include "catalog/pmu.h"
#include "catalog/sched.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                  \
	do {                                                                                         \
		if (!(cond)) {                                                                       \
			fprintf(stderr, "fuzz_kpep: %s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                     \
		}                                                                                    \
	} while (0)

static void check_lookups(const struct lk_pmu *p)
{
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *e = &p->events[i];
		CHECK(pmu_find_exact(p, e->name) == e);
		const struct lk_event *ci = pmu_find(p, e->name);
		CHECK(ci == e);	/* names are unique ignoring case, so the lookup finds this one */
		if (e->fallback)
			CHECK(pmu_find_exact(p, e->fallback) != NULL);
	}
	for (size_t i = 0; i < p->naliases; i++)
		CHECK(pmu_find(p, p->aliases[i].alias) != NULL);
	const char *best[4];
	size_t nb = pmu_suggest(p, p->nevents ? p->events[0].name : "x", best, 4);
	CHECK(nb <= 4);
	CHECK(pmu_find(p, "") == NULL);	/* no name is empty */
}

static void check_sched(const struct lk_pmu *p)
{
	size_t n = p->nevents < 12 ? p->nevents : 12;
	const struct lk_event *evs[12];
	int counter[12];
	size_t pass_of[12];
	for (size_t i = 0; i < n; i++)
		evs[i] = &p->events[(i * 7919) % p->nevents];
	struct sched_conflict conf;
	if (sched_assign(p, evs, n, counter, &conf) == 0) {
		uint64_t used = 0;
		for (size_t i = 0; i < n; i++) {
			if (counter[i] < 0)
				continue;
			CHECK(counter[i] < 64);
			uint64_t bit = UINT64_C(1) << counter[i];
			CHECK(!(used & bit));	/* one event per counter */
			/* A counter other than a fixed event's own means "its fallback": there must be one. */
			if (evs[i]->fixed_counter >= 0 && counter[i] != evs[i]->fixed_counter)
				CHECK(evs[i]->fallback && pmu_find_exact(p, evs[i]->fallback));
			else if (evs[i]->fixed_counter < 0)
				CHECK(evs[i]->counters_mask & bit);
			used |= bit;
		}
	} else {
		CHECK(conf.n > 0 && conf.n <= SCHED_MAX_CONFLICT);
		for (size_t i = 0; i < conf.n; i++)
			CHECK(conf.idx[i] < n);
		char *names = sched_conflict_names(evs, &conf);
		free(names);
	}
	size_t np = sched_passes(p, evs, n, pass_of);
	for (size_t i = 0; i < n; i++)
		CHECK(pass_of[i] < np);
	struct sched_groups g;
	sched_groups_init(p, &g);
	char label[48];
	for (size_t i = 0; i < p->nevents; i++)
		sched_incompat_in(&g, &p->events[i], label, sizeof(label));
	sched_groups_release(&g);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_db(const struct lk_pmu *p)
{
	static struct db *db;
	char err[1024];
	if (!db && db_open(&db, ":memory:", err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_kpep: %s\n", err);
		abort();
	}
	const struct lk_pmu *one = p;
	CHECK(db_import(db, &one, 1, NULL, err, sizeof(err)) == 0);
	struct lk_pmu back;
	int r = db_load_pmu(db, p->kind, p->name, &back, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "fuzz_kpep: %s\n", err);
	CHECK(r == 0);
	CHECK(back.nevents == p->nevents && back.naliases == p->naliases);
	CHECK(!strcmp(back.sha256, p->sha256) && same(back.marketing_name, p->marketing_name));
	for (size_t i = 0; i < p->nevents; i++) {
		const struct lk_event *a = &p->events[i], *b = &back.events[i];
		CHECK(!strcmp(a->name, b->name) && same(a->description, b->description) && same(a->fallback, b->fallback) &&
		      same(a->errata, b->errata) && a->number == b->number && a->umask == b->umask &&
		      a->counters_mask == b->counters_mask && a->fixed_counter == b->fixed_counter);
	}
	for (size_t i = 0; i < p->naliases; i++)
		CHECK(!strcmp(p->aliases[i].alias, back.aliases[i].alias) && !strcmp(p->aliases[i].target, back.aliases[i].target));
	pmu_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_pmu p;
	char err[1024] = "";
	if (size > KPEP_MAX_FILE)
		return 0;
	if (kpep_parse(data, size, "fuzz", &p, err, sizeof(err)) < 0) {
		/* A refusal is one line naming the source, and leaves nothing behind. */
		CHECK(!strncmp(err, "fuzz: ", 6) && !strchr(err, '\n'));
		CHECK(p.nevents == 0 && p.name == NULL);
		return 0;
	}
	CHECK(p.nevents > 0 && p.sorted);
	char why[512];
	CHECK(pmu_validate(&p, why, sizeof(why)) == 0);
	check_lookups(&p);
	check_sched(&p);
	check_db(&p);
	pmu_release(&p);
	return 0;
}
