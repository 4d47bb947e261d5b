/*
 * output/plot-out.c: stored calibration -> plot_cal -> SVG file, record rows ->
 * plot_deltas -> SVG file (see output/plot-out.h).
 *
 * The database keeps per_unit_1x = (c1 - c0)/(n - 1) and per_unit_4x =
 * (c4 - c0)/(4n - 1) (catalog/calib.h); the response the calibrate table prints is
 * (c4 - c1)/3n = (4 p4 - p1)/3 - (p4 - p1)/3n, which for the scales lauka
 * uses (n >= 5e5) is (4 p4 - p1)/3 to better than one part in 10^6 of the
 * difference between the two, so that is what is drawn.
 */
#include "output/plot-out.h"

#include "catalog/calib.h"
#include "machine/catalog.h"
#include "catalog/db.h"
#include "base/replace.h"
#include "base/sudo.h"
#include "base/error.h"
#include "output/plot.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static double response_of(const struct db_response *r)
{
	if (isnan(r->per_unit_4x))
		return r->per_unit_1x;
	if (isnan(r->per_unit_1x))
		return r->per_unit_4x;
	return (4 * r->per_unit_4x - r->per_unit_1x) / 3;
}

/* The probes in calibrate's order (alu, chase, branch, store), then any others stored. */
static size_t probe_order(const struct db_response *r, size_t n, const char **probes)
{
	size_t ns, np = 0;
	const struct calib_scale *s = calib_scales(false, false, &ns);
	for (size_t i = 0; i < ns && np < PLOT_MAX_PROBES; i++)
		for (size_t k = 0; k < n; k++)
			if (!strcmp(r[k].probe, s[i].probe)) {
				probes[np++] = s[i].probe;
				break;
			}
	for (size_t k = 0; k < n && np < PLOT_MAX_PROBES; k++) {
		size_t j = 0;
		while (j < np && strcmp(probes[j], r[k].probe))
			j++;
		if (j == np)
			probes[np++] = r[k].probe;
	}
	return np;
}

int plot_calib_write(struct catalog *cat, const char *backend, const char *path, char *err, size_t len)
{
	const struct lk_pmu *pmu = catalog_pmu(cat);
	struct db *db = catalog_db(cat);
	struct db_latest *lv = NULL;
	struct db_response *rs = NULL;
	size_t nlv = 0, nrs = 0;
	int r = db_latest_verdicts(db, pmu->name, backend, catalog_machine(cat), &lv, &nlv, err, len);
	if (r == 0)
		r = db_latest_responses(db, pmu->name, backend, catalog_machine(cat), &rs, &nrs, err, len);
	if (r < 0)
		goto out;
	if (!nlv) {
		lk_errbuf(err, len, "no %s calibration of '%s' is stored for machine '%s'", backend, pmu->name,
			  catalog_machine(cat));
		r = -LK_ENOENT;
		goto out;
	}
	const char *probes[PLOT_MAX_PROBES];
	size_t np = probe_order(rs, nrs, probes);
	struct plot_cal_event *ev = xcalloc(pmu->nevents + nlv, sizeof(*ev));
	size_t ne = 0;
	long long when = 0;
	/* Every event of the catalogue, in its order; one calibrated under a name no longer in it is kept too. */
	for (size_t i = 0; i < pmu->nevents + nlv; i++) {
		const char *name = i < pmu->nevents ? pmu->events[i].name : lv[i - pmu->nevents].event;
		const struct db_latest *l = NULL;
		for (size_t k = 0; k < nlv && !l; k++)
			if (!strcmp(lv[k].event, name))
				l = &lv[k];
		if (i >= pmu->nevents && pmu_find_exact(pmu, name))
			continue;
		struct plot_cal_event *e = &ev[ne++];
		e->name = name;
		e->verdict = l ? l->verdict : "not calibrated";
		e->profile = l ? l->profile : NULL;
		for (size_t p = 0; p < PLOT_MAX_PROBES; p++)
			e->response[p] = NAN;
		for (size_t k = 0; l && k < nrs; k++) {
			if (strcmp(rs[k].event, name))
				continue;
			when = rs[k].created_at > when ? rs[k].created_at : when;
			for (size_t p = 0; p < np; p++)
				if (!strcmp(probes[p], rs[k].probe)) {
					e->response[p] = response_of(&rs[k]);
					if (!isnan(e->response[p]))
						e->measured = true;
				}
		}
	}
	/* Measured events first, so the picture starts with what was seen; the rest below, each still named. */
	struct plot_cal_event *sorted = xcalloc(ne ? ne : 1, sizeof(*sorted));
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ne; i++)
			if (ev[i].measured == (pass == 0)) {
				sorted[k] = ev[i];
				if (!sorted[k].measured)
					sorted[k].profile = NULL;
				k++;
			}
	free(ev);
	ev = sorted;
	char title[256], sub[512], date[64] = "";
	snprintf(title, sizeof(title), "Counter response per unit of work: %s backend, catalogue '%s'", backend,
		 pmu->name);
	time_t t = (time_t)when;
	struct tm tm;
	if (when && gmtime_r(&t, &tm))
		strftime(date, sizeof(date), ", calibrated %Y-%m-%d %H:%M UTC", &tm);
	snprintf(sub, sizeof(sub), "machine '%s'%s", catalog_machine(cat), date);
	struct plot_cal pc = {
		.title = title, .subtitle = sub, .probes = probes, .nprobes = np,
		.events = ev, .nevents = ne, .silent_below = CALIB_SILENT,
	};
	struct lk_replace rep;	/* written beside, renamed over: a full disk leaves the old plot (base/replace.h) */
	/* calibrate and counters print their table on standard output: the SVG needs a file of its own */
	int e = strcmp(path, "-") ? lk_replace_open(&rep, path) : (rep.refused = "--plot - is for lauka record; give "
									   "a file name", -EINVAL);
	if (e == 0) {
		errno = 0;
		int w = plot_calibration_svg(rep.f, &pc);
		if (w < 0) {
			e = errno ? -errno : -EIO;	/* the write that failed said why (ENOSPC) */
			lk_replace_abort(&rep);
		} else {
			e = lk_replace_commit(&rep);
		}
	}
	if (e < 0) {
		lk_errbuf(err, len, "cannot write '%s': %s", path, lk_replace_strerror(&rep, e));
		r = -LK_EIO;
	}
	free(ev);
out:
	db_latest_free(lv, nlv);
	db_responses_free(rs, nrs);
	return r;
}

int plot_path_check(const char *path, char *err, size_t len)
{
	if (!path || !*path) {
		lk_errbuf(err, len, "--plot needs a file name");
		return -LK_EIO;
	}
	struct stat st;
	const char *why = NULL;
	bool exists = stat(path, &st) == 0;
	if (!strcmp(path, "-"))
		why = "--plot - is for lauka record; give a file name";
	else if (exists && S_ISDIR(st.st_mode))
		why = "it is a directory";
	else if (exists)
		why = lk_not_regular(&st);	/* the writer's own refusal (base/replace.h) */
	if (!why && exists && access(path, W_OK) < 0)
		why = strerror(errno);
	if (why) {
		lk_errbuf(err, len, "cannot write '%s': %s", path, why);
		return -LK_EIO;
	}
	/*
	 * The SVG is written beside it and renamed over it (base/replace.h): a file must be creatable in
	 * its directory.  Created and removed here, since access(W_OK) says yes to root for a directory
	 * that takes no new files (sysfs), and that was found only after every run.
	 */
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
	char *probe = xasprintf("%s/.lauka-plot-XXXXXX", d);
	/* As the invoking user under sudo (base/sudo.h): the plot itself is written with their ids. */
	int fd = sudo_user_mkstemp(probe), r = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		close(fd);
		sudo_user_unlink(probe);
	}
	if (r < 0)
		lk_errbuf(err, len, "cannot write '%s': %s", path, strerror(-r));
	free(probe);
	free(dir);
	return r < 0 ? -LK_EIO : 0;
}

int plot_record_write(const char *path, const char *backend, char *const *cmds, size_t ncmds,
		      struct report_row *const *rows, size_t nmeas, char *err, size_t len)
{
	if (ncmds < 2) {
		lk_errbuf(err, len, "nothing to plot: --plot draws deltas against the first command");
		return -1;
	}
	const char **names = xcalloc(nmeas ? nmeas : 1, sizeof(*names));
	struct lk_delta *d = xcalloc(nmeas * (ncmds - 1) + 1, sizeof(*d));
	for (size_t m = 0; m < nmeas; m++) {
		/* a command that failed before its first run has no row names */
		for (size_t c = 0; c < ncmds && !names[m]; c++)
			names[m] = rows[c] ? rows[c][m].name : NULL;
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
	struct lk_replace rep;
	int e = lk_replace_open(&rep, path);
	if (e == 0) {
		errno = 0;
		if (plot_deltas_svg(rep.f, &pd) < 0) {
			e = errno ? -errno : -EIO;
			lk_replace_abort(&rep);
		} else {
			e = lk_replace_commit(&rep);
		}
	}
	if (e < 0) {
		r = -1;
		lk_errbuf(err, len, "cannot write '%s': %s", path, lk_replace_strerror(&rep, e));
	}
	free(names);
	free(d);
	return r;
}
