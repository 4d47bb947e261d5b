/* base/error.c: error codes to text, and the error/warning/fix/tip/note printers (wrapped on a terminal). */
#include "base/error.h"
#include "base/progress.h"
#include "base/text.h"
#include "base/util.h"

#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

static const char *const messages[LK_ELAST] = {
	[LK_OK] = "success",
	[LK_EINVAL] = "invalid argument",
	[LK_ENOMEM] = "out of memory",
	[LK_ENOENT] = "not found",
	[LK_EPERM] = "permission denied",
	[LK_ENOTSUP] = "not supported on this machine",
	[LK_EBUSY] = "counters are in use by another process",
	[LK_EDB] = "database error",
	[LK_EPLIST] = "malformed kpep plist",
	[LK_ESCHED] = "events cannot be scheduled together",
	[LK_EIO] = "input/output error",
	[LK_ECHILD] = "command could not be started",
	[LK_EINTR] = "interrupted",
};

const char *lk_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= LK_ELAST || !messages[err])
		return "unknown error";
	return messages[err];
}

/*
 * On a terminal the message is wrapped to its width, continuation lines indented under the text
 * after the prefix; to a pipe or a file it goes out whole, one line (scripts grep for it).
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	if (term_columns(STDERR_FILENO)) {
		char line[4096];
		va_list aq;
		va_copy(aq, ap);
		int n = vsnprintf(line, sizeof(line), fmt, aq);
		va_end(aq);
		if (n >= 0 && (size_t)n < sizeof(line)) {
			char *msg = xasprintf("%s%s", prefix, line);
			text_print(stderr, msg, strlen(prefix));
			free(msg);
			return;
		}
	}
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void fix(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fix: ", fmt, ap);
	va_end(ap);
}

void tip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("tip: ", fmt, ap);
	va_end(ap);
}

void notice(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note: ", fmt, ap);
	va_end(ap);
}

void lk_errbuf(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

unsigned long long lk_as_limit_kb(void)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (unsigned long long)rl.rlim_cur / 1024 : 0;
}

const char *lk_limit_reason(int e)
{
	static char buf[160];
	struct rlimit rl;
	if (e == EMFILE || e == ENFILE) {
		if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(buf, sizeof(buf), "lauka ran out of file descriptors (its limit is %llu: raise it with "
				 "ulimit -n 1024)", (unsigned long long)rl.rlim_cur);
		else
			snprintf(buf, sizeof(buf), "the system ran out of file descriptors (%s)", strerror(e));
		return buf;
	}
	if (e == ENOMEM) {
		unsigned long long kb = lk_as_limit_kb();
		if (kb)
			snprintf(buf, sizeof(buf), "lauka ran out of memory (its address space is limited to %llu KB: "
				 "raise it with ulimit -v)", kb);
		else
			snprintf(buf, sizeof(buf), "lauka ran out of memory");
		return buf;
	}
	return NULL;
}
