/*
 * backend/kperf/config.h: the kpc configuration built from lauka's assignment
 * (internal to the kperf backend).  kperf_config_build() turns the
 * selection into a kpep_config whose kpc counters realise the scheduler's
 * choice; kperf_config_program() forces the counters, writes the config
 * words and switches kpc (thread) counting on, then reads back how many
 * values the kernel will log per thread sample (XNU freezes that count in
 * kpc_set_thread_counting, after forcing: 2+8 on M1-M4, 2+5 before) and
 * checks every mapped counter against it.
 */
#ifndef LAUKA_KPERF_CONFIG_H
#define LAUKA_KPERF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/kperf/agg.h"
#include "backend/kperf/fw.h"

enum kperf_role { KPERF_ROLE_SAMPLED, KPERF_ROLE_INSTRUCTIONS, KPERF_ROLE_CYCLES };

struct kperf_config {
	kpep_db *db;
	kpep_config *cfg;
	size_t nsel;
	size_t *slot;			/* per sel: kpc counter index, or SIZE_MAX when not added */
	enum kperf_role *role;		/* per sel */
	size_t kpc[KPERF_MAX_COUNTERS];	/* per added event (add order): its kpc counter index */
	size_t added;
	size_t instr_idx, cyc_idx;	/* kpc indices of the fixed instructions and cycles */
	uint32_t classes;
	size_t ncounters;		/* values per thread sample (after kperf_config_program) */
	uint32_t count_unforced;	/* kpc_get_counter_count(classes) before forcing (lauka doctor) */
	uint64_t words[KPERF_MAX_COUNTERS];	/* the config words lauka wrote (kpc_set_config) */
	size_t nwords;
	bool words_read_back;		/* kpc_get_config exists: the words are compared too */
};

/* Build from sel (each sel's err/why set when it cannot be added); 0 or -LK_E* with err. */
int kperf_config_build(struct kperf_config *c, struct lk_evsel *sel, size_t n, char *err, size_t len);
/*
 * Force the counters (once per process: *forced says whether this process
 * already holds them), write the config, start kpc and kpc thread counting,
 * and fix ncounters from what the kernel reports afterwards.
 */
int kperf_config_program(struct kperf_config *c, bool *forced, char *err, size_t len);
/*
 * R3: still forced, and the counter count still ncounters; C2 (audit 4): the
 * counting and thread-counting classes and the config words still what lauka
 * wrote.  At the end of program, at each attach and after each run: kpc has
 * no owner, so another root process can reprogram it at any time.  A
 * difference is -LK_EBUSY naming the field.
 */
int kperf_config_check(const struct kperf_config *c, char *err, size_t len);
void kperf_config_free(struct kperf_config *c);

#endif
