/*
 * backend/valgrind.c: deterministic simulated counters from valgrind, on
 * any Linux machine, PMU or not.
 *
 * The command runs as
 *   [env -i HOME=... LANG=... PATH=... PWD=... TMPDIR=... LAUKA_PAD=xx...]
 *     valgrind[.bin] -q --command-line-only=yes --vgdb=no --tool=callgrind
 *     --trace-children=yes --combine-dumps=yes --dump-before=fork ... (every
 *     fork entry point) [--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64
 *     --LL=8388608,16,64 | --cache-sim=no] --branch-sim=yes|no
 *     --callgrind-out-file=<private dir>/cg.%p.out cmd...
 * (the simulators only for the events that need them)
 * and each run's counts are the sums over every part of every cg.<pid>.out
 * file (one file per process: without %p the last process to exit
 * overwrites its children's).
 *
 * Why callgrind and not cachegrind (the same cache and branch simulators):
 *  - a child made by fork() without exec starts as a copy of its parent,
 *    in-memory counts included, so under cachegrind its file repeats the
 *    parent's work up to the fork (60 M instructions and 4 forks read
 *    301 M).  Callgrind dumps its counts as a part of the file and zeroes
 *    them when a named function is entered: dumping before every fork entry
 *    point starts the child from zero, and the parent's parts still add up
 *    to its whole run.  A child that execs starts from zero anyway:
 *    valgrind writes nothing for a program image replaced by exec;
 *  - callgrind translates without superblock chasing (it needs basic-block
 *    boundaries), and cachegrind 3.19 with chasing counts instructions that
 *    never ran (in ld.so's intel_check_word, the 2 instructions behind a
 *    taken conditional branch, on every pass).  Callgrind's counts equal
 *    cachegrind's with --vex-guest-chase=no, event for event, except that
 *    callgrind counts an instruction that reads and writes one location
 *    (add to memory) as one write where cachegrind counts one read: Dr + Dw,
 *    D1mr + D1mw and DLmr + DLmw are the same (tests/cli/t-valgrind-cross.sh).
 *
 * What makes the counts repeat exactly, run after run and machine after
 * machine:
 *  - the cache geometry is fixed; by default valgrind copies the host's
 *    (a VM may report a 512 MiB "LL"), so miss counts would differ by host;
 *  - --cache-sim and --branch-sim are explicit (Ir alone misses the 2
 *    instructions of each process's exit: see cache_sim_opts);
 *  - --command-line-only=yes ignores ~/.valgrindrc, ./.valgrindrc and
 *    $VALGRIND_OPTS;
 *  - the environment holds PATH, HOME and TMPDIR when the user has them set,
 *    PWD, and the variables that change what a program does (base/envvars.h:
 *    LANG, LANGUAGE, LC_*, TZ, the interpreters' hash seeds), all with the
 *    user's values, sorted; nothing else: every variable costs each getenv()
 *    of start-up code a comparison (about 450 Ir for `true` when TMPDIR is
 *    set), so unrelated variables would move the counts from machine to
 *    machine.  lauka sets no value a program reads: no LC_ALL=C (`sort` ran
 *    82.4M Ir under it where the user's LANG=C.UTF-8 runs 189.5M), no hash
 *    seed (Python's and Perl's counts then move by about 0.05% from run to
 *    run unless the user sets PYTHONHASHSEED / PERL_HASH_SEED), no HOME or
 *    TMPDIR when unset (each present or absent moves counts: doc/valgrind.md
 *    gives the figures).  PATH and HOME are kept so that commands still find
 *    their tools and configuration, TMPDIR because valgrind itself writes
 *    there; LAUKA_VALGRIND_ENV=inherit passes the whole environment instead,
 *    for commands configured by other environment variables;
 *  - the strings at the top of the program's first stack (arguments,
 *    environment, the program's path) are padded by LAUKA_PAD=xxx... to a
 *    multiple of 4096 bytes: their length sets the stack's alignment, and
 *    copies and scans of misaligned data take other instruction counts
 *    (HOME one byte longer: 14 Ir less for `true`, in a cycle of 4 lengths)
 *    and land in other cache sets (32 KiB 8-way: 64 sets of 64 bytes, one
 *    page).  So PATH, HOME and TMPDIR lengths and where the program lives
 *    do not move the counts.  PWD is given because a shell adds it for its
 *    children when it is missing: given, it is inside the padding, and a
 *    shell's children start with an environment of one size in any
 *    directory;
 *  - Debian's `valgrind` is a shell script that adds LD_LIBRARY_PATH, two
 *    GLIBCXX variables and (dash) PWD, the working directory, to the
 *    program's environment before it execs valgrind.bin: when `valgrind`
 *    is not an ELF file and `valgrind.bin` beside it is, lauka starts
 *    valgrind.bin itself.
 * What lauka cannot pin, valgrind_fingerprint() names: valgrind's version,
 * the loader cache (/etc/ld.so.cache: which libraries load, from where)
 * and the C library; a baseline keeps it with the program's path, so that
 * counts that differ are reported with their likely cause.
 * --vgdb=no: valgrind's gdbserver otherwise creates a shared-memory file in
 * TMPDIR for every process and fails the command when it cannot (a full
 * disk).  The runner fixes the rest (argv, cwd, stdin and stdout on
 * /dev/null: a pipe instead of /dev/null changes glibc's stdio path).
 * Valgrind's own messages go to the command's stderr, which the runner
 * captures and shows only when the command fails.
 */
#include "backend/backend.h"
#include "backend/callgrind.h"
#include "backend/valgrind.h"
#include "base/envvars.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/progress.h"
#include "base/sha256.h"
#include "base/sudo.h"
#include "base/util.h"

#include <dirent.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "valgrind-events.tsv.inc"

/* The lines kept from an output file: a part is a few hundred bytes of them. */
#define VG_MAX_KEPT (64u << 20)

static const char *const valgrind_defaults[] = { "Ir", "D1mr", "DLmr", "Bcm", NULL };

/*
 * The dump points: fork, vfork, _Fork (glibc 2.34+ and musl: the system
 * call under fork(), after the atfork handlers), glibc's older and internal
 * names, and __spawni, glibc's posix_spawn, whose child is a copy of the
 * parent until it execs (and exits with that copy when the exec fails).
 */
static const char *const callgrind_opts[] = {
	"-q", "--command-line-only=yes", "--vgdb=no", "--tool=callgrind", "--trace-children=yes",
	"--combine-dumps=yes", "--dump-before=fork", "--dump-before=__libc_fork", "--dump-before=__fork",
	"--dump-before=_Fork", "--dump-before=vfork", "--dump-before=__vfork", "--dump-before=__libc_vfork",
	"--dump-before=__spawni",
};

/*
 * The simulators cost time: they run only when a requested event needs
 * them.  Without the cache simulator callgrind does not see the last block
 * of a process (the exit system call) or of a signal handler's return, as
 * its totals: line never does (see add_part): Ir alone is 2 per process
 * exit and per signal lower on x86-64 than Ir with D1mr (t-valgrind-env.sh).
 */
static const char *const cache_sim_opts[] = {
	"--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64",
};

bool valgrind_needs_cache_sim(const char *event)
{
	static const char *const need[] = { "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw" };
	for (size_t i = 0; i < ARRAY_SIZE(need); i++)
		if (!strcmp(event, need[i]))
			return true;
	return false;
}

bool valgrind_needs_branch_sim(const char *event)
{
	return event[0] == 'B' && (!strcmp(event, "Bc") || !strcmp(event, "Bcm") || !strcmp(event, "Bi") ||
				   !strcmp(event, "Bim"));
}

struct valgrind_priv {
	struct lk_evsel *sel;
	size_t n;
	bool cache_sim, branch_sim;
	char dir[PATH_MAX];
	char valgrind[PATH_MAX];
	char env[PATH_MAX];	/* /usr/bin/env when pinning, "" when inheriting */
	char *cmdline;		/* the wrapped command as a cmd: line shows it; NULL when unknown */
	char *cmdline_path;	/* the same with argv[0] resolved (valgrind shows scripts found in PATH so) */
	char *warned;		/* the last command warned about exec: each is warned once */
	bool keep;		/* keep_functions(): gather the self Ir by function of each run */
	const char *collect;	/* collect_only(): --toggle-collect=<it>, or NULL */
	struct cg_table *funcs;	/* of the run read last, when keep */
};

/* The first bytes of the file at path, or -1 when it cannot be read. */
static ssize_t file_magic(const char *path, unsigned char *magic, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, magic, len)) < 0 && errno == EINTR)
		;
	close(fd);
	return n;
}

static bool is_elf(const char *path)
{
	unsigned char m[4];
	return file_magic(path, m, sizeof(m)) == 4 && !memcmp(m, "\177ELF", 4);
}

/*
 * The valgrind program to start: `valgrind` from PATH, or valgrind.bin
 * beside it when `valgrind` is a wrapper script (Debian's, which adds
 * variables and PWD to the program's environment).
 */
static int valgrind_program(char *buf, size_t len)
{
	if (exec_resolve("valgrind", buf, len) < 0)
		return -1;
	if (is_elf(buf))
		return 0;
	char bin[PATH_MAX + 8];
	snprintf(bin, sizeof(bin), "%s.bin", buf);
	if (strlen(bin) < len && access(bin, X_OK) == 0 && is_elf(bin))
		snprintf(buf, len, "%s", bin);
	return 0;
}

size_t valgrind_pad_len(char *const env[], char *const argv[], const char *exe)
{
	size_t total = strlen(exe) + 1 + strlen(VALGRIND_PAD_VAR) + 1;
	for (size_t i = 0; env[i]; i++)
		total += strlen(env[i]) + 1;
	for (size_t i = 0; argv[i]; i++)
		total += strlen(argv[i]) + 1;
	return (VALGRIND_PAD_ALIGN - total % VALGRIND_PAD_ALIGN) % VALGRIND_PAD_ALIGN;
}

/* `valgrind --version`'s line (valgrind-3.19.0), or "" when it cannot be run. */
static void valgrind_version(const char *prog, char *buf, size_t len)
{
	buf[0] = '\0';
	int fd[2];
	if (lk_cloexec_pipe(fd) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(fd[1], 1);
		dup2(devnull, 2);
		execl(prog, prog, "--version", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	if (pid > 0) {
		size_t n = 0;
		ssize_t r;
		while (n + 1 < len && ((r = read(fd[0], buf + n, len - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
			n += r > 0 ? (size_t)r : 0;
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	close(fd[0]);
}

/*
 * Run `valgrind --version` once per invocation (issue 37 T6: it was run for
 * every fingerprint, 10.8 ms of CPU each, 1.34x a plain callgrind run for a
 * start-up-only gate): the program does not change while lauka runs.
 */
static const char *valgrind_version_once(void)
{
	static char version[64];
	static bool done;
	if (!done) {
		char prog[PATH_MAX];
		done = true;
		if (valgrind_program(prog, sizeof(prog)) == 0)
			valgrind_version(prog, version, sizeof(version));
	}
	return version;
}

char *valgrind_fingerprint(void)
{
	const char *version = valgrind_version_once();
	char cache[65] = "none";
	size_t len = 0;
	char *text = NULL;
	if (lk_read_file("/etc/ld.so.cache", 64u << 20, &text, &len) == 0)
		sha256_hex(text, len, cache);
	free(text);
	char libc[PATH_MAX] = "";
#ifdef __GLIBC__
	snprintf(libc, sizeof(libc), "glibc-%s", gnu_get_libc_version());
#else
	snprintf(libc, sizeof(libc), "unknown");
#endif
	return xasprintf("%s ld.so.cache:%.16s libc:%s", version[0] ? version : "valgrind-?", cache, libc);
}

static int valgrind_detect(char *why, size_t len)
{
	char path[PATH_MAX];
	if (exec_resolve("valgrind", path, sizeof(path)) < 0) {
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
	pmu->marketing_name = xstrdup("valgrind callgrind (I1/D1 32 KiB 8-way, LL 8 MiB 16-way, 64 B lines)");
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

/* The end of the line starting at p (its '\n' or the end of the buffer). */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static bool starts_with(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);
	return (size_t)(end - p) >= k && !memcmp(p, key, k);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * Zip one cost line (the numbers after "summary:" or "totals:", q..qe)
 * with the event line ev..ee into vals[i] for each names[i], setting
 * seen[i].  zero_fill: callgrind omits trailing zero costs, so fewer
 * numbers than events mean zeros; a cachegrind file always has them all.
 */
static int zip_costs(const char *ev, const char *ee, const char *q, const char *qe, bool zero_fill,
		     const char *const *names, size_t n, uint64_t *vals, bool *seen, char *err, size_t errlen)
{
	const char *p = ev;
	for (;;) {
		while (p < ee && is_blank(*p))
			p++;
		while (q < qe && is_blank(*q))
			q++;
		if (p >= ee)
			return 0;
		const char *w = p;
		while (p < ee && !is_blank(*p))
			p++;
		size_t wl = (size_t)(p - w);
		uint64_t v = 0;
		if (!(q >= qe && zero_fill) && (q >= qe || *q < '0' || *q > '9')) {
			lk_errbuf(err, errlen, "the summary line has fewer numbers than the events line");
			return -LK_EINVAL;
		}
		while (q < qe && *q >= '0' && *q <= '9') {
			v = v * 10 + (uint64_t)(*q - '0');
			q++;
		}
		for (size_t i = 0; i < n; i++)
			if (strlen(names[i]) == wl && !memcmp(names[i], w, wl)) {
				vals[i] = v;
				seen[i] = true;
			}
	}
}

/* One part of a file: its summary: and totals: costs, by event. */
struct part {
	uint64_t *sum, *tot;
	bool *seen;
	bool has_sum, has_tot;
};

/*
 * Add a finished part to vals.  Callgrind's two lines each miss something
 * (tests/cli/t-valgrind-cross.sh measures both against cachegrind):
 * summary: (its running total) leaves out the work done in signal
 * handlers, and totals: (the sum of its cost lines) leaves out the blocks
 * it never attributes to a function: the final exit system call and each
 * signal return, 2 instructions each on x86-64.  Both are lower bounds, so
 * each event takes the larger: exact for a program that takes no signals.
 */
static void add_part(struct part *pt, size_t n, uint64_t *vals, bool *seen)
{
	for (size_t i = 0; i < n; i++) {
		if (!pt->seen[i])
			continue;
		uint64_t v = pt->has_sum ? pt->sum[i] : 0;
		if (pt->has_tot && pt->tot[i] > v)
			v = pt->tot[i];
		vals[i] += v;
		seen[i] = true;
	}
	memset(pt->sum, 0, n * sizeof(*pt->sum));
	memset(pt->tot, 0, n * sizeof(*pt->tot));
	memset(pt->seen, 0, n * sizeof(*pt->seen));
	pt->has_sum = pt->has_tot = false;
}

int valgrind_parse_out(const char *buf, size_t len, const char *const *names, size_t n,
		       uint64_t *sums, uint64_t *missing, char *err, size_t errlen)
{
	const char *end = buf + len;
	bool callgrind = false, any_events = false;
	size_t nsummary = 0, ntotals = 0;
	for (const char *p = buf; p < end; p = line_end(p, end) + 1) {
		callgrind |= starts_with(p, end, "creator: callgrind");
		any_events |= starts_with(p, end, "events:");
		nsummary += starts_with(p, end, "summary:");
		ntotals += starts_with(p, end, "totals:");
	}
	if (!any_events || (!nsummary && !ntotals)) {
		lk_errbuf(err, errlen, "not a cachegrind or callgrind output file (no '%s' line)",
			  any_events ? "summary:" : "events:");
		return -LK_EINVAL;
	}
	/* Callgrind ends every part with its totals: line; one missing means the file was cut short. */
	if (callgrind && ntotals != nsummary) {
		lk_errbuf(err, errlen, "cut short: %zu parts but %zu 'totals:' lines", nsummary, ntotals);
		return -LK_EINVAL;
	}
	size_t m = n ? n : 1;
	uint64_t *vals = xcalloc(m, sizeof(*vals));
	bool *seen = xcalloc(m, sizeof(*seen));
	struct part pt = { xcalloc(m, sizeof(uint64_t)), xcalloc(m, sizeof(uint64_t)), xcalloc(m, sizeof(bool)),
			   false, false };
	/* Every part counts: callgrind writes one per dump, each with its own events: line. */
	const char *ev = NULL, *ee = NULL;
	int ret = 0;
	for (const char *p = buf; p < end && ret == 0; p = line_end(p, end) + 1) {
		bool is_sum = starts_with(p, end, "summary:"), is_tot = starts_with(p, end, "totals:");
		if (starts_with(p, end, "events:")) {
			add_part(&pt, n, vals, seen);
			ev = p + strlen("events:");
			ee = line_end(p, end);
		} else if (is_sum || is_tot) {
			if (!ev) {
				lk_errbuf(err, errlen, "a '%s' line before the 'events:' line", is_sum ? "summary:" : "totals:");
				ret = -LK_EINVAL;
				break;
			}
			ret = zip_costs(ev, ee, p + (is_sum ? strlen("summary:") : strlen("totals:")), line_end(p, end),
					callgrind, names, n, is_sum ? pt.sum : pt.tot, pt.seen, err, errlen);
			pt.has_sum |= is_sum;
			pt.has_tot |= is_tot;
		}
	}
	if (ret == 0) {
		add_part(&pt, n, vals, seen);
		if (missing)
			*missing = 0;
		for (size_t i = 0; i < n; i++) {
			if (seen[i])
				sums[i] += vals[i];
			else if (missing && i < 64)
				*missing |= 1ull << i;
		}
	}
	free(pt.sum);
	free(pt.tot);
	free(pt.seen);
	free(vals);
	free(seen);
	return ret;
}

char *valgrind_out_cmd(const char *buf, size_t len)
{
	const char *end = buf + len;
	for (const char *p = buf; p < end; p = line_end(p, end) + 1) {
		if (!starts_with(p, end, "cmd:"))
			continue;
		const char *q = p + strlen("cmd:"), *qe = line_end(p, end);
		while (q < qe && *q == ' ')
			q++;
		return xasprintf("%.*s", (int)(qe - q), q);
	}
	return NULL;
}

char *valgrind_join_argv(char *const argv[])
{
	size_t total = 1;
	for (size_t i = 0; argv[i]; i++) {
		if (strchr(argv[i], '\n'))
			return NULL;
		total += strlen(argv[i]) + 1;
	}
	char *s = xmalloc(total), *w = s;
	for (size_t i = 0; argv[i]; i++) {
		size_t l = strlen(argv[i]);
		if (i)
			*w++ = ' ';
		memcpy(w, argv[i], l);
		w += l;
	}
	*w = '\0';
	return s;
}

static int valgrind_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct valgrind_priv *p = priv;
	p->sel = sel;
	p->n = n;
	if (valgrind_program(p->valgrind, sizeof(p->valgrind)) < 0) {
		lk_errbuf(err, len, "valgrind not found in PATH");
		return -LK_ENOTSUP;
	}
	const char *mode = getenv("LAUKA_VALGRIND_ENV");
	if (mode && *mode && strcmp(mode, "inherit") && strcmp(mode, "pin")) {
		lk_errbuf(err, len, "LAUKA_VALGRIND_ENV='%s' is not 'pin' or 'inherit'", mode);
		return -LK_EINVAL;
	}
	p->env[0] = '\0';
	if (!(mode && !strcmp(mode, "inherit")) && exec_resolve("env", p->env, sizeof(p->env)) < 0) {
		lk_errbuf(err, len, "'env' not found in PATH, needed to pin the environment (or set LAUKA_VALGRIND_ENV=inherit)");
		return -LK_ENOTSUP;
	}
	p->cache_sim = p->branch_sim = false;
	for (size_t i = 0; i < n; i++) {
		if (!sel[i].ev || sel[i].ev->number >= 64) {
			lk_errbuf(err, len, "'%s' is not a valgrind event", sel[i].ev ? sel[i].ev->name : "?");
			return -LK_EINVAL;
		}
		p->cache_sim |= valgrind_needs_cache_sim(sel[i].ev->name);
		p->branch_sim |= valgrind_needs_branch_sim(sel[i].ev->name);
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(p->dir, sizeof(p->dir), "%s/lauka-valgrind.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir)) {
		lk_errbuf(err, len, "cannot create a directory for valgrind's output in '%s': %s",
			  tmp && *tmp ? tmp : "/tmp", strerror(errno));
		p->dir[0] = '\0';
		return -LK_EIO;
	}
	/* Under sudo the command runs as the invoking user, who must be able to write here; lauka then
	 * reads, probes and empties the directory as that user too (sweep, check_space). */
	struct sudo_user su;
	if (geteuid() == 0 && sudo_user(&su) && chown(p->dir, (uid_t)su.uid, (gid_t)su.gid) < 0) {
		lk_errbuf(err, len, "cannot hand '%s' to uid %ld: %s", p->dir, su.uid, strerror(errno));
		rmdir(p->dir);
		p->dir[0] = '\0';
		return -LK_EIO;
	}
	return 0;
}

/*
 * Can valgrind run this file?  An ELF file or a #! script, yes.  Anything
 * else the kernel refuses with ENOEXEC, and so do the other backends (exit
 * 126), but valgrind's launcher would hand it to /bin/sh: such a file is
 * executed directly instead, to fail the same way.  A file that cannot be
 * read here is left to valgrind.
 */
static bool valgrind_can_run(const char *file)
{
	char path[PATH_MAX];
	if (exec_resolve(file, path, sizeof(path)) < 0)
		return true;
	unsigned char magic[4];
	ssize_t n = file_magic(path, magic, sizeof(magic));
	if (n < 0)
		return true;
	return (n == 4 && !memcmp(magic, "\177ELF", 4)) || (n >= 2 && magic[0] == '#' && magic[1] == '!');
}

/*
 * PWD=<the working directory>, the variable a shell adds for its children
 * when it is missing: given here, it is inside the padding, so a child of a
 * shell sees an environment of the same size in any directory.
 */
static char *pwd_var(void)
{
	char cwd[PATH_MAX];
	return xasprintf("PWD=%s", getcwd(cwd, sizeof(cwd)) ? cwd : "/");
}

extern char **environ;

static bool starts_with_str(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t envlen(char *const env[])
{
	size_t n = 0;
	while (env[n])
		n++;
	return n;
}

/*
 * The command's environment under valgrind (malloc'd strings, NULL-ended,
 * sorted so that its order is the same on every machine): PATH, HOME and
 * TMPDIR as the user has them (absent when unset: lauka adds no value a
 * program reads), PWD (the working directory: see pwd_var), and the
 * variables that change what a program does (base/envvars.h: locale, time
 * zone, interpreters' seeds) with the user's values.  LAUKA_PAD follows.
 */
static char **pinned_env(void)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **env = xcalloc(n + 2, sizeof(*env));
	size_t k = 0;
	for (char **e = environ; e && *e; e++) {
		const char *v = *e;
		if (!strchr(v, '=') || starts_with_str(v, "PWD=") || starts_with_str(v, VALGRIND_PAD_VAR))
			continue;
		if (starts_with_str(v, "PATH=") || starts_with_str(v, "HOME=") || starts_with_str(v, "TMPDIR=") ||
		    lk_env_behaviour(v))
			env[k++] = xstrdup(v);
	}
	env[k++] = pwd_var();
	qsort(env, k, sizeof(*env), cmp_entry);
	return env;
}

static char **valgrind_wrap_argv(void *priv, char *const argv[])
{
	struct valgrind_priv *p = priv;
	free(p->cmdline);
	free(p->cmdline_path);
	p->cmdline = p->cmdline_path = NULL;
	if (!valgrind_can_run(argv[0]))
		return NULL;
	p->cmdline = valgrind_join_argv(argv);
	char resolved[PATH_MAX];
	if (p->cmdline && exec_resolve(argv[0], resolved, sizeof(resolved)) == 0)
		p->cmdline_path = xasprintf("%s%s", resolved, p->cmdline + strlen(argv[0]));
	size_t argc = 0;
	while (argv[argc])
		argc++;
	char **env = p->env[0] ? pinned_env() : NULL;
	size_t max = 3 + (env ? envlen(env) : 0) + ARRAY_SIZE(callgrind_opts) + ARRAY_SIZE(cache_sim_opts) + 5 + argc + 1;
	char **out = xcalloc(max, sizeof(*out));
	size_t k = 0;
	if (env) {
		char exe[PATH_MAX];
		if (exec_resolve(argv[0], exe, sizeof(exe)) < 0)
			snprintf(exe, sizeof(exe), "%s", argv[0]);
		size_t pad = valgrind_pad_len(env, argv, exe);
		out[k++] = xstrdup(p->env);
		out[k++] = xstrdup("-i");
		for (size_t i = 0; env[i]; i++)
			out[k++] = env[i];
		free(env);
		char *padvar = xmalloc(strlen(VALGRIND_PAD_VAR) + pad + 1);
		memcpy(padvar, VALGRIND_PAD_VAR, strlen(VALGRIND_PAD_VAR));
		memset(padvar + strlen(VALGRIND_PAD_VAR), 'x', pad);
		padvar[strlen(VALGRIND_PAD_VAR) + pad] = '\0';
		out[k++] = padvar;
	}
	out[k++] = xstrdup(p->valgrind);
	for (size_t i = 0; i < ARRAY_SIZE(callgrind_opts); i++)
		out[k++] = xstrdup(callgrind_opts[i]);
	for (size_t i = 0; p->cache_sim && i < ARRAY_SIZE(cache_sim_opts); i++)
		out[k++] = xstrdup(cache_sim_opts[i]);
	out[k++] = xstrdup(p->branch_sim ? "--branch-sim=yes" : "--branch-sim=no");
	if (!p->cache_sim)
		out[k++] = xstrdup("--cache-sim=no");
	if (p->collect)
		out[k++] = xasprintf("--toggle-collect=%s", p->collect);
	out[k++] = xasprintf("--callgrind-out-file=%s/cg.%%p.out", p->dir);
	for (size_t i = 0; i < argc; i++)
		out[k++] = xstrdup(argv[i]);
	out[k] = NULL;
	return out;
}

/*
 * Is the filesystem of dir full (or the user's quota used up)?  Asked when
 * an output file is missing, empty or cut short, before anything is
 * deleted: valgrind says nothing when it cannot write its output.  By then
 * each process has freed the unlinked files it kept in TMPDIR while it ran
 * (its /proc/self/cmdline and auxv stand-ins, a page or two each), so a
 * disk that was full can have a little room again: under 4 MiB free counts
 * as full, and so does a 64 KiB test write that fails.
 */
static bool disk_full(const char *dir, unsigned long long *avail_kib)
{
	struct statvfs st;
	*avail_kib = 0;
	if (statvfs(dir, &st) == 0) {
		*avail_kib = (unsigned long long)st.f_bavail * st.f_frsize / 1024;
		if (*avail_kib < 4096 || (st.f_files && !st.f_favail))
			return true;
	}
	/* A new file only (the command could have put a link to anything at the name), made as the user (sweep). */
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/.space", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == ENOSPC || errno == EDQUOT;
	static const char block[65536];
	ssize_t w = write(fd, block, sizeof(block));
	int e = errno;
	close(fd);
	unlink(path);
	return w < 0 && (e == ENOSPC || e == EDQUOT);
}

/*
 * Why an output file is missing, empty or cut short, when the cause is the machine's and not the
 * command's: a full disk, or an address-space limit (ulimit -v) under which valgrind cannot map
 * itself, its translation cache and the command (it then stops with "out of memory" on the
 * command's stderr, which lauka does not show, and leaves an empty file).  0 when neither.
 */
static int check_space(const struct valgrind_priv *p, char *err, size_t len)
{
	unsigned long long kib = 0;
	struct sudo_creds c;
	bool as_user = sudo_as_user(&c) >= 0;	/* the directory is the user's: probed as the user (sweep) */
	bool full = as_user && disk_full(p->dir, &kib);
	if (as_user)
		sudo_as_root(&c);
	if (full) {
		lk_errbuf(err, len, "the disk is full: valgrind could not write its counts in '%s' (%llu KiB free now; "
			  "free space there, or set TMPDIR to a directory on another filesystem)", p->dir, kib);
		return -LK_EIO;
	}
	unsigned long long kb = lk_as_limit_kb();
	if (kb) {
		lk_errbuf(err, len, "valgrind wrote no counts, most likely for lack of address space: the limit is "
			  "%llu KB (ulimit -v), and valgrind needs room for itself and the command (raise it: ulimit -v "
			  "unlimited; --show-output shows valgrind's own message)", kb);
		return -LK_EIO;
	}
	return 0;
}

/*
 * Read the lines of an output file that its counts and command are read
 * from (events:, summary:, totals:, creator:, cmd:), leaving out the cost
 * lines: a process that forks often writes a part per dump, and its file
 * can grow far beyond what is worth holding in memory.  0, or -errno.
 */
static FILE *open_output(const char *path, long owner);
static int read_kept_lines(const char *path, long owner, char **out, size_t *len)
{
	static const char *const keep[] = { "events:", "summary:", "totals:", "creator:", "cmd:" };
	FILE *f = open_output(path, owner);
	if (!f)
		return -errno;
	char *line = NULL, *buf = NULL;
	size_t cap = 0, n = 0, bufcap = 0;
	ssize_t l;
	int ret = 0;
	while ((l = getline(&line, &cap, f)) > 0) {
		bool kept = false;
		for (size_t i = 0; i < ARRAY_SIZE(keep) && !kept; i++)
			kept = !strncmp(line, keep[i], strlen(keep[i]));
		if (!kept)
			continue;
		if (n + (size_t)l + 2 > VG_MAX_KEPT) {
			ret = -EFBIG;
			break;
		}
		if (n + (size_t)l + 2 > bufcap) {
			bufcap = (n + (size_t)l + 2) * 2;
			char *nb = realloc(buf, bufcap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		memcpy(buf + n, line, (size_t)l);
		n += (size_t)l;
		if (buf[n - 1] != '\n')
			buf[n++] = '\n';
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = n;
	return 0;
}

/*
 * Add a whole output file's self Ir by function to t (record --explain:
 * the output of a measured run, reused, so explaining costs no extra run).
 */
static int read_functions(const char *path, long owner, struct cg_table *t, char *err, size_t len)
{
	FILE *f = open_output(path, owner);
	if (!f) {
		lk_errbuf(err, len, "cannot read valgrind's output '%s': %s", path, strerror(errno));
		return -LK_EIO;
	}
	struct cg_parser *cp = cg_parser_new("Ir", 0, t);
	char *line = NULL, why[200] = "";
	size_t cap = 0;
	ssize_t l;
	int r = 0;
	while (r == 0 && (l = getline(&line, &cap, f)) > 0)
		r = cg_parser_line(cp, line, (size_t)l, why, sizeof(why));
	r = r ? r : cg_parser_finish(cp, why, sizeof(why));
	if (r)
		lk_errbuf(err, len, "'%s': %s", path, why);
	free(line);
	fclose(f);
	return r;
}

/* The pid in a cg.<pid>.out name, or -1. */
static long out_pid(const char *name)
{
	char *end;
	long pid = strtol(name + 3, &end, 10);
	return end != name + 3 && !strcmp(end, ".out") ? pid : -1;
}

/*
 * The root process's file shows another command: the command replaced
 * itself by exec (env, a shell's exec, a wrapper script), and valgrind
 * counted only the program it became.
 */
static void check_exec(struct valgrind_priv *p, const char *buf, size_t n)
{
	if (!p->cmdline || (p->warned && !strcmp(p->warned, p->cmdline)))
		return;
	char *cmd = valgrind_out_cmd(buf, n);
	if (cmd && strcmp(cmd, p->cmdline) && !(p->cmdline_path && !strcmp(cmd, p->cmdline_path))) {
		if (term_capable(STDERR_FILENO))
			fputs("\r\033[K", stderr);
		warning("'%s' replaced itself by exec with '%s': valgrind counts only the program it became, "
			"not the work before the exec", p->cmdline, cmd);
		free(p->warned);
		p->warned = xstrdup(p->cmdline);
	}
	free(cmd);
}

/*
 * An output file of the private directory, which the measured command
 * (under sudo the invoking user) can write: opened without following a
 * link, and only a regular file of owner's (base/sudo.h's lk_open_owned).
 */
static FILE *open_output(const char *path, long owner)
{
	int fd = lk_open_owned(path, owner, NULL);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

static int sweep_dir(struct valgrind_priv *p, long owner, long root, const char *const *names, uint64_t *sums,
		     uint64_t *missing, size_t *nfiles, char *err, size_t len);

/*
 * Visit (and delete) each cg.*.out file of the private directory, adding
 * the counts of every part of every file; root is the pid of the process
 * the runner started (-1: none).  Under sudo the directory is the invoking
 * user's (the command writes there), so it is read, probed and emptied
 * with that user's ids: a link put at a name, or at the directory itself,
 * reaches nothing the user could not.
 */
static int sweep(struct valgrind_priv *p, long root, const char *const *names, uint64_t *sums,
		 uint64_t *missing, size_t *nfiles, char *err, size_t len)
{
	long owner = sudo_expected_owner();
	struct sudo_creds c;
	if (sudo_as_user(&c) < 0) {
		lk_errbuf(err, len, "cannot take the invoking user's ids to read '%s': %s", p->dir, strerror(errno));
		return -LK_EIO;
	}
	int r = sweep_dir(p, owner, root, names, sums, missing, nfiles, err, len);
	sudo_as_root(&c);
	return r;
}

static int sweep_dir(struct valgrind_priv *p, long owner, long root, const char *const *names, uint64_t *sums,
		     uint64_t *missing, size_t *nfiles, char *err, size_t len)
{
	DIR *d = opendir(p->dir);
	if (!d) {
		lk_errbuf(err, len, "cannot read '%s': %s", p->dir, strerror(errno));
		return -LK_EIO;
	}
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;	/* anything else goes, a .space the command put there too */
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", p->dir, de->d_name);
		if (names && ret == 0 && !strncmp(de->d_name, "cg.", 3)) {
			char *buf = NULL;
			size_t n = 0;
			int r = read_kept_lines(path, owner, &buf, &n);
			if (r < 0) {
				lk_errbuf(err, len, "cannot read valgrind's output '%s': %s", path, strerror(-r));
				ret = -LK_EIO;
			} else {
				uint64_t miss = 0;
				char why[200];
				if (valgrind_parse_out(buf, n, names, p->n, sums, &miss, why, sizeof(why)) < 0) {
					if (check_space(p, err, len) == 0)
						lk_errbuf(err, len, "'%s': %s", path, why);
					ret = -LK_EIO;
				} else {
					if (out_pid(de->d_name) == root)
						check_exec(p, buf, n);
					if (p->funcs && read_functions(path, owner, p->funcs, err, len) < 0)
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
	if (p->keep) {
		if (p->funcs)
			cg_table_release(p->funcs);
		else
			p->funcs = xcalloc(1, sizeof(*p->funcs));
	}
	int r = sweep(p, p->cmdline ? (long)run->pid : -1, names, sums, &missing, &nfiles, err, len);
	/* No file at all from a run that succeeded: valgrind could not write
	 * one.  (When the command or valgrind failed before any process
	 * finished, the runner reports that failure.) */
	if (r == 0 && nfiles == 0 && p->cmdline && WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		r = check_space(p, err, len);
	for (size_t i = 0; i < p->n; i++) {
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
		sweep(p, -1, NULL, NULL, NULL, NULL, NULL, 0);
}

static void valgrind_keep_functions(void *priv)
{
	((struct valgrind_priv *)priv)->keep = true;
}

static void valgrind_collect_only(void *priv, const char *function)
{
	((struct valgrind_priv *)priv)->collect = function;
}

static struct cg_table *valgrind_functions(void *priv)
{
	struct valgrind_priv *p = priv;
	struct cg_table *t = p->funcs;
	p->funcs = NULL;
	return t;
}

static void valgrind_close(void *priv)
{
	struct valgrind_priv *p = priv;
	if (p->funcs) {
		cg_table_release(p->funcs);
		free(p->funcs);
		p->funcs = NULL;
	}
	free(p->cmdline);
	free(p->cmdline_path);
	free(p->warned);
	p->cmdline = p->cmdline_path = p->warned = NULL;
	if (!p->dir[0])
		return;
	sweep(p, -1, NULL, NULL, NULL, NULL, NULL, 0);
	rmdir(p->dir);
	p->dir[0] = '\0';
}

const struct lk_backend backend_valgrind = {
	.name = "valgrind",
	.desc = "deterministic simulated counters (callgrind: instructions, cache misses, branches)",
	.priv_size = sizeof(struct valgrind_priv),
	.detect = valgrind_detect,
	.catalog = vg_catalog_op,
	.opt_in = true,
	.deterministic = true,
	.defaults = valgrind_defaults,
	.open = valgrind_open,
	.wrap_argv = valgrind_wrap_argv,
	.read = valgrind_read,
	.detach = valgrind_detach,
	.close = valgrind_close,
	.keep_functions = valgrind_keep_functions,
	.functions = valgrind_functions,
	.collect_only = valgrind_collect_only,
};
