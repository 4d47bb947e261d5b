/*
 * backend/xctrace/xctrace.c: counters recorded by `xctrace record --launch`, read
 * back with `xctrace export` (see backend/xctrace/xctrace.h for the whole picture,
 * reference/xctrace.md for the facts).
 *
 * Scope: xctrace records the launched process only (its tables say
 * target-pid="SINGLE"); children of the command are not counted, and the
 * counters-profile rows of pid 0 and other processes are excluded.  A
 * thread's work after its last sample is missed (about one sample period).
 */
#include "backend/xctrace/xctrace.h"
#include "backend/kperf/kperf.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "catalog/kpep.h"
#include "backend/kperf/agg.h"
#include "base/util.h"
#include "backend/xctrace/agg.h"
#include "backend/xctrace/parse.h"
#include "backend/xctrace/template.h"
#include "base/capture.h"
#include "base/exec-path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif

#define XCT_LOG_MAX (1u << 20)
#define XCT_EXPORT_TIMEOUT_S 300
#define XCT_CP_XPATH "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"counters-profile\"]"
#define XCT_RAW_SCHEMA "kdebug-counters-with-time-sample"
#define XCT_RAW_XPATH "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" XCT_RAW_SCHEMA "\"]"
#define XCT_GUIDED_TEMPLATE "CPU Counters"
#define XCT_PLATFORM_TEMPLATES "Platforms/MacOSX.platform/Developer/Library/Instruments/Templates"
#define XCT_SAMPLE_US 1000

static char version_str[64];
static char counting_mode[64];
static struct { size_t nvalues, nslots; double coverage; size_t baselines; } last_guided;

struct xctrace_priv {
	struct lk_evsel *sel;
	size_t n;
	bool guided;
	char *prefix[3];		/* argv prefix running xctrace ("xcrun", "xctrace" or the stand-in) */
	char xctrace[PATH_MAX];
	char xcrun[PATH_MAX];
	char dir[PATH_MAX];		/* private: template, bundle, exports, logs */
	char template_path[PATH_MAX];
	char base_path[PATH_MAX];	/* manual: the template lauka patched into template_path */
	const char *layout;		/* manual: its layout (what N2 leaves unverified) */
	char ktrace_dir[PATH_MAX];	/* "" when unknown */
	char **ktrace_before;		/* instruments*.ktrace names present before the run */
	size_t nktrace_before;
	bool ktrace_armed;		/* a snapshot was taken: files not in it are this run's */
	struct lk_pmu pmu;		/* manual: for aliases in the TOC */
	bool have_pmu;
	pid_t watchdog;
	unsigned timeout_s, grace_s;
	bool have_exit;
	int exit_code;
	struct strbuf detail;		/* JSON of the run read last, until json_run() takes it */
};

bool xctrace_guided(void)
{
	const char *m = getenv("LAUKA_XCTRACE_MODE");
	return m && !strcmp(m, "guided");
}

const char *xctrace_version_string(void)
{
	return version_str;
}

const char *xctrace_counting_mode(void)
{
	return counting_mode;
}

void xctrace_last_guided(size_t *nvalues, size_t *nslots, double *coverage, size_t *baselines)
{
	*nvalues = last_guided.nvalues;
	*nslots = last_guided.nslots;
	*coverage = last_guided.coverage;
	*baselines = last_guided.baselines;
}

int xctrace_parse_version(const char *out, char *ver, size_t len)
{
	const char *p = out ? strstr(out, "version") : NULL;
	if (!p)
		return -1;
	p += strlen("version");
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	const char *end = p;
	while (*end && *end != '\n' && *end != '\r')
		end++;
	if (ver && len)
		snprintf(ver, len, "%.*s", (int)(end - p), p);
	return atoi(p);
}

static char *first_line_with(const char *log, const char *needle, const char *except)
{
	for (const char *p = log; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xmalloc(n + 1);
		memcpy(line, p, n);
		line[n] = '\0';
		if (strstr(line, needle) && !(except && strstr(line, except)))
			return line;
		free(line);
		p = nl ? nl + 1 : p + n;
	}
	return NULL;
}

static void last_line(const char *log, char *out, size_t len)
{
	out[0] = '\0';
	for (const char *p = log; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n)
			snprintf(out, len, "%.*s", (int)n, p);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

#define BENIGN "Fatal logging system error"

int xctrace_record_outcome(int exit_code, int term_signal, const char *log, char *why, size_t len)
{
	char tail[256];
	last_line(log, tail, sizeof(tail));
	if (term_signal) {
		lk_errbuf(why, len, "xctrace record was killed by signal %d%s%s", term_signal, tail[0] ? ": " : "", tail);
		return -LK_EIO;
	}
	if (exit_code == 0)
		return 0;
	char *real = first_line_with(log, "[Error]", BENIGN), *benign = first_line_with(log, "[Error]", NULL);
	int ret = 0;
	if (exit_code == 2 && benign && !real) {
		free(benign);
		return 0;
	}
	const char *msg = real ? real : tail[0] ? tail : "no message";
	while (*msg == ' ' || *msg == '\t')
		msg++;
	if (exit_code == 57)
		lk_errbuf(why, len, "xctrace record exited 57 (the recording options could not be decoded): %s", msg);
	else if (exit_code == 21)
		lk_errbuf(why, len, "xctrace record exited 21 (the target was rejected): %s", msg);
	else
		lk_errbuf(why, len, "xctrace record failed with exit code %d: %s", exit_code, msg);
	ret = -LK_EIO;
	free(real);
	free(benign);
	return ret;
}

/* ---- running xctrace's helper commands ---- */

static unsigned env_seconds(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	return n > 0 && end && !*end ? (unsigned)n : dflt;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Stop pid the careful way: SIGINT, up to grace seconds, then SIGKILL; reap it. */
static int stop_and_reap(pid_t pid, unsigned grace_s)
{
	int st = 0;
	kill(pid, SIGINT);
	for (unsigned i = 0; i < grace_s * 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/*
 * A watcher for a tool lauka runs itself (xctrace export): a child that
 * holds the read end of a pipe whose write end only lauka has.  When lauka
 * dies, even by SIGKILL, the pipe closes and the watcher kills the tool,
 * which would otherwise run on as an orphan for up to its timeout.  A pipe
 * rather than PR_SET_PDEATHSIG, which macOS does not have.  lauka stops the
 * watcher before it reaps the tool, so the pid the watcher holds is never
 * another process's.  Returns the watcher's pid (or -1: no watch) and the
 * write end in *wfd.
 */
static pid_t watch_tool(pid_t tool, int *wfd)
{
	int pfd[2];
	*wfd = -1;
	if (pipe(pfd) < 0)
		return -1;
	fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	pid_t w = fork();
	if (w < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (w == 0) {
		long maxfd = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (maxfd > 0 && maxfd < 65536 ? maxfd : 1024); fd++)
			if (fd != pfd[0])
				close(fd);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		char c;
		while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
			;
		kill(tool, SIGKILL);
		_exit(0);
	}
	close(pfd[0]);
	*wfd = pfd[1];
	return w;
}

static void unwatch_tool(pid_t watcher, int wfd)
{
	if (watcher > 0) {
		kill(watcher, SIGKILL);
		while (waitpid(watcher, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (wfd >= 0)
		close(wfd);
}

/* Has pid exited?  Looked at without reaping it, so its pid stays its own until the watcher is gone. */
static bool tool_exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

/*
 * argv = prefix + args; output (stdout and stderr) into log; waits at most
 * timeout_s, and stops the tool within a second of SIGINT/SIGTERM/SIGHUP
 * to lauka (-LK_EINTR).
 */
static int run_tool(struct xctrace_priv *p, const char *const *args, const char *log, unsigned timeout_s,
		    int *exit_code, char *err, size_t len)
{
	size_t np = 0, na = 0;
	while (p->prefix[np])
		np++;
	while (args[na])
		na++;
	char **argv = xcalloc(np + na + 1, sizeof(*argv));
	for (size_t i = 0; i < np; i++)
		argv[i] = p->prefix[i];
	for (size_t i = 0; i < na; i++)
		argv[np + i] = (char *)args[i];
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	extern char **environ;
	pid_t pid;
	int e = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(argv);
	if (e) {
		lk_errbuf(err, len, "cannot run '%s': %s", p->prefix[0], strerror(e));
		return -LK_EIO;
	}
	int wfd;
	pid_t watcher = watch_tool(pid, &wfd);
	int st = 0, r = 0;
	uint64_t deadline = lk_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	while (!tool_exited(pid)) {
		if (lk_interrupted) {
			unwatch_tool(watcher, wfd);
			kill(pid, SIGTERM);
			stop_and_reap(pid, 1);
			lk_errbuf(err, len, "'xctrace %s' stopped: lauka was interrupted", args[0]);
			return -LK_EINTR;
		}
		if (lk_now_ns() > deadline) {
			unwatch_tool(watcher, wfd);
			stop_and_reap(pid, p->grace_s);
			lk_errbuf(err, len, "'xctrace %s' did not finish within %u s and was stopped", args[0], timeout_s);
			return -LK_EIO;
		}
		sleep_ms(10);
	}
	unwatch_tool(watcher, wfd);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			lk_errbuf(err, len, "waitpid: %s", strerror(errno));
			return -LK_EIO;
		}
	}
	*exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return r;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t n = 0;
	if (lk_read_file(path, XCT_LOG_MAX, &buf, &n) < 0)
		return xstrdup("");
	return buf;
}

static void path_in(const struct xctrace_priv *p, const char *name, char *out, size_t len)
{
	/* p->dir comes from mkdtemp under $TMPDIR: far shorter than PATH_MAX */
	int n = snprintf(out, len, "%s/", p->dir);
	if (n > 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, "%s", name);
}

/* ---- finding xctrace, the catalogue and the template ---- */

int xctrace_developer_dir_of(const char *xctrace_path, char *out, size_t len)
{
	static const char tail[] = "/usr/bin/xctrace";
	size_t n = strlen(xctrace_path);
	while (n && (xctrace_path[n - 1] == '\n' || xctrace_path[n - 1] == ' ' || xctrace_path[n - 1] == '\r'))
		n--;
	if (n <= sizeof(tail) - 1 || strncmp(xctrace_path + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) ||
	    n - (sizeof(tail) - 1) >= len)
		return -1;
	memcpy(out, xctrace_path, n - (sizeof(tail) - 1));
	out[n - (sizeof(tail) - 1)] = '\0';
	return 0;
}

static bool contains_ci(const char *s, const char *needle)
{
	for (; *s; s++) {
		size_t k = 0;
		while (needle[k] && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)needle[k]))
			k++;
		if (!needle[k])
			return true;
	}
	return false;
}

bool xctrace_xcode_problem(const char *output, const char *devdir, const char *suggest, char *why, size_t len)
{
	/* xcrun: "You have not agreed to the Xcode license agreements. ... sudo xcodebuild -license ..." */
	if (output && contains_ci(output, "license") && (contains_ci(output, "agree") || contains_ci(output, "xcodebuild"))) {
		lk_errbuf(why, len, "the Xcode licence has not been accepted, so xcrun refuses to run xctrace\n"
			  "fix: sudo xcodebuild -license accept");
		return true;
	}
	/* A new Xcode whose components are not installed yet: xcrun names xcodebuild -runFirstLaunch. */
	if (output && (contains_ci(output, "runFirstLaunch") || contains_ci(output, "additional components"))) {
		lk_errbuf(why, len, "Xcode has not finished installing its components, so xcrun cannot run xctrace\n"
			  "fix: sudo xcodebuild -runFirstLaunch");
		return true;
	}
	if (devdir && strstr(devdir, "CommandLineTools")) {
		if (suggest && *suggest)
			lk_errbuf(why, len, "xcode-select points at the Command Line Tools (%s), which have no Instruments: "
				  "xctrace needs a full Xcode\nfix: sudo xcode-select -s %s", devdir, suggest);
		else	/* no Xcode in /Applications: a path to select does not exist yet */
			lk_errbuf(why, len, "xcode-select points at the Command Line Tools (%s), which have no Instruments, "
				  "and no Xcode is installed in /Applications: xctrace needs a full Xcode\n"
				  "fix: install Xcode (App Store), then sudo xcode-select -s "
				  "/Applications/Xcode.app/Contents/Developer", devdir);
		return true;
	}
	return false;
}

/* The first line a helper command printed, when it exited 0. */
static bool helper_line(const char *const *argv, char *out, size_t len)
{
	int code = 0;
	if (lk_capture(argv, 60, out, len, &code) < 0 || code != 0)
		return false;
	out[strcspn(out, "\r\n")] = '\0';
	return out[0] != '\0';
}

/* A full Xcode in /Applications to suggest selecting (Xcode.app first, then Xcode-*.app), or "". */
static void xcode_to_suggest(char *out, size_t len)
{
	out[0] = '\0';
	glob_t g;
	if (glob("/Applications/Xcode*.app/Contents/Developer", 0, NULL, &g) == 0) {
		const char *pick = g.gl_pathv[0];
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (!strcmp(g.gl_pathv[i], "/Applications/Xcode.app/Contents/Developer"))
				pick = g.gl_pathv[i];
		snprintf(out, len, "%s", pick);
	}
	globfree(&g);
}

/*
 * A1/C6 (audit 4): Xcode's developer directory as xcrun finds it: $DEVELOPER_DIR
 * (xcrun honours it), then `xcrun --find xctrace` (DEV/usr/bin/xctrace), then
 * `xcode-select -p`, then /Applications/Xcode.app.  So an Xcode installed as
 * Xcode-16.2.app or Xcode-beta.app (the `xcodes` tool's names) is found
 * wherever it is, as xcrun finds it.  -LK_ENOTSUP with the fix in why when
 * the licence is not accepted or the Command Line Tools are selected.
 */
static int developer_dir(char *out, size_t len, char *why, size_t wlen)
{
	const char *env = getenv("DEVELOPER_DIR");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	char line[PATH_MAX + 512], suggest[PATH_MAX];
	static const char *const find[] = { "xcrun", "--find", "xctrace", NULL };
	static const char *const sel[] = { "xcode-select", "-p", NULL };
	int code = 0;
	if (lk_capture(find, 60, line, sizeof(line), &code) == 0) {
		if (code == 0 && xctrace_developer_dir_of(line, out, len) == 0)
			return 0;
		if (xctrace_xcode_problem(line, NULL, NULL, why, wlen))
			return -LK_ENOTSUP;
	}
	if (helper_line(sel, line, sizeof(line))) {
		xcode_to_suggest(suggest, sizeof(suggest));
		if (xctrace_xcode_problem(NULL, line, suggest, why, wlen))
			return -LK_ENOTSUP;
		lk_errbuf(out, len, "%s", line);
		return 0;
	}
	snprintf(out, len, "/Applications/Xcode.app/Contents/Developer");
	return 0;
}


static int find_xctrace(struct xctrace_priv *p, char *why, size_t len)
{
	char **prefix = p->prefix;
	const char *env = getenv("LAUKA_XCTRACE");
	if (env && *env) {
		if (exec_resolve(env, p->xctrace, sizeof(p->xctrace)) < 0) {
			lk_errbuf(why, len, "LAUKA_XCTRACE='%s' is not an executable", env);
			return -LK_ENOTSUP;
		}
		prefix[0] = p->xctrace;
		prefix[1] = NULL;
		return 0;
	}
#ifdef __APPLE__
	if (exec_resolve("xcrun", p->xcrun, sizeof(p->xcrun)) == 0) {
		prefix[0] = p->xcrun;
		prefix[1] = (char *)"xctrace";
		prefix[2] = NULL;
		return 0;
	}
	lk_errbuf(why, len, "xcrun not found: xctrace needs a full Xcode (not only the Command Line Tools)");
#else
	lk_errbuf(why, len, "xctrace is macOS only (set LAUKA_XCTRACE to use a replacement)");
#endif
	return -LK_ENOTSUP;
}

static int check_vm(char *why, size_t len)
{
#ifdef __APPLE__
	int v = 0;
	size_t sz = sizeof(v);
	if (sysctlbyname("kern.hv_vmm_present", &v, &sz, NULL, 0) == 0 && v == 1) {
		lk_errbuf(why, len, "this Mac is a virtual machine (kern.hv_vmm_present = 1): it has no hardware counters");
		return -LK_ENOTSUP;
	}
#endif
	(void)why;
	(void)len;
	return 0;
}

static int check_version(struct xctrace_priv *p, char *why, size_t len)
{
	char log[PATH_MAX + 32];
	path_in(p, "version.log", log, sizeof(log));
	static const char *const args[] = { "version", NULL };
	int code = 0;
	int r = run_tool(p, args, log, 60, &code, why, len);
	if (r < 0)
		return r;
	char *out = slurp(log);
	unlink(log);
	char ver[64] = "";
	int major = xctrace_parse_version(out, ver, sizeof(ver));
	if (code != 0 || major < 0) {
		char tail[200], dev[PATH_MAX] = "", sug[PATH_MAX];
		static const char *const sel[] = { "xcode-select", "-p", NULL };
		/* A1: the licence, or the Command Line Tools selected ("unable to find utility"), with the fix. */
		bool clt = strstr(out, "unable to find utility") && helper_line(sel, dev, sizeof(dev));
		if (clt)
			xcode_to_suggest(sug, sizeof(sug));
		if (xctrace_xcode_problem(out, clt ? dev : NULL, clt ? sug : NULL, why, len)) {
			free(out);
			return -LK_ENOTSUP;
		}
		last_line(out, tail, sizeof(tail));
		lk_errbuf(why, len, "'xctrace version' failed (exit %d): %s\ntip: open Xcode once (it finishes setting "
			  "itself up), then retry", code, tail[0] ? tail : "no output");
		free(out);
		return -LK_ENOTSUP;
	}
	free(out);
	snprintf(version_str, sizeof(version_str), "%s", ver);
	if (major < XCTRACE_MIN_VERSION) {
		lk_errbuf(why, len, "xctrace %s is too old: counters-profile needs version %d or later", ver,
			  XCTRACE_MIN_VERSION);
		return -LK_ENOTSUP;
	}
	return 0;
}

static int make_dir(struct xctrace_priv *p, char *err, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(p->dir, sizeof(p->dir), "%s/lauka-xctrace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir)) {
		lk_errbuf(err, len, "cannot create a directory for xctrace's traces in '%s': %s",
			  tmp && *tmp ? tmp : "/tmp", strerror(errno));
		p->dir[0] = '\0';
		return -LK_EIO;
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode))
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	else
		unlink(path);
}

static int xctrace_detect(char *why, size_t len)
{
	struct xctrace_priv p;
	memset(&p, 0, sizeof(p));
	int r = find_xctrace(&p, why, len);
	if (r < 0)
		return r;
	return check_vm(why, len);
}

/* $LAUKA_KPEP_FILE, else the running CPU's plist, found as the kperf backend finds it. */
static int kpep_path(char *path, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("LAUKA_KPEP_FILE");
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return 0;
	}
	char detail[512] = "";
	int r = kperf_kpep_locate(path, len, detail, sizeof(detail));
	if (r < 0)
		lk_errbuf(err, errlen, "no kpep database for this cpu (%s); set LAUKA_KPEP_FILE to a kpep plist",
			  detail[0] ? detail : lk_strerror(r));
	return r;
}

static int guided_catalog(struct lk_pmu *pmu)
{
	memset(pmu, 0, sizeof(*pmu));
	pmu->kind = xstrdup("xctrace");
	pmu->name = xstrdup("xctrace-guided");
	pmu->marketing_name = xstrdup("xctrace guided mode (CPU Counters template): unlabelled slots");
	pmu->arch = xstrdup(pmu_host_arch());
	pmu->source = xstrdup("builtin");
	for (unsigned i = 0; i < XCTRACE_GUIDED_SLOTS; i++) {
		char name[32], desc[112];
		snprintf(name, sizeof(name), "slot%u", i);
		snprintf(desc, sizeof(desc), "value %u of the guided mode's raw counter array (named by calibration)", i);
		struct lk_event ev = { .name = name, .description = desc, .number = i, .fixed_counter = -1 };
		pmu_add_event(pmu, &ev);
	}
	return 0;
}

static int xctrace_catalog(struct lk_pmu *out, char *err, size_t len)
{
	if (xctrace_guided())
		return guided_catalog(out);
	char path[PATH_MAX];
	int r = kpep_path(path, sizeof(path), err, len);
	if (r < 0)
		return r;
	return kpep_parse_file(path, out, err, len);
}

/* Xcode's own CPU Counters template: Instruments.app inside the developer directory. */
static bool find_named(const char *dir, const char *name, int depth, char *out, size_t len)
{
	if (depth > 8)
		return false;
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *de;
	bool found = false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (!strcmp(de->d_name, name)) {
			snprintf(out, len, "%s", path);
			found = true;
			break;
		}
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			found = find_named(path, name, depth + 1, out, len);
	}
	closedir(d);
	return found;
}

static int base_template(char *out, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("LAUKA_XCTRACE_TEMPLATE");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	/*
	 * The developer directory is Xcode.app/Contents/Developer: Instruments.app's
	 * resources, then the macOS platform's Templates directory (N6: where one
	 * public script finds it; which Xcode versions keep it there is not
	 * verified), then /Applications/Xcode.app's as before.
	 */
	char dev[PATH_MAX];
	int r = developer_dir(dev, sizeof(dev), err, errlen);
	if (r < 0)
		return r;
	char devapp[PATH_MAX + 64], devplat[PATH_MAX + 128];
	snprintf(devapp, sizeof(devapp), "%s/../Applications/Instruments.app", dev);
	snprintf(devplat, sizeof(devplat), "%s/" XCT_PLATFORM_TEMPLATES, dev);
	const char *roots[] = { devapp, devplat, "/Applications/Xcode.app/Contents/Applications/Instruments.app",
				"/Applications/Xcode.app/Contents/Developer/" XCT_PLATFORM_TEMPLATES };
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++)
		if (roots[i][0] && find_named(roots[i], XCT_GUIDED_TEMPLATE ".tracetemplate", 0, out, len))
			return 0;
	lk_errbuf(err, errlen, "no 'CPU Counters.tracetemplate' found in Xcode's Instruments.app or its macOS platform "
		  "Templates (developer directory %s); save one from Instruments and set "
		  "LAUKA_XCTRACE_TEMPLATE=/path/to/it", dev);
	return -LK_ENOENT;
}

/* Manual mode: the selection, in an add order that realises the scheduler's counters, into a template. */
static int write_template(struct xctrace_priv *p, char *err, size_t len)
{
	char base[PATH_MAX];
	int r = base_template(base, sizeof(base), err, len);
	if (r < 0)
		return r;
	snprintf(p->base_path, sizeof(p->base_path), "%s", base);
	char *buf = NULL;
	size_t n = 0;
	if ((r = lk_read_file(base, 16u << 20, &buf, &n)) < 0) {
		lk_errbuf(err, len, "cannot read the template '%s': %s", base,
			  r == -EINVAL ? "not a regular file" : r == -EFBIG ? "larger than 16 MiB (lauka's limit)" : strerror(-r));
		return -LK_EIO;
	}
	size_t cnt = p->n ? p->n : 1;
	uint64_t *mask = xcalloc(cnt, sizeof(*mask));
	bool *fixed = xcalloc(cnt, sizeof(*fixed)), *placed = xcalloc(cnt, sizeof(*placed));
	int *ctr = xcalloc(cnt, sizeof(*ctr));
	size_t *order = xcalloc(cnt, sizeof(*order));
	bool all = true;
	for (size_t i = 0; i < p->n; i++) {
		mask[i] = p->sel[i].ev->counters_mask;
		fixed[i] = p->sel[i].ev->fixed_counter >= 0;
		ctr[i] = p->sel[i].counter;
		all &= fixed[i] || ctr[i] >= 0;
	}
	if (!all)
		for (size_t i = 0; i < p->n; i++)
			ctr[i] = -1;
	kperf_agg_order(mask, fixed, ctr, p->n, order, placed);
	struct xct_tmpl_event *evs = xcalloc(cnt, sizeof(*evs));
	size_t k = 0;
	for (size_t j = 0; j < p->n; j++) {
		size_t i = order[j];
		if (!placed[i]) {
			p->sel[i].err = -LK_ESCHED;
			lk_errbuf(p->sel[i].why, sizeof(p->sel[i].why),
				  "no counter left for it: its counters are all taken by the other events");
			continue;
		}
		evs[k].name = p->sel[i].ev->name;
		evs[k].desc = p->sel[i].ev->description;
		k++;
	}
	struct xct_tmpl_opts o = { .events = evs, .nevents = k, .sample_us = XCT_SAMPLE_US };
	char *outb = NULL;
	size_t outn = 0;
	enum xct_tmpl_kind kind;
	char why[256];
	r = xct_template_patch(buf, n, &o, &outb, &outn, &kind, why, sizeof(why));
	if (r < 0)
		lk_errbuf(err, len, "template '%s': %s", base, why);
	else
		p->layout = kind == XCT_TMPL_LEGACY ? "legacy pmcEvents layout" : "Xcode 16+ optionsEncoded layout";
	free(buf);
	free(mask);
	free(fixed);
	free(placed);
	free(ctr);
	free(order);
	free(evs);
	if (r < 0)
		return r;
	path_in(p, "lauka.tracetemplate", p->template_path, sizeof(p->template_path));
	FILE *f = fopen(p->template_path, "w");
	if (!f || fwrite(outb, 1, outn, f) != outn || fclose(f) != 0) {
		lk_errbuf(err, len, "cannot write '%s': %s", p->template_path, strerror(errno));
		free(outb);
		return -LK_EIO;
	}
	free(outb);
	return 0;
}

static void ktrace_dir(struct xctrace_priv *p)
{
	const char *env = getenv("LAUKA_XCTRACE_TMPDIR");
	p->ktrace_dir[0] = '\0';
	if (env && *env) {
		snprintf(p->ktrace_dir, sizeof(p->ktrace_dir), "%s", env);
		return;
	}
#ifdef __APPLE__
	size_t n = confstr(_CS_DARWIN_USER_TEMP_DIR, p->ktrace_dir, sizeof(p->ktrace_dir));
	if (n == 0 || n > sizeof(p->ktrace_dir))
		p->ktrace_dir[0] = '\0';
#endif
}

static bool is_ktrace(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, "instruments", 11) && n > 7 && !strcmp(name + n - 7, ".ktrace");
}

static void ktrace_forget(struct xctrace_priv *p)
{
	for (size_t i = 0; i < p->nktrace_before; i++)
		free(p->ktrace_before[i]);
	free(p->ktrace_before);
	p->ktrace_before = NULL;
	p->nktrace_before = 0;
}

/* Remember the ktrace files of others (another Instruments session) so that only ours are deleted. */
static void ktrace_snapshot(struct xctrace_priv *p)
{
	ktrace_forget(p);
	p->ktrace_armed = true;
	DIR *d = p->ktrace_dir[0] ? opendir(p->ktrace_dir) : NULL;
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (is_ktrace(de->d_name)) {
			p->ktrace_before = xrealloc(p->ktrace_before, (p->nktrace_before + 1) * sizeof(char *));
			p->ktrace_before[p->nktrace_before++] = xstrdup(de->d_name);
		}
	closedir(d);
}

static void ktrace_sweep(struct xctrace_priv *p)
{
	if (!p->ktrace_armed)
		return;
	p->ktrace_armed = false;
	DIR *d = p->ktrace_dir[0] ? opendir(p->ktrace_dir) : NULL;
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_ktrace(de->d_name))
			continue;
		bool old = false;
		for (size_t i = 0; i < p->nktrace_before && !old; i++)
			old = !strcmp(p->ktrace_before[i], de->d_name);
		if (old)
			continue;
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", p->ktrace_dir, de->d_name);
		rm_tree(path);
	}
	closedir(d);
}

/* Everything a run leaves: the bundle, the exports, the logs, our ktrace files. */
/*
 * C9 (audit 4): $LAUKA_XCTRACE_KEEP names a directory where each run's TOC and
 * table export are copied (toc-N.xml, table-N.xml) before they are deleted:
 * the fixtures scripts/macos-fixtures.sh collects from a real Mac.
 */
static void keep_exports(const struct xctrace_priv *p)
{
	static unsigned n;
	const char *dir = getenv("LAUKA_XCTRACE_KEEP");
	if (!dir || !*dir)
		return;
	static const char *const names[] = { "toc", "table" };
	char toc[PATH_MAX + 32];
	path_in(p, "toc.xml", toc, sizeof(toc));
	if (access(toc, F_OK) != 0)
		return;		/* nothing exported since the last clean-up */
	n++;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char from[PATH_MAX + 32], to[PATH_MAX];
		char name[32];
		snprintf(name, sizeof(name), "%s.xml", names[i]);
		path_in(p, name, from, sizeof(from));
		char *buf = NULL;
		size_t len = 0;
		if (lk_read_file(from, XCT_LOG_MAX * 64, &buf, &len) < 0)
			continue;
		snprintf(to, sizeof(to), "%s/%s-%u.xml", dir, names[i], n);
		FILE *f = fopen(to, "w");
		if (f) {
			fwrite(buf, 1, len, f);
			fclose(f);
		}
		free(buf);
	}
}

static void clean_run(struct xctrace_priv *p)
{
	static const char *const names[] = { "run.trace", "toc.xml", "table.xml", "record.log", "record.log.fifo",
					     "record.log.done", "export.log", "watchdog.fired" };
	char path[PATH_MAX + 32];
	if (p->dir[0])
		keep_exports(p);
	for (size_t i = 0; p->dir[0] && i < ARRAY_SIZE(names); i++) {
		path_in(p, names[i], path, sizeof(path));
		rm_tree(path);
	}
	ktrace_sweep(p);
}

static void xctrace_close(void *priv);

static int xctrace_open(void *priv, struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	struct xctrace_priv *p = priv;
	p->sel = sel;
	p->n = n;
	p->guided = xctrace_guided();
	p->watchdog = -1;
	p->timeout_s = env_seconds("LAUKA_XCTRACE_TIMEOUT", 1800);
	p->grace_s = env_seconds("LAUKA_XCTRACE_GRACE", 15);
	int r;
	if ((r = find_xctrace(p, err, len)) < 0 || (r = check_vm(err, len)) < 0)
		return r;
	if ((r = make_dir(p, err, len)) < 0)
		return r;
	if ((r = check_version(p, err, len)) < 0)
		goto fail;
	ktrace_dir(p);
	if (p->guided) {
		for (size_t i = 0; i < n; i++)
			if (strncmp(sel[i].ev->name, "slot", 4)) {
				lk_errbuf(err, len, "guided mode records slots (slot0, slot1, ...), not '%s'", sel[i].ev->name);
				r = -LK_EINVAL;
				goto fail;
			}
		const char *t = getenv("LAUKA_XCTRACE_GUIDED_TEMPLATE");
		snprintf(p->template_path, sizeof(p->template_path), "%s", t && *t ? t : XCT_GUIDED_TEMPLATE);
		return 0;
	}
	if (xctrace_catalog(&p->pmu, err, len) == 0)
		p->have_pmu = true;
	if ((r = write_template(p, err, len)) < 0)
		goto fail;
	return 0;
fail:
	xctrace_close(p);
	return r;
}

/*
 * The shell between the spawner and xctrace.  Without --show-output the
 * spawner gives the child /dev/null as stdout: xctrace's own messages go to
 * the log read() checks, and the command's output is dropped as for every
 * backend.  With --show-output, `--target-stdout -` (as JMH records) has
 * xctrace pass the command's stdout through its own, and a tee behind a
 * FIFO shows it while still logging all of xctrace's output, whichever
 * stream its [Error] lines use (not known); xctrace stays the exec'd
 * process, so its pid is the one signalled and its exit status the run's.
 * The tee touches LOG.done when it has written everything.
 */
#define XCT_WRAPPER \
	"log=$1; shift\n" \
	"if [ /dev/stdout -ef /dev/null ]; then exec \"$@\" >\"$log\" 2>&1; fi\n" \
	"n=0; t=\n" \
	"for a do\n" \
	"  if [ \"$a\" = --launch ] && [ -z \"$t\" ]; then t=1; set -- \"$@\" --target-stdout -; fi\n" \
	"  set -- \"$@\" \"$a\"; n=$((n + 1))\n" \
	"done\n" \
	"shift $n\n" \
	"rm -f \"$log.fifo\" \"$log.done\"\n" \
	"mkfifo \"$log.fifo\" || exec \"$@\" >\"$log\" 2>&1\n" \
	"{ tee \"$log\" <\"$log.fifo\"; : >\"$log.done\"; } &\n" \
	"exec \"$@\" >\"$log.fifo\" 2>&1\n"

static char **xctrace_wrap_argv(void *priv, char *const argv[])
{
	struct xctrace_priv *p = priv;
	clean_run(p);
	p->have_exit = false;
	char bundle[PATH_MAX + 32], log[PATH_MAX + 32];
	path_in(p, "run.trace", bundle, sizeof(bundle));
	path_in(p, "record.log", log, sizeof(log));
	size_t np = 0, na = 0;
	while (p->prefix[np])
		np++;
	while (argv[na])
		na++;
	char **out = xcalloc(5 + np + 9 + na + 1, sizeof(*out));
	size_t k = 0;
	out[k++] = xstrdup("/bin/sh");
	out[k++] = xstrdup("-c");
	out[k++] = xstrdup(XCT_WRAPPER);
	out[k++] = xstrdup("lauka-xctrace");
	out[k++] = xstrdup(log);
	for (size_t i = 0; i < np; i++)
		out[k++] = xstrdup(p->prefix[i]);
	static const char *const rec[] = { "record", "--template" };
	for (size_t i = 0; i < ARRAY_SIZE(rec); i++)
		out[k++] = xstrdup(rec[i]);
	out[k++] = xstrdup(p->template_path);
	out[k++] = xstrdup("--output");
	out[k++] = xstrdup(bundle);
	out[k++] = xstrdup("--no-prompt");
	out[k++] = xstrdup("--launch");
	out[k++] = xstrdup("--");
	/* xctrace launches a path, not a name to look up in PATH */
	char path[PATH_MAX];
	out[k++] = xstrdup(na && exec_resolve(argv[0], path, sizeof(path)) == 0 ? path : argv[0]);
	for (size_t i = 1; i < na; i++)
		out[k++] = xstrdup(argv[i]);
	out[k] = NULL;
	return out;
}

/*
 * The watchdog: a child of lauka that outlives the recording only when it
 * hangs.  It ignores the terminal's SIGINT (lauka forwards that itself) and
 * leaves a marker so read() can say what happened.
 */
static int xctrace_attach(void *priv, pid_t pid, char *err, size_t len)
{
	struct xctrace_priv *p = priv;
	ktrace_snapshot(p);
	char marker[PATH_MAX + 32];
	path_in(p, "watchdog.fired", marker, sizeof(marker));
	pid_t w = fork();
	if (w < 0) {
		lk_errbuf(err, len, "fork (watchdog): %s", strerror(errno));
		return -LK_EIO;
	}
	if (w == 0) {
		/* Keep no descriptor of lauka's: the runner's gate pipe must close when lauka closes it. */
		long maxfd = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (maxfd > 0 && maxfd < 65536 ? maxfd : 1024); fd++)
			close(fd);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		uint64_t deadline = lk_now_ns() + (uint64_t)p->timeout_s * 1000000000ull;
		while (lk_now_ns() < deadline) {
			if (kill(pid, 0) < 0)
				_exit(0);
			sleep_ms(50);
		}
		int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			close(fd);
		kill(pid, SIGINT);
		for (unsigned i = 0; i < p->grace_s * 20; i++) {
			if (kill(pid, 0) < 0)
				_exit(0);
			sleep_ms(50);
		}
		kill(pid, SIGKILL);
		_exit(0);
	}
	p->watchdog = w;
	return 0;
}

static void stop_watchdog(struct xctrace_priv *p)
{
	if (p->watchdog > 0) {
		kill(p->watchdog, SIGKILL);
		while (waitpid(p->watchdog, NULL, 0) < 0 && errno == EINTR)
			;
	}
	p->watchdog = -1;
}

static void xctrace_exited(void *priv, pid_t pid)
{
	(void)pid;
	stop_watchdog(priv);
}

/* Resolve a TOC name (a mnemonic or an alias such as "Cycles") to the selection. */
static long sel_index(const struct xctrace_priv *p, const char *name)
{
	const char *canon = name;
	const struct lk_event *ev = p->have_pmu ? pmu_find(&p->pmu, name) : NULL;
	if (ev)
		canon = ev->name;
	for (size_t i = 0; i < p->n; i++)
		if (!lk_strcasecmp(p->sel[i].ev->name, canon) || !lk_strcasecmp(p->sel[i].ev->name, name))
			return (long)i;
	return -1;
}

static int export_table(struct xctrace_priv *p, const char *bundle, const char *xpath, const char *out,
			char *err, size_t len)
{
	char log[PATH_MAX + 32];
	path_in(p, "export.log", log, sizeof(log));
	const char *args[] = { "export", "--input", bundle, "--output", out, xpath ? "--xpath" : "--toc", xpath, NULL };
	int code = 0;
	int r = run_tool(p, args, log, XCT_EXPORT_TIMEOUT_S, &code, err, len);
	if (r < 0)
		return r;
	struct stat st;
	if (code != 0 || stat(out, &st) < 0) {
		char *msg = slurp(log);
		char tail[256];
		char *e = first_line_with(msg, "rror", NULL);
		last_line(msg, tail, sizeof(tail));
		lk_errbuf(err, len, "'xctrace export%s' failed (exit %d): %s", xpath ? "" : " --toc", code,
			  e ? e : tail[0] ? tail : "no output");
		free(e);
		free(msg);
		return -LK_EIO;
	}
	return 0;
}

/* One run's per-thread totals as JSON: named by the TOC (manual) or slotN (guided). */
static void detail_run(struct xctrace_priv *p, const struct xct_toc *toc, const struct xct_sum *s,
		       const struct xct_table *tb)
{
	struct strbuf *d = &p->detail;
	strbuf_reset(d);
	strbuf_addf(d, "{\"pid\": %ld, \"exit_status\": %d, \"rows\": %zu, \"rows_other_processes\": %zu, "
		    "\"rows_without_values\": %zu, \"threads\": [", toc->pid, toc->exit_status, s->rows, s->rows_other,
		    s->rows_blank);
	for (size_t t = 0; t < s->nthreads; t++) {
		const struct xct_thread *th = &s->threads[t];
		strbuf_addf(d, "%s{\"tid\": %lld, \"rows\": %zu, \"counts\": {", t ? ", " : "", (long long)th->tid, th->rows);
		bool first = true;
		for (size_t v = 0; v < s->nvalues; v++) {
			const char *name = tb && v < tb->nevents ? tb->events[v] : NULL;
			char slot[32];
			if (!name) {
				snprintf(slot, sizeof(slot), "slot%zu", v);
				name = slot;
			}
			strbuf_addf(d, "%s\"", first ? "" : ", ");
			for (const char *c = name; *c; c++)
				if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20)
					strbuf_add(d, c, 1);
			strbuf_addf(d, "\": %llu", (unsigned long long)th->values[v]);
			first = false;
		}
		strbuf_addf(d, "}}");
	}
	strbuf_addf(d, "]}");
}

/*
 * N2 (audit 3): how xctrace honours an event list written into a template
 * is not shown anywhere for Xcode 16's options layout (both real Xcode 16
 * templates have an empty list), so every manual recording is checked: each
 * event asked for must be in the TOC's pmc-events (or be the PMI trigger).
 * A missing one is an error naming it, what the recording holds and the
 * template, never a "not counted" row.
 */
static int check_recorded(const struct xctrace_priv *p, const struct xct_table *tb, char *err, size_t len)
{
	bool *seen = xcalloc(p->n ? p->n : 1, sizeof(*seen));
	for (size_t v = 0; v < tb->nevents; v++) {
		long i = sel_index(p, tb->events[v]);
		if (i >= 0)
			seen[i] = true;
	}
	if (tb->pmi_event && sel_index(p, tb->pmi_event) >= 0)
		seen[sel_index(p, tb->pmi_event)] = true;
	struct strbuf missing = STRBUF_INIT, held = STRBUF_INIT;
	for (size_t i = 0; i < p->n; i++)
		if (!p->sel[i].err && !seen[i])
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", p->sel[i].ev->name);
	for (size_t v = 0; v < tb->nevents; v++)
		strbuf_addf(&held, "%s%s", held.len ? ", " : "", tb->events[v]);
	int r = 0;
	if (missing.len) {
		lk_errbuf(err, len, "the recording lacks %s: its pmc-events are [%s]; xctrace did not record the events "
			  "lauka wrote into a copy of the template '%s' (%s); save a CPU Counters template with these "
			  "events in Instruments and set LAUKA_XCTRACE_TEMPLATE to it", strbuf_str(&missing),
			  strbuf_str(&held), p->base_path, p->layout ? p->layout : "?");
		r = -LK_EIO;
	}
	strbuf_release(&missing);
	strbuf_release(&held);
	free(seen);
	return r;
}

static int read_counts(struct xctrace_priv *p, const char *bundle, struct xct_toc *toc, struct lk_counts *out,
		       char *err, size_t len)
{
	char table[PATH_MAX + 32], why[512];
	path_in(p, "table.xml", table, sizeof(table));
	const struct xct_table *tb;
	if (p->guided) {
		tb = xct_toc_table(toc, XCT_RAW_SCHEMA, 0);
		if (!tb) {
			lk_errbuf(err, len, "the trace has no '%s' table (was it recorded with a guided CPU Counters template?)",
				  XCT_RAW_SCHEMA);
			return -LK_EIO;
		}
		snprintf(counting_mode, sizeof(counting_mode), "%s", tb->counting_mode ? tb->counting_mode : "");
	} else {
		tb = xct_toc_table(toc, "counters-profile", 0);
		if (!tb || !tb->has_events) {
			lk_errbuf(err, len, "the trace has no counters-profile table with pmc-events: the template did not "
				  "record counters");
			return -LK_EIO;
		}
		int c = check_recorded(p, tb, err, len);
		if (c < 0)
			return c;
	}
	int r = export_table(p, bundle, p->guided ? XCT_RAW_XPATH : XCT_CP_XPATH, table, err, len);
	if (r < 0)
		return r;
	struct xct_sum s;
	xct_sum_init(&s, toc->pid, p->guided ? 0 : tb->nevents, p->guided, tb->sample_rate_us * 1000);
	r = xct_export_parse_file(table, p->guided ? XCT_RAW_SCHEMA : "counters-profile", xct_sum_row, &s, why, sizeof(why));
	if (r < 0) {
		lk_errbuf(err, len, "the %s export: %s", p->guided ? XCT_RAW_SCHEMA : "counters-profile", why);
		xct_sum_release(&s);
		return -LK_EIO;
	}
	for (size_t i = 0; i < p->n; i++)
		out[i] = (struct lk_counts){ 0 };
	if (p->guided) {
		size_t nslots = xct_sum_slots(&s);
		double cov = xct_sum_coverage(&s);
		last_guided.nvalues = s.nvalues;
		last_guided.nslots = nslots;
		last_guided.coverage = cov;
		last_guided.baselines = s.baselines;
		for (size_t i = 0; i < p->n; i++) {
			size_t slot = (size_t)p->sel[i].ev->number;
			if (slot >= nslots)
				continue;
			out[i] = (struct lk_counts){ .value = s.totals[slot], .enabled = 1000000, .supported = true,
						     .running = (uint64_t)(cov * 1000000 + 0.5) };
			if (out[i].running == 0 && s.rows)
				out[i].running = 1;
		}
	} else {
		for (size_t v = 0; v < tb->nevents; v++) {
			long i = sel_index(p, tb->events[v]);
			if (i >= 0)
				out[i] = (struct lk_counts){ .value = s.totals[v], .enabled = 1, .running = 1, .supported = true };
		}
		/* PMI: the trigger event's total is the sum of the weights (each row is one threshold's worth). */
		if (tb->trigger && !strcmp(tb->trigger, "pmi") && tb->pmi_event && s.weight_kind == XCT_WEIGHT_PMI) {
			long i = sel_index(p, tb->pmi_event);
			if (i >= 0)
				out[i] = (struct lk_counts){ .value = s.weight, .enabled = 1, .running = 1, .supported = true };
		}
	}
	detail_run(p, toc, &s, p->guided ? NULL : tb);
	xct_sum_release(&s);
	return 0;
}

/* --show-output: the log is complete once the wrapper's tee has seen xctrace's end (up to 10 s). */
static void wait_for_tee(const struct xctrace_priv *p)
{
	char fifo[PATH_MAX + 32], done[PATH_MAX + 32];
	path_in(p, "record.log.fifo", fifo, sizeof(fifo));
	path_in(p, "record.log.done", done, sizeof(done));
	for (int i = 0; i < 1000 && access(fifo, F_OK) == 0 && access(done, F_OK) != 0; i++)
		sleep_ms(10);
}

static int xctrace_read(void *priv, const struct lk_run_info *run, struct lk_counts *out, char *err, size_t len)
{
	struct xctrace_priv *p = priv;
	char log[PATH_MAX + 32], bundle[PATH_MAX + 32], tocf[PATH_MAX + 32], marker[PATH_MAX + 32], why[512];
	path_in(p, "record.log", log, sizeof(log));
	path_in(p, "run.trace", bundle, sizeof(bundle));
	path_in(p, "toc.xml", tocf, sizeof(tocf));
	path_in(p, "watchdog.fired", marker, sizeof(marker));
	for (size_t i = 0; i < p->n; i++)
		out[i] = (struct lk_counts){ 0 };
	if (access(marker, F_OK) == 0) {
		lk_errbuf(err, len, "xctrace did not finish within %u s and was stopped (SIGINT, then SIGKILL after %u s); "
			  "set LAUKA_XCTRACE_TIMEOUT to allow longer runs", p->timeout_s, p->grace_s);
		return -LK_EIO;
	}
	wait_for_tee(p);
	char *text = slurp(log);
	int code = WIFEXITED(run->status) ? WEXITSTATUS(run->status) : 0;
	int sig = WIFSIGNALED(run->status) ? WTERMSIG(run->status) : 0;
	int r = xctrace_record_outcome(code, sig, text, why, sizeof(why));
	free(text);
	if (r < 0) {
		lk_errbuf(err, len, "%s", why);
		return r;
	}
	struct stat st;
	if (stat(bundle, &st) < 0) {
		lk_errbuf(err, len, "xctrace record ended (exit %d) without saving a trace", code);
		return -LK_EIO;
	}
	if ((r = export_table(p, bundle, NULL, tocf, err, len)) < 0)
		return r;
	struct xct_toc toc;
	if ((r = xct_toc_parse_file(tocf, &toc, why, sizeof(why))) < 0) {
		lk_errbuf(err, len, "the trace's table of contents: %s", why);
		return -LK_EIO;
	}
	if (toc.pid < 0 || !toc.has_exit) {
		lk_errbuf(err, len, "the trace's table of contents names no launched process with an exit status");
		xct_toc_release(&toc);
		return -LK_EIO;
	}
	p->have_exit = true;
	p->exit_code = toc.exit_status;
	r = read_counts(p, bundle, &toc, out, err, len);
	xct_toc_release(&toc);
	return r;
}

static bool xctrace_exit_status(void *priv, int *code)
{
	struct xctrace_priv *p = priv;
	if (!p->have_exit)
		return false;
	*code = p->exit_code;
	return true;
}

static char *xctrace_json_run(void *priv)
{
	struct xctrace_priv *p = priv;
	if (!p->detail.len)
		return NULL;
	char *s = xstrdup(strbuf_str(&p->detail));
	strbuf_reset(&p->detail);
	return s;
}

static void xctrace_detach(void *priv)
{
	struct xctrace_priv *p = priv;
	stop_watchdog(p);
	clean_run(p);
}

static void xctrace_close(void *priv)
{
	struct xctrace_priv *p = priv;
	stop_watchdog(p);
	if (p->dir[0]) {
		clean_run(p);
		rm_tree(p->dir);
		p->dir[0] = '\0';
	}
	ktrace_forget(p);
	if (p->have_pmu)
		pmu_release(&p->pmu);
	p->have_pmu = false;
	strbuf_release(&p->detail);
}

/* Manual defaults, then the guided slots: each mode's catalogue has only its own names. */
static const char *const xctrace_defaults[] = {
	"cycles", "instructions", "branch-misses",
	"slot0", "slot1", "slot2", "slot3", "slot4", "slot5", "slot6", "slot7", "slot8", "slot9", "slot10", "slot11",
	NULL,
};

/*
 * C10 (audit 4): lauka's first Ctrl-C reaches xctrace as SIGINT (the runner
 * forwards it to the group); xctrace then stops the recording and saves it,
 * which takes about 2.5 s (xctrace.md section 4).  The runner's own 1 s grace
 * would SIGKILL it while saving (a SIGKILLed xctrace has destroyed finished
 * recordings); it gets the backend's grace, $LAUKA_XCTRACE_GRACE (15 s).  A
 * second Ctrl-C still kills at once.  Not observed on a Mac.
 */
static unsigned xctrace_interrupt_grace_ms(void *priv)
{
	const struct xctrace_priv *p = priv;
	return (p->grace_s ? p->grace_s : env_seconds("LAUKA_XCTRACE_GRACE", 15)) * 1000u;
}

const struct lk_backend backend_xctrace = {
	.name = "xctrace",
	.desc = "configurable counters without root, recorded by Instruments (xcrun xctrace; macOS with Xcode)",
	.priv_size = sizeof(struct xctrace_priv),
	.detect = xctrace_detect,
	.catalog = xctrace_catalog,
	/* Each run costs seconds of xctrace start-up and export: only on request. */
	.opt_in = true,
	.defaults = xctrace_defaults,
	.open = xctrace_open,
	.wrap_argv = xctrace_wrap_argv,
	.attach = xctrace_attach,
	.exited = xctrace_exited,
	.read = xctrace_read,
	.detach = xctrace_detach,
	.close = xctrace_close,
	.exit_status = xctrace_exit_status,
	.interrupt_grace_ms = xctrace_interrupt_grace_ms,
	.json_run = xctrace_json_run,
	.json_scope = "launched process only",
};
