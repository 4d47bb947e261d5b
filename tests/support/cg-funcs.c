/*
 * cg-funcs: lauka's callgrind parser (backend/callgrind.h) as a command, so
 * that tests/cli/t-explain-callgrind.sh can set its table beside
 * callgrind_annotate's for the same file.
 *
 *   cg-funcs FILE [PART]        one line per file:function: "<Ir> <file>:<function>",
 *                               as callgrind_annotate keys them (PART: that part alone)
 *   cg-funcs -o FILE...         lauka's own view, summed over the files:
 *                               "<Ir>\t<function>\t<object>"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/callgrind.h"
#include "base/util.h"

int main(int argc, char **argv)
{
	bool own = argc > 1 && !strcmp(argv[1], "-o");
	if (argc < 2 + own) {
		fprintf(stderr, "usage: cg-funcs FILE [PART] | cg-funcs -o FILE...\n");
		return 1;
	}
	struct cg_table t = { 0 }, g;
	for (int i = 1 + own; i < argc; i++) {
		char *buf = NULL, err[256];
		size_t len = 0;
		if (lk_read_file(argv[i], 1u << 30, &buf, &len) < 0) {
			fprintf(stderr, "cg-funcs: cannot read %s\n", argv[i]);
			return 2;
		}
		long part = !own && argc > 2 ? strtol(argv[2], NULL, 10) : 0;
		if (cg_parse(buf, len, "Ir", part, &t, err, sizeof(err)) < 0) {
			fprintf(stderr, "cg-funcs: %s: %s\n", argv[i], err);
			return 2;
		}
		free(buf);
		if (!own)
			break;
	}
	cg_table_group(&t, !own, &g);
	cg_table_sort(&g);
	for (size_t i = 0; i < g.n; i++) {
		if (own)
			printf("%llu\t%s\t%s\n", (unsigned long long)g.f[i].cost, g.f[i].function, g.f[i].object);
		else if (g.f[i].cost)
			printf("%llu %s:%s\n", (unsigned long long)g.f[i].cost, g.f[i].file, g.f[i].function);
	}
	cg_table_release(&g);
	cg_table_release(&t);
	return 0;
}
