/* pmu.c: building, searching and freeing the in-memory event catalogue. */
#include "pmu.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void event_release(struct lk_event *ev)
{
	free(ev->name);
	free(ev->description);
	free(ev->fallback);
	free(ev->errata);
	free(ev->unit);
}

void pmu_release(struct lk_pmu *pmu)
{
	if (!pmu)
		return;
	for (size_t i = 0; i < pmu->nevents; i++)
		event_release(&pmu->events[i]);
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

struct lk_event *pmu_add_event(struct lk_pmu *pmu, const struct lk_event *ev)
{
	pmu->events = xrealloc(pmu->events, (pmu->nevents + 1) * sizeof(*pmu->events));
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
	pmu->aliases = xrealloc(pmu->aliases, (pmu->naliases + 1) * sizeof(*pmu->aliases));
	pmu->aliases[pmu->naliases].alias = xstrdup(alias);
	pmu->aliases[pmu->naliases].target = xstrdup(target);
	pmu->naliases++;
}

const struct lk_event *pmu_find_exact(const struct lk_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nevents; i++)
		if (!strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

const struct lk_event *pmu_find(const struct lk_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nevents; i++)
		if (!lk_strcasecmp(pmu->events[i].name, name))
			return &pmu->events[i];
	for (size_t i = 0; i < pmu->naliases; i++)
		if (!lk_strcasecmp(pmu->aliases[i].alias, name)) {
			const struct lk_event *ev = pmu_find_exact(pmu, pmu->aliases[i].target);
			if (!ev)
				ev = pmu_find(pmu, pmu->aliases[i].target);
			if (ev)
				return ev;
		}
	return NULL;
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

char *pmu_display_name(const char *name)
{
	char *s = xstrdup(name);
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}
