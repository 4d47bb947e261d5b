/*
 * base/util.h: small helpers every module may use: allocation that dies on
 * out-of-memory (CLI paths only), array size, case-insensitive compare,
 * a growable string buffer and the monotonic clock.
 */
#ifndef LAUKA_UTIL_H
#define LAUKA_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FREE_AND_NULL(p) do { free(p); (p) = NULL; } while (0)

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);           /* NULL stays NULL */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int lk_strcasecmp(const char *a, const char *b);
/* Edit distance, case-insensitive; used to suggest names for typos. */
size_t lk_edit_distance(const char *a, const char *b);

/* Monotonic time in nanoseconds. */
uint64_t lk_now_ns(void);

/* A growable, always NUL-terminated string. */
struct strbuf {
	char *buf;
	size_t len, cap;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_reset(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
static inline const char *strbuf_str(const struct strbuf *sb) { return sb->buf ? sb->buf : ""; }

/* pipe(2) with both ends close-on-exec (pipe2 where there is one; macOS has none). 0 or -1 with errno. */
int lk_cloexec_pipe(int fd[2]);

/*
 * Read a whole regular file (at most max bytes); returns 0 or -errno
 * (-EFBIG over max, -EINVAL for a FIFO, device or socket, which could
 * block forever: opened without blocking and refused before a read).
 * *out is malloc'd.
 */
int lk_read_file(const char *path, size_t max, char **out, size_t *len);

#endif
