/*
 * cmd/builtin.h: the verbs.  Each cmd_* lives in its own cmd-<verb>.c, parses
 * its own options and returns the process exit code.
 */
#ifndef LAUKA_BUILTIN_H
#define LAUKA_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_counters(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_baselines(int argc, char **argv);

/*
 * record's options into rec->o (cmd/record-options.c): 0 to go on, -1 when
 * there is nothing more to do and the exit code is 0 (--help), or the exit
 * code after printing why.
 */
struct record;
int record_parse_options(struct record *rec);

/* Print the usage text of a verb ("" or NULL: the overview) to stdout. */
int help_show(const char *verb);
/* One-line usage hint after a usage error, on stderr. */
void help_hint(const char *verb);

#endif
