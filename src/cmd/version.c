/*
 * cmd/version.c: `lauka version`: version, build features, and each
 * compiled-in backend as available or disabled with its reason.
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
#include "catalog/pfm.h"
#include "cmd/options.h"

#include <stdio.h>
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
		if (r == 0)
			printf("  %-10s available   %s\n", b->name, b->desc);
		else
			printf("  %-10s disabled    %s\n", b->name, why[0] ? why : lk_strerror(r));
	}
	const struct lk_backend *def = backend_default();
	printf("default backend: %s\n", def ? def->name : "rusage (no counter backend works here)");
#ifdef __linux__
	if (pfmcat_available())
		printf("vendor events: libpfm4 %s\n", pfmcat_version());
	else
		printf("vendor events: none (built without libpfm4: install libpfm4-dev and rebuild)\n");
#endif
	return 0;
}
