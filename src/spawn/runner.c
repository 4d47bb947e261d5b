/* spawn/runner.c: one measured run through the spawner, signal forwarding to the command's process group. */
#include "spawn/runner.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "install-dirs.h"
#include "base/probe-path.h"
#include "spawn/spawner.h"
#include "base/sudo.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

volatile sig_atomic_t runner_interrupted;
static volatile sig_atomic_t nsignals;
static volatile pid_t running_pgid;	/* process group of the running command, 0 if none */
static volatile pid_t forwarded_to;	/* the group the first signal already went to */

/* First signal: pass it on to the command's group; any further one: SIGKILL the group. */
static void on_signal(int sig)
{
	if (!runner_interrupted)
		runner_interrupted = sig;
	if (!lk_interrupted)
		lk_interrupted = sig;
	nsignals++;
	pid_t g = running_pgid;
	if (g > 0) {
		kill(-g, nsignals > 1 ? SIGKILL : sig);
		forwarded_to = g;
	}
}

int runner_interrupt_hold(void)
{
	int sig = runner_interrupted;
	runner_interrupted = 0;
	lk_interrupted = 0;
	nsignals = 0;
	forwarded_to = 0;
	return sig;
}

void runner_interrupt_resume(int sig)
{
	if (sig && !runner_interrupted)
		runner_interrupted = sig;
	if (sig && !lk_interrupted)
		lk_interrupted = sig;
}

/*
 * Ctrl-Z: the terminal stops lauka's process group, but the command runs in
 * a group of its own, so stop it first, then stop lauka the default way;
 * when the shell continues lauka (fg, bg), continue the command too.
 */
static void on_tstp(int sig)
{
	int saved = errno;
	pid_t g = running_pgid;
	if (g > 0)
		kill(-g, SIGSTOP);
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	/* continued */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tstp;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	g = running_pgid;
	if (g > 0)
		kill(-g, SIGCONT);
	errno = saved;
}

bool runner_opts_sudo(struct runner_opts *o, struct sudo_user *su)
{
	if (!sudo_user(su))
		return false;
	o->uid = su->uid;
	o->gid = su->gid;
	o->groups = su->groups;
	o->ngroups = su->ngroups;
	sudo_user_env(su);
	return true;
}

void runner_signals_install(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked poll returns EINTR and the loop looks at what happened. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Job control only where the shell gave lauka some (SIGTSTP not ignored). */
	if (sigaction(SIGTSTP, NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
		sa.sa_handler = on_tstp;
		sigaction(SIGTSTP, &sa, NULL);
	}
}

static int set_flags(int fd, int fdflags, int flflags)
{
	if (fdflags >= 0 && fcntl(fd, F_SETFD, fdflags) < 0)
		return -1;
	if (flflags && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | flflags) < 0)
		return -1;
	return 0;
}

static int cloexec_pipe(int fd[2])
{
#ifdef __linux__
	return pipe2(fd, O_CLOEXEC);
#else
	if (pipe(fd) < 0)
		return -1;
	set_flags(fd[0], FD_CLOEXEC, 0);
	set_flags(fd[1], FD_CLOEXEC, 0);
	return 0;
#endif
}


/*
 * $LAUKA_SPAWN, else lauka-spawn next to the running binary (the build
 * tree), else the installed one in LIBEXECDIR/lauka (found like the probe
 * program, base/probe-path.h); empty: none, a fork of lauka is the spawner.
 */
static void find_spawner(char *buf, size_t len)
{
	buf[0] = '\0';
	const char *env = getenv("LAUKA_SPAWN");
	if (env) {
		if (*env && access(env, X_OK) == 0 && (size_t)snprintf(buf, len, "%s", env) >= len)
			buf[0] = '\0';
		return;
	}
#ifdef __linux__
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	probe_path_join(buf, len, self, ".", "lauka-spawn");
	if (access(buf, X_OK) == 0)
		return;
	probe_path_join(buf, len, self, LAUKA_LIBEXEC_REL "/lauka", "lauka-spawn");
	if (access(buf, X_OK) != 0)
		buf[0] = '\0';
#endif
}

int runner_init(struct runner *r, const struct runner_opts *opts, char *err, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	/* The groups go with every run's request, long after the caller's sudo_user may be gone. */
	if (opts->groups && opts->ngroups) {
		r->groups = xmalloc(opts->ngroups * sizeof(*r->groups));
		memcpy(r->groups, opts->groups, opts->ngroups * sizeof(*r->groups));
		r->opts.groups = r->groups;
	}
	r->errr = r->req = r->rep = -1;
	int req[2] = { -1, -1 }, rep[2] = { -1, -1 }, errp[2] = { -1, -1 };
	r->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (r->devnull < 0) {
		lk_errbuf(err, len, "cannot open /dev/null: %s", strerror(errno));
		FREE_AND_NULL(r->groups);
		return -LK_EIO;
	}
	if (cloexec_pipe(req) < 0 || cloexec_pipe(rep) < 0 || (!opts->show_output && cloexec_pipe(errp) < 0) ||
	    (errp[0] >= 0 && set_flags(errp[0], -1, O_NONBLOCK) < 0)) {
		const char *lim = lk_limit_reason(errno);
		lk_errbuf(err, len, "cannot create the pipes to the command: %s", lim ? lim : strerror(errno));
		goto fail;
	}
	char helper[4096];
	find_spawner(helper, sizeof(helper));
#ifdef __linux__
	static bool warned;
	if (!helper[0] && !warned && !getenv("LAUKA_SPAWN")) {
		warned = true;
		warning("lauka-spawn is missing (next to lauka and in LIBEXECDIR/lauka): commands start from a copy "
			"of lauka, so peak_rss cannot read below lauka's own size");
	}
#endif
	char a[5][24];
	snprintf(a[0], sizeof(a[0]), "%d", req[0]);
	snprintf(a[1], sizeof(a[1]), "%d", rep[1]);
	snprintf(a[2], sizeof(a[2]), "%d", r->devnull);
	snprintf(a[3], sizeof(a[3]), "%d", errp[1]);
	snprintf(a[4], sizeof(a[4]), "%ld", (long)getpid());
	char *argv[] = { helper, a[0], a[1], a[2], a[3], a[4], NULL };
	pid_t pid = fork();
	if (pid < 0) {
		lk_errbuf(err, len, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		if (helper[0]) {
			set_flags(req[0], 0, 0);
			set_flags(rep[1], 0, 0);
			set_flags(r->devnull, 0, 0);
			if (errp[1] >= 0)
				set_flags(errp[1], 0, 0);
			execv(helper, argv);
		}
		/* No lauka-spawn: this copy of lauka is the spawner (holding lauka's ends would keep it from ever seeing EOF). */
		close(req[1]);
		close(rep[0]);
		if (errp[0] >= 0)
			close(errp[0]);
#ifdef SPAWNER_DEATH_SIGNAL
		prctl(PR_SET_PDEATHSIG, SPAWNER_DEATH_SIGNAL);
#endif
		_exit(spawner_main(req[0], rep[1], r->devnull, errp[1]));
	}
	r->spawner = pid;
	r->spawner_exec = helper[0] != '\0';
	close(req[0]);
	close(rep[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	r->req = req[1];
	r->rep = rep[0];
	r->errr = errp[0];
	struct sp_rep ready;
	if (spawner_read_full(r->rep, &ready, sizeof(ready)) < 0 || ready.type != SP_READY) {
		lk_errbuf(err, len, "the spawner %s did not start", helper[0] ? helper : "(a fork of lauka)");
		runner_release(r);
		return -LK_EIO;
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (req[i] >= 0)
			close(req[i]);
		if (rep[i] >= 0)
			close(rep[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	close(r->devnull);
	r->devnull = -1;
	FREE_AND_NULL(r->groups);
	return -LK_EIO;
}

void runner_release(struct runner *r)
{
	/* A run abandoned half-way (lauka lost the spawner's answers): end it, or the wait below never returns. */
	if (r->busy) {
		if (r->busy > 0)
			kill(-r->busy, SIGKILL);
		if (r->spawner > 0)
			kill(r->spawner, SIGKILL);
	}
	r->busy = 0;
	if (r->req >= 0)
		close(r->req);	/* the spawner's read sees end-of-file and it exits */
	if (r->spawner > 0)
		while (waitpid(r->spawner, NULL, 0) < 0 && errno == EINTR)
			;
	if (r->rep >= 0)
		close(r->rep);
	if (r->devnull >= 0)
		close(r->devnull);
	if (r->errr >= 0)
		close(r->errr);
	r->devnull = r->errr = r->req = r->rep = -1;
	r->spawner = 0;
	cpulist_release(&r->pin);
	free(r->groups);
	r->groups = NULL;
	r->opts.groups = NULL;
}

/* Keep the last RUNNER_TAIL_MAX bytes of whatever the command wrote to stderr. */
static void drain_stderr(struct runner *r, bool keep)
{
	if (r->errr < 0)
		return;
	char buf[8192];
	for (;;) {
		ssize_t n = read(r->errr, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (!keep)
			continue;
		for (ssize_t i = 0; i < n; i++)
			r->ring[(r->ring_total + (uint64_t)i) % RUNNER_TAIL_MAX] = buf[i];
		r->ring_total += (uint64_t)n;
	}
}

static void ring_tail(const struct runner *r, char *out)
{
	size_t n = r->ring_total < RUNNER_TAIL_MAX ? (size_t)r->ring_total : RUNNER_TAIL_MAX;
	uint64_t start = r->ring_total - n;
	for (size_t i = 0; i < n; i++)
		out[i] = r->ring[(start + i) % RUNNER_TAIL_MAX];
	out[n] = '\0';
}

static int send_op(struct runner *r, uint32_t op)
{
	struct sp_req q = { .op = op };
	return spawner_write_full(r->req, &q, sizeof(q));
}

/* A request could not be written: the spawner is gone (errno says how). */
static int spawner_gone(char *err, size_t len)
{
	lk_errbuf(err, len, "cannot reach the spawner: %s", strerror(errno));
	return -LK_EIO;
}

static int send_run(struct runner *r, uint32_t flags, const char *path, char *const argv[])
{
	size_t ng = r->opts.gid >= 0 && r->opts.groups ? r->opts.ngroups : 0;
	size_t nw = (flags & SPF_AFFINITY) ? r->pin.nwords : 0;
	size_t body = nw * sizeof(unsigned long) + ng * sizeof(uint32_t) + strlen(path) + 1, argc = 0;
	for (; argv[argc]; argc++)
		body += strlen(argv[argc]) + 1;
	char *buf = xmalloc(sizeof(struct sp_req) + body);
	struct sp_req q = {
		.op = SP_RUN, .flags = flags, .uid = (int32_t)r->opts.uid, .gid = (int32_t)r->opts.gid,
		.ngroups = (uint32_t)ng, .argc = (uint32_t)argc, .bodylen = (uint32_t)body, .ncpuwords = (uint32_t)nw,
	};
	memcpy(buf, &q, sizeof(q));
	char *p = buf + sizeof(q);
	if (nw) {
		memcpy(p, r->pin.bits, nw * sizeof(unsigned long));
		p += nw * sizeof(unsigned long);
	}
	for (size_t i = 0; i < ng; i++) {
		uint32_t g = (uint32_t)r->opts.groups[i];
		memcpy(p, &g, sizeof(g));
		p += sizeof(g);
	}
	size_t n = strlen(path) + 1;
	memcpy(p, path, n);
	p += n;
	for (size_t i = 0; i < argc; i++) {
		n = strlen(argv[i]) + 1;
		memcpy(p, argv[i], n);
		p += n;
	}
	int ret = spawner_write_full(r->req, buf, sizeof(q) + body);
	free(buf);
	return ret;
}

/*
 * --show-output on lauka's own terminal, with lauka in its foreground: the
 * command's group gets the terminal for its run, as a shell hands it to a
 * job, so a pager or a program that sets terminal modes works instead of
 * being stopped by SIGTTIN/SIGTTOU.  The terminal's Ctrl-C and Ctrl-Z then
 * reach the command alone: a command killed by SIGINT stops lauka as its
 * own Ctrl-C would, and a Ctrl-Z stop (SP_STOPPED) stops lauka with it.
 * The descriptor of that terminal, or -1.
 */
static int terminal_for(const struct runner *r)
{
	if (!r->opts.show_output)
		return -1;
	for (int fd = STDERR_FILENO; fd >= STDIN_FILENO; fd--)
		if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return fd;
	return -1;
}

/* The terminal back to lauka's group: lauka is in the background now, so SIGTTOU is held off. */
static void take_terminal(int fd)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGTTOU);
	sigprocmask(SIG_BLOCK, &s, &old);
	tcsetpgrp(fd, getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * The command stopped on the terminal's Ctrl-Z: take the terminal back and
 * stop lauka the default way, so the shell sees the job stop; once
 * continued, hand the terminal on again if lauka got it back (fg, not bg)
 * and continue the command.  Where SIGTSTP is ignored for lauka, or its
 * group is orphaned (the kernel then discards SIGTSTP), it just goes on.
 */
static void stop_with(int fd, pid_t pgid)
{
	take_terminal(fd);
	struct sigaction dfl, old;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, NULL, &old);
	if (old.sa_handler != SIG_IGN) {
		sigset_t s, prev;
		sigemptyset(&s);
		sigaddset(&s, SIGTSTP);
		sigaction(SIGTSTP, &dfl, NULL);
		sigprocmask(SIG_UNBLOCK, &s, &prev);
		raise(SIGTSTP);
		sigprocmask(SIG_SETMASK, &prev, NULL);
		sigaction(SIGTSTP, &old, NULL);
	}
	if (tcgetpgrp(fd) == getpgrp())
		tcsetpgrp(fd, pgid);
	kill(-pgid, SIGCONT);
}

/* Signals that arrived before the command's group existed, and the grace period after the first. */
static void forward_pending(pid_t pgid, uint64_t *t_int, bool *killed, uint64_t grace_ns)
{
	if (!runner_interrupted || pgid <= 0 || *killed)
		return;
	uint64_t now = lk_now_ns();
	if (!*t_int) {
		*t_int = now;
		if (forwarded_to != pgid)
			kill(-pgid, runner_interrupted);
	}
	if (nsignals > 1 || now - *t_int >= grace_ns) {
		kill(-pgid, SIGKILL);
		*killed = true;
	}
}

/* One runner_run(): the backends measuring it, and what the spawner has said so far. */
struct one_run {
	struct runner *r;
	struct backend_inst *backends;
	size_t nbackends;
	bool *per_child;	/* backend i attaches to the command's pid (not bound to the spawner) */
	bool need_gate;		/* the command waits for SP_GO once its pid is known */
	bool need_zombie;	/* a backend reads the exited command before it is reaped */
	char **wrapped;		/* the argv a backend wraps the command in (valgrind), or NULL */
	int tty;		/* the terminal handed to the command (--show-output), or -1 */
	pid_t pid;		/* the command's pid and process group, once SP_PID came */
	struct sp_rep rep;	/* the last reply; SP_DONE's carries the status and times */
	uint64_t t_int;		/* when an interrupt was first forwarded */
	uint64_t grace_ns;	/* then SIGKILL this much later (backends' interrupt_grace_ms) */
	bool killed, done, lost;
	int ret;
	char *err;
	size_t len;
};

/* Bind every backend to the spawner, or note that it attaches to the command; a wrapped argv. */
static int run_bind(struct one_run *x, char *const argv[])
{
	for (size_t i = 0; i < x->nbackends; i++) {
		const struct lk_backend *ops = x->backends[i].ops;
		int bound = 0;
		if (ops->bind && (bound = ops->bind(x->backends[i].priv, x->r->spawner, x->err, x->len)) < 0)
			return bound;
		x->per_child[i] = ops->attach && !bound;
		x->need_gate |= x->per_child[i];
		x->need_zombie |= ops->exited != NULL;
		if (ops->wrap_argv && !x->wrapped)
			x->wrapped = ops->wrap_argv(x->backends[i].priv, argv);
	}
	return 0;
}

/* SP_PID: the command exists and waits at the gate: attach the per-child counters, hand it the terminal, let it go. */
static void run_started(struct one_run *x)
{
	pid_t pid = x->pid;
	running_pgid = pid;
	x->r->busy = pid;
	if (!x->need_gate)
		return;
	for (size_t i = 0; i < x->nbackends && x->ret == 0; i++) {
		if (!x->per_child[i])
			continue;
		x->ret = x->backends[i].ops->attach(x->backends[i].priv, pid, x->err, x->len);
		if (x->ret < 0)
			kill(-pid, SIGKILL);
	}
	if (x->tty >= 0 && tcsetpgrp(x->tty, pid) < 0)
		x->tty = -1;	/* stays in the background, as without a terminal */
	if (send_op(x->r, SP_GO) < 0) {
		x->ret = spawner_gone(x->err, x->len);
		x->lost = true;
	}
}

/* One reply of the spawner. */
static void run_reply(struct one_run *x)
{
	switch (x->rep.type) {
	case SP_PID:
		x->pid = x->rep.pid;
		run_started(x);
		break;
	case SP_EXITED:
		for (size_t i = 0; i < x->nbackends; i++)
			if (x->backends[i].ops->exited)
				x->backends[i].ops->exited(x->backends[i].priv, x->pid);
		if (send_op(x->r, SP_REAP) < 0) {
			x->ret = spawner_gone(x->err, x->len);
			x->lost = true;
		}
		break;
	case SP_STOPPED:
		if (x->tty >= 0)
			stop_with(x->tty, x->pid);
		break;
	case SP_DONE:
		x->done = true;
		x->r->busy = 0;
		break;
	default:
		lk_errbuf(x->err, x->len, "the spawner answered nonsense (%u)", (unsigned)x->rep.type);
		x->ret = -LK_EIO;
		x->lost = true;
	}
}

/*
 * Until SP_DONE (or the spawner is lost): the replies, the command's stderr, and interrupts,
 * forwarded to the command's group with a grace period before SIGKILL.
 */
static void run_wait(struct one_run *x)
{
	struct runner *r = x->r;
	while (!x->done && !x->lost) {
		forward_pending(x->pid, &x->t_int, &x->killed, x->grace_ns);
		int timeout = -1;
		if (x->t_int && !x->killed) {
			uint64_t left = x->grace_ns - (lk_now_ns() - x->t_int);
			timeout = (int)(left / 1000000u) + 1;
		}
		if (r->idle && (timeout < 0 || timeout > 1000))
			timeout = 1000;
		struct pollfd pf[2] = { { .fd = r->rep, .events = POLLIN }, { .fd = r->errr, .events = POLLIN } };
		int np = poll(pf, r->errr >= 0 ? 2 : 1, timeout);
		if (np == 0 && r->idle)
			r->idle(r->idle_arg);
		if (np < 0 && errno != EINTR) {
			lk_errbuf(x->err, x->len, "poll: %s", strerror(errno));
			x->ret = -LK_EIO;
			x->lost = true;
			break;
		}
		if (np <= 0)
			continue;
		if (r->errr >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
			drain_stderr(r, true);
		if (!(pf[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (spawner_read_full(r->rep, &x->rep, sizeof(x->rep)) < 0) {
			lk_errbuf(x->err, x->len, "the spawner died");
			x->ret = -LK_EIO;
			x->lost = true;
			break;
		}
		run_reply(x);
	}
}

/* The finished run's status and times, every backend's counts, and the end of its stderr when it failed. */
static void run_result(struct one_run *x, struct lk_counts *const *counts, struct runner_result *res)
{
	const struct sp_rep *rep = &x->rep;
	res->status = rep->status;
	res->ru = rep->ru;
	res->exec_errno = rep->exec_errno;
	res->tty_stop = rep->tty_stop;
	res->wall_ns = rep->t1 > rep->t0 ? rep->t1 - rep->t0 : 0;
	if (WIFEXITED(res->status))
		res->exit_code = WEXITSTATUS(res->status);
	else if (WIFSIGNALED(res->status)) {
		res->term_signal = WTERMSIG(res->status);
		res->exit_code = 128 + res->term_signal;
	}
	if (x->pid > 0) {
		struct lk_run_info info = { .pid = x->pid, .status = res->status, .wall_ns = res->wall_ns,
					    .rusage = &res->ru };
		for (size_t i = 0; i < x->nbackends && x->ret == 0; i++) {
			if (x->backends[i].ops->read) {
				int rr = x->backends[i].ops->read(x->backends[i].priv, &info, counts[i], x->err, x->len);
				if (rr < 0)
					x->ret = rr;
			}
		}
	}
	for (size_t i = 0; i < x->nbackends && x->ret == 0; i++) {
		int code;
		if (x->backends[i].ops->exit_status && x->backends[i].ops->exit_status(x->backends[i].priv, &code)) {
			res->exit_code = code;
			res->term_signal = 0;
		}
	}
	if (res->exit_code != 0)
		ring_tail(x->r, res->tail);
}

void runner_pin(struct runner *r, const struct lk_cpus *cpus)
{
	if (cpus && cpulist_count(cpus))
		cpulist_copy(&r->pin, cpus);
	else
		cpulist_release(&r->pin);
}

int runner_cpus_allowed(struct lk_cpus *out)
{
	out->bits = NULL;
	out->nwords = 0;
#ifdef __linux__
	/* sched_getaffinity fails with EINVAL while the buffer is smaller than the kernel's cpumask */
	for (size_t nw = 16; nw <= 4096; nw *= 2) {
		unsigned long *bits = xcalloc(nw, sizeof(*bits));
		if (sched_getaffinity(0, nw * sizeof(*bits), (cpu_set_t *)(void *)bits) == 0) {
			out->bits = bits;
			out->nwords = nw;
			return 0;
		}
		int e = errno;
		free(bits);
		if (e != EINVAL)
			return -LK_EIO;
	}
	return -LK_EIO;
#else
	return -LK_ENOTSUP;
#endif
}

int runner_run(struct runner *r, const char *path, char *const argv[],
	       struct backend_inst *backends, size_t nbackends,
	       struct lk_counts *const *counts, struct runner_result *res,
	       char *err, size_t len)
{
	memset(res, 0, sizeof(*res));
	if (r->req < 0) {
		lk_errbuf(err, len, "the spawner is not running");
		return -LK_EIO;
	}
	struct one_run x = { .r = r, .backends = backends, .nbackends = nbackends, .err = err, .len = len };
	x.per_child = xcalloc(nbackends ? nbackends : 1, sizeof(bool));
	x.grace_ns = (uint64_t)RUNNER_GRACE_MS * 1000000u;
	for (size_t i = 0; i < nbackends; i++)
		if (backends[i].ops->interrupt_grace_ms) {
			uint64_t g = (uint64_t)backends[i].ops->interrupt_grace_ms(backends[i].priv) * 1000000u;
			x.grace_ns = g > x.grace_ns ? g : x.grace_ns;
		}
	int bound = run_bind(&x, argv);
	if (bound < 0) {
		free(x.per_child);
		return bound;
	}
	if (x.wrapped) {
		path = x.wrapped[0];
		argv = x.wrapped;
	}
	x.tty = terminal_for(r);
	x.need_gate |= x.tty >= 0;	/* the child waits until its group has the terminal */
	/* Output a previous run's stray grandchildren wrote late belongs to no run. */
	drain_stderr(r, false);
	r->ring_total = 0;

	uint32_t flags = (x.need_gate ? SPF_GATE : 0) | (x.need_zombie ? SPF_ZOMBIE : 0) |
			 (x.tty >= 0 ? SPF_TERMINAL : 0) | (r->opts.show_output ? SPF_OUTPUT : 0) |
			 (r->opts.show_output && r->opts.output_to_stderr ? SPF_OUT_TO_ERR : 0) |
			 (r->opts.uid >= 0 || r->opts.gid >= 0 ? SPF_CREDS : 0) |
			 (cpulist_count(&r->pin) ? SPF_AFFINITY : 0);
	if (send_run(r, flags, path, argv) < 0) {
		x.ret = spawner_gone(err, len);
		goto out;
	}
	r->busy = -1;
	run_wait(&x);
	running_pgid = 0;
	if (x.tty >= 0)
		take_terminal(x.tty);
	/* With the terminal, Ctrl-C went to the command alone: its death by SIGINT is lauka's Ctrl-C. */
	if (x.done && x.tty >= 0 && WIFSIGNALED(x.rep.status) && WTERMSIG(x.rep.status) == SIGINT &&
	    !runner_interrupted)
		runner_interrupted = SIGINT;
	if (!x.done)
		goto out;
	/* Interrupted: nothing the command left behind in its group outlives lauka's stop. */
	if (runner_interrupted && x.pid > 0)
		kill(-x.pid, SIGKILL);
	drain_stderr(r, true);
	run_result(&x, counts, res);
	/* A child the command left running keeps its process group (= its pid) alive; EPERM: one of another user's. */
	if (x.pid > 0 && !runner_interrupted && (kill(-x.pid, 0) == 0 || errno == EPERM))
		res->lingering = true;
out:
	for (size_t i = 0; i < nbackends; i++)
		if (backends[i].ops->detach)
			backends[i].ops->detach(backends[i].priv);
	free(x.per_child);
	if (x.wrapped) {
		for (char **a = x.wrapped; *a; a++)
			free(*a);
		free(x.wrapped);
	}
	return x.ret;
}
