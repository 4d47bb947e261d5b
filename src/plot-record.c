/* plot-record.c: record's rows -> plot_deltas -> SVG file (see plot-record.h). */
#include "plot-record.h"

#include "error.h"
#include "plot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plot_record_write(const char *path, const char *backend, char *const *cmds, size_t ncmds,
		      struct report_row *const *rows, size_t nmeas, char *err, size_t len)
{
	if (ncmds < 2 || !rows[0]) {
		lk_errbuf(err, len, "nothing to plot: --plot draws deltas against the first command");
		return -1;
	}
	const char **names = xcalloc(nmeas ? nmeas : 1, sizeof(*names));
	struct lk_delta *d = xcalloc(nmeas * (ncmds - 1) + 1, sizeof(*d));
	for (size_t m = 0; m < nmeas; m++) {
		names[m] = rows[0][m].name;
		for (size_t c = 1; c < ncmds; c++)
			if (rows[c] && rows[c][m].has_delta)
				d[m * (ncmds - 1) + c - 1] = rows[c][m].delta;
	}
	char title[160];
	snprintf(title, sizeof(title), "lauka record: %zu commands, %s backend", ncmds, backend);
	struct plot_deltas pd = {
		.title = title, .commands = (const char *const *)cmds, .ncmds = ncmds,
		.measurements = names, .nmeas = nmeas, .d = d,
	};
	int r = 0;
	FILE *f = fopen(path, "w");
	if (!f) {
		r = -1;
	} else {
		int w = plot_deltas_svg(f, &pd);
		if (fclose(f) != 0 || w < 0)
			r = -1;
	}
	if (r < 0)
		lk_errbuf(err, len, "cannot write '%s': %s", path, strerror(errno));
	free(names);
	free(d);
	return r;
}
