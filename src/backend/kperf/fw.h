/*
 * backend/kperf/fw.h: the kperf backend's access to the system (internal to
 * backend/kperf/kperf.c, backend/kperf/config.c, backend/kperf/sample.c): loading kperf.framework
 * and kperfdata.framework with dlopen, the Darwin seam (struct kperf_sys,
 * native or the stand-in's), the framework functions, the call convention,
 * and the checks that decide whether kperf can work here at all (root,
 * Rosetta).
 */
#ifndef LAUKA_KPERF_FW_H
#define LAUKA_KPERF_FW_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/kperf/kperf.h"

#define KPC_CLASS_FIXED_MASK 1u
#define KPC_CLASS_CONFIGURABLE_MASK 2u

typedef struct kpep_db kpep_db;
typedef struct kpep_config kpep_config;
typedef struct kpep_event kpep_event;

/* The framework functions lauka uses (signatures: reference/kpep.md 4.3-4.5, xnu-kperf.md section 1). */
struct kperf_fns {
	int (*kpc_force_all_ctrs_get)(int *);
	int (*kpc_force_all_ctrs_set)(int);
	uint32_t (*kpc_get_counting)(void);
	uint32_t (*kpc_get_thread_counting)(void);
	int (*kpc_set_counting)(uint32_t);
	int (*kpc_set_thread_counting)(uint32_t);
	uint32_t (*kpc_get_counter_count)(uint32_t);
	int (*kpc_set_config)(uint32_t, uint64_t *);
	int (*kperf_action_count_set)(uint32_t);
	int (*kperf_action_samplers_set)(uint32_t, uint32_t);
	int (*kperf_action_filter_set_by_pid)(uint32_t, int32_t);
	int (*kperf_timer_count_set)(uint32_t);
	int (*kperf_timer_period_set)(uint32_t, uint64_t);
	int (*kperf_timer_action_set)(uint32_t, uint32_t);
	int (*kperf_timer_pet_set)(uint32_t);
	int (*kperf_sample_set)(uint32_t);
	int (*kperf_sample_get)(uint32_t *);
	int (*kperf_reset)(void);
	uint64_t (*kperf_ns_to_ticks)(uint64_t);
	int (*kpep_db_create)(const char *, kpep_db **);
	void (*kpep_db_free)(kpep_db *);
	int (*kpep_db_event)(kpep_db *, const char *, kpep_event **);
	int (*kpep_config_create)(kpep_db *, kpep_config **);
	void (*kpep_config_free)(kpep_config *);
	int (*kpep_config_force_counters)(kpep_config *);
	int (*kpep_config_add_event)(kpep_config *, kpep_event **, uint32_t, uint32_t *);
	int (*kpep_config_kpc_classes)(kpep_config *, uint32_t *);
	int (*kpep_config_kpc_count)(kpep_config *, size_t *);
	int (*kpep_config_kpc)(kpep_config *, uint64_t *, size_t);
	int (*kpep_config_kpc_map)(kpep_config *, size_t *, size_t);
};

/* What was loaded; valid after kperf_load_fns() returned 0. */
extern const struct kperf_sys *kperf_sys;
extern struct kperf_fns kperf_fn;

/* Load the seam only (enough for the cpu ids and rusage), or the seam and both frameworks. */
int kperf_load_sys(char *why, size_t len);
int kperf_load_fns(char *why, size_t len);
bool kperf_loaded(void);
/* dlclose both libraries and forget them. */
void kperf_fw_unload(void);

/*
 * kpc_* / kperf_* wrap sysctl; Apple's tests treat them as returning -1
 * with errno, and a few tools read the errno value itself, so both are read
 * as the errno.  KPERF_CALL clears errno first so a stale value is not
 * blamed on the call.
 */
int kperf_call_errno(int r, int saved);
int kperf_call(int r, const char *name, char *why, size_t len);
#define KPERF_CALL(expr, name, why, len) (errno = 0, kperf_call((expr), (name), (why), (len)))
/* A seam op's -errno as -LK_E* with a message naming the operation. */
int kperf_seam_error(int r, const char *what, char *why, size_t len);

/* Root, and kpc reachable (kpc_force_all_ctrs_get); then not under Rosetta. */
int kperf_root_check(char *why, size_t len);
int kperf_rosetta_check(char *why, size_t len);

#endif
