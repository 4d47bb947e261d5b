/* base/envvars.c: which environment variables change what a program does (base/envvars.h). */
#include "base/envvars.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

bool lk_env_behaviour(const char *entry)
{
	static const char *const exact[] = { "LANG", "LANGUAGE", "TZ", "PYTHONHASHSEED", "PERL_HASH_SEED",
					     "PERL_PERTURB_KEYS" };
	size_t n = strcspn(entry, "=");
	if (n > 3 && !strncmp(entry, "LC_", 3))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (strlen(exact[i]) == n && !strncmp(entry, exact[i], n))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char **lk_env_entries(size_t *count)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n += lk_env_behaviour(*e) && strchr(*e, '=');
	const char **v = xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	for (char **e = environ; e && *e && k < n; e++)
		if (lk_env_behaviour(*e) && strchr(*e, '='))
			v[k++] = *e;
	qsort(v, k, sizeof(*v), cmp_str);
	*count = k;
	return v;
}

char *lk_env_fingerprint(void)
{
	size_t k;
	const char **v = lk_env_entries(&k);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "env:%s", k ? "" : "-");
	for (size_t i = 0; i < k; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", v[i]);
	free(v);
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}
