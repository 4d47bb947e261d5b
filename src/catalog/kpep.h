/*
 * catalog/kpep.h: Apple's kpep event databases (the plists in /usr/share/kpep) read
 * into a struct lk_pmu.  Pure: no SQL, no printing; libplist does the
 * parsing and accepts XML and binary plists alike.
 *
 * What is read (reference/kpep.md sections 1.2-1.4): `name`, `version`
 * (must be 1.x), system.cpu.{architecture, marketing_name, fixed_counters,
 * config_counters, power_counters, events, aliases} and per event `number`,
 * `description`, `counters_mask` (default: config_counters; 1 << fixed_counter
 * for a fixed event without one), `fixed_counter`, `fallback`, `umask`
 * (required on x86_64) and `errata`.  Unknown keys are ignored.  Portable
 * aliases (cycles, branch-misses, ...; catalog/kpep-aliases.tsv) are added
 * for the events the file has.  A file that
 * kperfdata itself would refuse is refused here too, with one message
 * naming the file and the offending key; so is what lauka could not use
 * safely: names with NUL, control characters or invalid UTF-8, names over
 * 255 bytes, names that differ only in case, a fixed event whose mask or
 * counter is not its fixed counter, the names of lauka's own catalogues.
 * A UTF-8 byte-order mark is skipped, as Apple's CFPropertyList does.
 * Events are sorted by name.
 */
#ifndef LAUKA_KPEP_H
#define LAUKA_KPEP_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/pmu.h"

/* The largest file kpep_parse_file() reads (4 MiB, itself included); Apple's are under 100 KB. */
#define KPEP_MAX_FILE (4u << 20)

/*
 * XML or binary plist bytes -> out (kind "kpep").  source is recorded in
 * out->source and the SHA-256 of buf in out->sha256.  Returns 0, or -LK_EPLIST
 * with "<source>: <offending key and problem>" in err (out is then empty).
 */
int kpep_parse(const void *buf, size_t len, const char *source, struct lk_pmu *out, char *err, size_t errlen);
/*
 * Read path (a regular file of at most KPEP_MAX_FILE bytes; a FIFO or device
 * is refused unread) and parse it; -LK_EIO / -LK_ENOENT when unreadable.
 */
int kpep_parse_file(const char *path, struct lk_pmu *out, char *err, size_t errlen);

/* Names no kpep catalogue may take (lauka's own catalogues and backends), case-insensitively. */
bool kpep_name_reserved(const char *name);

#endif
