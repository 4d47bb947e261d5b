/*
 * catalog/armpmu.h: Arm's published PMU event tables (github.com/ARM-software/data,
 * pmu/NAME.json, Apache-2.0) read into memory.  Pure: text in, events out, no I/O.
 *
 * The format: one JSON object with the core ("cpu": "Cortex-A57", "cpuid":
 * "0x41d07", "architecture", "pmu_architecture": "pmuv3", "counters": 6, the
 * number of general event counters besides the cycle counter) and "events",
 * an array of objects:
 *   {"code": 17, "name": "CPU_CYCLES", "architectural": false, "description": "Cycle", ...}
 *   {"code": 64, "trm_name": "L1D_CACHE_LD", "name": "L1D_CACHE_RD", "impdef": true, ...}
 * code is the PMUv3 event number written to PMEVTYPER<n>_EL0.evtCount (Arm
 * ARM D7.10: 10 bits before PMUv3.1, 16 after), which Linux's PMUv3 driver
 * takes as a raw config.  name is the architecture's name (the one Linux's
 * sysfs uses, lower-cased); trm_name the core's Technical Reference Manual
 * spelling where it differs.  for_driver marks events a counter set cannot
 * use on its own (CHAIN, 0x1E: it counts the overflows of the counter below
 * it, so Linux uses it to chain two counters into one 64-bit counter).
 * Fields lauka does not read are skipped; catalog/arm-*.json ship the fields
 * it reads (scripts/armpmu-compact.py).
 */
#ifndef LAUKA_ARMPMU_H
#define LAUKA_ARMPMU_H

#include <stdbool.h>
#include <stddef.h>

/* PMUv3's common event CPU_CYCLES, the one event the dedicated cycle counter (PMCCNTR_EL0) counts. */
#define ARMPMU_CPU_CYCLES 0x11
/* The highest event number PMUv3 encodes (16 bits from PMUv3.1, Armv8.1). */
#define ARMPMU_MAX_CODE 0xffff
/* Untrusted files: at most so many events (Arm's largest has ~160), names at most so long (as kpep's). */
#define ARMPMU_MAX_EVENTS 65536
#define ARMPMU_MAX_NAME 255

struct armpmu_event {
	char *name;		/* CPU_CYCLES; NULL for an event Arm only describes (Cortex-A53's 0xC0-0xE9) */
	char *trm_name;		/* the TRM's name when it differs, or NULL */
	char *description;	/* or NULL */
	unsigned code;
	bool architectural, for_driver;
};

struct armpmu_table {
	char *cpu;		/* "Cortex-A57", or NULL */
	char *cpuid;		/* "0x41d07" (implementer and part number, MIDR_EL1), or NULL */
	char *pmu_architecture;	/* "pmuv3", or NULL */
	unsigned counters;	/* general counters (0: the file does not say) */
	struct armpmu_event *events;	/* sorted by name, the unnamed ones last */
	size_t n;
	size_t named;		/* events[0..named) have a name */
};

/* Parse a table; 0, or -1 with the reason ("line 12: ...") in err. */
int armpmu_parse(const char *text, size_t len, struct armpmu_table *out, char *err, size_t errlen);
void armpmu_release(struct armpmu_table *t);
/* The event named so, by name or TRM name (case-insensitive), or NULL. */
const struct armpmu_event *armpmu_find(const struct armpmu_table *t, const char *name);
/* Does this text look like Arm's format (an "events" array, lower case) rather than Intel's? */
bool armpmu_sniff(const char *text, size_t len);

#endif
