/*
 * catalog/pfm.h: libpfm4's vendor event tables (Intel, AMD core PMUs) read
 * into a struct lk_pmu of kind "pfm", named by libpfm4's model name ("skl",
 * "icl", "amd64_fam19h_zen4").  No SQL, no perf_event_open: libpfm4 only
 * lists and encodes.
 *
 * One catalogue event per umask, named EVENT.UMASK as Intel's tables and
 * perf name them (an event without umasks is one event, EVENT); libpfm4's
 * spellings EVENT:UMASK and model::EVENT:UMASK are aliases.  Each event
 * carries exactly what perf_event_open needs: perf_type (PERF_TYPE_RAW),
 * number = attr.config and config1 (offcore response), as libpfm4 encodes
 * "model::EVENT:UMASK" with user-level counting (the backend sets
 * exclude_kernel itself).
 *
 * Counters: bits 0..G-1 of a mask are the G general counters libpfm4
 * reports, bits 32.. the fixed ones (the kernel's numbering,
 * INTEL_PMC_IDX_FIXED = 32).  libpfm4 does not publish per-event counter
 * restrictions (its tables' cntmsk is internal), so every event may use
 * every general counter, except Intel's architectural fixed-counter
 * encodings (Intel SDM vol. 3B, "Fixed-function performance counters",
 * and Linux's FIXED_EVENT_CONSTRAINT table): 0x00c0 instructions (fixed 0 or
 * any general counter), 0x003c core cycles (fixed 1 or any general), 0x0300
 * reference cycles (fixed 2 only), 0x0400 topdown slots (fixed 3 only).  A
 * restriction libpfm4 hides shows up as the kernel refusing a group; the
 * calibration then splits the pass (catalog/passes.h).
 *
 * Without libpfm4 in the build (macOS, or Linux without libpfm4-dev) the
 * pure helpers still work and pfmcat_available() is false.
 */
#ifndef LAUKA_PFM_H
#define LAUKA_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/pmu.h"

/* The bit of the first fixed counter in a pfm catalogue's counter masks. */
#define PFMCAT_FIXED_BASE 32

/* Was lauka built with libpfm4? */
bool pfmcat_available(void);

/*
 * The core PMU models libpfm4 detects on this machine (LIBPFM_FORCE_PMU
 * pretends one), without its OS-generic "perf" and "perf_raw" tables:
 * malloc'd array of malloc'd names.  None on most VMs.
 */
int pfmcat_present(char ***names, size_t *n, char *err, size_t len);
void pfmcat_names_free(char **names, size_t n);

/*
 * A fingerprint that changes when the libpfm4 library or lauka's way of
 * reading it changes (hex, 64 characters), without enumerating the model.
 * -LK_ENOENT when libpfm4 has no core PMU model of that name.
 */
int pfmcat_fingerprint(const char *model, char hex[65], char *err, size_t len);

/* The whole catalogue of a model (kind "pfm", sorted, sha256 = the fingerprint). */
int pfmcat_catalog(const char *model, struct lk_pmu *out, char *err, size_t len);
/*
 * The same with SMT (Hyper-Threading) off when smt_off: the vendor's
 * figures for a core to itself (Skylake's CounterHTOff: 8 counters, most
 * events on any of them) instead of per thread with SMT on.
 */
int pfmcat_catalog_smt(const char *model, bool smt_off, struct lk_pmu *out, char *err, size_t len);
/*
 * The shipped Intel table a libpfm4 model's catalogue takes (catalog/vendor.h
 * vendor_builtin()): on the machine itself, the one Intel's mapfile gives its
 * CPUID ("tgl" for a Tiger Lake libpfm4 calls "icl"); else model.
 */
const char *pfmcat_vendor_table(const char *model);

/*
 * Bounds on a name given to libpfm4 (pfmcat_known checks them first): at
 * most PFMCAT_NAME_MAX bytes and PFMCAT_MODIFIERS_MAX ':' modifiers
 * (libpfm4 itself keeps 64, and crashes on the 65th).
 */
#define PFMCAT_NAME_MAX 256
#define PFMCAT_MODIFIERS_MAX 16
bool pfmcat_name_ok(const char *name);

/*
 * Does any libpfm4 core model have an event of this name (EVENT.UMASK,
 * EVENT:UMASK or model::EVENT:UMASK, any case)?  Its model into model.
 * For the error of a vendor event this machine cannot have.
 */
bool pfmcat_known(const char *name, char *model, size_t len);

/* The library's version as its file names it ("4.13.0"), or "unknown"; "" without libpfm4. */
const char *pfmcat_version(void);

/* Pure parts, tested with tables of inputs. */

/* "EVENT.UMASK", or "EVENT" when umask is NULL (malloc'd). */
char *pfmcat_event_name(const char *event, const char *umask);

/*
 * The counters an event of encoding `config` may use with `ngp` general and
 * `nfixed` fixed counters (see above): *mask, and *fixed = the fixed
 * counter's bit when it can use no other, else -1.
 */
void pfmcat_counters(bool intel, uint64_t config, unsigned ngp, unsigned nfixed, uint64_t *mask, int *fixed);

/*
 * The encoding as `perf stat -e` accepts it: "cpu/event=0xd1,umask=0x8/"
 * plus ",edge", ",any", ",inv", ",cmask=N" where set (AMD: event bits 32-35
 * join the event number, and no "any"); "cpu/config=0x..,config1=0x../"
 * when config1 is set (offcore response) or bits outside these fields are.
 */
void pfmcat_perf_string(bool intel, uint64_t config, uint64_t config1, char *buf, size_t len);

/* Is this libpfm4 model one of Arm's PMUv3 tables (arm_ac57, arm_n1, ...)? */
bool pfmcat_is_arm(const char *model);
/*
 * An Arm raw encoding as perf accepts it: "DEVICE/event=0x8/" for the CPU's PMU device
 * (armv8_pmuv3_0, armv8_pmuv3, armv8_cortex_a57: its sysfs name), "r8" without one.
 */
void pfmcat_arm_perf_string(const char *device, uint64_t config, char *buf, size_t len);

/* Does this libpfm4 model pair counters for AMD's "large increment" events (family 17h on)? */
bool pfmcat_amd_pairs(const char *model);
/*
 * For such a model, the counters mask of an AMD event of encoding config
 * with ngp general counters: even counters | SCHED_PAIR (catalog/sched.h) when
 * it takes a pair (event 0x003), else 0.
 */
uint64_t pfmcat_pair_mask(uint64_t config, unsigned ngp);

/*
 * This CPU's own counters per logical processor from CPUID (x86: Intel leaf
 * 0xA, AMD 0x80000022 / 0x80000001): 0, or -1 when unknown (no x86, or a
 * hypervisor that reports none).
 */
int pfmcat_host_counters(unsigned *gp, unsigned *fixed);

/*
 * perf's raw spellings of an event: "r20d1" (the config in hex) and
 * "cpu/event=0xd1,umask=0x20/" (terms event, umask, edge, inv, any, cmask,
 * config, config1).  0, or -1 when s is neither.
 */
int pfmcat_parse_raw(const char *s, bool intel, uint64_t *config, uint64_t *config1);
/* A name as pmu_find() resolves it, else a raw spelling resolved to the row of that encoding; NULL when neither. */
const struct lk_event *pfmcat_find(const struct lk_pmu *pmu, const char *name);
/*
 * A well-formed raw x86 encoding no row has (perf's rNNNN or cpu/event=..,umask=..[,cmask=..][,inv][,edge]/)
 * as an ad-hoc row of an Intel or AMD catalogue, in *out (name: the spelling given; strings malloc'd, the
 * caller frees them as pmu_release() would): the model's default counter rule (pfmcat_counters: the general
 * counters, a fixed counter for its architectural encoding, AMD's pair for 0x003), on Intel narrowed to the
 * kernel's constraint for that code (catalog/vendor.h).  Well-formed: a non-zero event code, only
 * PERFEVTSEL's event, umask, edge, any (Intel), inv and cmask bits, and a config1 only for an event of a
 * shared register (offcore response, load latency, frontend).  false for anything else, or an Arm catalogue.
 */
bool pfmcat_adhoc(const struct lk_pmu *pmu, const char *name, struct lk_event *out);
/*
 * The same for an Arm PMUv3 catalogue (not Apple's kpep): perf's rNNNN (named rN, as perf prints it) or
 * PMU/event=N/ (any PMU name; named as given) with a 16-bit event number, on the general counters,
 * CPU_CYCLES (0x11) also on the cycle counter: how `record` counts rN, and `counters --check` plans both.
 * false for anything else.
 */
bool pfmcat_arm_adhoc(const struct lk_pmu *pmu, const char *name, struct lk_event *out);
/* perf's generic names (cycles, instructions, branch-misses, ...) as aliases of the rows of their encodings. */
void pfmcat_generic_aliases(struct lk_pmu *pmu, bool intel);

/*
 * perf's names for AMD Zen events (Linux pmu-events: ex_ret_instr,
 * ls_not_halted_cyc, l2_cache_req_stat.ic_dc_miss_in_l2, ...) as aliases of
 * the rows of their encodings, from a table of lines
 * "model<TAB>name<TAB>event code<TAB>umask" (catalog/amd-perf-names.tsv is
 * pfmcat_amd_perf_table()); only the lines of pmu->name count.  A name
 * whose encoding has no row is left out (no row is invented), and a name
 * that already means another row keeps that meaning.  Counts into n when
 * not NULL.
 */
struct pfmcat_name_counts {
	size_t added;	/* new aliases */
	size_t known;	/* the name already resolved to that row (libpfm4 spells it the same) */
	size_t no_row;	/* no row of that encoding: left out */
	size_t taken;	/* the name already means a row of another encoding: left as it was */
};
void pfmcat_perf_names(struct lk_pmu *pmu, const char *table, struct pfmcat_name_counts *n);
const char *pfmcat_amd_perf_table(void);
/* The 64-bit raw config of an AMD event code (12 bits: PERF_CTL bits 0-7 and 32-35) and umask. */
uint64_t pfmcat_amd_config(unsigned code, unsigned umask);

/* Intel's field layout (not AMD's, by the model's name) for a catalogue's raw encodings. */
bool pfmcat_is_intel(const struct lk_pmu *pmu);

#endif
