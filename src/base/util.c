/* base/util.c: allocation, strings and time helpers shared by every module. */
#include "base/util.h"
#include "base/error.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
	/* lk_limit_reason() names an address-space limit (ulimit -v) when one is set; it allocates nothing */
	fprintf(stderr, "error: %s\n", lk_limit_reason(ENOMEM));
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb.buf ? sb.buf : xstrdup("");
}

int lk_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
		if (ca != cb || !ca)
			return ca - cb;
	}
}

size_t lk_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

uint64_t lk_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if (sb->len + (size_t)n + 1 > sb->cap) {
		sb->cap = (sb->len + (size_t)n + 1) * 2;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

int lk_read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_size > 0 && (uintmax_t)st.st_size > max) {	/* too large: refused before a byte is read */
		close(fd);
		return -EFBIG;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
	if (cap > max + 1)
		cap = max + 1;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int lk_cloexec_pipe(int fd[2])
{
#ifdef __linux__
	return pipe2(fd, O_CLOEXEC);
#else
	if (pipe(fd) < 0)
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}
