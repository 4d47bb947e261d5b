/*
 * backend/perf-events.h: the Linux perf event catalogue of this machine: generic
 * hardware, hardware-cache and software events, plus every PMU's events in
 * sysfs with their encodings, i.e. exactly what perf_event_open() can be
 * asked for here.  Reads sysfs; opens events only to count the counters
 * (perf_group_counters).
 *
 * $LAUKA_SYSFS_PMUS overrides /sys/bus/event_source/devices (tests).
 */
#ifndef LAUKA_PERF_EVENTS_H
#define LAUKA_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/pmu.h"

int perf_events_catalog(struct lk_pmu *out, char *err, size_t len);

/*
 * Encode "event=0x3c,umask=0x1,cmask=2" against a PMU's format directory
 * contents.  `formats` is an array of {name, spec} where spec is what the
 * format file holds ("config:0-7", "config1:0-15", "config:0-7,32-35").
 * Pure.  Returns 0 or -LK_EINVAL with the offending term in err.
 */
struct perf_format {
	const char *name;
	const char *spec;
};
int perf_encode_terms(const char *terms, const struct perf_format *formats, size_t nformats,
		      uint64_t config[3], char *err, size_t len);

/*
 * Is there a core PMU?  perf's names (cpu, cpu_core, armv8_pmuv3...), or any PMU with a `cpus`
 * file and events/cpu_cycles or events/inst_retired (armv8_cortex_a72, armv8_neoverse_n1, ...).
 * False on most VMs.  perf_core_pmu_name also gives the first one's name (sysfs order, sorted).
 */
int perf_have_core_pmu(void);
int perf_core_pmu_name(char *buf, size_t len);
/* Is the PMU named by name[0..len) a core PMU by that rule? */
int perf_is_core_pmu(const char *name, size_t len);
/* Does the event take a core PMU's counter (hardware, cache, raw, or a core PMU's own event), not a software one? */
bool perf_takes_pmu_counter(const struct lk_event *ev);
/* arm64: this CPU's MIDR fields from /proc/cpuinfo ("CPU implementer", "CPU part"); false elsewhere. */
bool perf_arm_midr(unsigned *impl, unsigned *part);
/*
 * The core PMUs of a hybrid Intel CPU (`cpu_core`, `cpu_atom`) with their sysfs types, in that
 * order: how many (0 unless there are at least two), the first `max` of them in out.  The perf
 * catalogue then has every generic hardware and cache event once per core PMU (`cpu_atom/cycles/`,
 * config | type << 32: the extended type of Linux 5.18); perf_hybrid_twins finds them.
 */
struct perf_hybrid_pmu {
	const char *name;	/* static */
	uint32_t type;
};
size_t perf_hybrid_pmus(struct perf_hybrid_pmu *out, size_t max);
/*
 * Which of the core PMUs h[0..nh) counts ev, pure: its index, or -1 for an event of none (software,
 * tracepoint, breakpoint, another PMU's; every event when nh is 0).  A generic hardware or cache
 * event names its PMU in config bits 32-63, none meaning PERF_TYPE_RAW; a raw or sysfs event by its
 * perf_type, and PERF_TYPE_RAW (4) is the type the big cores' PMU registers (cpu_core).
 */
int perf_hybrid_index(const struct lk_event *ev, const struct perf_hybrid_pmu *h, size_t nh);
/*
 * The CPUs of PMU `name` as its sysfs `cpus` file lists them ("16-23"), in buf without the newline;
 * 0, or -1 when there is no such file.
 */
int perf_pmu_cpus(const char *name, char *buf, size_t len);
/*
 * On a hybrid machine, the name of the core PMU of sysfs type `type` (cpu_core is the one the
 * kernel also registers as PERF_TYPE_RAW, 4), or NULL: perf's spelling of such a PMU's raw
 * encoding is `cpu_core/event=0xc0,umask=0x0/`, as there is no `cpu` PMU there.
 */
const char *perf_hybrid_pmu_of_type(uint32_t type);
/*
 * On a hybrid machine, the events that count generic event `ev` (PERF_TYPE_HARDWARE or
 * PERF_TYPE_HW_CACHE without a PMU in config) on each core PMU, taken from catalogue `pmu`: how
 * many were found (at most max, in perf_hybrid_pmus' order); 0 elsewhere and for other events.
 */
size_t perf_hybrid_twins(const struct lk_pmu *pmu, const struct lk_event *ev, const struct lk_event **out,
			 size_t max);
/*
 * perf's PMU form of a raw event on a core PMU ("armv8_pmuv3/event=0x23/", "cpu/event=0xd1,umask=0x20/"):
 * the terms encoded with the files in sysfs <pmu>/format, perf_type from <pmu>/type (issue 36 P8).
 * 0 with *ev filled (name and description allocated: the caller frees them); 1 when spec is not
 * that form or names no core PMU; -LK_EINVAL with why in err when a term is unknown or does not fit.
 */
int perf_pmu_raw_event(const char *spec, struct lk_event *ev, char *err, size_t len);
/*
 * The PMU device (its name in sysfs) that counts ev: the core PMU for perf's hardware, cache and
 * raw types, "software", "tracepoint", "breakpoint", else the PMU whose `type` file holds ev's
 * perf_type.  buf, or NULL when none is found.
 */
const char *perf_event_pmu(const struct lk_event *ev, char *buf, size_t len);
/*
 * Counters another process holds (issue 36 P5), doctor's verdict, pure.  The kernel checks at open
 * only that a group fits the PMU (validate_group), not that it can be scheduled: events pinned by
 * another process (a CPU-wide profiler, the NMI watchdog) keep a full group off the counters, and
 * flexible CPU-wide ones multiplex with it.  A group of `opens` events enabled on lauka was on the
 * counters `coverage` of its enabled time (time_running/time_enabled), and the largest group that
 * ran whole holds `runs`; nmi_watchdog is /proc/sys/kernel/nmi_watchdog (-1: unknown).  Writes the
 * observation to buf; true when counters are held (coverage below PERF_WHOLE).
 */
#define PERF_WHOLE 0.999
bool perf_counters_held(int opens, double coverage, int runs, int nmi_watchdog, char *buf, size_t len);
/*
 * How many hardware events one group may hold here, measured: cycles plus instructions until the
 * kernel refuses one more (on Arm: the general counters plus the cycle counter).  0 when not even
 * cycles opens (no PMU) or no limit was found.
 */
int perf_group_counters(void);

/*
 * User vs kernel counting (backend/perf.c, issue 36 P4): the kernel is counted for root
 * (CAP_PERFMON) or at perf_event_paranoid <= 1, else exclude_kernel=1 (user mode only).
 * perf_count_user_only() makes every later open user mode only (`-m instructions:u`);
 * perf_count_kernel_only() makes every later open of an event that takes a PMU counter
 * kernel mode only (exclude_user=1, `-m instructions:k`; software events keep counting
 * both, as perf's modifiers do not apply to them).  perf_count_mode(): 'u', 'k', or 0
 * for what may be counted (both, or 'u' when the kernel may not be: see
 * perf_counts_kernel()).  perf_may_count_kernel() ignores the modifiers.
 */
bool perf_counts_kernel(void);
bool perf_may_count_kernel(void);
int perf_paranoid(void);	/* /proc/sys/kernel/perf_event_paranoid (2 when unreadable) */
void perf_count_user_only(void);
void perf_count_kernel_only(void);
char perf_count_mode(void);
/*
 * Does the PMU named by pmu[0..len) count per CPU or per package rather than
 * per task?  Such a PMU (RAPL's "power", uncore PMUs) has a cpumask in sysfs,
 * and the kernel refuses a per-task event on it with EINVAL (perf_event_open
 * with pid >= 0 on a PMU whose task_ctx_nr is perf_invalid_context).
 */
int perf_pmu_system_wide(const char *pmu, size_t len);

#ifdef __linux__
#include <sys/types.h>
/*
 * Tests only: every perf_event_open(2) of the perf backend (backend/perf.c) goes to fn instead of
 * the kernel, which sees the attrs lauka builds (returns an fd, or -1 with errno); NULL restores
 * the system call.
 */
struct perf_event_attr;
typedef long (*perf_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags);
void perf_set_open_hook(perf_open_fn fn);
#endif

#endif
