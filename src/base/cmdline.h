/*
 * base/cmdline.h: turning one command string (an argument after `--`) into an
 * argv, with shell-like quoting but no shell.  Pure: no I/O.
 *
 *   'single quotes'   literal
 *   "double quotes"   literal except \" \\ \$ \` and \newline
 *   backslash         escapes the next character outside quotes
 *
 * Anything a shell would interpret (pipes, redirections, variables, command
 * substitution, globs, sequencing) is refused: lauka execs the command
 * directly, so the user must say `sh -c '...'` to get a shell.
 */
#ifndef LAUKA_CMDLINE_H
#define LAUKA_CMDLINE_H

#include <stddef.h>

enum cmdline_err {
	CMDLINE_OK = 0,
	CMDLINE_EMPTY,		/* nothing but blanks */
	CMDLINE_UNBALANCED,	/* an opening quote with no closing one, or a trailing backslash */
	CMDLINE_META,		/* an unquoted shell metacharacter */
};

/*
 * Split `s` into a NULL-terminated, malloc'd argv (free with cmdline_free).
 * On failure returns the error and, for CMDLINE_META, the offending
 * character in *bad; *argv is NULL.
 */
enum cmdline_err cmdline_split(const char *s, char ***argv, char *bad);
void cmdline_free(char **argv);

/* Quote an argv back into one display string (caller frees). */
char *cmdline_join(char *const argv[]);

#endif
