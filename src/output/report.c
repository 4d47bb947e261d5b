/* output/report.c: units, deltas and the record table, with optional ANSI colour. */
#include "output/report.h"
#include "base/text.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[91m"
#define C_GREEN "\033[32m"
#define C_BGREEN "\033[92m"
#define C_YELLOW "\033[93m"
#define C_CYAN "\033[36m"
#define C_MAGENTA "\033[35m"

static void fmt_scaled(double v, double base, const char *const *suffix, size_t nsuffix,
		       char *buf, size_t len)
{
	double a = fabs(v);
	size_t i = 0;
	if (v == 0) {
		snprintf(buf, len, "0%s", suffix[0]);
		return;
	}
	while (i + 1 < nsuffix && a >= base * 0.9995) {
		a /= base;
		v /= base;
		i++;
	}
	const char *fmt = a >= 99.95 ? "%.0f%s" : a >= 9.995 ? "%.1f%s" : "%.2f%s";
	snprintf(buf, len, fmt, v, suffix[i]);
}

void report_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	static const char *const time_sfx[] = { "ns", "us", "ms", "s" };
	static const char *const byte_sfx[] = { "B", "KB", "MB", "GB", "TB" };
	static const char *const count_sfx[] = { "", "K", "M", "G", "T" };
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (unit && !strcmp(unit, "ns"))
		fmt_scaled(v, 1000, time_sfx, ARRAY_SIZE(time_sfx), buf, len);
	else if (unit && !strcmp(unit, "bytes"))
		fmt_scaled(v, 1000, byte_sfx, ARRAY_SIZE(byte_sfx), buf, len);
	else if (fabs(v) < 999.5 && v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		fmt_scaled(v, 1000, count_sfx, ARRAY_SIZE(count_sfx), buf, len);
}

/* x to `dec` decimals with its own sign ("-0.0" for a small negative change); the value printed. */
static double fmt_signed(double x, int dec, char *buf, size_t len)
{
	if (x == 0)
		x = 0;		/* no "-0.0" for an exact zero */
	snprintf(buf, len, "%+.*f", dec, x);
	return strtod(buf, NULL);
}

/*
 * Decimals of a delta: one, or as many more as it takes for the bound that
 * makes it significant to print beyond +-1% as well (+1.03% would print as
 * +1.0%, which is not beyond +1%).  Its other numbers take the same, so the
 * printed estimate stays between the printed bounds.
 */
static int delta_decimals(const struct lk_delta *d)
{
	char b[64];
	int dec = 1;
	if (d->verdict == DELTA_NONE)
		return dec;
	double bound = d->verdict == DELTA_WORSE ? d->ci_low : d->ci_high;
	while (dec < 17 && !(fabs(fmt_signed(bound, dec, b, sizeof(b))) > DELTA_THRESHOLD_PCT))
		dec++;
	return dec;
}

void report_fmt_delta(const struct lk_delta *d, char *buf, size_t len)
{
	char p[64], lo[64], hi[64];
	if (!d->valid) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (!d->bounded) {
		fmt_signed(d->pct, 1, p, sizeof(p));
		snprintf(buf, len, "%s%% [unbounded]", p);
		return;
	}
	int dec = delta_decimals(d);
	double pp = fmt_signed(d->pct, dec, p, sizeof(p));
	double pl = fmt_signed(d->ci_low, dec, lo, sizeof(lo));
	double ph = fmt_signed(d->ci_high, dec, hi, sizeof(hi));
	/* "p ± h" only when it says exactly the printed bounds, p - h and p + h */
	if (fabs((pp - pl) - (ph - pp)) < 0.5 * pow(10, -dec))
		snprintf(buf, len, "%s%% ± %.*f%%", p, dec, pp - pl);
	else
		snprintf(buf, len, "%s%% [%s%%, %s%%]", p, lo, hi);
}

void report_fmt_diff(double diff, char *buf, size_t len)
{
	if (diff == 0)
		snprintf(buf, len, "(0)");
	else
		snprintf(buf, len, "(%+.0f)", diff);
}

char *report_wrap(const char *line, size_t width, size_t indent)
{
	return text_wrap(line, width, indent);
}

size_t report_width(const char *s)
{
	return text_width(s);
}

struct cells {
	char name[128], mean[96], range[96], outl[48], delta[160], note[64];
};

static void pad(FILE *f, const char *s, size_t width)
{
	size_t w = report_width(s);
	for (; w < width; w++)
		fputc(' ', f);
}

static void put(FILE *f, bool color, const char *c, const char *s)
{
	if (color && c)
		fprintf(f, "%s%s%s", c, s, C_RESET);
	else
		fputs(s, f);
}

static void make_cells(const struct report_row *r, struct cells *c)
{
	char a[32], b[32];
	snprintf(c->name, sizeof(c->name), "%s", r->name);
	c->note[0] = c->delta[0] = '\0';
	if (r->not_counted) {
		snprintf(c->mean, sizeof(c->mean), "<not counted>");
		c->range[0] = c->outl[0] = '\0';
		return;
	}
	report_fmt_value(r->st.mean, r->unit, a, sizeof(a));
	report_fmt_value(r->st.sd, r->unit, b, sizeof(b));
	/* One run of a measurement that varies says nothing of its spread: no "± 0" as if it had none. */
	if (r->st.n < 2 && !r->exact)
		snprintf(c->mean, sizeof(c->mean), "%s", a);
	else
		snprintf(c->mean, sizeof(c->mean), "%s ± %s", a, b);
	report_fmt_value(r->st.min, r->unit, a, sizeof(a));
	report_fmt_value(r->st.max, r->unit, b, sizeof(b));
	snprintf(c->range, sizeof(c->range), "%s … %s", a, b);
	double pct = r->st.n ? 100.0 * (double)r->st.outliers / (double)r->st.n : 0;
	snprintf(c->outl, sizeof(c->outl), "%zu (%.0f%%)", r->st.outliers, pct);
	if (r->has_delta && r->point_only) {
		char p[64];
		if (r->delta.valid)
			snprintf(p, sizeof(p), "%+.1f%%", r->delta.pct == 0 ? 0 : r->delta.pct);
		snprintf(c->delta, sizeof(c->delta), "   %s (one run: no interval)", r->delta.valid ? p : "n/a");
	} else if (r->has_delta) {
		char d[112], x[40] = "";
		report_fmt_delta(&r->delta, d, sizeof(d));
		if (r->has_diff)
			report_fmt_diff(r->diff, x, sizeof(x));
		const char *glyph = r->delta.verdict == DELTA_BETTER ? "⚡ "
				  : r->delta.verdict == DELTA_WORSE ? "💩 " : "   ";
		snprintf(c->delta, sizeof(c->delta), "%s%s%s%s", glyph, d, x[0] ? " " : "", x);
	}
	if (r->scaled)
		snprintf(c->note, sizeof(c->note), "(scaled, %.1f%% counted)", r->coverage * 100);
}

/* Column widths, gaps included; stacked: the delta and note on a line of their own under each row. */
struct layout {
	size_t wn, wm, wr, wo, wd, wnote;
	size_t gap;		/* spaces between columns, included in wn, wm, wr, wo */
	bool any_delta, stacked;
};

/* The widest line of the table: the columns (the last without its gap), then the delta and note. */
static size_t layout_width(const struct layout *L)
{
	size_t tail = L->any_delta ? L->wd + (L->wnote ? 3 + L->wnote : 0) : L->wnote;
	size_t cols = L->wn + L->wm + L->wr + L->wo;
	if (!tail)
		return cols - L->gap;
	if (!L->stacked)
		return cols + tail;
	return cols - L->gap > L->wn + tail ? cols - L->gap : L->wn + tail;
}

/* The full form (gaps of 3, minimum widths), then narrower steps until it fits o->width. */
static void layout_fit(const struct report_opts *o, const struct cells *c, size_t n, struct layout *L)
{
	size_t wn = report_width("measurement"), wm = report_width("mean ± σ");
	size_t wr = report_width("min … max"), wo = report_width("outliers"), wd = report_width("delta"), wnote = 0;
	for (size_t i = 0; i < n; i++) {
#define WIDEN(w, s) do { size_t x_ = report_width(s); if (x_ > (w)) (w) = x_; } while (0)
		WIDEN(wn, c[i].name);
		WIDEN(wm, c[i].mean);
		WIDEN(wr, c[i].range);
		WIDEN(wo, c[i].outl);
		WIDEN(wd, c[i].delta);
		WIDEN(wnote, c[i].note);
#undef WIDEN
	}
	if (o->name_width > wn)
		wn = o->name_width;
	L->wd = wd;
	L->wnote = wnote;
	L->stacked = false;
	L->gap = 3;
	L->wn = wn + 3;
	L->wm = wm + 3 < 18 ? 18 : wm + 3;
	L->wr = wr + 3 < 21 ? 21 : wr + 3;
	L->wo = wo + 3 < 12 ? 12 : wo + 3;
	if (!o->width || layout_width(L) <= o->width)
		return;
	L->gap = 2;
	L->wn = wn + 2;
	L->wm = wm + 2;
	L->wr = wr + 2;
	L->wo = wo + 2;
	if (layout_width(L) <= o->width)
		return;
	L->stacked = L->any_delta || wnote;
}

static void put_header(FILE *f, const struct report_opts *o, const struct layout *L, unsigned index,
		       size_t runs, const char *cmd)
{
	bool color = o->color;
	if (o->title)
		put(f, color, C_BOLD, o->title);
	else {
		put(f, color, C_BOLD, "Benchmark");
		fprintf(f, color ? C_BOLD " %u" C_RESET : " %u", index);
	}
	char runs_s[48];
	snprintf(runs_s, sizeof(runs_s), " (%zu run%s)", runs, runs == 1 ? "" : "s");
	put(f, color, C_DIM, runs_s);
	fprintf(f, ": %s\n\n", cmd);

	put(f, color, C_BOLD, "measurement");
	pad(f, "measurement", L->wn);
	put(f, color, C_BGREEN, "mean");
	fputs(" ± ", f);
	put(f, color, C_GREEN, "σ");
	pad(f, "mean ± σ", L->wm);
	put(f, color, C_CYAN, "min");
	fputs(" … ", f);
	put(f, color, C_MAGENTA, "max");
	pad(f, "min … max", L->wr);
	put(f, color, C_YELLOW, "outliers");
	if (L->any_delta) {
		if (L->stacked) {
			fputc('\n', f);
			pad(f, "", L->wn);
		} else
			pad(f, "outliers", L->wo);
		put(f, color, C_BOLD, "delta");
	}
	fputc('\n', f);
}

/* The delta and the note of row r, from where the cursor is (after the outliers, or under the mean). */
static void put_delta(FILE *f, bool color, const struct layout *L, const struct report_row *r,
		      const struct cells *c)
{
	if (L->any_delta) {
		const char *dc = r->delta.verdict == DELTA_BETTER ? C_BGREEN
			       : r->delta.verdict == DELTA_WORSE ? C_RED : C_DIM;
		put(f, color, dc, c->delta);
		if (c->note[0])
			pad(f, c->delta, L->wd + 3);
	}
	if (c->note[0])
		put(f, color, C_YELLOW, c->note);
}

static void put_row(FILE *f, bool color, const struct layout *L, const struct report_row *r, struct cells *c)
{
	fputs(c->name, f);
	pad(f, c->name, L->wn);
	if (color && !r->not_counted && strstr(c->mean, " ± ")) {
		char *pm = strstr(c->mean, " ± ");
		*pm = '\0';
		put(f, true, C_BGREEN, c->mean);
		fputs(" ± ", f);
		put(f, true, C_GREEN, pm + strlen(" ± "));
		*pm = ' ';
		pad(f, c->mean, L->wm);
		char *pr = strstr(c->range, " … ");
		*pr = '\0';
		put(f, true, C_CYAN, c->range);
		fputs(" … ", f);
		put(f, true, C_MAGENTA, pr + strlen(" … "));
		*pr = ' ';
	} else {
		fputs(c->mean, f);
		pad(f, c->mean, L->wm);
		fputs(c->range, f);
	}
	bool more = !L->stacked && (L->any_delta || c->note[0]);
	if (c->outl[0] || more)
		pad(f, c->range, L->wr);
	bool many = r->st.n && r->st.outliers * 10 >= r->st.n;
	put(f, color, many ? C_YELLOW : C_DIM, c->outl);
	if (more)
		pad(f, c->outl, L->wo);
	if (L->stacked && (c->delta[0] || c->note[0])) {
		fputc('\n', f);
		pad(f, "", L->wn);
	}
	put_delta(f, color, L, r, c);
	fputc('\n', f);
}

void report_block(FILE *f, const struct report_opts *o, unsigned index, size_t runs,
		  const char *cmd, const struct report_row *rows, size_t n)
{
	struct cells *c = xcalloc(n ? n : 1, sizeof(*c));
	struct layout L = { 0 };
	for (size_t i = 0; i < n; i++) {
		make_cells(&rows[i], &c[i]);
		L.any_delta |= rows[i].has_delta;
	}
	layout_fit(o, c, n, &L);
	put_header(f, o, &L, index, runs, cmd);
	for (size_t i = 0; i < n; i++)
		put_row(f, o->color, &L, &rows[i], &c[i]);
	if (o->footer)
		fprintf(f, "%s\n", o->footer);
	fputc('\n', f);
	free(c);
}
