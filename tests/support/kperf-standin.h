/*
 * kperf-standin.h: what tests can see of the stand-in for Apple's kperf and
 * kperfdata frameworks (tests/support/kperf-standin.c, built as
 * build/libkperf-standin.so and loaded by the kperf backend through
 * $LAUKA_KPERF_PATH / $LAUKA_KPERFDATA_PATH).
 *
 * The stand-in is a model of XNU's rules (reference/xnu-kperf.md), not of
 * what lauka expects, and its samples come from the real child process:
 *
 *   counters   kpc_get_counter_count() is 2 fixed + 5 configurable while the
 *              counters are not forced (PMC5-7 belong to the power manager)
 *              and 2 + 8 once forced; the number and order of values in a
 *              thread sample is frozen when kpc_set_thread_counting() runs
 *              (without forcing: PMC0-4, PMC8-9, packed).  Forcing while
 *              another live process holds the forced counters is EACCES;
 *              the kernel releases them when the holder dies.
 *   config     kpc_set_config keeps no words: it programs an event field
 *              (8 bits, 16 with LAUKA_STANDIN_EVENT16) and mode enables per
 *              counter, and kpc_get_config rebuilds each word from them, as
 *              XNU's get_counter_config does: a nonzero word without mode bits
 *              reads back with EL0A64 (0x20000), EL1 (0x40000) is dropped on
 *              a release kernel (xnu-11417.101.15 osfmk/arm64/kpc.c:308-339,
 *              :454-501; file:line at each rule in kperf-standin.c).
 *   getters    kpc_get_counting / kpc_get_thread_counting /
 *              kpc_get_counter_count answer kperf.framework's sentinels (0,
 *              0xFFFFFFFF, 0) when their kpc.* sysctl fails: without root
 *              (the count is public), while the CPMU is held (EBUSY), or
 *              injected; the sentinels are closed source (a decompiled
 *              framework).  The PET timer's period is raised to the PET
 *              minimum when set and when the timer becomes the PET one.
 *   kperf      actions are 1-based, timers 0-based; a timer at or above the
 *              count, an action above it, or shrinking the action count is
 *              EINVAL; timer and PET writes while sampling are EBUSY;
 *              sampling without actions is ECANCELED; kperf_reset() resets
 *              kperf (sampling, the actions' samplers and filters, timers,
 *              lightweight PET) but not kdebug, and keeps the action and
 *              timer counts (so an action count only grows until reboot).
 *              The PET period is at least 1 ms (2 ms on macOS 13,
 *              xnu-8792 kptimer.c); kern.osrelease says which.
 *   kdebug     KERN_KDREMOVE and KERN_KDSETUP each sleep 100 ms, as
 *              kdbg_clear() / kdbg_reinit() do; READTR needs ownership.
 *              A typefilter outranks the VALCHECK filter (_trace_emit_filter)
 *              and the pid check drops the samples of unmarked processes
 *              (the model's samples stand for lightweight PET's switch-in
 *              samples, taken outside interrupt context); both survive
 *              KERN_KDSETUP (kdbg_reinit) and only KERN_KDREMOVE
 *              (kdbg_clear) clears them.  The kernel does not reset what a
 *              dead foreground ktrace owner configured (kern_ktrace.c).
 *   ownership  every kperf write and kdebug op claims ktrace (EBUSY when
 *              another live process owns it, EPERM without root); it is
 *              released once both kperf and kdebug have been reset.
 *   samples    while sampling is on with a pid filter, a ticker thread wakes
 *              every period and, for each thread of the filtered process
 *              that is running (state R in /proc/PID/task/TID/stat), logs
 *              one thread sample: ceil(n/4) PERF_KPC_DATA_THREAD records,
 *              DBG_FUNC_START on the first, DBG_FUNC_END on the last (a
 *              single record: START only).  Values are cumulative from the
 *              thread's creation, a function of its CPU time t (ns, from
 *              /proc/PID/task/TID/sched): cycles 3t, instructions 2t,
 *              configurable counter k (event number N programmed on it) N*t.
 *              When the kdebug buffer is full, later records are lost and
 *              the next read starts with a TRACE_LOST_EVENTS record.
 *   rusage     proc_pid_rusage of a pid is its process CPU clock (all its
 *              threads, living and dead, not its children): instructions 2t,
 *              cycles 3t; it works on a zombie.
 *
 * The switch-in sample of lightweight PET (a thread coming on core in a new
 * generation) is not modelled separately: the model samples running threads
 * at each tick, so it is pessimistic for threads that run in short bursts.
 *
 * With $LAUKA_STANDIN_STATE set, the kernel state lives in that file, so it
 * outlives the process like kernel state does (the ticker and the trace
 * buffer live in the process that configured them).
 *
 * Environment read by the stand-in:
 *   LAUKA_STANDIN_STATE       file holding the state (default: process memory)
 *   LAUKA_STANDIN_EUID        euid to report (default 0); non-zero: writes fail with EPERM
 *   LAUKA_STANDIN_STALE=1     start as a SIGKILLed run left it: sampling, PET, kpc counting on
 *   LAUKA_STANDIN_BUSY=1      start with ktrace owned by the parent process (alive): EBUSY
 *   LAUKA_STANDIN_KDSTALE     typefilter|pidcheck: start as a killed ktrace tool (fs_usage,
 *                             Instruments) left kdebug: that filter on, the owner dead (N4)
 *   LAUKA_STANDIN_PM_RELEASE_AT=K  the K-th kperf_sample_set(1) un-forces the counters, as a late
 *                             power-manager acknowledgement of an earlier release can
 *                             (kpc_common.c kpc_pm_acknowledge); the samples then carry the
 *                             unforced layout (R3)
 *   LAUKA_STANDIN_ACTIONS=N   start with the action count another kperf client left (N1)
 *   LAUKA_STANDIN_FORCED=1    start with the counters forced by the parent process: EACCES
 *   LAUKA_STANDIN_TRANSLATED=1  sysctl.proc_translated reads 1 (Rosetta)
 *   LAUKA_STANDIN_KDBUF_MAX   cap on the trace buffer's records (to provoke lost events)
 *   LAUKA_STANDIN_FAIL        name=code[,name=code...]: make a function fail.  kpep_*:
 *                             code is the kpep error (15: errno from LAUKA_STANDIN_ERRNO);
 *                             kpc_*, kperf_*: an errno; seam ops sysctl_int, kdebug,
 *                             kdebug_<op>, rusage, cpu_ids: an errno
 *   LAUKA_STANDIN_RETSTYLE=value  kpc_/kperf_ failures return the errno value
 *                             instead of -1 with errno set
 *   LAUKA_STANDIN_CPU         "type,subtype,family" in hex for the cpu id sysctls
 *   LAUKA_STANDIN_OSRELEASE   kern.osrelease (default 24.4.0, macOS 15.4; 22.x is macOS 13:
 *                             PET period at least 2 ms)
 *   LAUKA_STANDIN_CPMU=1      another kernel client holds the CPU's PMU (macOS 14.4+,
 *                             kern_kpc.c cpc_hw_in_use): every kpc_* call is EBUSY (A4)
 *   LAUKA_STANDIN_EVENT16=1   PMESR's event field is 16 bits wide (kpc.c CPMU_16BIT_EVENTS), not 8
 *   LAUKA_STANDIN_DEVKERNEL=1 a DEVELOPMENT kernel: the kernel may be counted
 *                             (kpc_allows_counting_system), so a bare word counts every mode
 *   LAUKA_STANDIN_TAMPER=F    another root process (kpc has no owner) reprograms F right
 *                             after lauka's own write: config (the first programmed
 *                             counter's event), counting,
 *                             thread_counting, period, samplers, pet, lightweight_pet (C2)
 *   LAUKA_STANDIN_ACTION_RACE=N  a background ktrace client raises the action count to N
 *                             between lauka's get and set: that set is EINVAL (A3a)
 *   LAUKA_STANDIN_BGTOOL=1    a background ktrace client (tailspind) is registered: the
 *                             parent process (ktrace.background_pid)
 *   LAUKA_STANDIN_GLITCH_AT=K  one thread sample, the first from the K-th on of a thread
 *                             sampled before, carries its configurable counters as 1: a
 *                             drop, as a P/E migration glitch gives (A6)
 *   LAUKA_STANDIN_PSHARE=F    fraction 0..1 of instructions retired on P-cores
 *                             (ri_pinstructions; default 1)
 *
 * Read-only sysctls the model answers (what `lauka doctor --macos` prints):
 * ktrace.state (0 off, 1 foreground owner, 2 background tool), ktrace.owning_pid,
 * ktrace.background_pid, ktrace.configured_by (a string: the name of the
 * process that last configured ktrace; kept after it dies), kperf.sampling,
 * kperf.action.count, kperf.lightweight_pet, kpc.counting, kpc.thread_counting,
 * kpc.force_all_ctrs, kern.osrelease.  ktrace.* need no root; kperf.* and kpc.*
 * reads need root (ktrace_read_check), as in XNU.
 */
#ifndef LAUKA_KPERF_STANDIN_H
#define LAUKA_KPERF_STANDIN_H

#include <stdint.h>

/* The model's counters per ns of a thread's CPU time. */
#define STANDIN_CYCLES_PER_NS 3u
#define STANDIN_INSTR_PER_NS 2u
/* kdebug set-up and reset cost, as in XNU (IOSleep(100)). */
#define STANDIN_KD_SLEEP_MS 100

/* kdebug.c kdc_flags the model keeps: a typefilter (that passes DBG_TRACE only) and the pid filter. */
#define STANDIN_KDBG_TYPEFILTER 0x00400000u
#define STANDIN_KDBG_PIDCHECK 0x00000010u

/* The kernel state (persisted in $LAUKA_STANDIN_STATE when set). */
struct standin_state {
	int initialised;
	int owner;			/* ktrace owner pid, 0 = none */
	unsigned owner_mask;		/* 1 kdebug, 2 kperf: what the owner configured */
	int force_owner;		/* pid that forced the counters, 0 = none */
	int force_all;			/* lauka_standin_state(): forced by a live process */
	uint32_t counting, thread_counting;
	uint32_t thread_values;		/* values per thread sample, frozen at kpc_set_thread_counting */
	uint32_t thread_forced;		/* forced when it was frozen */
	/*
	 * The registers kpc_set_config writes and kpc_get_config reads back
	 * (xnu-11417.101.15 osfmk/arm64/kpc.c), per configurable counter
	 * (PMC2..PMC9): config[k] is PMESR's event field, modes[k] PMCR1's
	 * enable bits for it, kept as the config word's mode bits (0x10000
	 * EL0 A32, 0x20000 EL0 A64, 0x40000 EL1).
	 */
	uint64_t config[8];
	uint32_t modes[8];
	int config_set;
	uint32_t action_count, timer_count;
	uint32_t samplers, timer_action, pet_timer;
	uint64_t timer_period;
	int filter_pid;
	int lightweight_pet;
	int sampling;
	int kd_nbufs, kd_setup, kd_enabled;
	uint32_t kd_filter;
	uint32_t kd_flags;		/* STANDIN_KDBG_TYPEFILTER / STANDIN_KDBG_PIDCHECK, as a crashed tool left them */
	int rusage_pid;			/* last pid proc_pid_rusage was asked about */
	int filter_pids[8];		/* the last pid filters sampling was switched on with */
	int samples_started;		/* kperf_sample_set(1) calls that succeeded */
	int reads;			/* KERN_KDREADTR calls */
	int kd_removes, kd_setups;	/* the 100 ms operations */
	int force_sets;			/* kpc_force_all_ctrs_set(1) calls that succeeded */
	int kperf_resets;
	char configured_by[32];		/* ktrace.configured_by: the last configuring process's name */
	int bg_pid;			/* ktrace.background_pid */
	int action_races;		/* A3a races injected */
	/* Of the process that configured sampling (not persisted): */
	uint64_t ticks, samples, records, lost;
};

/* Exported by the stand-in for tests: a copy of the current state. */
typedef void (*standin_state_fn)(struct standin_state *out);
#define STANDIN_STATE_SYMBOL "lauka_standin_state"

#endif
