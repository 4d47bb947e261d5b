/* catalog/pmu.c: building, searching and freeing the in-memory event catalogue. */
#include "catalog/pmu.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pmu_event_release(struct lk_event *ev)
{
	free(ev->name);
	free(ev->description);
	free(ev->fallback);
	free(ev->errata);
	free(ev->unit);
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t pmu_remove_if(struct lk_pmu *pmu, bool (*drop)(const struct lk_event *ev, size_t i, void *ctx), void *ctx)
{
	size_t n = pmu->nevents, ngone = 0;
	bool *gone = xcalloc(n + 1, sizeof(*gone));
	for (size_t i = 0; i < n; i++)
		if ((gone[i] = drop(&pmu->events[i], i, ctx)))
			ngone++;
	if (!ngone) {
		free(gone);
		return 0;
	}
	/* the dropped rows, moved out of events[] until their aliases are judged; their names sorted */
	struct lk_event *out = xcalloc(ngone, sizeof(*out));
	const char **names = xcalloc(ngone, sizeof(*names));
	size_t w = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		if (gone[i]) {
			out[k] = pmu->events[i];
			names[k] = out[k].name ? out[k].name : "";
			k++;
		} else {
			pmu->events[w++] = pmu->events[i];
		}
	}
	pmu->nevents = w;
	qsort(names, ngone, sizeof(*names), cmp_str_ptr);
	size_t a = 0;
	for (size_t i = 0; i < pmu->naliases; i++) {
		struct lk_alias *al = &pmu->aliases[i];
		if (al->target && bsearch(&al->target, names, ngone, sizeof(*names), cmp_str_ptr) &&
		    !pmu_find_exact(pmu, al->target)) {
			free(al->alias);
			free(al->target);
			continue;
		}
		pmu->aliases[a++] = *al;
	}
	pmu->naliases = a;
	for (size_t i = 0; i < ngone; i++)
		pmu_event_release(&out[i]);
	free(names);
	free(out);
	free(gone);
	return ngone;
}

void pmu_release(struct lk_pmu *pmu)
{
	if (!pmu)
		return;
	for (size_t i = 0; i < pmu->nevents; i++)
		pmu_event_release(&pmu->events[i]);
	for (size_t i = 0; i < pmu->naliases; i++) {
		free(pmu->aliases[i].alias);
		free(pmu->aliases[i].target);
	}
	free(pmu->events);
	free(pmu->aliases);
	free(pmu->kind);
	free(pmu->name);
	free(pmu->marketing_name);
	free(pmu->arch);
	free(pmu->source);
	memset(pmu, 0, sizeof(*pmu));
}

/*
 * Room for element n of an array only ever grown here: its capacity is 16,
 * then doubles, so loading a large catalogue stays linear.
 */
static void *grow(void *p, size_t n, size_t size)
{
	if (n == 0)
		return xrealloc(p, 16 * size);
	if (n >= 16 && !(n & (n - 1)))
		return xrealloc(p, 2 * n * size);
	return p;
}

struct lk_event *pmu_add_event(struct lk_pmu *pmu, const struct lk_event *ev)
{
	pmu->events = grow(pmu->events, pmu->nevents, sizeof(*pmu->events));
	pmu->sorted = false;
	struct lk_event *e = &pmu->events[pmu->nevents++];
	*e = *ev;
	e->name = xstrdup(ev->name);
	e->description = xstrdup(ev->description);
	e->fallback = xstrdup(ev->fallback);
	e->errata = xstrdup(ev->errata);
	e->unit = xstrdup(ev->unit);
	return e;
}

void pmu_add_alias(struct lk_pmu *pmu, const char *alias, const char *target)
{
	pmu->aliases = grow(pmu->aliases, pmu->naliases, sizeof(*pmu->aliases));
	pmu->aliases[pmu->naliases].alias = xstrdup(alias);
	pmu->aliases[pmu->naliases].target = xstrdup(target);
	pmu->naliases++;
}

const struct lk_event *pmu_find_exact(const struct lk_pmu *pmu, const char *name)
{
	if (!name)
		return NULL;
	if (pmu->sorted) {
		size_t lo = 0, hi = pmu->nevents;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(pmu->events[mid].name, name);
			if (!c)
				return &pmu->events[mid];
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return NULL;
	}
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].name && !strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

static const struct lk_event *find_event_ci(const struct lk_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nevents; i++)
		if (pmu->events[i].name && !lk_strcasecmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

/* An alias resolves to an event in one step, never through another alias, so no cycle can recurse. */
const struct lk_event *pmu_find(const struct lk_pmu *pmu, const char *name)
{
	const struct lk_event *ev = find_event_ci(pmu, name);
	if (ev)
		return ev;
	for (size_t i = 0; i < pmu->naliases; i++)
		if (pmu->aliases[i].alias && !lk_strcasecmp(pmu->aliases[i].alias, name)) {
			const char *t = pmu->aliases[i].target;
			if (t && ((ev = pmu_find_exact(pmu, t)) || (ev = find_event_ci(pmu, t))))
				return ev;
		}
	return NULL;
}

static int cmp_event_name(const void *a, const void *b)
{
	return strcmp(((const struct lk_event *)a)->name, ((const struct lk_event *)b)->name);
}

static int cmp_alias_name(const void *a, const void *b)
{
	return strcmp(((const struct lk_alias *)a)->alias, ((const struct lk_alias *)b)->alias);
}

void pmu_sort(struct lk_pmu *pmu)
{
	for (size_t i = 0; i < pmu->nevents; i++)
		if (!pmu->events[i].name)
			return;
	for (size_t i = 0; i < pmu->naliases; i++)
		if (!pmu->aliases[i].alias)
			return;
	/* Catalogues loaded from the database come in order already: only check them. */
	bool ev_in_order = true, al_in_order = true;
	for (size_t i = 1; i < pmu->nevents && ev_in_order; i++)
		ev_in_order = cmp_event_name(&pmu->events[i - 1], &pmu->events[i]) < 0;
	for (size_t i = 1; i < pmu->naliases && al_in_order; i++)
		al_in_order = cmp_alias_name(&pmu->aliases[i - 1], &pmu->aliases[i]) < 0;
	if (pmu->nevents > 1 && !ev_in_order)
		qsort(pmu->events, pmu->nevents, sizeof(*pmu->events), cmp_event_name);
	if (pmu->naliases > 1 && !al_in_order)
		qsort(pmu->aliases, pmu->naliases, sizeof(*pmu->aliases), cmp_alias_name);
	pmu->sorted = true;
}

/* Names ignoring case, for the uniqueness check. */
struct ci_name {
	const char *name;
	int is_alias;
};

static int cmp_ci_name(const void *a, const void *b)
{
	const struct ci_name *x = a, *y = b;
	int c = lk_strcasecmp(x->name, y->name);
	return c ? c : strcmp(x->name, y->name);
}

int pmu_validate(const struct lk_pmu *pmu, char *why, size_t len)
{
	if (!pmu->name || !*pmu->name) {
		snprintf(why, len, "a catalogue without a name");
		return -1;
	}
	for (size_t i = 0; i < pmu->nevents; i++)
		if (!pmu->events[i].name || !*pmu->events[i].name) {
			snprintf(why, len, "an event without a name");
			return -1;
		}
	for (size_t i = 0; i < pmu->naliases; i++)
		if (!pmu->aliases[i].alias || !*pmu->aliases[i].alias || !pmu->aliases[i].target) {
			snprintf(why, len, "an alias without a name or target");
			return -1;
		}
	if (!pmu->sorted) {
		snprintf(why, len, "events not in order");
		return -1;
	}
	for (size_t i = 0; i < pmu->nevents; i++) {
		const struct lk_event *e = &pmu->events[i];
		if (i && strcmp(pmu->events[i - 1].name, e->name) >= 0) {
			snprintf(why, len, "event '%s' appears twice", e->name);
			return -1;
		}
		if (e->fixed_counter < -1 || e->fixed_counter >= 64) {
			snprintf(why, len, "event '%s': fixed counter %d is not a counter index (0-63)", e->name,
				 e->fixed_counter);
			return -1;
		}
		if (e->fixed_counter >= 0 && e->counters_mask && e->counters_mask != UINT64_C(1) << e->fixed_counter) {
			snprintf(why, len, "event '%s': a fixed event whose counters mask 0x%llx names other counters than its own (%d)",
				 e->name, (unsigned long long)e->counters_mask, e->fixed_counter);
			return -1;
		}
		if (e->fallback) {
			const struct lk_event *fb = pmu_find_exact(pmu, e->fallback);
			if (e->fixed_counter < 0 || !fb || fb->fixed_counter >= 0 || !fb->counters_mask) {
				snprintf(why, len, "event '%s': fallback '%s' is not a configurable event of this catalogue",
					 e->name, e->fallback);
				return -1;
			}
		}
	}
	for (size_t i = 0; i < pmu->naliases; i++) {
		const struct lk_alias *a = &pmu->aliases[i];
		if (!pmu_find_exact(pmu, a->target)) {
			snprintf(why, len, "alias '%s' names '%s', which is not an event", a->alias, a->target);
			return -1;
		}
	}
	/*
	 * Case clashes only make a name unreachable; for the kernel's and the
	 * backends' own catalogues they are the source's spelling, not damage.
	 */
	if (!pmu->kind || strcmp(pmu->kind, "kpep"))
		return 0;
	size_t n = pmu->nevents + pmu->naliases;
	struct ci_name *all = xcalloc(n + 1, sizeof(*all));
	for (size_t i = 0; i < pmu->nevents; i++)
		all[i] = (struct ci_name){ pmu->events[i].name, 0 };
	for (size_t i = 0; i < pmu->naliases; i++)
		all[pmu->nevents + i] = (struct ci_name){ pmu->aliases[i].alias, 1 };
	qsort(all, n, sizeof(*all), cmp_ci_name);
	int r = 0;
	for (size_t i = 1; i < n && !r; i++)
		if (!strcmp(all[i - 1].name, all[i].name)) {
			snprintf(why, len, "'%s' is the name of two events or aliases", all[i].name);
			r = -1;
		} else if (!lk_strcasecmp(all[i - 1].name, all[i].name)) {
			snprintf(why, len, "%s '%s' and %s '%s' differ only in case", all[i - 1].is_alias ? "alias" : "event",
				 all[i - 1].name, all[i].is_alias ? "alias" : "event", all[i].name);
			r = -1;
		}
	free(all);
	return r;
}

struct candidate {
	const char *name;
	size_t score;
};

static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/*
 * Score = edit distance; a name that contains what the user typed (or the
 * other way round) counts as close.  Names further away than about a third
 * of their length are not worth suggesting.
 */
static void consider(struct candidate *c, size_t *n, const char *cand, const char *name)
{
	size_t d = lk_edit_distance(cand, name);
	size_t len = strlen(name) > strlen(cand) ? strlen(name) : strlen(cand);
	if (strlen(name) >= 3 && (contains_ci(cand, name) || contains_ci(name, cand)))
		d = d < 2 ? d : 2;
	if (d * 3 > len + 3)
		return;
	c[*n].name = cand;
	c[*n].score = d;
	(*n)++;
}

size_t pmu_suggest(const struct lk_pmu *pmu, const char *name, const char **out, size_t max)
{
	/* The search costs the name's length times every name's: a name longer than any event's is close to none. */
	if (strnlen(name, PMU_SUGGEST_MAX + 1) > PMU_SUGGEST_MAX)
		return 0;
	size_t total = pmu->nevents + pmu->naliases, n = 0;
	struct candidate *c = xcalloc(total + 1, sizeof(*c));
	for (size_t i = 0; i < pmu->nevents; i++)
		consider(c, &n, pmu->events[i].name, name);
	for (size_t i = 0; i < pmu->naliases; i++)
		consider(c, &n, pmu->aliases[i].alias, name);
	qsort(c, n, sizeof(*c), cmp_candidate);
	size_t k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		int dup = 0;
		for (size_t j = 0; j < k; j++)
			dup |= !lk_strcasecmp(out[j], c[i].name);
		if (!dup)
			out[k++] = c[i].name;
	}
	free(c);
	return k;
}

const char *pmu_host_arch(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "arm64";
#else
	return NULL;
#endif
}

char *pmu_shown_name(const struct lk_pmu *pmu, const char *name)
{
	bool lower = false;
	for (const char *c = name; *c && !lower; c++)
		lower = islower((unsigned char)*c);
	bool own = pmu && pmu->kind && (!strcmp(pmu->kind, "kpep") || !strcmp(pmu->kind, "pfm"));
	return own || !lower ? pmu_display_name(name) : xstrdup(name);
}

char *pmu_display_name(const char *name)
{
	char *s = xstrdup(name);
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}
