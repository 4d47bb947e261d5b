/*
 * spawn/spawner.h: the small process that starts every measured command.
 *
 * Why a separate process: on Linux a command's peak_rss (wait4 ru_maxrss)
 * can never be lower than the high-water mark of the address space that
 * called exec, because exec_mmap() folds the old mm's hiwater_rss into
 * signal->maxrss.  posix_spawn (vfork) execs from lauka's own address space,
 * fork from a copy of it, so a small command reads lauka's size.  The
 * spawner is a tiny statically linked program (lauka-spawn, next to lauka)
 * whose address space is a few hundred KB: what it execs from is far below
 * any real command's own peak, and it never grows, so identical commands
 * read identical peaks however long lauka runs.
 *
 * It is also the one place counters are inherited from: the perf backend
 * opens its counters once on the spawner (inherit, enable_on_exec), every
 * command it starts inherits them at fork and folds its counts back at exit.
 * The spawner itself never execs again, so its own work is never counted.
 *
 * Without lauka-spawn (or off Linux) lauka forks itself and runs the same
 * loop (spawner_main) in the copy: everything works, but on Linux peak_rss
 * then cannot read below lauka's own resident size.
 *
 * Protocol, over two pipes, one request at a time, after the spawner's
 * SP_READY (sent from its loop, so it has finished exec'ing lauka-spawn:
 * counters opened on it before that would be switched on by that very exec
 * through enable_on_exec and count the spawner itself):
 *   lauka -> spawner  SP_RUN + body (groups, path, argv)
 *   spawner -> lauka  SP_PID  (the command runs in its own process group = pid)
 *   lauka -> spawner  SP_GO   (SPF_GATE only: counters attached, release the child)
 *   spawner -> lauka  SP_STOPPED (SPF_TERMINAL only, any number: the child stopped on
 *                     SIGTSTP, the terminal's Ctrl-Z; status = the signal)
 *   spawner -> lauka  SP_EXITED (SPF_ZOMBIE only: the child is a zombie, not reaped)
 *   lauka -> spawner  SP_REAP (SPF_ZOMBIE only)
 *   spawner -> lauka  SP_DONE (wait status, rusage, clock at release and at exit)
 * A spawner whose request pipe closes exits; on Linux it also dies with lauka
 * (PR_SET_PDEATHSIG).
 */
#ifndef LAUKA_SPAWNER_H
#define LAUKA_SPAWNER_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

enum { SP_RUN = 1, SP_GO, SP_REAP };
enum { SP_PID = 1, SP_EXITED, SP_DONE, SP_READY, SP_STOPPED };
enum {
	SPF_GATE = 1,		/* child waits before exec until SP_GO */
	SPF_ZOMBIE = 2,		/* report SP_EXITED before reaping */
	SPF_OUTPUT = 4,		/* keep the spawner's stdout/stderr (lauka's) */
	SPF_CREDS = 8,		/* switch to uid/gid/groups before exec */
	SPF_TERMINAL = 16,	/* the child's group has the terminal: report its Ctrl-Z stops (SP_STOPPED) */
	SPF_OUT_TO_ERR = 32,	/* with SPF_OUTPUT: the child's stdout is lauka's stderr (an export owns stdout) */
	SPF_AFFINITY = 64,	/* Linux: the child runs on the CPUs of the body's mask (sched_setaffinity before exec) */
};

struct sp_req {
	uint32_t op, flags;
	int32_t uid, gid;
	uint32_t ngroups, argc;
	uint32_t bodylen;	/* ncpuwords unsigned longs, ngroups * uint32 gids, then path and argv, each NUL-terminated */
	uint32_t ncpuwords;	/* SPF_AFFINITY: the CPU mask's words (base/cpulist.h's layout, sched_setaffinity's) */
};

struct sp_rep {
	uint32_t type;
	int32_t pid;		/* SP_PID; -1 in SP_DONE when nothing ran */
	int32_t exec_errno;	/* SP_DONE: exec (or credential switch) failed with this errno */
	int32_t status;		/* SP_DONE: wait status */
	uint64_t t0, t1;	/* CLOCK_MONOTONIC ns: child released to exec; exit seen */
	struct rusage ru;	/* SP_DONE: the child's wait4 rusage */
	int32_t tty_stop;	/* SP_DONE: SIGTTIN/SIGTTOU that stopped the child, which was then killed; 0 */
};

/*
 * The loop: requests on `req`, replies on `rep`; children get `devnull` as
 * stdin (and stdout), `errw` as stderr (-1: keep fd 2).  Returns when the
 * request pipe closes.  Uses only system calls (it may run in a fork of a
 * multithreaded lauka).
 */
int spawner_main(int req, int rep, int devnull, int errw);

/*
 * The signal the spawner asks for when lauka dies (Linux PR_SET_PDEATHSIG,
 * set by lauka-spawn.c and the fork fallback in runner.c): its handler kills
 * the running command's process group, then the spawner exits, so a
 * SIGKILLed lauka leaves no command running.  A real-time signal no command
 * sends by accident.  macOS has no parent-death signal: there the spawner
 * watches lauka's request pipe for its end of file while a command runs
 * (spawner.c, armed on every system).  LAUKA_SPAWN_NO_PDEATHSIG builds the
 * spawner as on macOS, so that the tests see the watch do it alone.
 */
#if defined(__linux__) && !defined(LAUKA_SPAWN_NO_PDEATHSIG)
#define SPAWNER_DEATH_SIGNAL (SIGRTMIN + 3)
#endif

uint64_t spawner_clock_ns(void);
/* The whole of n bytes, across EINTR and short transfers; 0, or -1 at EOF or on an error. */
int spawner_read_full(int fd, void *buf, size_t n);
int spawner_write_full(int fd, const void *buf, size_t n);

#endif
