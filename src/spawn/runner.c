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
#ifdef __linux__
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
	size_t body = ng * sizeof(uint32_t) + strlen(path) + 1, argc = 0;
	for (; argv[argc]; argc++)
		body += strlen(argv[argc]) + 1;
	char *buf = xmalloc(sizeof(struct sp_req) + body);
	struct sp_req q = {
		.op = SP_RUN, .flags = flags, .uid = (int32_t)r->opts.uid, .gid = (int32_t)r->opts.gid,
		.ngroups = (uint32_t)ng, .argc = (uint32_t)argc, .bodylen = (uint32_t)body,
	};
	memcpy(buf, &q, sizeof(q));
	char *p = buf + sizeof(q);
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
static void forward_pending(pid_t pgid, uint64_t *t_int, bool *killed)
{
	if (!runner_interrupted || pgid <= 0 || *killed)
		return;
	uint64_t now = lk_now_ns();
	if (!*t_int) {
		*t_int = now;
		if (forwarded_to != pgid)
			kill(-pgid, runner_interrupted);
	}
	if (nsignals > 1 || now - *t_int >= (uint64_t)RUNNER_GRACE_MS * 1000000u) {
		kill(-pgid, SIGKILL);
		*killed = true;
	}
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
	bool need_gate = false, need_zombie = false;
	bool *per_child = xcalloc(nbackends ? nbackends : 1, sizeof(bool));
	char **wrapped = NULL;
	int ret = 0;
	for (size_t i = 0; i < nbackends; i++) {
		const struct lk_backend *ops = backends[i].ops;
		int bound = 0;
		if (ops->bind && (bound = ops->bind(backends[i].priv, r->spawner, err, len)) < 0) {
			free(per_child);
			return bound;
		}
		per_child[i] = ops->attach && !bound;
		need_gate |= per_child[i];
		need_zombie |= ops->exited != NULL;
		if (ops->wrap_argv && !wrapped)
			wrapped = ops->wrap_argv(backends[i].priv, argv);
	}
	if (wrapped) {
		path = wrapped[0];
		argv = wrapped;
	}
	int tty = terminal_for(r);
	need_gate |= tty >= 0;	/* the child waits until its group has the terminal */
	/* Output a previous run's stray grandchildren wrote late belongs to no run. */
	drain_stderr(r, false);
	r->ring_total = 0;

	uint32_t flags = (need_gate ? SPF_GATE : 0) | (need_zombie ? SPF_ZOMBIE : 0) | (tty >= 0 ? SPF_TERMINAL : 0) |
			 (r->opts.show_output ? SPF_OUTPUT : 0) |
			 (r->opts.uid >= 0 || r->opts.gid >= 0 ? SPF_CREDS : 0);
	if (send_run(r, flags, path, argv) < 0) {
		ret = spawner_gone(err, len);
		goto out;
	}
	r->busy = -1;
	struct sp_rep rep;
	pid_t pid = 0;
	uint64_t t_int = 0;
	bool killed = false, done = false, lost = false;
	while (!done && !lost) {
		forward_pending(pid, &t_int, &killed);
		int timeout = -1;
		if (t_int && !killed) {
			uint64_t left = (uint64_t)RUNNER_GRACE_MS * 1000000u - (lk_now_ns() - t_int);
			timeout = (int)(left / 1000000u) + 1;
		}
		struct pollfd pf[2] = { { .fd = r->rep, .events = POLLIN }, { .fd = r->errr, .events = POLLIN } };
		int np = poll(pf, r->errr >= 0 ? 2 : 1, timeout);
		if (np < 0 && errno != EINTR) {
			lk_errbuf(err, len, "poll: %s", strerror(errno));
			ret = -LK_EIO;
			lost = true;
			break;
		}
		if (np <= 0)
			continue;
		if (r->errr >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
			drain_stderr(r, true);
		if (!(pf[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (spawner_read_full(r->rep, &rep, sizeof(rep)) < 0) {
			lk_errbuf(err, len, "the spawner died");
			ret = -LK_EIO;
			lost = true;
			break;
		}
		switch (rep.type) {
		case SP_PID:
			pid = rep.pid;
			running_pgid = pid;
			r->busy = pid;
			if (!need_gate)
				break;
			for (size_t i = 0; i < nbackends && ret == 0; i++) {
				if (!per_child[i])
					continue;
				ret = backends[i].ops->attach(backends[i].priv, pid, err, len);
				if (ret < 0)
					kill(-pid, SIGKILL);
			}
			if (tty >= 0 && tcsetpgrp(tty, pid) < 0)
				tty = -1;	/* stays in the background, as without a terminal */
			if (send_op(r, SP_GO) < 0) {
				ret = spawner_gone(err, len);
				lost = true;
			}
			break;
		case SP_EXITED:
			for (size_t i = 0; i < nbackends; i++)
				if (backends[i].ops->exited)
					backends[i].ops->exited(backends[i].priv, pid);
			if (send_op(r, SP_REAP) < 0) {
				ret = spawner_gone(err, len);
				lost = true;
			}
			break;
		case SP_STOPPED:
			if (tty >= 0)
				stop_with(tty, pid);
			break;
		case SP_DONE:
			done = true;
			r->busy = 0;
			break;
		default:
			lk_errbuf(err, len, "the spawner answered nonsense (%u)", (unsigned)rep.type);
			ret = -LK_EIO;
			lost = true;
		}
	}
	running_pgid = 0;
	if (tty >= 0)
		take_terminal(tty);
	/* With the terminal, Ctrl-C went to the command alone: its death by SIGINT is lauka's Ctrl-C. */
	if (done && tty >= 0 && WIFSIGNALED(rep.status) && WTERMSIG(rep.status) == SIGINT && !runner_interrupted)
		runner_interrupted = SIGINT;
	if (!done)
		goto out;
	/* Interrupted: nothing the command left behind in its group outlives lauka's stop. */
	if (runner_interrupted && pid > 0)
		kill(-pid, SIGKILL);
	drain_stderr(r, true);

	res->status = rep.status;
	res->ru = rep.ru;
	res->exec_errno = rep.exec_errno;
	res->tty_stop = rep.tty_stop;
	res->wall_ns = rep.t1 > rep.t0 ? rep.t1 - rep.t0 : 0;
	if (WIFEXITED(res->status))
		res->exit_code = WEXITSTATUS(res->status);
	else if (WIFSIGNALED(res->status)) {
		res->term_signal = WTERMSIG(res->status);
		res->exit_code = 128 + res->term_signal;
	}
	if (pid > 0) {
		struct lk_run_info info = { .pid = pid, .status = res->status, .wall_ns = res->wall_ns, .rusage = &res->ru };
		for (size_t i = 0; i < nbackends && ret == 0; i++) {
			if (backends[i].ops->read) {
				int rr = backends[i].ops->read(backends[i].priv, &info, counts[i], err, len);
				if (rr < 0)
					ret = rr;
			}
		}
	}
	for (size_t i = 0; i < nbackends && ret == 0; i++) {
		int code;
		if (backends[i].ops->exit_status && backends[i].ops->exit_status(backends[i].priv, &code)) {
			res->exit_code = code;
			res->term_signal = 0;
		}
	}
	if (res->exit_code != 0)
		ring_tail(r, res->tail);
out:
	for (size_t i = 0; i < nbackends; i++)
		if (backends[i].ops->detach)
			backends[i].ops->detach(backends[i].priv);
	free(per_child);
	if (wrapped) {
		for (char **a = wrapped; *a; a++)
			free(*a);
		free(wrapped);
	}
	return ret;
}
