/*
 * catalog/vendor-arm.h: Arm's PMU event tables (catalog/armpmu.h) laid over
 * libpfm4's Arm rows, and catalogues from such a table alone.  Pure: no I/O.
 *
 * A PMUv3 core has N general event counters (PMCR_EL0.N; Arm's table says
 * N as "counters": 6 on Cortex-A57 and the Neoverse cores) and the cycle
 * counter PMCCNTR_EL0, which counts CPU_CYCLES (0x11) and nothing else
 * (Arm ARM D7.2); any event may go to any general counter, so the rules are
 * these, in code: CPU_CYCLES may use the cycle counter or a general one,
 * every other event a general one.  Linux's driver does the same
 * (armv8pmu_get_event_idx: the cycle counter first for 0x11).  CHAIN (0x1E)
 * is the driver's own (it joins two counters) and is never a row.
 *
 * For a libpfm4 model with a table (catalog/arm-*.json, derived from
 * ARM-software/data, Apache-2.0: catalog/LICENSE.arm-data; or a user's file):
 *   - general counters: the table's figure;
 *   - each row found in the table by name (or TRM name) whose event number
 *     differs takes Arm's, and its errata say so: the vendor's table wins;
 *   - a row whose number the table does not list at all keeps its number,
 *     and its errata say that Arm does not list it (Neoverse N1's LDST_SPEC,
 *     0x72, which Arm removed from its table as a documentation erratum);
 *   - Arm's names libpfm4 does not use become aliases of the row of their
 *     number, or rows of their own (Neoverse V1's L3D_CACHE events).
 */
#ifndef LAUKA_VENDOR_ARM_H
#define LAUKA_VENDOR_ARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/armpmu.h"
#include "catalog/pmu.h"

/* The table lauka ships for a libpfm4 Arm model ("arm_ac57", "arm_n1", ...), or NULL; *len its size. */
const char *vendor_arm_builtin(const char *model, size_t *len);

/* The table lauka ships for a core by its MIDR ("0x41d08": implementer 0x41, part 0xd08), or NULL. */
const char *vendor_arm_builtin_cpuid(const char *cpuid, size_t *len);

/* The counters an Arm event may use: the general ones, and the cycle counter for CPU_CYCLES. */
uint64_t vendor_arm_counters(unsigned code, uint64_t general, uint64_t cycle_counter);

/*
 * Lay table t over the libpfm4 Arm catalogue pmu.  label names the table in
 * errata ("Arm's table (Cortex-A57)").  Returns how many rows' encodings were
 * corrected.  pmu is sorted again.
 */
size_t vendor_arm_apply(struct lk_pmu *pmu, const struct armpmu_table *t, const char *label);

/*
 * A catalogue of kind "perfmon", arch arm64, from a table alone (`lauka
 * counters --import cortex-a57.json`): every named event but CHAIN, its
 * number, counters by the rule above, TRM names as aliases, and perf's
 * generic names (vendor_arm_generic_aliases).
 */
void vendor_arm_catalog(const struct armpmu_table *t, const char *name, struct lk_pmu *out);

/* perf's generic names (cycles, instructions, branch-misses, ...) as aliases of the rows of the
 * numbers Linux's PMUv3 driver opens for them (armv8_pmuv3_perf_map), where such rows exist. */
void vendor_arm_generic_aliases(struct lk_pmu *out);

#endif
