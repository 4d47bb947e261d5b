/* cmd-calibrate.c: `lauka calibrate` (probes and verdicts; see issue 4). */
#include "builtin.h"
#include "error.h"

int cmd_calibrate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'lauka calibrate' is being built");
	return EXIT_USAGE;
}
