/*
 * lauka-spawn: the spawner program lauka starts once per invocation (see
 * src/spawn/spawner.h).  Linked statically and without sanitizers so that its
 * address space, which every command execs from, stays a few hundred KB.
 *   lauka-spawn REQ_FD REP_FD DEVNULL_FD ERR_FD LAUKA_PID
 */
#include "spawn/spawner.h"

#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#endif

int main(int argc, char **argv)
{
	if (argc != 6)
		return 2;
	int fd[4];
	for (int i = 0; i < 4; i++)
		fd[i] = atoi(argv[i + 1]);
#ifdef SPAWNER_DEATH_SIGNAL
	prctl(PR_SET_PDEATHSIG, SPAWNER_DEATH_SIGNAL);	/* spawner_main kills the command's group on it */
#endif
	if (getppid() != (pid_t)atol(argv[5]))
		return 1;	/* lauka is already gone */
	return spawner_main(fd[0], fd[1], fd[2], fd[3]);
}
