/*
 * kperf-spin.c: a CPU-bound child for the kperf tests and for checking
 * the stand-in's coverage: `kperf-spin MS [THREADS]` keeps THREADS threads
 * (default 1; the main thread is one of them) busy until each has used MS
 * milliseconds of its own CPU time, then exits 0.  `kperf-spin -s MS` makes
 * system calls for MS ms instead (a kernel-heavy probe).  `kperf-spin -a
 * FILE MS` alternates: when FILE exists it removes it and exits at once (a
 * run too short for any PET tick: not counted), else it creates it and
 * spins (counted), so the runs of one `record` mix both.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long ms_arg;
static int syscalls;

static double thread_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = thread_ms() + (double)ms_arg;
	while (thread_ms() < end) {
		if (syscalls)
			(void)getppid();
		else
			for (int i = 0; i < 1000; i++)
				x += (unsigned long)i;
	}
	return arg;
}

int main(int argc, char **argv)
{
	int a = 1;
	if (argc > 1 && !strcmp(argv[1], "-s")) {
		syscalls = 1;
		a++;
	} else if (argc > 2 && !strcmp(argv[1], "-a")) {
		if (unlink(argv[2]) == 0)
			return 0;
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return 3;
		close(fd);
		a += 2;
	}
	if (argc <= a) {
		fprintf(stderr, "usage: kperf-spin [-s | -a FILE] MS [THREADS]\n");
		return 1;
	}
	ms_arg = strtol(argv[a], NULL, 10);
	int n = argc > a + 1 ? atoi(argv[a + 1]) : 1;
	if (n < 1 || n > 64)
		n = 1;
	pthread_t th[64];
	for (int i = 1; i < n; i++)
		if (pthread_create(&th[i], NULL, spin, NULL))
			return 2;
	spin(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
