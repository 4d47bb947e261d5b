/*
 * catalog.c: the catalogue as the verbs see it.  This first version builds
 * it from the backend directly; the database-backed version keeps it (and
 * the calibration verdicts) in SQLite.
 */
#include "catalog.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>

struct catalog {
	struct lk_pmu pmu;
};

int catalog_open(struct catalog **out, const struct lk_backend *b,
		 const struct catalog_opts *opts, char *err, size_t len)
{
	(void)opts;
	struct catalog *cat = xcalloc(1, sizeof(*cat));
	if (b->catalog) {
		int r = b->catalog(&cat->pmu, err, len);
		if (r < 0) {
			free(cat);
			return r;
		}
	}
	*out = cat;
	return 0;
}

const struct lk_pmu *catalog_pmu(const struct catalog *cat)
{
	return &cat->pmu;
}

const char *catalog_verdict(const struct catalog *cat, const struct lk_event *ev)
{
	(void)cat;
	(void)ev;
	return NULL;
}

bool catalog_verdict_failed(const struct catalog *cat, const struct lk_event *ev)
{
	const char *v = catalog_verdict(cat, ev);
	return v && lk_strcasecmp(v, "validated") != 0;
}

void catalog_close(struct catalog *cat)
{
	if (!cat)
		return;
	pmu_release(&cat->pmu);
	free(cat);
}
