/*
 * output/plot.c: the calibration and delta plots as SVG (see output/plot.h).
 *
 * Text widths are estimated (7 px per character of 12 px sans-serif, a
 * little more than most fonts need), since a standalone SVG cannot measure
 * text; columns are sized from the longest label so nothing overlaps.
 */
#include "output/plot.h"
#include "catalog/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT 12
#define CHAR_W 7.0
#define MARGIN 16.0
#define ROW_H 18.0

/* Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
				       "#E69F00", "#56B4E9", "#000000", "#F0E442" };
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

void plot_xml_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* Control characters are not allowed in XML 1.0 text. */
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				fputc('?', out);
			else
				fputc(*s, out);
		}
	}
}

void plot_log_decades(const double *v, size_t n, int maxspan, int *lo, int *hi)
{
	double mn = INFINITY, mx = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] <= 0)
			continue;
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	if (!isfinite(mn)) {
		*lo = -1;
		*hi = 1;
		return;
	}
	/* A hair of slack so that exactly 1, 10, 0.001 sit on their own gridline. */
	*lo = (int)floor(log10(mn) + 1e-9);
	*hi = (int)ceil(log10(mx) - 1e-9);
	if (*hi <= *lo)
		*hi = *lo + 1;
	if (maxspan > 0 && *hi - *lo > maxspan)
		*lo = *hi - maxspan;
}

void plot_decade_label(int d, char *buf, size_t len)
{
	if (d >= 0 && d <= 4)
		snprintf(buf, len, "%.0f", pow(10, d));
	else if (d < 0 && d >= -3)
		snprintf(buf, len, "%.*f", -d, pow(10, d));
	else
		snprintf(buf, len, "1e%d", d);
}

double plot_nice_step(double span, int ticks)
{
	if (!(span > 0) || ticks < 1)
		return 1;
	double raw = span / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static double text_w(const char *s)
{
	return s ? (double)strlen(s) * CHAR_W : 0;
}

static void text(FILE *o, double x, double y, const char *anchor, const char *style, const char *s)
{
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s%s>", x, y, anchor ? " text-anchor=\"" : "",
		anchor ? anchor : "", anchor ? "\"" : "", style ? style : "");
	plot_xml_escape(o, s);
	fputs("</text>\n", o);
}

/* Marker shape k (circle, square, diamond, triangles) at (x, y). */
static void marker(FILE *o, int k, double x, double y, const char *fill, bool hollow)
{
	const double r = 4.2;
	char paint[96];
	snprintf(paint, sizeof(paint), "fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"", hollow ? "#ffffff" : fill,
		 hollow ? fill : "#1f1f1f", hollow ? "1.6" : "0.6");
	switch (k % 5) {
	case 0:
		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>", x, y, r, paint);
		break;
	case 1:
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>", x - r * 0.85,
			y - r * 0.85, r * 1.7, r * 1.7, paint);
		break;
	case 2:
		fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" %s/>", x, y - r * 1.2, x + r * 1.1, y,
			x, y + r * 1.2, x - r * 1.1, y, paint);
		break;
	case 3:
		fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" %s/>", x, y - r * 1.1, x + r * 1.1, y + r * 0.8,
			x - r * 1.1, y + r * 0.8, paint);
		break;
	default:
		fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" %s/>", x, y + r * 1.1, x + r * 1.1, y - r * 0.8,
			x - r * 1.1, y - r * 0.8, paint);
		break;
	}
}

static void header(FILE *o, double w, double h)
{
	fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		   "font-family=\"sans-serif\" font-size=\"%d\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		w, h, w, h, FONT);
}

static int finish(FILE *o)
{
	fputs("</svg>\n", o);
	return fflush(o) == 0 && !ferror(o) ? 0 : -1;
}

/* The verdict's text style: green validated, red failed, blue linear, grey otherwise. */
static const char *verdict_style(const char *v)
{
	if (v && !strcmp(v, "validated"))
		return " fill=\"#1a7f37\" font-weight=\"bold\"";
	if (v && calib_verdict_failed(v))
		return " fill=\"#c62828\" font-weight=\"bold\"";
	if (v && !strcmp(v, "linear"))
		return " fill=\"#0b5cad\"";
	return " fill=\"#6e6e6e\"";
}

/* ---- calibration ---- */

/* Where everything of the calibration plot goes: columns left to right, rows top to bottom. */
struct cal_layout {
	size_t np;			/* probes drawn */
	int lo, hi;			/* the axis, in decades */
	double per_dec;			/* pixels per decade */
	double x_name, x_zero, w_zero, x_axis, w_axis, x_ver, x_prof, width;
	double y_top, y_rows, y_bottom, height;
};

/* The decades the measured responses need (and the silent band's edge, when it fits). */
static int cal_decades(const struct plot_cal *c, size_t np, int *lo, int *hi)
{
	size_t nvals = 0;
	double *vals = calloc(c->nevents * np + 1, sizeof(*vals));
	if (!vals)
		return -1;
	for (size_t i = 0; i < c->nevents; i++)
		for (size_t p = 0; c->events[i].measured && p < np; p++)
			vals[nvals++] = c->events[i].response[p];
	plot_log_decades(vals, nvals, 8, lo, hi);
	free(vals);
	/* Show the silent band's edge even when every response is above it. */
	if (c->silent_below > 0) {
		int s = (int)floor(log10(c->silent_below) + 1e-9);
		if (s < *lo && *hi - s <= 8)
			*lo = s;
	}
	return 0;
}

static int cal_layout(const struct plot_cal *c, struct cal_layout *L)
{
	L->np = c->nprobes < PLOT_MAX_PROBES ? c->nprobes : PLOT_MAX_PROBES;
	double wname = text_w("event"), wver = text_w("verdict"), wprof = text_w("profile");
	for (size_t i = 0; i < c->nevents; i++) {
		const struct plot_cal_event *e = &c->events[i];
		wname = fmax(wname, text_w(e->name));
		wver = fmax(wver, text_w(e->verdict));
		wprof = fmax(wprof, text_w(e->profile));
	}
	if (cal_decades(c, L->np, &L->lo, &L->hi) < 0)
		return -1;
	const int span = L->hi - L->lo;
	L->per_dec = fmax(56.0, 440.0 / span);
	L->x_name = MARGIN;
	L->x_zero = L->x_name + wname + 18;
	L->w_zero = 34;
	L->x_axis = L->x_zero + L->w_zero + 14;
	L->w_axis = L->per_dec * span;
	L->x_ver = L->x_axis + L->w_axis + 18;
	L->x_prof = L->x_ver + wver + 14;
	double width = L->x_prof + wprof + MARGIN;
	double lw = MARGIN;
	for (size_t p = 0; p < L->np; p++)
		lw += 22 + text_w(c->probes[p]) + 14;
	L->width = fmax(width, fmax(lw + MARGIN, fmax(text_w(c->title) * 1.2, text_w(c->subtitle)) + 2 * MARGIN));
	L->y_top = 96;
	L->y_rows = L->y_top + 10;
	L->y_bottom = L->y_rows + ROW_H * (double)c->nevents;
	L->height = L->y_bottom + 96;
	return 0;
}

/* Title, subtitle and the legend: one marker per probe. */
static void cal_heading(FILE *o, const struct plot_cal *c, const struct cal_layout *L)
{
	text(o, MARGIN, 24, NULL, " font-size=\"15\" font-weight=\"bold\"", c->title ? c->title : "calibration");
	if (c->subtitle)
		text(o, MARGIN, 42, NULL, " fill=\"#555555\"", c->subtitle);
	double lx = MARGIN;
	text(o, lx, 66, NULL, " fill=\"#333333\"", "probes:");
	lx += text_w("probes:") + 10;
	for (size_t p = 0; p < L->np; p++) {
		marker(o, (int)p, lx + 5, 62, palette[p % NPALETTE], false);
		fputc('\n', o);
		text(o, lx + 14, 66, NULL, NULL, c->probes[p]);
		lx += 22 + text_w(c->probes[p]) + 14;
	}
}

/*
 * Column heads, zebra rows, the silent band, the zero column and one gridline per decade.
 * Returns the silent band's right edge, NAN when there is none.
 */
static double cal_grid(FILE *o, const struct plot_cal *c, const struct cal_layout *L)
{
	text(o, L->x_name, L->y_top - 4, NULL, " font-weight=\"bold\"", "event");
	text(o, L->x_zero + L->w_zero / 2, L->y_top - 4, "middle", " font-weight=\"bold\"", "0");
	text(o, L->x_ver, L->y_top - 4, NULL, " font-weight=\"bold\"", "verdict");
	text(o, L->x_prof, L->y_top - 4, NULL, " font-weight=\"bold\"", "profile");
	for (size_t i = 0; i < c->nevents; i += 2)
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
			MARGIN / 2, L->y_rows + ROW_H * (double)i, L->width - MARGIN, ROW_H);

	/* Silent band: below the threshold a response counts as nothing. */
	double xs = NAN;
	if (c->silent_below > 0) {
		double ls = log10(c->silent_below);
		if (ls > L->lo) {
			xs = L->x_axis + (fmin(ls, L->hi) - L->lo) * L->per_dec;
			fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9e9e9e\" "
				   "fill-opacity=\"0.18\"/>\n", L->x_axis, L->y_rows, xs - L->x_axis, L->y_bottom - L->y_rows);
		}
	}
	/* The zero column, set off from the axis. */
	fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#9e9e9e\" "
		   "stroke-dasharray=\"3 2\"/>\n", L->x_zero, L->y_rows, L->w_zero, L->y_bottom - L->y_rows);

	/* Gridlines, one per decade, labelled above and below. */
	for (int d = L->lo; d <= L->hi; d++) {
		double x = L->x_axis + (d - L->lo) * L->per_dec;
		char lab[16];
		plot_decade_label(d, lab, sizeof(lab));
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
			x, L->y_rows, x, L->y_bottom, d == 0 ? "#7a7a7a" : "#c8c8c8", d == 0 ? "1.2" : "1");
		text(o, x, L->y_top - 4, "middle", NULL, lab);
		text(o, x, L->y_bottom + 14, "middle", NULL, lab);
	}
	return xs;
}

/* Probe p's response marker in event e's row (centre y), with its value as a tooltip. */
static void cal_marker(FILE *o, const struct plot_cal *c, const struct cal_layout *L,
		       const struct plot_cal_event *e, size_t p, double y)
{
	double v = e->response[p];
	size_t np = L->np;
	double dy = ((double)p - (double)(np - 1) / 2) * (np > 1 ? fmin(3.0, 10.0 / (np - 1)) : 0);
	bool zero = !(v > 0) || log10(v) < L->lo - 1e-9;
	double x = zero ? L->x_zero + L->w_zero / 2 + dy : L->x_axis + (fmin(log10(v), L->hi) - L->lo) * L->per_dec;
	fprintf(o, "<g><title>");
	plot_xml_escape(o, e->name);
	fputs(" on ", o);
	plot_xml_escape(o, c->probes[p]);
	fprintf(o, ": %.4g per unit%s</title>", v, zero && v != 0 ? " (shown as 0)" : "");
	/* Negative responses are noise around zero: hollow. */
	marker(o, (int)p, x, y + (zero ? 0 : dy), palette[p % NPALETTE], v < 0);
	fputs("</g>\n", o);
}

/* Event i's row: its name, a marker per probe (or why there are none), verdict and profile. */
static void cal_row(FILE *o, const struct plot_cal *c, const struct cal_layout *L, size_t i)
{
	const struct plot_cal_event *e = &c->events[i];
	double y = L->y_rows + ROW_H * (double)i + ROW_H / 2;
	fprintf(o, "<g>\n");
	text(o, L->x_name, y + 4, NULL, e->measured ? NULL : " fill=\"#8a8a8a\"", e->name);
	if (!e->measured) {
		char why[96];
		snprintf(why, sizeof(why), "not measured (%s)", e->verdict ? e->verdict : "no data");
		text(o, L->x_axis + 6, y + 4, NULL, " fill=\"#8a8a8a\" font-style=\"italic\"", why);
	} else {
		for (size_t p = 0; p < L->np; p++)
			if (!isnan(e->response[p]))
				cal_marker(o, c, L, e, p, y);
	}
	text(o, L->x_ver, y + 4, NULL, verdict_style(e->verdict), e->verdict ? e->verdict : "-");
	text(o, L->x_prof, y + 4, NULL, NULL, e->profile && *e->profile ? e->profile : "-");
	fputs("</g>\n", o);
}

/* The axis line, its caption, and what the zero column and the shading mean. */
static void cal_notes(FILE *o, const struct plot_cal *c, const struct cal_layout *L, double xs)
{
	fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", L->x_axis,
		L->y_bottom, L->x_axis + L->w_axis, L->y_bottom);
	text(o, L->x_axis + L->w_axis / 2, L->y_bottom + 32, "middle", " fill=\"#333333\"",
	     "response per unit of work (log scale, one gridline per factor of ten)");
	char note[200], lab[16];
	plot_decade_label(L->lo, lab, sizeof(lab));
	snprintf(note, sizeof(note), "0 column: a response of zero, below zero (hollow: noise) or below %s per unit", lab);
	text(o, MARGIN, L->y_bottom + 58, NULL, " fill=\"#555555\"", note);
	if (isfinite(xs)) {
		snprintf(note, sizeof(note), "shaded: below %g per unit, where a response counts as nothing (silent)",
			 c->silent_below);
		text(o, MARGIN, L->y_bottom + 76, NULL, " fill=\"#555555\"", note);
	}
}

int plot_calibration_svg(FILE *o, const struct plot_cal *c)
{
	struct cal_layout L;
	if (cal_layout(c, &L) < 0)
		return -1;
	header(o, L.width, L.height);
	cal_heading(o, c, &L);
	double xs = cal_grid(o, c, &L);
	for (size_t i = 0; i < c->nevents; i++)
		cal_row(o, c, &L, i);
	cal_notes(o, c, &L, xs);
	return finish(o);
}

/* ---- deltas ---- */

static void fmt_pct(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%+.1f%%", v);
}

/* Where everything of the delta plot goes. */
struct delta_layout {
	size_t nc;			/* compared commands (all but the reference) */
	double lo, hi, step;		/* the axis, in percent, and its tick step */
	double row_h, x_name, x_axis, w_axis, x_val, width;
	double y_legend, y_top, y_rows, y_bottom, height;
};

/* The x of a change of v percent. */
static double delta_x(const struct delta_layout *L, double v)
{
	return L->x_axis + (v - L->lo) / (L->hi - L->lo) * L->w_axis;
}

/* The axis covers every change and interval (and the +-1% band), padded and rounded to whole ticks. */
static void delta_axis(const struct plot_deltas *p, struct delta_layout *L)
{
	double lo = -1.5, hi = 1.5;
	for (size_t m = 0; m < p->nmeas; m++)
		for (size_t c = 0; c < L->nc; c++) {
			const struct lk_delta *d = &p->d[m * L->nc + c];
			if (!d->valid || !isfinite(d->pct))
				continue;
			lo = fmin(lo, d->pct);
			hi = fmax(hi, d->pct);
			if (d->bounded && isfinite(d->ci_low) && isfinite(d->ci_high)) {
				lo = fmin(lo, d->ci_low);
				hi = fmax(hi, d->ci_high);
			}
		}
	double pad = (hi - lo) * 0.06;
	lo -= pad;
	hi += pad;
	L->step = plot_nice_step(hi - lo, 5);
	L->lo = floor(lo / L->step) * L->step;
	L->hi = ceil(hi / L->step) * L->step;
}

static void delta_layout(const struct plot_deltas *p, struct delta_layout *L)
{
	L->nc = p->ncmds > 1 ? p->ncmds - 1 : 0;
	double wname = text_w("measurement");
	for (size_t m = 0; m < p->nmeas; m++)
		wname = fmax(wname, text_w(p->measurements[m]));
	delta_axis(p, L);
	L->row_h = fmax(ROW_H, 14.0 * (double)L->nc + 6);
	L->x_name = MARGIN;
	L->x_axis = L->x_name + wname + 40;
	L->w_axis = 520;
	L->x_val = L->x_axis + L->w_axis + 18;
	double wval = text_w("-100.0% [-100.0%, -100.0%] unbounded");
	L->width = L->x_val + wval + MARGIN;
	for (size_t c = 0; c < p->ncmds; c++)
		L->width = fmax(L->width, MARGIN * 2 + 40 + text_w(p->commands[c]));
	L->y_legend = 66;
	L->y_top = L->y_legend + 18.0 * (double)p->ncmds + 18;
	L->y_rows = L->y_top + 8;
	L->y_bottom = L->y_rows + L->row_h * (double)p->nmeas;
	L->height = L->y_bottom + 64;
}

/* Title, caption and the legend: the reference, then one colour per compared command. */
static void delta_heading(FILE *o, const struct plot_deltas *p, const struct delta_layout *L)
{
	text(o, MARGIN, 24, NULL, " font-size=\"15\" font-weight=\"bold\"", p->title ? p->title : "deltas");
	text(o, MARGIN, 42, NULL, " fill=\"#555555\"",
	     "change of the mean against command 1, with its 95% confidence interval");
	char lab[64];
	for (size_t c = 0; c < p->ncmds; c++) {
		double y = L->y_legend + 18.0 * (double)c;
		if (c == 0) {
			fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\" "
				   "stroke-width=\"2\"/>\n", MARGIN, y - 4, MARGIN + 12, y - 4);
			snprintf(lab, sizeof(lab), "1 (reference):");
		} else {
			marker(o, 0, MARGIN + 6, y - 4, palette[(c - 1) % NPALETTE], false);
			fputc('\n', o);
			snprintf(lab, sizeof(lab), "%zu:", c + 1);
		}
		text(o, MARGIN + 20, y, NULL, " font-weight=\"bold\"", lab);
		text(o, MARGIN + 26 + text_w(lab), y, NULL, " font-family=\"monospace\"", p->commands[c]);
	}
}

/* The column head, zebra rows, the +-1% band inside which no change counts, and the ticks. */
static void delta_grid(FILE *o, const struct plot_deltas *p, const struct delta_layout *L)
{
	text(o, L->x_name, L->y_top - 4, NULL, " font-weight=\"bold\"", "measurement");
	for (size_t m = 0; m < p->nmeas; m += 2)
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
			MARGIN / 2, L->y_rows + L->row_h * (double)m, L->width - MARGIN, L->row_h);
	double b0 = fmax(L->lo, -DELTA_THRESHOLD_PCT), b1 = fmin(L->hi, DELTA_THRESHOLD_PCT);
	fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9e9e9e\" fill-opacity=\"0.2\"/>\n",
		delta_x(L, b0), L->y_rows, delta_x(L, b1) - delta_x(L, b0), L->y_bottom - L->y_rows);
	for (double t = L->lo; t <= L->hi + L->step / 2; t += L->step) {
		double v = fabs(t) < L->step / 1e6 ? 0 : t;
		double x = delta_x(L, v);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
			x, L->y_rows, x, L->y_bottom, v == 0 ? "#333333" : "#d0d0d0", v == 0 ? "1.5" : "1");
		char tl[32];
		snprintf(tl, sizeof(tl), v == 0 ? "0%%" : "%+g%%", v);
		text(o, x, L->y_top - 4, "middle", NULL, tl);
		text(o, x, L->y_bottom + 14, "middle", NULL, tl);
	}
}

/*
 * One delta at height y: its interval (or a dashed line when unbounded), its marker and a tooltip;
 * the value as text goes into val.
 */
static void delta_mark(FILE *o, const struct delta_layout *L, const struct lk_delta *d, const char *col, double y,
		       char *val, size_t len)
{
	char a[24], b[24], v[24];
	if (!d->valid || !isfinite(d->pct)) {
		fputs("no delta: the reference mean is 0</title>", o);
		text(o, delta_x(L, 0) + 8, y + 4, NULL, " fill=\"#8a8a8a\" font-style=\"italic\"", "n/a (reference is 0)");
		snprintf(val, len, "n/a");
		return;
	}
	fmt_pct(v, sizeof(v), d->pct);
	if (d->bounded && isfinite(d->ci_low) && isfinite(d->ci_high)) {
		fmt_pct(a, sizeof(a), d->ci_low);
		fmt_pct(b, sizeof(b), d->ci_high);
		snprintf(val, len, "%s [%s, %s]", v, a, b);
		fprintf(o, "%s</title>", val);
		double xa = delta_x(L, d->ci_low), xb = delta_x(L, d->ci_high);
		fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" "
			   "stroke=\"%s\" stroke-width=\"1.8\" fill=\"none\"/>",
			xa, y, xb, y, xa, y - 4, xa, y + 4, xb, y - 4, xb, y + 4, col);
	} else {
		snprintf(val, len, "%s, interval unbounded", v);
		fprintf(o, "%s</title>", val);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
			delta_x(L, L->lo), y, delta_x(L, L->hi), y, col);
	}
	marker(o, 0, delta_x(L, d->pct), y, col, false);
}

/* Measurement m's row: its name, and each compared command's delta with its value at the right. */
static void delta_row(FILE *o, const struct plot_deltas *p, const struct delta_layout *L, size_t m)
{
	double y0 = L->y_rows + L->row_h * (double)m;
	text(o, L->x_name, y0 + L->row_h / 2 + 4, NULL, NULL, p->measurements[m]);
	for (size_t c = 0; c < L->nc; c++) {
		double y = y0 + L->row_h / 2 + ((double)c - (double)(L->nc - 1) / 2) * 14.0;
		char val[96];
		fprintf(o, "<g><title>");
		plot_xml_escape(o, p->measurements[m]);
		fprintf(o, ", command %zu: ", c + 2);
		delta_mark(o, L, &p->d[m * L->nc + c], palette[c % NPALETTE], y, val, sizeof(val));
		fputs("</g>\n", o);
		text(o, L->x_val, y + 4, NULL, " fill=\"#333333\"", val);
	}
}

int plot_deltas_svg(FILE *o, const struct plot_deltas *p)
{
	struct delta_layout L;
	delta_layout(p, &L);
	header(o, L.width, L.height);
	delta_heading(o, p, &L);
	delta_grid(o, p, &L);
	for (size_t m = 0; m < p->nmeas; m++)
		delta_row(o, p, &L, m);
	fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", L.x_axis,
		L.y_bottom, L.x_axis + L.w_axis, L.y_bottom);
	text(o, MARGIN, L.y_bottom + 38, NULL, " fill=\"#555555\"",
	     "shaded: within ±1%, where no change counts; dashed: the interval is unbounded (reference mean not clearly above 0)");
	return finish(o);
}
