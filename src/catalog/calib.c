/*
 * catalog/calib.c: calibration arithmetic and rules (see catalog/calib.h): probe scales,
 * the expectations table, per-unit normalisation, linearity, verdicts and
 * response profiles.  Pure: no I/O, no printing.
 */
#include "catalog/calib.h"
#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expectations.tsv.inc"

/*
 * Native scales keep every 1x run well above process start-up (about 1 ms)
 * and the chase buffer above any real LLC; under valgrind, which runs 15-50
 * times slower, a fraction of that gives the same exact per-unit numbers.
 * The chase walk covers the buffer about once at 1x (256 MiB = 2 Mi slots
 * of 128 bytes; 32 MiB = 256 Ki slots).  Natively, stores overlap and cost
 * a tenth of a chase step, so store takes ten times the steps to rise
 * above the noise of setting up the buffer (page faults).
 */
static const struct calib_scale scales_native[] = {
	{ "alu", 200000000, NULL }, { "chase", 2000000, "256M" },
	{ "branch", 20000000, NULL }, { "store", 20000000, "256M" },
};
static const struct calib_scale scales_native_quick[] = {
	{ "alu", 50000000, NULL }, { "chase", 1000000, "256M" },
	{ "branch", 5000000, NULL }, { "store", 10000000, "256M" },
};
static const struct calib_scale scales_slow[] = {
	{ "alu", 20000000, NULL }, { "chase", 2000000, "256M" },
	{ "branch", 2000000, NULL }, { "store", 2000000, "256M" },
};
static const struct calib_scale scales_slow_quick[] = {
	{ "alu", 1000000, NULL }, { "chase", 500000, "32M" },
	{ "branch", 500000, NULL }, { "store", 500000, "32M" },
};

const struct calib_scale *calib_scales(bool quick, bool slow, size_t *n)
{
	*n = 4;
	if (slow)
		return quick ? scales_slow_quick : scales_slow;
	return quick ? scales_native_quick : scales_native;
}

static char *trim(char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return end != s && !*end && isfinite(*out) ? 0 : -1;
}

static int copy_field(char *dst, size_t size, const char *src)
{
	if (!*src || strlen(src) >= size)
		return -1;
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

static int parse_row(char **f, size_t nf, struct calib_expect *x, char *err, size_t len)
{
	if (nf < 5) {
		lk_errbuf(err, len, "expected kind, event, probe, expectation, tolerance");
		return -1;
	}
	if (copy_field(x->kind, sizeof(x->kind), f[0]) || copy_field(x->event, sizeof(x->event), f[1]) ||
	    copy_field(x->probe, sizeof(x->probe), f[2])) {
		lk_errbuf(err, len, "empty or too long kind, event or probe");
		return -1;
	}
	const char *e = f[3], *t = f[4];
	if (!strcmp(e, "linear")) {
		x->check = CALIB_LINEAR;
	} else if (!strncmp(e, ">=", 2)) {
		char *xpos = strchr(e, 'x');
		if (!xpos || xpos[1] != ' ') {
			lk_errbuf(err, len, "relation '%s' is not like '>=100x alu'", e);
			return -1;
		}
		char num[32];
		size_t k = (size_t)(xpos - e - 2);
		if (k == 0 || k >= sizeof(num)) {
			lk_errbuf(err, len, "relation '%s' has no factor", e);
			return -1;
		}
		memcpy(num, e + 2, k);
		num[k] = '\0';
		if (parse_double(num, &x->value) < 0 || x->value <= 0 ||
		    copy_field(x->ref, sizeof(x->ref), trim(xpos + 2))) {
			lk_errbuf(err, len, "relation '%s' is not like '>=100x alu'", e);
			return -1;
		}
		x->check = CALIB_RATIO;
	} else {
		if (parse_double(e, &x->value) < 0) {
			lk_errbuf(err, len, "expectation '%s' is not a number, 'linear' or '>=Nx probe'", e);
			return -1;
		}
		x->check = CALIB_VALUE;
		char tb[32];
		size_t tl = strlen(t);
		x->tol_rel = tl && t[tl - 1] == '%';
		if (tl == 0 || tl >= sizeof(tb)) {
			lk_errbuf(err, len, "a value needs a tolerance, e.g. 0.001 or 5%%");
			return -1;
		}
		memcpy(tb, t, tl + 1);
		if (x->tol_rel)
			tb[tl - 1] = '\0';
		if (parse_double(tb, &x->tol) < 0 || x->tol < 0) {
			lk_errbuf(err, len, "tolerance '%s' is not like 0.001 or 5%%", t);
			return -1;
		}
		if (x->tol_rel)
			x->tol /= 100;
	}
	if (x->check != CALIB_VALUE && strcmp(t, "-")) {
		lk_errbuf(err, len, "tolerance '%s' given for a check that takes none (use '-')", t);
		return -1;
	}
	return 0;
}

int calib_expect_parse(const char *tsv, struct calib_expectations *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	char *text = xstrdup(tsv), *p = text;
	int lineno = 0;
	while (p && *p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char *line = p;
		p = nl ? nl + 1 : NULL;
		lineno++;
		if (!*trim(line) || *trim(line) == '#')
			continue;
		char *f[8];
		size_t nf = 0;
		f[nf++] = line;
		for (char *c = line; *c && nf < 8; c++)
			if (*c == '\t') {
				*c = '\0';
				f[nf++] = c + 1;
			}
		for (size_t i = 0; i < nf; i++)
			f[i] = trim(f[i]);
		struct calib_expect x = { .line = lineno };
		char why[160];
		if (parse_row(f, nf, &x, why, sizeof(why)) < 0) {
			lk_errbuf(err, len, "line %d: %s", lineno, why);
			free(text);
			calib_expect_release(out);
			return -LK_EINVAL;
		}
		out->rows = xrealloc(out->rows, (out->n + 1) * sizeof(*out->rows));
		out->rows[out->n++] = x;
	}
	free(text);
	return 0;
}

int calib_expect_builtin(struct calib_expectations *out, char *err, size_t len)
{
	char why[200];
	if (calib_expect_parse(expectations_tsv, out, why, sizeof(why)) < 0) {
		lk_errbuf(err, len, "catalog/expectations.tsv: %s", why);
		return -LK_EINVAL;
	}
	return 0;
}

void calib_expect_release(struct calib_expectations *e)
{
	free(e->rows);
	e->rows = NULL;
	e->n = 0;
}

/*
 * A row's event "pmuv3:0x11": an Arm PMUv3 common event by its number (Arm ARM, "Common event
 * numbers"), matched by encoding rather than name on an Arm catalogue (issue 36 P6): libpfm4's and
 * Arm's rows and raw events (PERF_TYPE_RAW, r11) and the sysfs events of an Arm core PMU, whatever
 * the device tree named it (armv8_pmuv3/cpu_cycles/, armv8_cortex_a72/cpu_cycles/: Linux's
 * arm_pmuv3 driver names its PMUs armv8_* and armv9_*); never an uncore PMU's event of that number.
 */
static bool pmuv3_match(const char *spec, const struct lk_pmu *pmu, const struct lk_event *ev)
{
	if (strncmp(spec, "pmuv3:", 6) || !ev || !pmu->arch || strcmp(pmu->arch, "arm64") ||
	    (pmu->kind && !strcmp(pmu->kind, "kpep")))
		return false;
	char *end;
	unsigned long long n = strtoull(spec + 6, &end, 16);
	if (end == spec + 6 || *end || ev->number != n || ev->config1 || ev->config2)
		return false;
	if (ev->perf_type == 4)	/* PERF_TYPE_RAW */
		return true;
	return ev->perf_type > 5 && (!strncmp(ev->name, "armv8_", 6) || !strncmp(ev->name, "armv9_", 6)) &&
	       strchr(ev->name, '/');
}

size_t calib_expect_for(const struct calib_expectations *e, const struct lk_pmu *pmu,
			const struct lk_event *ev, const struct calib_expect **out, size_t max)
{
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < e->n && k < max; i++) {
			const struct calib_expect *x = &e->rows[i];
			bool own = pmu->kind && !lk_strcasecmp(x->kind, pmu->kind);
			if (pass == 0 ? !own : strcmp(x->kind, "any"))
				continue;
			if (!pmuv3_match(x->event, pmu, ev) && pmu_find(pmu, x->event) != ev)
				continue;
			bool hidden = false;
			for (size_t j = 0; j < k && pass == 1; j++)
				hidden |= out[j]->check == x->check && !strcmp(out[j]->probe, x->probe) &&
					  !strcmp(out[j]->ref, x->ref) && strcmp(out[j]->kind, "any");
			if (!hidden)
				out[k++] = x;
		}
	}
	return k;
}

void calib_normalise(const struct calib_counts *c, double *pu1, double *pu4, double *response)
{
	double n = (double)c->n, n0 = c->n0 ? (double)c->n0 : 1;
	*pu1 = n > n0 ? (c->c1 - c->c0) / (n - n0) : NAN;
	*pu4 = c->n > 0 && 4 * n > n0 ? (c->c4 - c->c0) / (4 * n - n0) : NAN;
	*response = c->n > 0 ? (c->c4 - c->c1) / (3 * n) : NAN;
}

bool calib_linear(const struct calib_counts *c)
{
	double pu1, pu4, r;
	calib_normalise(c, &pu1, &pu4, &r);
	if (!isfinite(pu1) || !isfinite(pu4))
		return true;
	if (fabs(c->c1 - c->c0) < CALIB_NOISE_FLOOR * fabs(c->c0))
		return true;	/* the work is lost in the noise of the constant */
	if (fabs(pu1) <= CALIB_SILENT)
		return fabs(pu4) <= CALIB_SILENT;
	return fabs(pu4 / pu1 - 1) <= CALIB_LINEAR_TOL;
}

/* Each scale's smallest and largest count of the rounds; a largest below the smallest (none kept) is none. */
static void spreads(const struct calib_counts *c, double lo[3], double s[3])
{
	const double hi[3] = { c->hi0, c->hi1, c->hi4 };
	lo[0] = c->c0, lo[1] = c->c1, lo[2] = c->c4;
	for (int k = 0; k < 3; k++)
		s[k] = hi[k] > lo[k] ? hi[k] - lo[k] : 0;
}

double calib_spread(const struct calib_counts *c)
{
	double lo[3], s[3], moved = 0;
	spreads(c, lo, s);
	for (int k = 0; k < 3; k++)
		if (lo[k] > 0)
			moved = fmax(moved, s[k] / lo[k]);
	return moved;
}

bool calib_spread_explains(const struct calib_counts *c)
{
	double lo[3], s[3];
	spreads(c, lo, s);
	if (!(s[0] > 0 || s[1] > 0 || s[2] > 0))
		return false;
	/*
	 * pu4/pu1 is monotonic in each count over the box (a ratio of linear
	 * functions without a pole in it), so its range is that of the 8 corners,
	 * and by continuity every value between: linear somewhere in the box iff
	 * the corners' range meets 1 ± CALIB_LINEAR_TOL.  A corner where pu1 is 0
	 * or changes sign is a pole: nothing can be judged then.
	 */
	double rmin = INFINITY, rmax = -INFINITY;
	int sign = 0;
	for (int m = 0; m < 8; m++) {
		struct calib_counts t = *c;
		t.c0 = fmax(0, lo[0] + (m & 1 ? s[0] : -s[0]));
		t.c1 = fmax(0, lo[1] + (m & 2 ? s[1] : -s[1]));
		t.c4 = fmax(0, lo[2] + (m & 4 ? s[2] : -s[2]));
		if (calib_linear(&t))
			return true;	/* also: the work lost in the constant's noise at this corner */
		double pu1, pu4, r;
		calib_normalise(&t, &pu1, &pu4, &r);
		int sg = pu1 > 0 ? 1 : pu1 < 0 ? -1 : 0;
		if (!sg || !isfinite(pu4) || (sign && sg != sign))
			return true;
		sign = sg;
		rmin = fmin(rmin, pu4 / pu1);
		rmax = fmax(rmax, pu4 / pu1);
	}
	return rmin <= 1 + CALIB_LINEAR_TOL && rmax >= 1 - CALIB_LINEAR_TOL;
}

bool calib_significant(const struct calib_counts *c)
{
	double pu1, pu4, r;
	calib_normalise(c, &pu1, &pu4, &r);
	return isfinite(r) && fabs(r) > CALIB_SILENT && fabs(c->c4 - c->c1) >= CALIB_SIGNIFICANT * fabs(c->c1);
}

static bool is_memory_probe(const char *p)
{
	return !strcmp(p, "chase") || !strcmp(p, "store");
}

const char *calib_profile(const char *const *probes, const double *response, size_t nprobes)
{
	double mem = 0, br = 0, alu = 0;
	for (size_t i = 0; i < nprobes; i++) {
		double r = isfinite(response[i]) && response[i] > 0 ? response[i] : 0;
		if (is_memory_probe(probes[i]))
			mem = fmax(mem, r);
		else if (!strcmp(probes[i], "branch"))
			br = fmax(br, r);
		else if (!strcmp(probes[i], "alu"))
			alu = fmax(alu, r);
	}
	if (mem > CALIB_SILENT && mem >= CALIB_DOMINANT * fmax(alu, br))
		return "memory-bound-like";
	if (br > CALIB_SILENT && br >= CALIB_DOMINANT * fmax(alu, mem))
		return "branch-like";
	if (alu > CALIB_SILENT)
		return "work-like";
	return "none";
}

static int probe_index(const char *const *probes, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(probes[i], name))
			return (int)i;
	return -1;
}

static void describe(const struct calib_expect *x, struct strbuf *sb)
{
	if (sb->len)
		strbuf_addf(sb, "; ");
	switch (x->check) {
	case CALIB_VALUE:
		if (x->tol_rel)
			strbuf_addf(sb, "%s %g ±%g%%", x->probe, x->value, x->tol * 100);
		else
			strbuf_addf(sb, "%s %g ±%g", x->probe, x->value, x->tol);
		break;
	case CALIB_RATIO:
		strbuf_addf(sb, "%s >=%gx %s", x->probe, x->value, x->ref);
		break;
	case CALIB_LINEAR:
		strbuf_addf(sb, "%s linear", x->probe);
		break;
	}
}

/* How far a check is from passing, in percent (0 = passes). */
static double check_miss(const struct calib_expect *x, const char *const *probes, const struct calib_counts *counts,
			 const double *response, size_t nprobes, bool *applicable)
{
	int p = probe_index(probes, nprobes, x->probe);
	*applicable = p >= 0;
	if (p < 0)
		return 0;
	double r = response[p];
	if (!isfinite(r))
		return 100;
	switch (x->check) {
	case CALIB_VALUE: {
		double dev = fabs(r - x->value);
		double lim = x->tol_rel ? x->tol * fabs(x->value) : x->tol;
		if (dev <= lim)
			return 0;
		return dev / (x->value != 0 ? fabs(x->value) : 1) * 100;
	}
	case CALIB_RATIO: {
		int q = probe_index(probes, nprobes, x->ref);
		if (q < 0) {
			*applicable = false;
			return 0;
		}
		double ref = isfinite(response[q]) && response[q] > CALIB_SILENT ? response[q] : 0;
		if (r <= CALIB_SILENT)
			return 100;
		if (r >= x->value * ref)
			return 0;
		return (1 - r / (x->value * ref)) * 100;
	}
	case CALIB_LINEAR:
		return fabs(r) > CALIB_SILENT && calib_linear(&counts[p]) ? 0 : 100;
	}
	return 100;
}

static void set_off_by(char *buf, size_t len, double miss)
{
	if (miss >= 9.95)
		snprintf(buf, len, "off by %.0f%%", miss);
	else if (miss >= 0.05)
		snprintf(buf, len, "off by %.1f%%", miss);
	else
		snprintf(buf, len, "off by %.2g%%", miss);
}

/*
 * A memory probe's ratio check that fails because the event responds to a chase step about as
 * it does to an alu iteration (less than twice): the event does not see memory latency at all,
 * which is what a "cycles" that only counts instructions looks like (QEMU's PMU under -icount,
 * whose cycle counter is its instruction counter).  Named so, not as a percentage.
 */
static bool blind_to_memory(const struct calib_expect *x, const char *const *probes, const double *response,
			    size_t nprobes)
{
	int p = probe_index(probes, nprobes, x->probe), q = probe_index(probes, nprobes, x->ref);
	if (x->check != CALIB_RATIO || !is_memory_probe(x->probe) || p < 0 || q < 0)
		return false;
	double r = response[p], ref = response[q];
	return isfinite(r) && isfinite(ref) && r > CALIB_SILENT && ref > CALIB_SILENT && r < 2 * ref;
}

void calib_judge(const char *const *probes, const struct calib_counts *counts, size_t nprobes,
		 enum calib_state state, const struct calib_expect *const *checks, size_t nchecks,
		 struct calib_result *out)
{
	memset(out, 0, sizeof(*out));
	if (nprobes > CALIB_MAX_PROBES)
		nprobes = CALIB_MAX_PROBES;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < CALIB_MAX_PROBES; i++) {
		out->response[i] = out->per_unit_1x[i] = out->per_unit_4x[i] = out->expected[i] = NAN;
		if (i < nprobes && state == CALIB_MEASURED)
			calib_normalise(&counts[i], &out->per_unit_1x[i], &out->per_unit_4x[i], &out->response[i]);
	}
	for (size_t k = 0; k < nchecks; k++) {
		describe(checks[k], &sb);
		int p = probe_index(probes, nprobes, checks[k]->probe);
		if (p >= 0 && checks[k]->check == CALIB_VALUE)
			out->expected[p] = checks[k]->value;
	}
	snprintf(out->expect_text, sizeof(out->expect_text), "%s", strbuf_str(&sb));
	strbuf_release(&sb);

	out->profile = "none";
	if (state != CALIB_MEASURED) {
		snprintf(out->verdict, sizeof(out->verdict), "%s",
			 state == CALIB_UNSCHEDULABLE ? "unschedulable"
			 : state == CALIB_NEEDS_SAMPLING ? "needs sampling" : "unsupported");
		return;
	}
	double effective[CALIB_MAX_PROBES] = { 0 };
	bool silent = true, linear = true, noisy = false, dead = nprobes > 0;
	for (size_t i = 0; i < nprobes; i++) {
		/* counts are never negative: a mean of 0 at all three scales is 0 in every run */
		dead &= counts[i].c0 == 0 && counts[i].c1 == 0 && counts[i].c4 == 0;
		bool responds = calib_significant(&counts[i]);
		effective[i] = responds ? out->response[i] : 0;
		silent &= !responds;
		if (responds && !calib_linear(&counts[i])) {
			if (calib_spread_explains(&counts[i]))
				noisy = true;
			else
				linear = false;
		}
	}
	out->profile = calib_profile(probes, effective, nprobes);
	double worst = 0;
	size_t applied = 0;
	const struct calib_expect *blind = NULL;
	for (size_t k = 0; k < nchecks; k++) {
		bool applicable;
		double miss = check_miss(checks[k], probes, counts, out->response, nprobes, &applicable);
		if (applicable) {
			applied++;
			worst = fmax(worst, miss);
			if (miss > 0 && !blind && blind_to_memory(checks[k], probes, out->response, nprobes))
				blind = checks[k];
		}
	}
	if (!silent && !linear)
		snprintf(out->verdict, sizeof(out->verdict), "not linear");
	else if (noisy)	/* neither a validation nor a failure can rest on these counts */
		snprintf(out->verdict, sizeof(out->verdict), "noisy");
	else if (blind)
		snprintf(out->verdict, sizeof(out->verdict), "does not see memory (%.6s)", blind->probe);
	else if (dead)	/* before "off by 100%": the counter counts nothing here, not the wrong thing */
		snprintf(out->verdict, sizeof(out->verdict), "dead here");
	else if (worst > 0)
		set_off_by(out->verdict, sizeof(out->verdict), worst);
	else if (silent)
		snprintf(out->verdict, sizeof(out->verdict), "silent");
	else if (applied)
		snprintf(out->verdict, sizeof(out->verdict), "validated");
	else
		snprintf(out->verdict, sizeof(out->verdict), "linear");
	out->failed = calib_verdict_failed(out->verdict);
}

bool calib_verdict_failed(const char *verdict)
{
	return verdict && (!strncmp(verdict, "off by", 6) || !strcmp(verdict, "not linear") || !strcmp(verdict, "dead here") ||
			   !strncmp(verdict, "does not see memory", 19));
}
