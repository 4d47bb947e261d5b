/*
 * record/plan.h: the stages of record's plan phase (record/plan.c runs them in
 * order).  Each returns 0 to go on or the exit code after printing why.
 * Internal to record/.
 */
#ifndef LAUKA_RECORD_PLAN_H
#define LAUKA_RECORD_PLAN_H

struct record;
struct record_prog;

/* plan-commands.c: commands, hooks and -S; `SHELL -c TEXT` as a program. */
int plan_commands(struct record *rec);
/* What plan_commands allocated for -P/-L (record_release calls it). */
void plan_scan_release(struct record *rec);
void shell_prog(const struct record *rec, const char *text, struct record_prog *p);
/* plan-events.c: backend, catalogue, names, scheduling, backends, columns. */
int plan_catalogue(struct record *rec);
int plan_events(struct record *rec);
int plan_backends(struct record *rec);
void plan_columns(struct record *rec);
/* plan-gates.c */
int plan_gates(struct record *rec);
/* plan-baseline.c: runner class, --baseline, --save-baseline. */
int plan_runner_class(struct record *rec);
/* plan-exports.c: export files and --plot. */
int plan_exports(struct record *rec);

#endif
