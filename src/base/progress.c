/* base/progress.c: terminal checks and the one-line progress indicator (see base/progress.h). */
#include "base/progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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

/* Columns of a UTF-8 string (continuation bytes take none), and the bytes of its first `cols` columns. */
static size_t utf8_cols(const char *s, size_t cols, size_t *bytes)
{
	size_t w = 0, i;
	for (i = 0; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && w++ == cols)
			break;
	if (bytes)
		*bytes = i;
	return w > cols ? cols : w;
}

/*
 * The line: text, then the run's time and the ETA.  On a terminal narrower than that, the text is
 * cut (ending in "…"), never the numbers that move.
 */
static void draw(struct lk_progress *p, double elapsed_s, double eta_s)
{
	char tail[64] = "", eta[32] = "";
	if (eta_s >= 0)
		progress_fmt_eta(eta_s > 0 ? eta_s : 0, 1, 2, eta, sizeof(eta));	/* eta_s left */
	if (elapsed_s >= 1)
		snprintf(tail, sizeof(tail), "  %.0fs", floor(elapsed_s));
	if (eta[0])
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "  %s", eta);
	size_t cols = term_columns(STDERR_FILENO), room = SIZE_MAX, bytes;
	if (cols)	/* the last column stays free: a full line would wrap on some terminals */
		room = cols - 1 > strlen(tail) ? cols - 1 - strlen(tail) : 0;
	size_t w = utf8_cols(p->text, room, &bytes);
	bool cut = p->text[bytes] != '\0';
	if (cut && w > 0)
		utf8_cols(p->text, w - 1, &bytes);
	fputs("\r\033[K", stderr);
	fwrite(p->text, 1, bytes, stderr);
	if (cut && w > 0)
		fputs("…", stderr);
	fputs(tail, stderr);
	fflush(stderr);
	p->drawn = true;
}

void progress_show(struct lk_progress *p, const char *fmt, ...)
{
	if (!p->on)
		return;
	char eta[32];
	uint64_t now = lk_now_ns();
	double elapsed = (double)(now - p->t0_ns) / 1e9;
	progress_fmt_eta(elapsed, p->done, p->total, eta, sizeof(eta));
	p->eta_s = eta[0] ? elapsed / p->done * (p->total - p->done) : -1;
	p->shown_ns = now;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
	draw(p, 0, p->eta_s);
}

void progress_redraw(struct lk_progress *p)
{
	if (!p->on || !p->drawn)
		return;
	double since = (double)(lk_now_ns() - p->shown_ns) / 1e9;
	draw(p, since, p->eta_s < 0 ? -1 : p->eta_s - since);
}

void progress_clear(struct lk_progress *p)
{
	if (p->on && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = false;
}
