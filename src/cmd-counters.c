/* cmd-counters.c: `lauka counters` (the catalogue listing; see issue 3). */
#include "builtin.h"
#include "error.h"

int cmd_counters(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'lauka counters' is being built");
	return EXIT_USAGE;
}
