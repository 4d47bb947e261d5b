/*
 * backend/kperf/sample.h: the sampling side of the kperf backend (internal): the
 * kperf action and PET timer, the kdebug trace buffer, and the reader
 * thread that drains it into a struct kperf_agg.
 *
 *   kperf_sampler_setup     once per open(): action 1 samples PMC_THREAD
 *                           (the action count is never lowered: N1),
 *                           timer 1 is the lightweight-PET timer (1 ms;
 *                           2 ms on macOS 13); every setting read back (C2);
 *                           kdebug reset (KERN_KDREMOVE clears filters a
 *                           killed ktrace tool left: N4), then its buffer set
 *                           up with a filter that passes only
 *                           PERF_KPC_DATA_THREAD records.  KERN_KDREMOVE and
 *                           KERN_KDSETUP sleep 100 ms in the kernel, so they
 *                           never run per measured run.
 *   kperf_sampler_start     per run, before the child execs: pid filter,
 *                           trace on, sampling on, reader thread on
 *   kperf_sampler_stop      per run, the child a zombie: sampling off, trace
 *                           off, everything left drained
 *   kperf_sampler_teardown  once per close(): kdebug and kperf reset (which
 *                           also releases ktrace ownership)
 */
#ifndef LAUKA_KPERF_SAMPLE_H
#define LAUKA_KPERF_SAMPLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/kperf/agg.h"

struct kperf_sampler {
	bool setup;			/* kperf configured and the trace buffer set up */
	uint32_t action_count;		/* kperf's action count after setup (another client's may be larger) */
	bool sampling;			/* start() switched sampling on: stop() must undo */
	struct kperf_agg agg;
	struct kperf_kdbuf *buf;
	pthread_t reader;
	bool reader_on;
	bool stop;			/* under mu: the reader thread must finish */
	pthread_mutex_t mu;
	pthread_cond_t wake;
	bool sync_init;
	int err;			/* a read failed during the run */
	char why[256];
	bool dumping;			/* dump_fd is open ($LAUKA_KPERF_DUMP) */
	int dump_fd;
};

int kperf_sampler_setup(struct kperf_sampler *s, size_t ncounters, char *err, size_t len);
int kperf_sampler_start(struct kperf_sampler *s, pid_t pid, char *err, size_t len);
int kperf_sampler_stop(struct kperf_sampler *s, char *err, size_t len);
int kperf_sampler_teardown(struct kperf_sampler *s, char *err, size_t len);
/* The PET period lauka asks for on the running kernel: 1 ms, 2 ms on macOS 13 (A7). */
uint64_t kperf_pet_period_ns(void);
/* stop + teardown, and free (safe on a zeroed or failed sampler). */
void kperf_sampler_release(struct kperf_sampler *s);

#endif
