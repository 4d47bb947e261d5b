/*
 * output/plot.c: the calibration and delta plots as SVG (see output/plot.h).
 *
 * Text widths are estimated (7 px per character of 12 px sans-serif, a
 * little more than most fonts need), since a standalone SVG cannot measure
 * text; columns are sized from the longest label so nothing overlaps.
 */
#include "output/plot.h"

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
	if (v && (!strncmp(v, "off by", 6) || !strcmp(v, "not linear")))
		return " fill=\"#c62828\" font-weight=\"bold\"";
	if (v && !strcmp(v, "linear"))
		return " fill=\"#0b5cad\"";
	return " fill=\"#6e6e6e\"";
}

/* ---- calibration ---- */

int plot_calibration_svg(FILE *o, const struct plot_cal *c)
{
	size_t np = c->nprobes < PLOT_MAX_PROBES ? c->nprobes : PLOT_MAX_PROBES;
	double wname = text_w("event"), wver = text_w("verdict"), wprof = text_w("profile");
	size_t nvals = 0;
	double *vals = calloc(c->nevents * np + 1, sizeof(*vals));
	if (!vals)
		return -1;
	for (size_t i = 0; i < c->nevents; i++) {
		const struct plot_cal_event *e = &c->events[i];
		wname = fmax(wname, text_w(e->name));
		wver = fmax(wver, text_w(e->verdict));
		wprof = fmax(wprof, text_w(e->profile));
		for (size_t p = 0; e->measured && p < np; p++)
			vals[nvals++] = e->response[p];
	}
	int lo, hi;
	plot_log_decades(vals, nvals, 8, &lo, &hi);
	free(vals);
	/* Show the silent band's edge even when every response is above it. */
	if (c->silent_below > 0) {
		int s = (int)floor(log10(c->silent_below) + 1e-9);
		if (s < lo && hi - s <= 8)
			lo = s;
	}
	const int span = hi - lo;
	const double per_dec = fmax(56.0, 440.0 / span);
	const double x_name = MARGIN, x_zero = x_name + wname + 18, w_zero = 34;
	const double x_axis = x_zero + w_zero + 14, w_axis = per_dec * span;
	const double x_ver = x_axis + w_axis + 18, x_prof = x_ver + wver + 14;
	double width = x_prof + wprof + MARGIN;
	double lw = MARGIN;
	for (size_t p = 0; p < np; p++)
		lw += 22 + text_w(c->probes[p]) + 14;
	width = fmax(width, fmax(lw + MARGIN, fmax(text_w(c->title) * 1.2, text_w(c->subtitle)) + 2 * MARGIN));
	const double y_top = 96, y_rows = y_top + 10;
	const double y_bottom = y_rows + ROW_H * (double)c->nevents;
	const double height = y_bottom + 96;

	header(o, width, height);
	text(o, MARGIN, 24, NULL, " font-size=\"15\" font-weight=\"bold\"", c->title ? c->title : "calibration");
	if (c->subtitle)
		text(o, MARGIN, 42, NULL, " fill=\"#555555\"", c->subtitle);

	/* Legend: one marker per probe. */
	double lx = MARGIN;
	text(o, lx, 66, NULL, " fill=\"#333333\"", "probes:");
	lx += text_w("probes:") + 10;
	for (size_t p = 0; p < np; p++) {
		marker(o, (int)p, lx + 5, 62, palette[p % NPALETTE], false);
		fputc('\n', o);
		text(o, lx + 14, 66, NULL, NULL, c->probes[p]);
		lx += 22 + text_w(c->probes[p]) + 14;
	}

	/* Column heads. */
	text(o, x_name, y_top - 4, NULL, " font-weight=\"bold\"", "event");
	text(o, x_zero + w_zero / 2, y_top - 4, "middle", " font-weight=\"bold\"", "0");
	text(o, x_ver, y_top - 4, NULL, " font-weight=\"bold\"", "verdict");
	text(o, x_prof, y_top - 4, NULL, " font-weight=\"bold\"", "profile");

	/* Zebra rows. */
	for (size_t i = 0; i < c->nevents; i += 2)
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
			MARGIN / 2, y_rows + ROW_H * (double)i, width - MARGIN, ROW_H);

	/* Silent band: below the threshold a response counts as nothing. */
	double xs = NAN;
	if (c->silent_below > 0) {
		double ls = log10(c->silent_below);
		if (ls > lo) {
			xs = x_axis + (fmin(ls, hi) - lo) * per_dec;
			fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9e9e9e\" "
				   "fill-opacity=\"0.18\"/>\n", x_axis, y_rows, xs - x_axis, y_bottom - y_rows);
		}
	}
	/* The zero column, set off from the axis. */
	fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#9e9e9e\" "
		   "stroke-dasharray=\"3 2\"/>\n", x_zero, y_rows, w_zero, y_bottom - y_rows);

	/* Gridlines, one per decade, labelled above and below. */
	for (int d = lo; d <= hi; d++) {
		double x = x_axis + (d - lo) * per_dec;
		char lab[16];
		plot_decade_label(d, lab, sizeof(lab));
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
			x, y_rows, x, y_bottom, d == 0 ? "#7a7a7a" : "#c8c8c8", d == 0 ? "1.2" : "1");
		text(o, x, y_top - 4, "middle", NULL, lab);
		text(o, x, y_bottom + 14, "middle", NULL, lab);
	}

	/* Rows. */
	for (size_t i = 0; i < c->nevents; i++) {
		const struct plot_cal_event *e = &c->events[i];
		double y = y_rows + ROW_H * (double)i + ROW_H / 2;
		fprintf(o, "<g>\n");
		text(o, x_name, y + 4, NULL, e->measured ? NULL : " fill=\"#8a8a8a\"", e->name);
		if (!e->measured) {
			char why[96];
			snprintf(why, sizeof(why), "not measured (%s)", e->verdict ? e->verdict : "no data");
			text(o, x_axis + 6, y + 4, NULL, " fill=\"#8a8a8a\" font-style=\"italic\"", why);
		} else {
			for (size_t p = 0; p < np; p++) {
				double v = e->response[p];
				if (isnan(v))
					continue;
				double dy = ((double)p - (double)(np - 1) / 2) * (np > 1 ? fmin(3.0, 10.0 / (np - 1)) : 0);
				bool zero = !(v > 0) || log10(v) < lo - 1e-9;
				double x = zero ? x_zero + w_zero / 2 + dy : x_axis + (fmin(log10(v), hi) - lo) * per_dec;
				fprintf(o, "<g><title>");
				plot_xml_escape(o, e->name);
				fputs(" on ", o);
				plot_xml_escape(o, c->probes[p]);
				fprintf(o, ": %.4g per unit%s</title>", v, zero && v != 0 ? " (shown as 0)" : "");
				/* Negative responses are noise around zero: hollow. */
				marker(o, (int)p, x, y + (zero ? 0 : dy), palette[p % NPALETTE], v < 0);
				fputs("</g>\n", o);
			}
		}
		text(o, x_ver, y + 4, NULL, verdict_style(e->verdict), e->verdict ? e->verdict : "-");
		text(o, x_prof, y + 4, NULL, NULL, e->profile && *e->profile ? e->profile : "-");
		fputs("</g>\n", o);
	}

	/* Axis frame and notes. */
	fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", x_axis, y_bottom,
		x_axis + w_axis, y_bottom);
	text(o, x_axis + w_axis / 2, y_bottom + 32, "middle", " fill=\"#333333\"",
	     "response per unit of work (log scale, one gridline per factor of ten)");
	char note[200], lab[16];
	plot_decade_label(lo, lab, sizeof(lab));
	snprintf(note, sizeof(note), "0 column: a response of zero, below zero (hollow: noise) or below %s per unit", lab);
	text(o, MARGIN, y_bottom + 58, NULL, " fill=\"#555555\"", note);
	if (isfinite(xs)) {
		snprintf(note, sizeof(note), "shaded: below %g per unit, where a response counts as nothing (silent)",
			 c->silent_below);
		text(o, MARGIN, y_bottom + 76, NULL, " fill=\"#555555\"", note);
	}
	return finish(o);
}

/* ---- deltas ---- */

static void fmt_pct(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%+.1f%%", v);
}

int plot_deltas_svg(FILE *o, const struct plot_deltas *p)
{
	size_t nc = p->ncmds > 1 ? p->ncmds - 1 : 0;
	double wname = text_w("measurement");
	double lo = -1.5, hi = 1.5;
	for (size_t m = 0; m < p->nmeas; m++) {
		wname = fmax(wname, text_w(p->measurements[m]));
		for (size_t c = 0; c < nc; c++) {
			const struct lk_delta *d = &p->d[m * nc + c];
			if (!d->valid || !isfinite(d->pct))
				continue;
			lo = fmin(lo, d->pct);
			hi = fmax(hi, d->pct);
			if (d->bounded && isfinite(d->ci_low) && isfinite(d->ci_high)) {
				lo = fmin(lo, d->ci_low);
				hi = fmax(hi, d->ci_high);
			}
		}
	}
	double pad = (hi - lo) * 0.06;
	lo -= pad;
	hi += pad;
	const double step = plot_nice_step(hi - lo, 5);
	lo = floor(lo / step) * step;
	hi = ceil(hi / step) * step;
	const double row_h = fmax(ROW_H, 14.0 * (double)nc + 6);
	const double x_name = MARGIN, x_axis = x_name + wname + 40, w_axis = 520;
	const double x_val = x_axis + w_axis + 18;
	double wval = text_w("-100.0% [-100.0%, -100.0%] unbounded");
	double width = x_val + wval + MARGIN;
	for (size_t c = 0; c < p->ncmds; c++)
		width = fmax(width, MARGIN * 2 + 40 + text_w(p->commands[c]));
	const double y_legend = 66, y_top = y_legend + 18.0 * (double)p->ncmds + 18, y_rows = y_top + 8;
	const double y_bottom = y_rows + row_h * (double)p->nmeas;
	const double height = y_bottom + 64;
#define XOF(v) (x_axis + ((v) - lo) / (hi - lo) * w_axis)

	header(o, width, height);
	text(o, MARGIN, 24, NULL, " font-size=\"15\" font-weight=\"bold\"", p->title ? p->title : "deltas");
	text(o, MARGIN, 42, NULL, " fill=\"#555555\"",
	     "change of the mean against command 1, with its 95% confidence interval");
	/* Legend: the reference, then one colour per compared command. */
	char lab[64];
	for (size_t c = 0; c < p->ncmds; c++) {
		double y = y_legend + 18.0 * (double)c;
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

	text(o, x_name, y_top - 4, NULL, " font-weight=\"bold\"", "measurement");
	for (size_t m = 0; m < p->nmeas; m += 2)
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
			MARGIN / 2, y_rows + row_h * (double)m, width - MARGIN, row_h);
	/* The +-1% band inside which no change counts. */
	double b0 = fmax(lo, -DELTA_THRESHOLD_PCT), b1 = fmin(hi, DELTA_THRESHOLD_PCT);
	fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9e9e9e\" fill-opacity=\"0.2\"/>\n",
		XOF(b0), y_rows, XOF(b1) - XOF(b0), y_bottom - y_rows);
	for (double t = lo; t <= hi + step / 2; t += step) {
		double v = fabs(t) < step / 1e6 ? 0 : t;
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
			XOF(v), y_rows, XOF(v), y_bottom, v == 0 ? "#333333" : "#d0d0d0", v == 0 ? "1.5" : "1");
		char tl[32];
		snprintf(tl, sizeof(tl), v == 0 ? "0%%" : "%+g%%", v);
		text(o, XOF(v), y_top - 4, "middle", NULL, tl);
		text(o, XOF(v), y_bottom + 14, "middle", NULL, tl);
	}
	for (size_t m = 0; m < p->nmeas; m++) {
		double y0 = y_rows + row_h * (double)m;
		text(o, x_name, y0 + row_h / 2 + 4, NULL, NULL, p->measurements[m]);
		for (size_t c = 0; c < nc; c++) {
			const struct lk_delta *d = &p->d[m * nc + c];
			const char *col = palette[c % NPALETTE];
			double y = y0 + row_h / 2 + ((double)c - (double)(nc - 1) / 2) * 14.0;
			char val[96], a[24], b[24], v[24];
			fprintf(o, "<g><title>");
			plot_xml_escape(o, p->measurements[m]);
			fprintf(o, ", command %zu: ", c + 2);
			if (!d->valid || !isfinite(d->pct)) {
				fputs("no delta: the reference mean is 0</title>", o);
				text(o, XOF(0) + 8, y + 4, NULL, " fill=\"#8a8a8a\" font-style=\"italic\"",
				     "n/a (reference is 0)");
				snprintf(val, sizeof(val), "n/a");
			} else {
				fmt_pct(v, sizeof(v), d->pct);
				if (d->bounded && isfinite(d->ci_low) && isfinite(d->ci_high)) {
					fmt_pct(a, sizeof(a), d->ci_low);
					fmt_pct(b, sizeof(b), d->ci_high);
					snprintf(val, sizeof(val), "%s [%s, %s]", v, a, b);
					fprintf(o, "%s</title>", val);
					double xa = XOF(d->ci_low), xb = XOF(d->ci_high);
					fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" "
						   "stroke=\"%s\" stroke-width=\"1.8\" fill=\"none\"/>",
						xa, y, xb, y, xa, y - 4, xa, y + 4, xb, y - 4, xb, y + 4, col);
				} else {
					snprintf(val, sizeof(val), "%s, interval unbounded", v);
					fprintf(o, "%s</title>", val);
					fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
						   "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
						XOF(lo), y, XOF(hi), y, col);
				}
				marker(o, 0, XOF(d->pct), y, col, false);
			}
			fputs("</g>\n", o);
			text(o, x_val, y + 4, NULL, " fill=\"#333333\"", val);
		}
	}
	fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", x_axis, y_bottom,
		x_axis + w_axis, y_bottom);
	text(o, MARGIN, y_bottom + 38, NULL, " fill=\"#555555\"",
	     "shaded: within ±1%, where no change counts; dashed: the interval is unbounded (reference mean not clearly above 0)");
#undef XOF
	return finish(o);
}
