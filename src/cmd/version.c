/*
 * cmd/version.c: `lauka version`: version, build features, and each
 * compiled-in backend as available or disabled with its reason.
 *
 * On a terminal each description wraps under itself to the terminal's width;
 * a pipe or a file gets one line per backend.
 *
 *   $ lauka version
 *   lauka 0.1.0 (abc1234)
 *   backends:
 *     perf       available     Linux perf_event_open
 *     valgrind   available     ...
 */
#include "backend/backend.h"
#include "cmd/builtin.h"
#include "base/error.h"
#include "base/text.h"
#include "base/util.h"
#include "catalog/pfm.h"
#include "cmd/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_version(int argc, char **argv)
{
	static const struct opt_verb verb = { "version", NULL, 0, NULL, false };
	int next, pr = opts_parse(&verb, NULL, argc, argv, &next);
	if (pr)
		return pr > 0 ? 0 : EXIT_USAGE;
	printf("lauka %s%s%s%s\n", LAUKA_VERSION, *LAUKA_GIT_REV ? " (" : "", LAUKA_GIT_REV,
	       *LAUKA_GIT_REV ? ")" : "");
	printf("backends:\n");
	for (size_t i = 0; lk_backends[i]; i++) {
		const struct lk_backend *b = lk_backends[i];
		char why[256] = "";
		int r = b->detect ? b->detect(why, sizeof(why)) : 0;
		/* on a terminal the description wraps under itself; a pipe gets one line per backend */
		char *line = xasprintf("  %-10s %-11s %s", b->name, r == 0 ? "available" : "disabled",
				       r == 0 ? b->desc : why[0] ? why : lk_strerror(r));
		text_print(stdout, line, 25);
		free(line);
	}
	const struct lk_backend *def = backend_default();
	printf("default backend: %s\n", def ? def->name : "rusage (no counter backend works here)");
#ifdef __linux__
	if (pfmcat_available())
		printf("vendor events: libpfm4 %s\n", pfmcat_version());
	else
		text_print(stdout, "vendor events: none (built without libpfm4: install libpfm4-dev and rebuild)", 15);
#endif
	return 0;
}
