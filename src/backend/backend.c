/* backend/backend.c: the registry of compiled-in counter sources and their lifecycle glue. */
#include "backend/backend.h"
#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

extern const struct lk_backend backend_rusage_ops;
extern const struct lk_backend backend_valgrind;
#ifdef __linux__
extern const struct lk_backend backend_perf;
#endif
extern const struct lk_backend backend_kperf;
extern const struct lk_backend backend_xctrace;

/* Best first: backend_default() takes the first one whose detect() passes. */
const struct lk_backend *const lk_backends[] = {
#ifdef __linux__
	&backend_perf,
#endif
#ifdef __APPLE__
	&backend_kperf,
	&backend_xctrace,	/* opt-in: seconds per run */
#endif
	&backend_valgrind,
	&backend_rusage_ops,
	NULL,
};

const struct lk_backend *backend_rusage(void)
{
	return &backend_rusage_ops;
}

const struct lk_backend *backend_find(const char *name)
{
	for (size_t i = 0; lk_backends[i]; i++)
		if (!lk_strcasecmp(lk_backends[i]->name, name))
			return lk_backends[i];
#ifndef __APPLE__
	/*
	 * Off macOS, kperf is reachable by name only when its frameworks are
	 * replaced (tests: the stand-in library), so the whole record path can
	 * run against it; it is never listed or chosen by default.
	 */
	if (!lk_strcasecmp(name, "kperf") && getenv("LAUKA_KPERF_PATH") && getenv("LAUKA_KPERFDATA_PATH"))
		return &backend_kperf;
	/* Likewise xctrace, when a replacement for `xcrun xctrace` is named (tests: the stand-in). */
	if (!lk_strcasecmp(name, "xctrace") && getenv("LAUKA_XCTRACE") && *getenv("LAUKA_XCTRACE"))
		return &backend_xctrace;
#endif
	return NULL;
}

const struct lk_backend *backend_default(void)
{
	char why[256];
	for (size_t i = 0; lk_backends[i]; i++) {
		const struct lk_backend *b = lk_backends[i];
		if (b == &backend_rusage_ops || !b->defaults || b->opt_in)
			continue;
		if (!b->detect || b->detect(why, sizeof(why)) == 0)
			return b;
	}
	return NULL;
}

const struct lk_backend *backend_for_listing(char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	const struct lk_backend *b = backend_default();
	if (b)
		return b;
	for (size_t i = 0; lk_backends[i]; i++) {
		b = lk_backends[i];
		if (b == &backend_rusage_ops || b->opt_in || !b->catalog || !b->detect)
			continue;
		if (b->detect(why, len) == -LK_EPERM)
			return b;
	}
	if (len)
		why[0] = '\0';
	return &backend_rusage_ops;
}

int backend_inst_open(struct backend_inst *bi, const struct lk_backend *ops,
		      struct lk_evsel *sel, size_t n, char *err, size_t len)
{
	memset(bi, 0, sizeof(*bi));
	bi->ops = ops;
	bi->sel = sel;
	bi->nsel = n;
	bi->priv = ops->priv_size ? xcalloc(1, ops->priv_size) : NULL;
	if (ops->open) {
		int r = ops->open(bi->priv, sel, n, err, len);
		if (r < 0) {
			free(bi->priv);
			bi->priv = NULL;
			bi->ops = NULL;
			return r;
		}
	}
	return 0;
}

void backend_inst_close(struct backend_inst *bi)
{
	if (!bi || !bi->ops)
		return;
	if (bi->ops->close)
		bi->ops->close(bi->priv);
	free(bi->priv);
	bi->priv = NULL;
	bi->ops = NULL;
}

void counts_scale(struct lk_counts *c)
{
	if (!c->supported)
		return;
	if (c->enabled && c->running == 0) {
		c->value = 0;
		c->scaled = true;
		c->coverage = 0;
	} else if (c->running && c->running < c->enabled) {
		c->value = (uint64_t)((double)c->value * (double)c->enabled / (double)c->running + 0.5);
		c->scaled = true;
		c->coverage = (double)c->running / (double)c->enabled;
	}
}
