/* holds n pinned CPU-wide INST_RETIRED events on CPU 0 for s seconds (a profiler's or the NMI watchdog's counters) */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, s = argc > 2 ? atoi(argv[2]) : 60;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_RAW;
		a.config = 0x08;
		a.pinned = 1;
		if (syscall(SYS_perf_event_open, &a, -1, 0, -1, 0) < 0) {
			perror("perf_event_open");
			return 1;
		}
	}
	printf("hog: holding %d counters\n", n);
	fflush(stdout);
	sleep((unsigned)s);
	return 0;
}
