/*
 * record/plan-exports.c: the export files (--export-json/-csv/-markdown) and the
 * --plot path, opened or checked before anything runs so that an unwritable
 * target is a usage error, not results lost at the end.  "-" is standard
 * output (one export at most), and the table then goes to standard error.
 */
#include "base/error.h"
#include "base/util.h"
#include "output/export.h"
#include "output/plot-out.h"
#include "record/plan.h"
#include "record/record.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const export_opt[EXPORT_COUNT] = { "--export-json", "--export-csv", "--export-markdown" };

/*
 * Export files are written whole at the end, to a temporary file in the same
 * directory renamed over the target, so a reader never sees half a file and
 * an interrupted lauka leaves the old one.  Creating the temporary file now
 * checks that the directory can be written before anything runs.  A target
 * that exists and is not a regular file (a device, a FIFO, /dev/stdout on a
 * pipe) is refused by that one writer (base/replace.h); "-" is standard output.
 */
static int open_export(struct record_export *x, const char *opt)
{
	/* the owner and mode of the file replaced, or the invoking user's under sudo (base/replace.h) */
	int r = lk_replace_open(&x->rep, x->path);
	if (r < 0) {
		error("cannot write '%s' (%s): %s", x->path, opt, r == -EISDIR ? "it is a directory"
			: lk_replace_strerror(&x->rep, r));
		return EXIT_USAGE;
	}
	x->f = x->rep.f;
	return 0;
}

/*
 * path made absolute through its directory (the file itself may not exist
 * yet), a symbolic link followed even when it dangles; malloc'd, NULL if the
 * directory is not there.
 */
static char *canonical(const char *path, int links)
{
	char target[PATH_MAX];
	ssize_t n = links < 8 ? readlink(path, target, sizeof(target) - 1) : -1;
	if (n > 0) {
		target[n] = '\0';
		const char *slash = strrchr(path, '/');
		char *next = target[0] == '/' || !slash ? xstrdup(target)
							: xasprintf("%.*s/%s", (int)(slash - path), path, target);
		char *out = canonical(next, links + 1);
		free(next);
		return out;
	}
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : path;
	const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
	char *real = realpath(d, NULL);
	char *out = real ? xasprintf("%s/%s", strcmp(real, "/") ? real : "", base) : NULL;
	free(real);
	free(dir);
	return out;
}

/* Do two names reach one file: the same inode, or the same path once made absolute (./x, dir/../x)? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char *ca = canonical(a, 0), *cb = canonical(b, 0);
	bool same = ca && cb && !strcmp(ca, cb);
	free(ca);
	free(cb);
	return same;
}

int plan_exports(struct record *rec)
{
	char err[512];
	if (rec->o.plot && rec->ncmds < 2) {
		error("--plot draws deltas against the first command: give two or more commands");
		return EXIT_USAGE;
	}
	bool plot_stdout = rec->o.plot && !strcmp(rec->o.plot, "-");
	if (rec->o.plot && !plot_stdout && plot_path_check(rec->o.plot, err, sizeof(err)) < 0) {
		error("%s", err);
		return EXIT_USAGE;
	}
	if (plot_stdout)
		rec->out = stderr;	/* the SVG on standard output, the table on standard error */
	for (int k = 0; k < EXPORT_COUNT; k++) {
		const char *p = rec->o.exports[k];
		if (!p)
			continue;
		for (int j = 0; j < k; j++)
			if (rec->o.exports[j] && same_file(rec->o.exports[j], p)) {
				if (!strcmp(rec->o.exports[j], p))
					error("%s and %s both name '%s'", export_opt[j], export_opt[k], p);
				else
					error("%s '%s' and %s '%s' are the same file", export_opt[j], rec->o.exports[j],
					      export_opt[k], p);
				return EXIT_USAGE;
			}
		if (rec->o.plot && same_file(rec->o.plot, p)) {
			error("--plot '%s' and %s '%s' are the same file", rec->o.plot, export_opt[k], p);
			return EXIT_USAGE;
		}
		rec->exports[k].path = p;
		if (!strcmp(p, "-")) {
			/* As hyperfine's: the export on standard output, the table on standard error. */
			rec->exports[k].f = stdout;
			rec->exports[k].to_stdout = true;
			rec->out = stderr;
			continue;
		}
		int r = open_export(&rec->exports[k], export_opt[k]);
		if (r)
			return r;
	}
	return 0;
}
