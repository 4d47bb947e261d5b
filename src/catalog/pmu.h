/*
 * catalog/pmu.h: the in-memory form of one event catalogue ("PMU"): what a kpep
 * plist, the Linux kernel or the valgrind event list describes.  Producers
 * (catalog/kpep.c, backend/perf-events.c, backend/valgrind.c) fill a struct lk_pmu; catalog/db.c
 * stores and loads it; catalog/sched.c and the backends read it.
 *
 * Ownership: a struct lk_pmu owns every string and array it points to;
 * pmu_release() frees them all.  Pointers to events stay valid until then.
 */
#ifndef LAUKA_PMU_H
#define LAUKA_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lk_event {
	char *name;		/* as the source spells it: INST_ALL, cycles, Ir */
	char *description;	/* may be NULL */
	uint64_t number;	/* kpep selector, or perf attr.config */
	uint64_t umask;		/* kpep x86_64 unit mask; 0 elsewhere */
	uint64_t counters_mask;	/* counters allowed; 0 = unconstrained (perf, valgrind) */
	int fixed_counter;	/* index of its fixed counter, or -1 */
	char *fallback;		/* event to use when the fixed counter is busy; may be NULL */
	char *errata;		/* may be NULL */
	/* Linux perf encoding (kind "perf"): attr.type and extra config words. */
	uint32_t perf_type;
	uint64_t config1, config2;
	char *unit;		/* "ns", "bytes" or NULL for plain counts */
	unsigned flags;		/* LK_EVF_* (vendor tables; stored with the event, catalog/migrate-006.sql) */
};

/* Intel's TakenAlone: no other event of its shared register (catalog/sched.c) in the same pass. */
#define LK_EVF_TAKEN_ALONE 1u
/* Intel's PEBS=2: counts only as a PEBS event (sampling); never in a counting plan (calibrate). */
#define LK_EVF_NEEDS_SAMPLING 2u
/* Every flag this lauka knows (the database keeps these bits and no others). */
#define LK_EVF_KNOWN (LK_EVF_TAKEN_ALONE | LK_EVF_NEEDS_SAMPLING)

struct lk_alias {
	char *alias;		/* e.g. Cycles, instructions */
	char *target;		/* an event name of the same PMU */
};

struct lk_pmu {
	char *kind;		/* "kpep", "perf" or "valgrind" */
	char *name;		/* a14, as3, linux, valgrind */
	char *marketing_name;	/* Apple A14/M1, or a readable machine name */
	char *arch;		/* arm64, x86_64, ... */
	uint64_t fixed_mask;	/* kpep: bit i = counter i is fixed */
	uint64_t config_mask;	/* kpep: configurable counters; default counters_mask */
	uint64_t power_mask;	/* kpep: counters the power manager owns unless forced */
	char *source;		/* file the catalogue came from, or "builtin"/"sysfs" */
	char sha256[65];	/* hex digest of the source bytes, "" when generated */
	struct lk_event *events;
	size_t nevents;
	struct lk_alias *aliases;
	size_t naliases;
	/* events[] is in strcmp order of name (pmu_find_exact() then bisects); pmu_add_event() clears it. */
	bool sorted;
};

/* Free an event's strings (a row dropped from pmu->events before pmu_release). */
void pmu_event_release(struct lk_event *ev);
/*
 * Drop every event for which drop(ev, i, ctx) is true (i: its index before
 * any goes; drop is asked of every row before one moves), releasing it; the
 * others keep their order, so a sorted catalogue stays sorted.  Aliases name
 * their event, not its index: an alias whose target was a dropped event's
 * name, and is no kept event's, goes with it; other aliases stay as they
 * are.  Returns how many events went.
 */
size_t pmu_remove_if(struct lk_pmu *pmu, bool (*drop)(const struct lk_event *ev, size_t i, void *ctx), void *ctx);
void pmu_release(struct lk_pmu *pmu);

/* Append an event (copied, strings duplicated); returns the new entry. */
struct lk_event *pmu_add_event(struct lk_pmu *pmu, const struct lk_event *ev);
void pmu_add_alias(struct lk_pmu *pmu, const char *alias, const char *target);

/*
 * Resolve a user-supplied name case-insensitively: event names first, then
 * aliases.  Returns NULL when nothing matches.
 */
const struct lk_event *pmu_find(const struct lk_pmu *pmu, const char *name);
/* Exact-case lookup by event name only (for fallbacks and alias targets). */
const struct lk_event *pmu_find_exact(const struct lk_pmu *pmu, const char *name);

/*
 * Sort events by name (strcmp) and aliases by alias, and mark the catalogue
 * sorted so that exact lookups are O(log n).
 */
void pmu_sort(struct lk_pmu *pmu);

/*
 * The invariants the rest of lauka relies on, whatever produced the
 * catalogue (a plist, a hand-altered database): every event and alias has a
 * name; names are unique, in a kpep catalogue even ignoring case (lookups are
 * case-insensitive, so one of two such names could never be reached); fixed_counter is -1 or a
 * counter index below 64; a fixed event's counters_mask names only its own
 * counter; a fallback names a configurable event; an alias names an event
 * exactly and is not itself the name of an event.  The catalogue must be
 * sorted (pmu_sort).  0, or -1 with the first problem in why
 * ("event 'X': ...").
 */
int pmu_validate(const struct lk_pmu *pmu, char *why, size_t len);

/* Names longer than this get no suggestion (the edit distance grows with both lengths). */
#define PMU_SUGGEST_MAX 256
/*
 * Up to max names close to `name` (edit distance, then prefix/substring),
 * best first; returns how many were written.  Strings are borrowed.
 */
size_t pmu_suggest(const struct lk_pmu *pmu, const char *name, const char **out, size_t max);

/* The architecture lauka was built for, as kpep spells it ("x86_64", "arm64"), or NULL. */
const char *pmu_host_arch(void);

/* Lower-case copy of an event name for display ("INST_ALL" -> "inst_all"). */
char *pmu_display_name(const char *name);
/*
 * An event's name as lauka shows it (malloc'd): kpep and libpfm4 ("pfm")
 * names, and any name with no lower-case letter (vendor events merged into
 * the perf catalogue), in lower case; others as their source spells them
 * (Ir, D1mr, task-clock).
 */
char *pmu_shown_name(const struct lk_pmu *pmu, const char *name);

#endif
