/* runner.c: fork/gate/exec/wait of one measured run, and signal forwarding. */
#include "runner.h"
#include "error.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t runner_interrupted;
static volatile pid_t running_child;

static void on_signal(int sig)
{
	runner_interrupted = sig;
	pid_t pid = running_child;
	if (pid > 0)
		kill(pid, sig);
}

void runner_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked wait returns EINTR and is retried by hand. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int runner_init(struct runner *r, const struct runner_opts *opts, char *err, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	r->errfd = -1;
	r->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (r->devnull < 0) {
		lk_errbuf(err, len, "cannot open /dev/null: %s", strerror(errno));
		return -LK_EIO;
	}
	if (!opts->show_output) {
		FILE *f = tmpfile();
		if (!f) {
			lk_errbuf(err, len, "cannot create a temporary file for the command's stderr: %s",
				  strerror(errno));
			close(r->devnull);
			return -LK_EIO;
		}
		r->errfd = dup(fileno(f));
		fclose(f);
		if (r->errfd >= 0)
			fcntl(r->errfd, F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

void runner_release(struct runner *r)
{
	if (r->devnull >= 0)
		close(r->devnull);
	if (r->errfd >= 0)
		close(r->errfd);
	r->devnull = r->errfd = -1;
}

static int check_exec(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int runner_resolve(const char *file, char *buf, size_t len)
{
	if (strchr(file, '/')) {
		snprintf(buf, len, "%s", file);
		int r = check_exec(buf);
		return r == -ENOENT || r == -ENOTDIR ? -ENOENT : r ? -EACCES : 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int seen_eacces = 0;
	for (const char *p = path;; p = strchr(p, ':') + 1) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n)
			snprintf(buf, len, "%.*s/%s", (int)n, p, file);
		else
			snprintf(buf, len, "./%s", file);
		int r = check_exec(buf);
		if (!r)
			return 0;
		if (r == -EACCES)
			seen_eacces = 1;
		if (!end)
			break;
	}
	return seen_eacces ? -EACCES : -ENOENT;
}

static void read_tail(int fd, char *out)
{
	out[0] = '\0';
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0)
		return;
	off_t start = size > RUNNER_TAIL_MAX ? size - RUNNER_TAIL_MAX : 0;
	ssize_t n = pread(fd, out, (size_t)(size - start), start);
	out[n > 0 ? n : 0] = '\0';
}

/* A pipe whose ends close at exec (one syscall where pipe2 exists). */
static int cloexec_pipe(int fd[2])
{
#ifdef __linux__
	return pipe2(fd, O_CLOEXEC);
#else
	if (pipe(fd) < 0)
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

/* In the child, after fork: only async-signal-safe calls until exec. */
static void child_exec(const struct runner *r, const char *path, char *const argv[],
		       int gate, int report)
{
	if (gate >= 0) {
		char c;
		while (read(gate, &c, 1) < 0 && errno == EINTR)
			;
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	dup2(r->devnull, 0);
	if (!r->opts.show_output) {
		dup2(r->devnull, 1);
		if (r->errfd >= 0)
			dup2(r->errfd, 2);
	}
	gid_t gid = (gid_t)r->opts.gid;
	if ((r->opts.gid >= 0 && (r->opts.groups ? setgroups((int)r->opts.ngroups, r->opts.groups)
						 : setgroups(1, &gid)) < 0) ||
	    (r->opts.gid >= 0 && setgid((gid_t)r->opts.gid) < 0) ||
	    (r->opts.uid >= 0 && setuid((uid_t)r->opts.uid) < 0)) {
		int e = errno;
		if (write(report, &e, sizeof(e)) < 0)
			_exit(126);
		_exit(126);
	}
	execv(path, argv);
	int e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

/*
 * The fast path when no backend needs the child before exec: posix_spawn,
 * which glibc and macOS implement with vfork semantics (no copy of lauka's
 * page tables), so lauka's per-run cost stays close to the bare minimum.
 * Exec failures come back as its return value.
 */
static pid_t spawn_child(const struct runner *r, const char *path, char *const argv[], int *exec_errno)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, def;
	pid_t pid = -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, r->devnull, 0);
	if (!r->opts.show_output) {
		posix_spawn_file_actions_adddup2(&fa, r->devnull, 1);
		if (r->errfd >= 0)
			posix_spawn_file_actions_adddup2(&fa, r->errfd, 2);
	}
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	extern char **environ;
	int e = posix_spawn(&pid, path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	*exec_errno = e;
	return e ? -1 : pid;
}

int runner_run(struct runner *r, const char *path, char *const argv[],
	       struct backend_inst *backends, size_t nbackends,
	       struct lk_counts *const *counts, struct runner_result *res,
	       char *err, size_t len)
{
	memset(res, 0, sizeof(*res));
	bool need_gate = false, need_zombie = false;
	char **wrapped = NULL;
	for (size_t i = 0; i < nbackends; i++) {
		need_gate |= backends[i].ops->attach != NULL;
		need_zombie |= backends[i].ops->exited != NULL;
		if (backends[i].ops->wrap_argv && !wrapped)
			wrapped = backends[i].ops->wrap_argv(backends[i].priv, argv);
	}
	if (wrapped) {
		path = wrapped[0];
		argv = wrapped;
	}
	if (r->errfd >= 0) {
		if (ftruncate(r->errfd, 0) < 0 || lseek(r->errfd, 0, SEEK_SET) < 0) {
			lk_errbuf(err, len, "cannot reset the stderr buffer: %s", strerror(errno));
			return -LK_EIO;
		}
	}

	int gate[2] = { -1, -1 }, report[2] = { -1, -1 };
	int ret = 0;
	uint64_t t0;
	pid_t pid;
	bool use_spawn = !need_gate && r->opts.uid < 0 && r->opts.gid < 0;
	if (use_spawn) {
		t0 = lk_now_ns();
		pid = spawn_child(r, path, argv, &res->exec_errno);
		if (pid < 0) {
			res->exit_code = res->exec_errno == ENOENT ? 127 : 126;
			goto out_pipes;
		}
		running_child = pid;
		goto wait_child;
	}
	if ((need_gate && cloexec_pipe(gate) < 0) || cloexec_pipe(report) < 0) {
		lk_errbuf(err, len, "pipe: %s", strerror(errno));
		return -LK_EIO;
	}

	t0 = lk_now_ns();
	pid = fork();
	if (pid < 0) {
		lk_errbuf(err, len, "fork: %s", strerror(errno));
		ret = -LK_EIO;
		goto out_pipes;
	}
	if (pid == 0) {
		close(report[0]);
		if (need_gate)
			close(gate[1]);
		child_exec(r, path, argv, need_gate ? gate[0] : -1, report[1]);
	}
	running_child = pid;
	close(report[1]);
	report[1] = -1;
	if (need_gate) {
		close(gate[0]);
		gate[0] = -1;
		for (size_t i = 0; i < nbackends; i++) {
			if (!backends[i].ops->attach)
				continue;
			ret = backends[i].ops->attach(backends[i].priv, pid, err, len);
			if (ret < 0) {
				kill(pid, SIGKILL);
				break;
			}
		}
		/* Closing the gate releases the child (read() returns 0). */
		close(gate[1]);
		gate[1] = -1;
	}

	ssize_t n;
	int exec_errno = 0;
	while ((n = read(report[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	if (n == sizeof(exec_errno))
		res->exec_errno = exec_errno ? exec_errno : EIO;

wait_child:
	if (need_zombie) {
		siginfo_t si;
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
		res->wall_ns = lk_now_ns() - t0;
		for (size_t i = 0; i < nbackends; i++)
			if (backends[i].ops->exited)
				backends[i].ops->exited(backends[i].priv, pid);
	}
	while (wait4(pid, &res->status, 0, &res->ru) < 0) {
		if (errno != EINTR) {
			lk_errbuf(err, len, "wait4: %s", strerror(errno));
			ret = ret ? ret : -LK_EIO;
			break;
		}
	}
	if (!need_zombie)
		res->wall_ns = lk_now_ns() - t0;
	running_child = 0;

	if (WIFEXITED(res->status))
		res->exit_code = WEXITSTATUS(res->status);
	else if (WIFSIGNALED(res->status)) {
		res->term_signal = WTERMSIG(res->status);
		res->exit_code = 128 + res->term_signal;
	}

	struct lk_run_info info = { .pid = pid, .status = res->status, .wall_ns = res->wall_ns, .rusage = &res->ru };
	for (size_t i = 0; i < nbackends && ret == 0; i++) {
		if (backends[i].ops->read) {
			int rr = backends[i].ops->read(backends[i].priv, &info, counts[i], err, len);
			if (rr < 0)
				ret = rr;
		}
	}
	for (size_t i = 0; i < nbackends && ret == 0; i++) {
		int code;
		if (backends[i].ops->exit_status && backends[i].ops->exit_status(backends[i].priv, &code)) {
			res->exit_code = code;
			res->term_signal = 0;
		}
	}
	for (size_t i = 0; i < nbackends; i++)
		if (backends[i].ops->detach)
			backends[i].ops->detach(backends[i].priv);
	if (res->exit_code != 0 && r->errfd >= 0)
		read_tail(r->errfd, res->tail);
out_pipes:
	for (int i = 0; i < 2; i++) {
		if (gate[i] >= 0)
			close(gate[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	if (wrapped) {
		for (char **a = wrapped; *a; a++)
			free(*a);
		free(wrapped);
	}
	return ret;
}
