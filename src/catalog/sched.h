/*
 * catalog/sched.h: which counter counts which event.  Pure: masks in, assignment
 * out; no I/O.
 *
 * Each event may only be counted on the counters in its counters_mask (bit
 * i = counter i); a mask of 0 means "unconstrained" (perf, valgrind, rusage
 * events) and such events are never assigned a counter.  A fixed event
 * (fixed_counter >= 0) prefers its fixed counter and may instead take any
 * counter of its `fallback` event's mask: a counter other than
 * ev->fixed_counter in the result means "program the fallback event".
 * Counters outside fixed_mask | config_mask (when the catalogue names
 * either) do not exist and are never used.
 *
 * sched_assign() is a bipartite matching (augmenting paths) over the events
 * in a canonical order: fewest allowed counters first, then by name.  So the
 * assignment, and the conflict reported, depend only on the set of events,
 * never on the order the user named them.  kperfdata itself assigns first
 * fit in the order events are added, so a backend must add them in an order
 * that realises the returned counters (e.g. sorted by counter).
 *
 * Incompat labels (sched_incompat): a "restricted group" G is a counters
 * mask that some event of the catalogue has, that names fewer counters than
 * the configurable set (config_mask), and that more than |G| events of the
 * catalogue fit inside (mask subset of G).  At most |G| such events can be
 * counted together, so any |G|+1 of them conflict.  An event belongs to
 * every group its mask is contained in, and is labelled by their sizes,
 * smallest first:
 *   |G| = 1 -> "pair"   (two such events conflict)
 *   |G| = 2 -> "triple"
 *   |G| = 3 -> "quad"   (four conflict)
 *   other   -> "groupN" with N = |G| counters (N+1 conflict)
 * and "none" when it is in no group.  On M1-M3 (masks 0x80, 0xE0, default
 * 0x3FC) this gives INST_ALL "pair,quad", the 0xE0 events "quad" and the
 * default-mask events "none".  On an M4-like catalogue (0x80 and 0xFC) the
 * 0x80 events are "pair,group6" and the 0xFC events "group6".  Fixed events
 * (masks 0x1, 0x2) hold a counter of their own and are "none".
 */
#ifndef LAUKA_SCHED_H
#define LAUKA_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/pmu.h"

#define SCHED_MAX_CONFLICT 16

/*
 * Bit 63 of an event's counters_mask: the event takes two counters, the
 * even counter c of its mask and c + 1 (AMD family 17h and later merge a
 * counter pair for event 0x003, catalog/pfm.h).  Never a counter itself.
 */
#define SCHED_PAIR (UINT64_C(1) << 63)

struct sched_conflict {
	size_t idx[SCHED_MAX_CONFLICT];	/* indices into evs, ascending */
	size_t n;
};

/*
 * Assign each event to a counter.  Returns 0 and counter[i] per event (-1 for
 * unconstrained events), or -LK_ESCHED and fills *conflict (when not NULL)
 * with the indices of a smallest subset that cannot be counted together.
 * A subset larger than SCHED_MAX_CONFLICT events is cut to its first ones.
 */
int sched_assign(const struct lk_pmu *pmu, const struct lk_event *const *evs, size_t n,
		 int *counter, struct sched_conflict *conflict);
/*
 * Split a set that does not fit into passes that each fit: pass_of[i] = the
 * pass of event i (greedy, most constrained first); returns the number of
 * passes (0 when n is 0).
 */
size_t sched_passes(const struct lk_pmu *pmu, const struct lk_event *const *evs, size_t n, size_t *pass_of);
/*
 * sched_passes() for events that belong to parts that must not share a pass: the core PMUs of a
 * hybrid CPU, where a pass is run on one core type's CPUs (cmd/calibrate.c).  part[i] is event i's
 * part (0, 1, ...) or -1 for an event of no part (a software event, counted wherever the task
 * runs), which goes with part `host` (-1: the events of no part have passes of their own, planned
 * first).  The parts are planned one after the other, in increasing order, each as sched_passes()
 * plans a set;
 * pass_part[q] (room for n entries) is the part of pass q, -1 for a pass of events of no part.
 * Without parts (every part[i] -1) the plan is sched_passes()'s.  Returns the number of passes.
 */
size_t sched_passes_parts(const struct lk_pmu *pmu, const struct lk_event *const *evs, const int *part, size_t n,
			  int host, size_t *pass_of, int *pass_part);
/*
 * The kernel refused pass p of a plan (pass_of over n events, npasses
 * passes): a group it would not open, or one it multiplexed
 * (time_running < time_enabled), because of a restriction the catalogue
 * does not describe (libpfm4 hides per-event counter masks).  The pass's
 * first half (in index order) keeps p, the rest becomes pass npasses, so no
 * count is ever a scaled estimate.  Returns the new number of passes;
 * npasses unchanged when pass p has fewer than two events (an event
 * refused alone cannot be counted here).
 */
size_t sched_split_pass(size_t *pass_of, size_t n, size_t p, size_t npasses);
/* Events in pass p. */
size_t sched_pass_size(const size_t *pass_of, size_t n, size_t p);
/* The conflicting events as "a, b, c" (display names: lower-case), malloc'd. */
char *sched_conflict_names(const struct lk_event *const *evs, const struct sched_conflict *conflict);
/*
 * The extra register an event shares with others of its kind (Intel only;
 * catalog/sched.c says which and why): "offcore" (offcore response, two
 * registers), "ldlat" (load latency threshold) or "frontend"
 * (MSR_PEBS_FRONTEND); NULL for an event that holds none.
 */
const char *sched_shared_register(const struct lk_pmu *pmu, const struct lk_event *ev);
/* Incompat label of an event ("none", "pair", "quad", "pair,quad", "group6", ...) in buf. */
const char *sched_incompat(const struct lk_pmu *pmu, const struct lk_event *ev, char *buf, size_t len);

/*
 * The restricted groups of a catalogue, found once (O(n log n) in its
 * events), so that labelling every event of a large catalogue stays linear:
 * sched_incompat() is sched_groups_init() + sched_incompat_in().
 */
struct sched_groups {
	uint64_t *mask;		/* the groups, smallest first */
	size_t n;
	int full;		/* counters in config_mask */
};
void sched_groups_init(const struct lk_pmu *pmu, struct sched_groups *g);
const char *sched_incompat_in(const struct sched_groups *g, const struct lk_event *ev, char *buf, size_t len);
void sched_groups_release(struct sched_groups *g);

#endif
