/* stats/gate.c: parsing and judging `--gate NAME=LIMIT`. */
#include "stats/gate.h"
#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gate_parse(const char *spec, char **name, double *limit, char *err, size_t len)
{
	*name = NULL;
	const char *eq = strchr(spec, '=');
	if (!eq) {
		lk_errbuf(err, len, "gate '%s' has no limit", spec);
		return -1;
	}
	const char *a = spec, *b = eq;
	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (a == b) {
		lk_errbuf(err, len, "gate '%s' names no measurement", spec);
		return -1;
	}
	const char *v = eq + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	char *end;
	double x = strtod(v, &end);
	bool num = end != v;
	while (*end == ' ' || *end == '\t')
		end++;
	bool pct = *end == '%';
	if (pct)
		end++;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!num || !pct || *end || *v == '-' || *v == '+' || !isfinite(x) || x < 0 || x > GATE_MAX_PCT) {
		lk_errbuf(err, len, "gate '%s' needs a limit in percent from 0%% to %g%%", spec, GATE_MAX_PCT);
		return -1;
	}
	*name = xmalloc((size_t)(b - a) + 1);
	memcpy(*name, a, (size_t)(b - a));
	(*name)[b - a] = '\0';
	*limit = x;
	return 0;
}

void gate_evaluate(const struct lk_stats *ref, const struct lk_stats *cur, const struct lk_delta *d,
		   double limit, bool exact, struct gate_eval *out)
{
	memset(out, 0, sizeof(*out));
	out->ci_low = out->ci_high = NAN;
	out->change = d->valid ? d->pct : NAN;
	if (!ref->n || !cur->n || (!exact && (ref->n < GATE_MIN_RUNS || cur->n < GATE_MIN_RUNS))) {
		out->basis = GATE_TOO_FEW;
		out->inconclusive = true;
		return;
	}
	if (ref->sd == 0 && cur->sd == 0) {
		out->basis = GATE_EXACT;
		if (ref->mean == 0)
			out->change = cur->mean == 0 ? 0 : cur->mean > 0 ? INFINITY : -INFINITY;
		else
			out->change = (cur->mean - ref->mean) / fabs(ref->mean) * 100;
		out->failed = out->change > limit;
		return;
	}
	if (!d->valid || !d->bounded || !isfinite(d->ci_low) || !isfinite(d->ci_high)) {
		out->basis = GATE_UNBOUNDED;
		out->inconclusive = true;
		return;
	}
	out->basis = GATE_INTERVAL;
	out->ci_low = d->ci_low;
	out->ci_high = d->ci_high;
	/* Three outcomes: FAIL above, pass at or below, and an interval that straddles the limit cannot tell. */
	out->failed = d->ci_low > limit;
	out->inconclusive = !out->failed && !(d->ci_high <= limit);
}

void gate_other_session(struct gate_eval *e)
{
	if (e->basis == GATE_UNBOUNDED || e->basis == GATE_TOO_FEW)
		return;	/* inconclusive already, for a reason of its own */
	e->basis = GATE_OTHER_SESSION;
	e->failed = false;
	e->inconclusive = true;
}

size_t gate_looks(unsigned long n0, unsigned long max, unsigned long *looks)
{
	if (n0 < 1)
		n0 = 1;
	size_t k = 0;
	looks[k++] = n0;
	for (unsigned long n = n0; n < max && k < GATE_MAX_LOOKS;) {
		n = n > max / 2 ? max : n * 2;
		looks[k++] = n;
	}
	return k;
}

double gate_look_alpha(size_t k)
{
	return GATE_ALPHA / (double)(k ? k : 1);
}
