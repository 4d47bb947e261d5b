/*
 * base/bplist.h: a bounded pre-pass over binary plists ("bplist00"), run on
 * every plist lauka hands to libplist (kpep imports, LAUKA_KPEP_FILE,
 * LAUKA_XCTRACE_TEMPLATE).  Pure: bytes in, a verdict and figures out.
 *
 * Why: libplist 2.2 parses binary plists recursively (a plist nested
 * 100,000 deep overflows the stack) and builds a fresh node for every
 * reference to a shared object (levels that each reference the next one
 * twice make 2^depth nodes from a few hundred bytes); it also asserts on a
 * dictionary key holding U+0000.  The pre-pass walks the offset table once,
 * iteratively, and works out what libplist would build from the top object:
 * nesting depth, nodes and string/data bytes, with shared references counted
 * once per use.  Anything over a limit, a cycle, an object it cannot follow
 * or a string holding U+0000 is refused before libplist sees the file.
 * XML plists get the same nesting limit (lk_xmlplist_check).
 * The limits are documented in doc/limits.md.
 */
#ifndef LAUKA_BPLIST_H
#define LAUKA_BPLIST_H

#include <stddef.h>
#include <stdint.h>

/* Nesting: arrays and dictionaries inside each other (a kpep plist is 5 deep, a template 4). */
#define LK_BPLIST_MAX_DEPTH 256
/* Nodes libplist would build, a shared object once per reference to it (a kpep plist: ~20,000). */
#define LK_BPLIST_MAX_NODES 1000000u
/* String and data bytes libplist would copy, likewise once per reference. */
#define LK_BPLIST_MAX_BYTES (64u << 20)

struct lk_bplist_stats {
	uint64_t objects;	/* entries of the offset table */
	uint64_t nodes;		/* what libplist would build from the top object */
	uint64_t bytes;		/* string and data bytes among those nodes */
	uint64_t depth;		/* deepest nesting, the top object being 1 */
};

struct lk_bplist_limits {
	uint64_t max_depth, max_nodes, max_bytes;
};

/* The limits above, for callers that take the defaults. */
extern const struct lk_bplist_limits lk_bplist_default_limits;

/* Whether buf starts like a binary plist. */
int lk_bplist_is(const void *buf, size_t len);

/*
 * Check a binary plist (buf starts with "bplist00") against limits (NULL:
 * the defaults).  Returns 0, or -LK_EPLIST with one sentence in err naming
 * the object, the string or the limit.  stats (may be NULL) gets what was
 * found, as far as the walk went.
 */
int lk_bplist_check(const void *buf, size_t len, const struct lk_bplist_limits *limits,
		    struct lk_bplist_stats *stats, char *err, size_t errlen);

/*
 * The same nesting limit for an XML plist (anything that is not binary):
 * elements nested more than max_depth deep are refused before libplist
 * builds them (it frees its tree recursively: 200,000 levels overflow the
 * stack).  0, or -LK_EPLIST with one sentence in err.
 */
int lk_xmlplist_check(const void *buf, size_t len, uint64_t max_depth, char *err, size_t errlen);

#endif
