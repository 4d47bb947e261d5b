/*
 * catalog/vendor.h: the vendors' own event tables laid over libpfm4's rows.
 * Pure: a catalogue and a parsed table in, the catalogue corrected; no I/O.
 *
 * libpfm4 publishes no per-event counter restrictions and has wrong
 * encodings under some vendor names (doc/linux-events.md lists them); Intel's
 * perfmon tables (catalog/perfmon.h) have both.  For a model with a table
 * (catalog/intel-skl.json, -icl, -spr, -icx, -skx, -clx, -hsw, -bdw, -tgl, -rkl, derived from intel/perfmon,
 * BSD-3-Clause: catalog/LICENSE.intel-perfmon; or a user's file):
 *   - general counters: the table's figure per thread (Counter: with
 *     Hyper-Threading on; --smt off would take CounterHTOff), not libpfm4's
 *     (16 on Ice Lake and Sapphire Rapids, where Intel names 8);
 *   - each libpfm4 row found in the table by name takes its Counter list;
 *     a row whose name Intel does not use takes the Counter list of the
 *     Intel events of the same encoding (all of them allow: their
 *     intersection), else every general counter;
 *   - an encoding that differs from Intel's (event, umask, edge, any, inv,
 *     cmask) is replaced by Intel's and the row's errata say so: the vendor's
 *     table wins;
 *   - an Intel name libpfm4 does not use becomes an alias of the row with
 *     its encoding (cpu_clk_unhalted.thread -> unhalted_core_cycles), or a
 *     row of its own.  Intel's fixed-counter pseudo-encodings (event 0x00,
 *     umask n+1 = fixed counter n) are opened as the architectural events
 *     Linux accepts on every model (0x00c0, 0x003c, 0x0300, 0x0400) and kept
 *     on their fixed counter.
 */
#ifndef LAUKA_VENDOR_H
#define LAUKA_VENDOR_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/perfmon.h"
#include "catalog/pmu.h"


/* The table lauka ships for a libpfm4 model ("skl", "icl", "spr"), or NULL; *len its size. */
const char *vendor_builtin(const char *model, size_t *len);

/*
 * The table for an Intel CPU of this family, model and stepping, as Intel's
 * mapfile.csv assigns it, or model (a libpfm4 name) when it names none.
 * libpfm4's "icl" also covers Ice Lake-D (6-6C: ICX's table), Tiger Lake
 * (6-8C/8D: TGL's) and Rocket Lake (6-A7: RKL's).
 */
const char *vendor_table_for(const char *model, unsigned family, unsigned cpu_model, unsigned stepping);

/*
 * Lay table t over the libpfm4 catalogue pmu (kind "pfm", Intel).  label
 * names the table in errata ("Intel's table (SKL V59)").  Returns how many
 * rows' encodings were corrected.  pmu is sorted again.
 */
/*
 * Intel's TakenAlone and PEBS=2 flags (LK_EVF_*) of the rows, by encoding, from
 * the table lauka ships for model (vendor_builtin; nothing without one).  The
 * database does not keep flags: a catalogue loaded from it gets them here.
 */
void vendor_flags_builtin(struct lk_pmu *pmu, const char *model);
/* The general counters Linux allows an encoding on this libpfm4 model (its constraint tables); 0: no entry, or no table. */
uint64_t vendor_kernel_mask(const char *model, uint64_t config);
size_t vendor_apply(struct lk_pmu *pmu, const struct perfmon_table *t, const char *label, bool smt_off);

/*
 * Rows with one encoding are one event (libpfm4 lists umask aliases as rows
 * of their own: Skylake's 437 rows hold 343 encodings, and a plan measured
 * each twice): the row Intel names (t may be NULL), else the shortest name,
 * stays; the others become its aliases, their aliases follow.  The kept row
 * allows the counters all of them allow.  Returns how many rows merged.
 */
size_t vendor_merge_duplicates(struct lk_pmu *pmu, const struct perfmon_table *t);

/*
 * A catalogue of kind "perfmon" from a table alone (`lauka counters --import
 * FILE.json`): every event not deprecated, Intel's encoding (fixed-counter
 * pseudo-encodings as Linux opens them, an extra MSR's value as config1),
 * counters and names; rows of one encoding merged, perf's generic names added.
 */
void vendor_catalog(const struct perfmon_table *t, const char *name, struct lk_pmu *out);
/*
 * Whether vendor_catalog() can take t as it says (adversarial-audit-5 D-13):
 * no general counter beyond the 31 a mask holds, and the names of one
 * encoding (one event once merged) share a counter.  0, or -LK_EINVAL with
 * the reason in err.
 */
int vendor_check(const struct perfmon_table *t, char *err, size_t len);

/*
 * The names of a catalogue (events and aliases, any case) in a hash set, so
 * that an import adding tens of thousands of aliases checks each in constant
 * time (pmu_find() scans the aliases: a 40,000-event Arm file took 19 s).
 * The set points at the catalogue's strings: add a name after adding it to
 * the catalogue, and release the set before the catalogue changes them.
 */
struct vendor_names {
	const char **slot;
	size_t cap, n;
};
void vendor_names_init(struct vendor_names *s, const struct lk_pmu *pmu);
bool vendor_names_has(const struct vendor_names *s, const char *name);
void vendor_names_add(struct vendor_names *s, const char *name);
void vendor_names_release(struct vendor_names *s);

/* Encoding bits compared between sources (PERFEVTSEL: event, umask, edge, any, inv, cmask). */
#define VENDOR_FIELDS 0xffa4ffffULL

#endif
