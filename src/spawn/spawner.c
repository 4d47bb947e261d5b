/*
 * spawn/spawner.c: the spawner loop (see spawn/spawner.h).  Built twice: into lauka
 * (the fork fallback) and, with src/spawn/lauka-spawn.c, as the static
 * lauka-spawn program.  Only system calls here: no stdio, no malloc.
 */
#include "spawn/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile pid_t sp_running;	/* the command's pid (= its process group), 0 between runs */
static int sp_chld[2] = { -1, -1 };	/* SIGCHLD's self-pipe (non-blocking), for the parent watch */
static int sp_req = -1;			/* lauka's request pipe, watched for EOF while a command runs */

uint64_t spawner_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int spawner_read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int spawner_write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A buffer grown with mmap (async-signal-safe, unlike malloc). */
struct sp_buf {
	char *p;
	size_t cap;
};

static int buf_reserve(struct sp_buf *b, size_t n)
{
	if (n <= b->cap)
		return 0;
	size_t cap = 65536;
	while (cap < n)
		cap *= 2;
	void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if (b->p)
		munmap(b->p, b->cap);
	b->p = p;
	b->cap = cap;
	return 0;
}

/* Every catchable signal back to its default, nothing blocked: what the command would get from a shell. */
static void reset_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * The CPUs the command may run on (SPF_AFFINITY), set in the child before exec, so that it never
 * runs elsewhere: the kernel moves a task off a CPU its new mask excludes at once
 * (sched_setaffinity -> __set_cpus_allowed_ptr in kernel/sched/core.c), and exec and fork keep
 * the mask.  posix_spawn has no attribute for it, so such a run takes the fork path.
 */
static int set_affinity(const struct sp_req *q, const unsigned long *mask)
{
#ifdef __linux__
	if (sched_setaffinity(0, (size_t)q->ncpuwords * sizeof(*mask), (const cpu_set_t *)(const void *)mask) < 0)
		return errno ? errno : EINVAL;
	return 0;
#else
	(void)q;
	(void)mask;
	return ENOSYS;	/* macOS has no CPU affinity (lauka asks for it on Linux only) */
#endif
}

/* The slow path, for a gate, a credential switch or a CPU mask: fork, prepare, wait, exec. */
static pid_t fork_child(const struct sp_req *q, const unsigned long *mask, const uint32_t *groups, const char *path,
			char *const argv[], int devnull, int errw, const int gate[2], const int report[2])
{
	pid_t pid = fork();
	if (pid != 0) {
		if (pid > 0)
			setpgid(pid, pid);	/* also in the child: whichever runs first */
		return pid;
	}
	/* The gate opens when its last write end closes: the child must not hold one. */
	if (gate[1] >= 0)
		close(gate[1]);
	close(report[0]);
	setpgid(0, 0);
	reset_signals();
	dup2(devnull, 0);
	if (!(q->flags & SPF_OUTPUT)) {
		dup2(devnull, 1);
		if (errw >= 0)
			dup2(errw, 2);
	} else if (q->flags & SPF_OUT_TO_ERR)
		dup2(2, 1);
	int e = 0;
	if (q->flags & SPF_AFFINITY)
		e = set_affinity(q, mask);
	if (!e && (q->flags & SPF_CREDS)) {
		_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gids travel as uint32");
		const gid_t *gl = (const gid_t *)(const void *)groups;
		gid_t g = (gid_t)q->gid;
		if ((q->gid >= 0 && (q->ngroups ? setgroups((int)q->ngroups, gl) : setgroups(1, &g)) < 0) ||
		    (q->gid >= 0 && setgid(g) < 0) || (q->uid >= 0 && setuid((uid_t)q->uid) < 0))
			e = errno ? errno : EPERM;
	}
	if (!e && gate[0] >= 0) {
		char c;
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
	}
	if (!e) {
		execv(path, argv);
		e = errno;
	}
	if (write(report[1], &e, sizeof(e)) < 0)
		_exit(126);
	_exit(e == ENOENT ? 127 : 126);
}

static pid_t spawn_child(const struct sp_req *q, const char *path, char *const argv[], int devnull, int errw,
			 int *exec_errno)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	pid_t pid = -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, devnull, 0);
	if (!(q->flags & SPF_OUTPUT)) {
		posix_spawn_file_actions_adddup2(&fa, devnull, 1);
		if (errw >= 0)
			posix_spawn_file_actions_adddup2(&fa, errw, 2);
	} else if (q->flags & SPF_OUT_TO_ERR)
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	int e = posix_spawn(&pid, path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	*exec_errno = e;
	return e ? -1 : pid;
}

static int reply(int rep, uint32_t type, struct sp_rep *r)
{
	r->type = type;
	return spawner_write_full(rep, r, sizeof(*r));
}

/* lauka died: take the command (its whole group) along. */
static void parent_gone(void)
{
	pid_t g = sp_running;
	if (g > 0) {
		kill(-g, SIGKILL);
		kill(g, SIGKILL);
	}
	_exit(1);
}

static void on_chld(int sig)
{
	(void)sig;
	int saved = errno;
	ssize_t n = write(sp_chld[1], "", 1);	/* full pipe: a wake-up is pending anyway */
	(void)n;
	errno = saved;
}

/*
 * Return once pid has a state change to report, watching lauka's request pipe meanwhile: when lauka
 * dies, however it dies (SIGKILL too), the kernel closes its end and poll() sees the pipe's end of
 * file; the command's group is then killed.  This is the parent-death watch of systems without
 * PR_SET_PDEATHSIG (macOS: its pipes report EOF as readable with nothing to read, which FIONREAD
 * tells apart; not run on a Mac here); on Linux both are armed.  lauka writes nothing while a
 * command runs: bytes on the pipe stop the watch (the plain blocking wait follows) rather than spin.
 */
static void await_change(pid_t pid)
{
	int req = sp_chld[0] >= 0 ? sp_req : -1;
	while (req >= 0) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOWAIT | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (si.si_pid)
			return;
		struct pollfd pf[2] = { { sp_chld[0], POLLIN, 0 }, { req, POLLIN, 0 } };
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		char drain[64];
		while (pf[0].revents && read(sp_chld[0], drain, sizeof(drain)) > 0)
			;
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			int avail = 0;
			if (!(pf[1].revents & POLLIN) || (ioctl(req, FIONREAD, &avail) == 0 && avail == 0))
				parent_gone();
			req = -1;
		}
	}
}

/*
 * Until the child has exited, leaving it unreaped (WNOWAIT) for the caller.
 * A command stopped by SIGTTIN or SIGTTOU touched the terminal from its
 * background process group (read from it, changed its settings, or wrote to
 * it under `stty tostop`): nothing will ever continue it, so rather than
 * wait for ever it is killed, with its group, and the stop reported.  Other
 * stops are job control (Ctrl-Z, which lauka forwards, then SIGCONT): wait on,
 * telling lauka of a SIGTSTP when the child's group has the terminal (then
 * the terminal's Ctrl-Z reached the command, not lauka, which must stop too).
 * Only the direct child's stops reach the spawner; a grandchild stopped so
 * (a pager a command starts) still waits for lauka's Ctrl-C.
 */
static void wait_exit(pid_t pid, struct sp_rep *r, int rep, bool terminal)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		await_change(pid);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (si.si_code != CLD_STOPPED)
			return;
		/* Take the stop report, so the next wait sees what comes after it. */
		while (waitid(P_PID, (id_t)pid, &si, WSTOPPED) < 0 && errno == EINTR)
			;
		if (si.si_status == SIGTTIN || si.si_status == SIGTTOU) {
			r->tty_stop = si.si_status;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		} else if (terminal && si.si_status == SIGTSTP) {
			struct sp_rep st;
			memset(&st, 0, sizeof(st));
			st.pid = pid;
			st.status = SIGTSTP;
			if (reply(rep, SP_STOPPED, &st) < 0)
				kill(-pid, SIGKILL);	/* lauka is gone: nobody will continue it */
		}
	}
}

static int run_one(const struct sp_req *q, struct sp_buf *b, int req, int rep, int devnull, int errw)
{
	size_t mbytes = (q->flags & SPF_AFFINITY) ? (size_t)q->ncpuwords * sizeof(unsigned long) : 0;
	size_t gbytes = (size_t)q->ngroups * sizeof(uint32_t);
	size_t ptrs_off = (q->bodylen + 15) & ~(size_t)15;
	if (q->argc == 0 || q->ncpuwords > 4096 || mbytes + gbytes >= q->bodylen ||
	    buf_reserve(b, ptrs_off + ((size_t)q->argc + 1) * sizeof(char *)) < 0)
		return -1;
	if (spawner_read_full(req, b->p, q->bodylen) < 0)
		return -1;
	if (b->p[q->bodylen - 1] != '\0')
		return -1;
	/* the mask first, at the start of the mmap'd buffer: aligned for its words, as the gids after it are */
	const unsigned long *mask = (const unsigned long *)(void *)b->p;
	const uint32_t *groups = (const uint32_t *)(void *)(b->p + mbytes);
	const char *path = b->p + mbytes + gbytes, *end = b->p + q->bodylen;
	char **argv = (char **)(void *)(b->p + ptrs_off);
	const char *s = path + strlen(path) + 1;
	for (uint32_t i = 0; i < q->argc; i++) {
		if (s >= end)
			return -1;
		argv[i] = (char *)s;
		s += strlen(s) + 1;
	}
	argv[q->argc] = NULL;

	struct sp_rep r;
	memset(&r, 0, sizeof(r));
	pid_t pid;
	int gate[2] = { -1, -1 }, report[2] = { -1, -1 };
	bool slow = q->flags & (SPF_GATE | SPF_CREDS | SPF_AFFINITY);
	if (!slow) {
		r.t0 = spawner_clock_ns();
		pid = spawn_child(q, path, argv, devnull, errw, &r.exec_errno);
	} else {
		if (((q->flags & SPF_GATE) && pipe(gate) < 0) || pipe(report) < 0) {
			r.exec_errno = errno;
			pid = -1;
		} else {
			fcntl(report[0], F_SETFD, FD_CLOEXEC);
			fcntl(report[1], F_SETFD, FD_CLOEXEC);
			if (gate[0] >= 0) {
				fcntl(gate[0], F_SETFD, FD_CLOEXEC);
				fcntl(gate[1], F_SETFD, FD_CLOEXEC);
			}
			r.t0 = spawner_clock_ns();
			pid = fork_child(q, mask, groups, path, argv, devnull, errw, gate, report);
			if (pid < 0)
				r.exec_errno = errno;
		}
	}
	int ret = 0;
	r.pid = pid;
	sp_running = pid > 0 ? pid : 0;
	if (pid < 0) {
		r.status = (r.exec_errno == ENOENT ? 127 : 126) << 8;
		ret = reply(rep, SP_DONE, &r);
		goto out;
	}
	if (reply(rep, SP_PID, &r) < 0) {
		kill(-pid, SIGKILL);
		ret = -1;
	}
	if (gate[0] >= 0) {
		close(gate[0]);
		gate[0] = -1;
		struct sp_req go;
		if (ret == 0 && (spawner_read_full(req, &go, sizeof(go)) < 0 || go.op != SP_GO)) {
			kill(-pid, SIGKILL);
			ret = -1;
		}
		/* Closing the gate releases the child: its read() returns 0. */
		r.t0 = spawner_clock_ns();
		close(gate[1]);
		gate[1] = -1;
	}
	if (report[0] >= 0) {
		close(report[1]);
		report[1] = -1;
		int e;
		ssize_t n;
		while ((n = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == sizeof(e))
			r.exec_errno = e ? e : EIO;
	}
	wait_exit(pid, &r, rep, q->flags & SPF_TERMINAL);
	r.t1 = spawner_clock_ns();
	if (q->flags & SPF_ZOMBIE) {
		if (ret == 0 && reply(rep, SP_EXITED, &r) < 0)
			ret = -1;
		struct sp_req reap;
		if (ret == 0 && (spawner_read_full(req, &reap, sizeof(reap)) < 0 || reap.op != SP_REAP))
			ret = -1;
	}
	while (wait4(pid, &r.status, 0, &r.ru) < 0 && errno == EINTR)
		;
	sp_running = 0;
	if (ret == 0)
		ret = reply(rep, SP_DONE, &r);
out:
	for (int i = 0; i < 2; i++) {
		if (gate[i] >= 0)
			close(gate[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	return ret;
}

#ifdef SPAWNER_DEATH_SIGNAL
static void on_parent_death(int sig)
{
	(void)sig;
	parent_gone();
}
#endif

/* A command that signals its parent ($PPID) means lauka. */
static void relay(int sig)
{
	int saved = errno;
	kill(getppid(), sig);
	errno = saved;
}

int spawner_main(int req, int rep, int devnull, int errw)
{
	/* The spawner's own descriptors must not leak into the commands. */
	fcntl(req, F_SETFD, FD_CLOEXEC);
	fcntl(rep, F_SETFD, FD_CLOEXEC);
	fcntl(devnull, F_SETFD, FD_CLOEXEC);
	if (errw >= 0)
		fcntl(errw, F_SETFD, FD_CLOEXEC);
	/*
	 * Terminal signals are lauka's to handle: the spawner leaves lauka's
	 * process group so the terminal's Ctrl-C and Ctrl-Z reach lauka alone,
	 * which forwards them to the command's group.  SIGINT/SIGTERM/SIGHUP
	 * sent to the spawner itself (a command's `kill $PPID`) are passed to
	 * lauka.  The commands get defaults back (reset_signals or
	 * POSIX_SPAWN_SETSIGDEF over every signal).
	 */
	setpgid(0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (int s = 1; s < NSIG; s++) {
		if (s == SIGKILL || s == SIGSTOP)
			continue;
		if (s == SIGINT || s == SIGTERM || s == SIGHUP)
			sa.sa_handler = relay;
		else if (s == SIGQUIT || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU || s == SIGPIPE)
			sa.sa_handler = SIG_IGN;
		else
			sa.sa_handler = SIG_DFL;
		sigaction(s, &sa, NULL);
	}
#ifdef SPAWNER_DEATH_SIGNAL
	sa.sa_handler = on_parent_death;
	sigaction(SPAWNER_DEATH_SIGNAL, &sa, NULL);
#endif
	sp_req = req;
	if (pipe(sp_chld) == 0) {
		for (int i = 0; i < 2; i++) {
			fcntl(sp_chld[i], F_SETFD, FD_CLOEXEC);
			fcntl(sp_chld[i], F_SETFL, O_NONBLOCK);
		}
		sa.sa_handler = on_chld;
		sigaction(SIGCHLD, &sa, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	struct sp_buf b = { NULL, 0 };
	struct sp_req q;
	struct sp_rep ready;
	memset(&ready, 0, sizeof(ready));
	if (reply(rep, SP_READY, &ready) < 0)
		return 1;
	while (spawner_read_full(req, &q, sizeof(q)) == 0) {
		if (q.op != SP_RUN || run_one(&q, &b, req, rep, devnull, errw) < 0)
			break;
	}
	return 0;
}
