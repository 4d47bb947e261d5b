/*
 * machine/xctrace-slots.h: guided-mode slot discovery, the paper's method run by
 * lauka: `lauka calibrate --backend xctrace` records the probes with the
 * default CPU Counters template, names the slots from their responses
 * (backend/xctrace/agg.h: xct_name_slots) and stores the map in the database (per
 * hw.cpufamily, xctrace version and counting mode); `record --guided`
 * labels its columns with it and `counters --details --backend xctrace`
 * shows it.  The verbs call these hooks; the logic stays here.
 */
#ifndef LAUKA_XCTRACE_SLOTS_H
#define LAUKA_XCTRACE_SLOTS_H

#include <stdbool.h>
#include <stdio.h>

#include "backend/backend.h"
#include "machine/catalog.h"

struct db;

/* `record --guided`: check the backend is xctrace and switch it to guided mode; -1 after printing why. */
int xctrace_record_guided(const char *backend_opt);
/* `record`: what xctrace will cost (one recording per run, warm-ups included) and its scope, on stderr. */
void xctrace_record_note(const struct lk_backend *be, unsigned long runs);
/* Column label of a guided slot: "chase-responsive (slot5)" from the stored map, else "slot5" (malloc'd). */
char *xctrace_slot_label(struct catalog *cat, const struct lk_event *ev);
/* `counters --details --backend xctrace`: the stored slot map, or how to get one. */
void xctrace_print_slot_map(struct db *db, FILE *out);
/* `calibrate --backend xctrace`: the whole guided calibration; returns the exit code. */
int xctrace_calibrate(const struct lk_backend *be, const char *probe, const char *db_path, bool quick);
/* hw.cpufamily in hex ("0x8765edea"); off macOS $LAUKA_XCTRACE_CPUFAMILY or "unknown". */
void xctrace_cpu_family(char *buf, size_t len);

#endif
