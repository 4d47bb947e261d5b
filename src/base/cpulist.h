/*
 * base/cpulist.h: sets of CPU numbers and Linux's "cpulist" text for them ("0-15,32-33"), as
 * sysfs prints a PMU's `cpus` file and /proc/self/status its Cpus_allowed_list.  Pure: no I/O
 * (the process's own affinity is spawn/runner.h's).
 *
 * The set is a bit mask in unsigned long words, bit c of word c / LONG_BIT = CPU c: the layout
 * sched_setaffinity(2) takes (the kernel's cpumask, get_user_cpu_mask in kernel/sched/core.c),
 * so a set is handed to the kernel as it is.
 */
#ifndef LAUKA_CPULIST_H
#define LAUKA_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

/* The largest CPU number accepted: Linux's NR_CPUS is at most 8192 on x86-64 (arch/x86/Kconfig,
 * NR_CPUS_RANGE_END with CPUMASK_OFFSTACK). */
#define CPULIST_MAX_CPU 8191

struct lk_cpus {
	unsigned long *bits;	/* NULL when empty and never grown */
	size_t nwords;
};

#define CPULIST_BITS (sizeof(unsigned long) * 8)

/*
 * Parse a cpulist: comma-separated CPU numbers and ranges "a-b" (a <= b), in any order, with
 * optional trailing white space (sysfs ends it with a newline); "" or "\n" is the empty set.
 * This is what the kernel prints (bitmap_list_string in lib/vsprintf.c, "%*pbl"); the strides
 * bitmap_parselist (lib/bitmap-str.c) also reads on input ("0-31:2/4") never appear in sysfs and
 * are refused.  0, or -LK_EINVAL with why in err (out is then empty).
 */
int cpulist_parse(const char *s, struct lk_cpus *out, char *err, size_t len);
/* "0-15,32-33" in buf ("" for the empty set); a list cut short by len ends in "...". */
const char *cpulist_format(const struct lk_cpus *c, char *buf, size_t len);
void cpulist_add(struct lk_cpus *c, unsigned cpu);
bool cpulist_has(const struct lk_cpus *c, unsigned cpu);
size_t cpulist_count(const struct lk_cpus *c);
/* out = a & b (out may be a or b). */
void cpulist_and(struct lk_cpus *out, const struct lk_cpus *a, const struct lk_cpus *b);
bool cpulist_equal(const struct lk_cpus *a, const struct lk_cpus *b);
void cpulist_copy(struct lk_cpus *out, const struct lk_cpus *a);
void cpulist_release(struct lk_cpus *c);

#endif
