/* base/progress.c: terminal checks and the one-line progress indicator (see base/progress.h). */
#include "base/progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/util.h"

bool term_capable(int fd)
{
	if (!isatty(fd))
		return false;
	const char *t = getenv("TERM");
	return !(t && !strcmp(t, "dumb"));
}

bool term_color_auto(int fd)
{
	const char *nc = getenv("NO_COLOR");
	return term_capable(fd) && !(nc && *nc);
}

size_t term_columns(int fd)
{
	if (!isatty(fd))
		return 0;
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	char *end;
	long n = c && *c ? strtol(c, &end, 10) : 0;
	return n > 0 && !*end ? (size_t)n : 80;
}

void progress_fmt_eta(double elapsed_s, double done, double total, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (!(done > 0) || !(total > done) || !(elapsed_s >= 0))
		return;
	double left = elapsed_s / done * (total - done);
	long s = lround(ceil(left));
	if (s < 60)
		snprintf(buf, len, "ETA %lds", s);
	else if (s < 3600)
		snprintf(buf, len, "ETA %ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, len, "ETA %ldh%02ldm", s / 3600, s / 60 % 60);
}

void progress_init(struct lk_progress *p, bool allowed)
{
	memset(p, 0, sizeof(*p));
	p->on = allowed && term_capable(STDERR_FILENO);
	p->t0_ns = lk_now_ns();
}

void progress_units(struct lk_progress *p, double total)
{
	p->t0_ns = lk_now_ns();
	p->done = 0;
	p->total = total;
}

void progress_tick(struct lk_progress *p)
{
	p->done += 1;
}

void progress_show(struct lk_progress *p, const char *fmt, ...)
{
	if (!p->on)
		return;
	char eta[32];
	progress_fmt_eta((double)(lk_now_ns() - p->t0_ns) / 1e9, p->done, p->total, eta, sizeof(eta));
	va_list ap;
	va_start(ap, fmt);
	fputs("\r\033[K", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (eta[0])
		fprintf(stderr, "  %s", eta);
	fflush(stderr);
	p->drawn = true;
}

void progress_clear(struct lk_progress *p)
{
	if (p->on && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = false;
}
