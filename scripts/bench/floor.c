/*
 * floor.c: the cheapest ways to run a command N times, the per-run floors
 * lauka's own overhead is compared with.
 *   floor [-v] N /path/to/cmd [args...]
 * Default: fork, execv, wait4 (the classic loop).  -v: vfork instead of
 * fork (no copy of the caller's page tables; what posix_spawn does).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int use_vfork = argc > 1 && !strcmp(argv[1], "-v");
	argv += use_vfork;
	argc -= use_vfork;
	if (argc < 3)
		return 2;
	long n = strtol(argv[1], NULL, 10);
	int devnull = open("/dev/null", O_RDWR);
	for (long i = 0; i < n; i++) {
		pid_t pid = use_vfork ? vfork() : fork();
		if (pid == 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		struct rusage ru;
		if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
