/*
 * lauka.c: main(): the verb table and dispatch.  No verb, or a first
 * argument that is an option or `--`, means `record`.  Every verb ends with
 * a check that stdout could be written (a full disk or a closed pipe is a
 * collection error, exit 2, not silent success).
 */
#include "cmd/builtin.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* Alphabetical. */
static const struct verb verbs[] = {
	{ "baselines", cmd_baselines },
	{ "calibrate", cmd_calibrate },
	{ "counters", cmd_counters },
	{ "doctor", cmd_doctor },
	{ "help", cmd_help },
	{ "record", cmd_record },
	{ "version", cmd_version },
};

static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			error("cannot write to standard output: %s", strerror(errno));
		return rc ? rc : EXIT_COUNTERS;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help_show(NULL);
		return finish(EXIT_USAGE);
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "-V"))	/* hyperfine's spelling */
		verb = "--version";
	if (verb[0] == '-' && strcmp(verb, "-h") && strcmp(verb, "--help") && strcmp(verb, "--version"))
		return finish(cmd_record(argc, argv));
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help"))
		return finish(cmd_help(argc - 1, argv + 1));
	if (!strcmp(verb, "--version"))
		return finish(cmd_version(argc - 1, argv + 1));
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(verbs[i].name, verb))
			return finish(verbs[i].fn(argc - 1, argv + 1));
	if (!*verb) {
		error("the verb is empty ('')");
		tip("'lauka help' lists the verbs; to measure a command, put it after '--': lauka -- 'COMMAND'");
		return finish(EXIT_USAGE);
	}
	error("unknown verb '%s'", verb);
	const char *best = NULL;
	size_t bestd = 3;
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		size_t d = lk_edit_distance(verb, verbs[i].name);
		if (d < bestd) {
			bestd = d;
			best = verbs[i].name;
		}
	}
	if (best)
		tip("did you mean 'lauka %s'?", best);
	else
		tip("to measure a command, put it after '--': lauka -- '%s ...'", verb);
	return finish(EXIT_USAGE);
}
