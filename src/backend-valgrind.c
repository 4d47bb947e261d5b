/*
 * backend-valgrind.c: deterministic simulated counters from cachegrind, on
 * any Linux machine, PMU or not.
 *
 * The command runs as
 *   [env -i PATH=... HOME=... TMPDIR=... LC_ALL=C] valgrind -q --command-line-only=yes
 *     --tool=cachegrind --cache-sim=yes --branch-sim=yes
 *     --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64
 *     --trace-children=yes --cachegrind-out-file=<private dir>/cg.%p.out cmd...
 * and each run's counts are the sums over every cg.<pid>.out file (one per
 * process: without %p the last process to exit overwrites its children's).
 *
 * What makes the counts repeat exactly, run after run and machine after
 * machine:
 *  - the cache geometry is fixed; by default cachegrind copies the host's
 *    (a VM may report a 512 MiB "LL"), so miss counts would differ by host;
 *  - --cache-sim and --branch-sim are explicit (3.21 changed the default);
 *  - --command-line-only=yes ignores ~/.valgrindrc, ./.valgrindrc and
 *    $VALGRIND_OPTS;
 *  - the environment is pinned to PATH, HOME, TMPDIR and LC_ALL=C: the size
 *    of the environment moves the stack and changes the instruction count of
 *    start-up code (1000 more bytes of environment cost about 450 Ir).
 *    PATH and HOME are kept so that commands still find their tools and
 *    configuration, TMPDIR because valgrind itself writes there;
 *    LAUKA_VALGRIND_ENV=inherit passes the whole environment instead, for
 *    commands configured by environment variables.
 * The runner already fixes the rest (argv, cwd, stdin and stdout on
 * /dev/null: a pipe instead of /dev/null changes glibc's stdio path).
 * Valgrind's own messages go to the command's stderr, which the runner
 * captures and shows only when the command fails.
 */
#include "backend.h"
#include "backend-valgrind.h"
#include "error.h"
#include "runner.h"
#include "sudo.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "valgrind-events.tsv.inc"

#define VG_MAX_OUT (64u << 20)

static const char *const valgrind_defaults[] = { "Ir", "D1mr", "DLmr", "Bcm", NULL };

static const char *const cachegrind_opts[] = {
	"-q", "--command-line-only=yes", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
	"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64", "--trace-children=yes",
};

struct valgrind_priv {
	struct lk_evsel *sel;
	size_t n;
	char dir[PATH_MAX];
	char valgrind[PATH_MAX];
	char env[PATH_MAX];	/* /usr/bin/env when pinning, "" when inheriting */
};

static int valgrind_detect(char *why, size_t len)
{
	char path[PATH_MAX];
	if (runner_resolve("valgrind", path, sizeof(path)) < 0) {
		lk_errbuf(why, len, "valgrind not found in PATH");
		return -LK_ENOTSUP;
	}
	return 0;
}

/* Split one tab-separated line into at most max fields, in place. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

int valgrind_catalog(struct lk_pmu *pmu, char *err, size_t len)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->kind = xstrdup("valgrind");
	pmu->name = xstrdup("valgrind");
	pmu->marketing_name = xstrdup("valgrind cachegrind (I1/D1 32 KiB 8-way, LL 8 MiB 16-way, 64 B lines)");
	pmu->arch = xstrdup(pmu_host_arch());
	pmu->source = xstrdup("builtin");
	char *text = xstrdup(valgrind_events_tsv), *save = NULL;
	int lineno = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#' || !line[0])
			continue;
		char *f[3];
		if (split_tabs(line, f, 3) != 3 || !f[0][0]) {
			lk_errbuf(err, len, "valgrind-events.tsv: line %d: expected name, aliases, description", lineno);
			free(text);
			pmu_release(pmu);
			return -LK_EINVAL;
		}
		struct lk_event ev = {
			.name = f[0],
			.description = f[2],
			.number = pmu->nevents,
			.fixed_counter = -1,
		};
		pmu_add_event(pmu, &ev);
		char *asave = NULL;
		for (char *a = strtok_r(f[1], ",", &asave); a; a = strtok_r(NULL, ",", &asave))
			pmu_add_alias(pmu, a, f[0]);
	}
	free(text);
	return 0;
}

static int vg_catalog_op(struct lk_pmu *out, char *err, size_t len)
{
	return valgrind_catalog(out, err, len);
}

/* Find the line starting with `key` (the last one when last is set). */
static const char *find_line(const char *buf, size_t len, const char *key, bool last)
{
	size_t k = strlen(key);
	const char *found = NULL, *end = buf + len;
	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= k && !memcmp(p, key, k)) {
			found = p + k;
			if (!last)
				return found;
		}
		p = nl ? nl + 1 : end;
	}
	return found;
}

int valgrind_parse_out(const char *buf, size_t len, const char *const *names, size_t n,
		       uint64_t *sums, uint64_t *missing, char *err, size_t errlen)
{
	const char *ev = find_line(buf, len, "events:", false);
	const char *tot = find_line(buf, len, "totals:", true);
	if (!tot)
		tot = find_line(buf, len, "summary:", true);
	if (!ev || !tot) {
		lk_errbuf(err, errlen, "not a cachegrind output file (no '%s' line)", ev ? "summary:" : "events:");
		return -LK_EINVAL;
	}
	const char *end = buf + len;
	const char *ev_end = memchr(ev, '\n', (size_t)(end - ev));
	const char *tot_end = memchr(tot, '\n', (size_t)(end - tot));
	if (!ev_end)
		ev_end = end;
	if (!tot_end)
		tot_end = end;
	if (missing)
		*missing = n >= 64 ? ~0ull : (1ull << n) - 1;
	uint64_t *vals = xcalloc(n ? n : 1, sizeof(*vals));
	int *seen = xcalloc(n ? n : 1, sizeof(*seen));
	const char *p = ev, *q = tot;
	int ret = 0;
	for (;;) {
		while (p < ev_end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (q < tot_end && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (p >= ev_end)
			break;
		const char *w = p;
		while (p < ev_end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		size_t wl = (size_t)(p - w);
		if (q >= tot_end || *q < '0' || *q > '9') {
			lk_errbuf(err, errlen, "the totals line has fewer numbers than the events line");
			ret = -LK_EINVAL;
			break;
		}
		uint64_t v = 0;
		while (q < tot_end && *q >= '0' && *q <= '9') {
			v = v * 10 + (uint64_t)(*q - '0');
			q++;
		}
		for (size_t i = 0; i < n; i++)
			if (strlen(names[i]) == wl && !memcmp(names[i], w, wl)) {
				vals[i] = v;
				seen[i] = 1;
			}
	}
	if (ret == 0) {
		for (size_t i = 0; i < n; i++)
			if (seen[i]) {
				sums[i] += vals[i];
				if (missing && i < 64)
					*missing &= ~(1ull << i);
			}
	}
	free(vals);
	free(seen);
	return ret;
}

static int valgrind_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct valgrind_priv *p = priv;
	p->sel = sel;
	p->n = n;
	if (runner_resolve("valgrind", p->valgrind, sizeof(p->valgrind)) < 0) {
		lk_errbuf(err, len, "valgrind not found in PATH");
		return -LK_ENOTSUP;
	}
	const char *mode = getenv("LAUKA_VALGRIND_ENV");
	if (mode && *mode && strcmp(mode, "inherit") && strcmp(mode, "pin")) {
		lk_errbuf(err, len, "LAUKA_VALGRIND_ENV='%s' is not 'pin' or 'inherit'", mode);
		return -LK_EINVAL;
	}
	p->env[0] = '\0';
	if (!(mode && !strcmp(mode, "inherit")) && runner_resolve("env", p->env, sizeof(p->env)) < 0) {
		lk_errbuf(err, len, "'env' not found in PATH, needed to pin the environment (or set LAUKA_VALGRIND_ENV=inherit)");
		return -LK_ENOTSUP;
	}
	for (size_t i = 0; i < n; i++)
		if (!sel[i].ev || sel[i].ev->number >= 64) {
			lk_errbuf(err, len, "'%s' is not a valgrind event", sel[i].ev ? sel[i].ev->name : "?");
			return -LK_EINVAL;
		}
	const char *tmp = getenv("TMPDIR");
	snprintf(p->dir, sizeof(p->dir), "%s/lauka-valgrind.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir)) {
		lk_errbuf(err, len, "cannot create a directory for cachegrind's output in '%s': %s",
			  tmp && *tmp ? tmp : "/tmp", strerror(errno));
		p->dir[0] = '\0';
		return -LK_EIO;
	}
	/* Under sudo the command runs as the invoking user, who must be able to write here. */
	struct sudo_user su;
	if (geteuid() == 0 && sudo_user(&su) && chown(p->dir, (uid_t)su.uid, (gid_t)su.gid) < 0) {
		lk_errbuf(err, len, "cannot hand '%s' to uid %ld: %s", p->dir, su.uid, strerror(errno));
		rmdir(p->dir);
		p->dir[0] = '\0';
		return -LK_EIO;
	}
	return 0;
}

static char **valgrind_wrap_argv(void *priv, char *const argv[])
{
	struct valgrind_priv *p = priv;
	size_t argc = 0;
	while (argv[argc])
		argc++;
	size_t max = 7 + ARRAY_SIZE(cachegrind_opts) + 2 + argc + 1;
	char **out = xcalloc(max, sizeof(*out));
	size_t k = 0;
	if (p->env[0]) {
		const char *path = getenv("PATH"), *home = getenv("HOME"), *tmp = getenv("TMPDIR");
		out[k++] = xstrdup(p->env);
		out[k++] = xstrdup("-i");
		out[k++] = xasprintf("PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
		if (home)
			out[k++] = xasprintf("HOME=%s", home);
		if (tmp && *tmp)
			out[k++] = xasprintf("TMPDIR=%s", tmp);
		out[k++] = xstrdup("LC_ALL=C");
	}
	out[k++] = xstrdup(p->valgrind);
	for (size_t i = 0; i < ARRAY_SIZE(cachegrind_opts); i++)
		out[k++] = xstrdup(cachegrind_opts[i]);
	out[k++] = xasprintf("--cachegrind-out-file=%s/cg.%%p.out", p->dir);
	for (size_t i = 0; i < argc; i++)
		out[k++] = xstrdup(argv[i]);
	out[k] = NULL;
	return out;
}

/* Visit (and delete) each cg.*.out file of the private directory. */
static int sweep(struct valgrind_priv *p, const char *const *names, uint64_t *sums, uint64_t *missing,
		 size_t *nfiles, char *err, size_t len)
{
	DIR *d = opendir(p->dir);
	if (!d) {
		lk_errbuf(err, len, "cannot read '%s': %s", p->dir, strerror(errno));
		return -LK_EIO;
	}
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", p->dir, de->d_name);
		if (names && ret == 0 && !strncmp(de->d_name, "cg.", 3)) {
			char *buf = NULL;
			size_t n = 0;
			int r = lk_read_file(path, VG_MAX_OUT, &buf, &n);
			if (r < 0) {
				lk_errbuf(err, len, "cannot read cachegrind output '%s': %s", path, strerror(-r));
				ret = -LK_EIO;
			} else {
				uint64_t miss = 0;
				char why[200];
				if (valgrind_parse_out(buf, n, names, p->n, sums, &miss, why, sizeof(why)) < 0) {
					lk_errbuf(err, len, "'%s': %s", path, why);
					ret = -LK_EIO;
				}
				*missing |= miss;
				(*nfiles)++;
			}
			free(buf);
		}
		unlink(path);
	}
	closedir(d);
	return ret;
}

static int valgrind_read(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len)
{
	struct valgrind_priv *p = priv;
	const char **names = xcalloc(p->n ? p->n : 1, sizeof(*names));
	uint64_t *sums = xcalloc(p->n ? p->n : 1, sizeof(*sums)), missing = 0;
	size_t nfiles = 0;
	for (size_t i = 0; i < p->n; i++)
		names[i] = p->sel[i].ev->name;
	int r = sweep(p, names, sums, &missing, &nfiles, err, len);
	for (size_t i = 0; i < p->n; i++) {
		/* No file at all: valgrind or the command failed before any
		 * process finished; the runner reports that failure. */
		bool ok = nfiles > 0 && !(missing & (1ull << i));
		out[i] = (struct lk_counts){ .value = ok ? sums[i] : 0, .enabled = ok, .running = ok, .supported = ok };
	}
	free(names);
	free(sums);
	return r;
}

static void valgrind_detach(void *priv)
{
	struct valgrind_priv *p = priv;
	if (p->dir[0])
		sweep(p, NULL, NULL, NULL, NULL, NULL, 0);
}

static void valgrind_close(void *priv)
{
	struct valgrind_priv *p = priv;
	if (!p->dir[0])
		return;
	sweep(p, NULL, NULL, NULL, NULL, NULL, 0);
	rmdir(p->dir);
	p->dir[0] = '\0';
}

const struct lk_backend backend_valgrind = {
	.name = "valgrind",
	.desc = "deterministic simulated counters (cachegrind: instructions, cache misses, branches)",
	.priv_size = sizeof(struct valgrind_priv),
	.detect = valgrind_detect,
	.catalog = vg_catalog_op,
	.opt_in = true,
	.defaults = valgrind_defaults,
	.open = valgrind_open,
	.wrap_argv = valgrind_wrap_argv,
	.read = valgrind_read,
	.detach = valgrind_detach,
	.close = valgrind_close,
};
