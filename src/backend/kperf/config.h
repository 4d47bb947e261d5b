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
	/*
	 * How the kernel answers kpc_get_config (see kperf_config_word_ok):
	 * the event field's mask (0xff, or 0xffff where the kpep database has
	 * wider events; set by the caller before kperf_config_program), whether
	 * the words are x86's (IA32_PERFEVTSELx, a fixed control word first),
	 * and the words of the first read-back, the reference every later check
	 * compares against exactly.
	 */
	uint64_t event_mask;
	bool x86;
	uint64_t kernel_words[KPERF_MAX_COUNTERS];
	bool have_kernel_words;
	const char *name_at[KPERF_MAX_COUNTERS];	/* per kpc counter index: lauka's event on it, or NULL */
};

/*
 * Does `got`, a kpc_get_config word as the kernel answers it, hold the event
 * lauka wrote as `want`?  The kernel rebuilds the word from the registers
 * instead of echoing it: on arm64 the event field (mask event_mask) from
 * PMESR plus the mode bits from PMCR1, a word written without mode bits
 * coming back with EL0A64 (0x20000) set and the kernel-mode bit dropped
 * where the kernel may not be counted (xnu-11417.101.15 osfmk/arm64/kpc.c
 * set_modes :308-339, get_counter_config :454-501); on x86 the event
 * select register with its enable and interrupt bits set by the kernel and
 * the unsafe bits cleared (osfmk/x86_64/kpc_x86.c :367-385, :278-280).  A
 * zero word (an unused counter) is not compared.
 */
bool kperf_config_word_ok(uint64_t want, uint64_t got, uint64_t event_mask, bool x86);
/* The kpc_get_config word count of the fixed class: 1 on x86 (IA32_FIXED_CTR_CTRL), 0 on arm64. */
size_t kperf_config_fixed_words(bool x86);

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
int kperf_config_check(struct kperf_config *c, char *err, size_t len);
void kperf_config_free(struct kperf_config *c);
/*
 * kpc_get_counter_count(classes) into *out; 0 for nonzero classes is
 * kperf.framework's sentinel for a failed sysctl: -LK_E* with err (the
 * errno the sysctl left, EBUSY while another kernel client holds the PMU).
 */
int kperf_counter_count(uint32_t classes, uint32_t *out, char *err, size_t len);

#endif
