/*
 * kperf-standin.h: what tests can see of the stand-in for Apple's kperf and
 * kperfdata frameworks (tests/support/kperf-standin.c, built as
 * build/libkperf-standin.so and loaded by the kperf backend through
 * $LAUKA_KPERF_PATH / $LAUKA_KPERFDATA_PATH).
 *
 * The stand-in models the kernel state the real frameworks change: kpc
 * counting, the forced counters, kperf actions/timers/sampling, lightweight
 * PET, the kdebug buffer and ktrace ownership, with the kernel's rules
 * (EBUSY for timers and PET while sampling, EBUSY when another live process
 * owns ktrace, EPERM without root).  With $LAUKA_STANDIN_STATE set, the state
 * lives in that file, so it outlives the process like kernel state does.
 *
 * Environment read by the stand-in:
 *   LAUKA_STANDIN_STATE     file holding the state (default: process memory)
 *   LAUKA_STANDIN_EUID      euid to report (default 0); non-zero: writes fail with EPERM
 *   LAUKA_STANDIN_STALE=1   start as a killed run left it: sampling, PET, kpc counting on
 *   LAUKA_STANDIN_BUSY=1    start with ktrace owned by the parent process (alive): EBUSY
 *   LAUKA_STANDIN_FAIL      name=code[,name=code...]: make a function fail.  kpep_*:
 *                           code is the kpep error (15: errno from LAUKA_STANDIN_ERRNO);
 *                           kpc_*, kperf_*: an errno; seam ops sysctl_int, kdebug,
 *                           rusage, cpu_ids: an errno
 *   LAUKA_STANDIN_RETSTYLE=value  kpc_/kperf_ failures return the errno value
 *                           instead of -1 with errno set
 *   LAUKA_STANDIN_THREADS   how many of the scripted threads sample (default 4)
 *   LAUKA_STANDIN_COVERAGE_PERMILLE  sampled / rusage instructions x 1000 (default 995)
 *   LAUKA_STANDIN_CPU       "type,subtype,family" in hex for the cpu id sysctls
 *
 * The scripted run (per sampling session, when everything is configured):
 *   tid 0x1001: 5 complete samples, 1000 units apart
 *   tid 0x1002: 3 complete samples, 500 units apart
 *   tid 0x1003: 1 sample (contributes nothing)
 *   tid 0x1004: 4 samples, 250 units apart, the second cut short (dropped)
 * so the counted units are U = 4000 + 1000 + 750 = 5750.  Counter 0 (cycles)
 * holds 3 per unit, counter 1 (instructions) 2 per unit, configurable counter
 * k the event number programmed on it per unit.  proc_pid_rusage of the
 * pid filtered in the last session reports 2U * 1000 / permille instructions (integer division)
 * and 3/2 of that plus 7 cycles; of any other pid a tenth of that.
 */
#ifndef LAUKA_KPERF_STANDIN_H
#define LAUKA_KPERF_STANDIN_H

#include <stdint.h>

#define STANDIN_UNITS 5750u

struct standin_state {
	int initialised;
	int owner;			/* ktrace owner pid, 0 = none */
	int force_all;
	uint32_t counting, thread_counting;
	uint64_t config[8];
	int config_set;
	uint32_t action_count, timer_count;
	uint32_t samplers, timer_action, pet_timer;
	uint64_t timer_period;
	int filter_pid;
	int lightweight_pet;
	int sampling;
	int session;			/* a correctly configured sampling session ran */
	int session_pid;		/* the pid filter when sampling was switched on */
	int delivered;			/* its records were read */
	int kd_nbufs, kd_setup, kd_enabled;
	uint32_t kd_filter;
	int rusage_pid;			/* last pid proc_pid_rusage was asked about */
	int wrong_pid;			/* rusage asked about a pid other than the filter's */
	int samples_started;		/* kperf_sample_set(1) calls that succeeded */
	int reads;			/* KERN_KDREADTR calls */
};

/* Exported by the stand-in for tests: a copy of the current state. */
typedef void (*standin_state_fn)(struct standin_state *out);
#define STANDIN_STATE_SYMBOL "lauka_standin_state"

#endif
