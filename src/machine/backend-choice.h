/*
 * machine/backend-choice.h: choosing a backend by name for this machine, with
 * the one-line errors every verb gives for it (an unknown name lists the
 * backends built in; one that only lacks root gets a `fix: sudo ...` line
 * built from the user's own command line).  These print.
 */
#ifndef LAUKA_BACKEND_CHOICE_H
#define LAUKA_BACKEND_CHOICE_H

#include "backend/backend.h"

/* The backend called `name`, or NULL after "error: unknown backend" and a tip listing them. */
const struct lk_backend *backend_named(const char *name);

/*
 * Can backend b run here?  0, or -EXIT_COUNTERS after one error line (with
 * a `fix: sudo ...` line built from argc/argv when it only lacks root).
 */
int backend_usable(const struct lk_backend *b, int argc, char **argv);

/* "fix: run it as root: sudo <this command line>". */
void backend_need_root(int argc, char **argv);
/*
 * After backend_need_root for backend b: when b is kperf, the way without
 * root (audit 3, N5): "tip: 'lauka VERB --backend xctrace' needs no root
 * (it needs Xcode)".  Never valgrind, which does not run on Apple silicon.
 */
void backend_root_tip(const struct lk_backend *b, const char *verb);

/*
 * After "cannot count EVENT with backend b" for an event that cannot count
 * here: the way out, as one tip line, when one is known (perf without a
 * hardware PMU, as on most VMs: "tip: no PMU here; --backend valgrind counts
 * Ir, cache and branch misses by simulation").  Prints nothing otherwise.
 */
void backend_event_tip(const struct lk_backend *b, const struct lk_evsel *e);
/* That tip alone, for a hardware event refused before any backend opened it. */
void backend_no_pmu_tip(void);
/*
 * After "backend b cannot run here: WHY" (other than for lack of root): what
 * to install or which backend works instead, for `lauka VERB`.
 */
void backend_unusable_tip(const struct lk_backend *b, const char *verb, const char *why);

#endif
