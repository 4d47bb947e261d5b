/* cmd/options.c: option values and numbers shared by the verbs. */
#include "cmd/options.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int opt_value(int argc, char **argv, int *i, const char *opt, const char **val)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];
	if (!strncmp(a, opt, n) && a[n] == '=') {
		*val = a + n + 1;
		return opt_nonempty(opt, *val) < 0 ? -1 : 1;
	}
	if (strcmp(a, opt))
		return 0;
	if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--")) {
		/* `-n -- cmd`: the "--" ends the options; it is not a value. */
		error("option '%s' needs a value", opt);
		return -1;
	}
	*val = argv[++*i];
	return opt_nonempty(opt, *val) < 0 ? -1 : 1;
}

int opt_nonempty(const char *opt, const char *val)
{
	if (val && *val)
		return 0;
	error("option '%s' needs a value, not an empty string", opt);
	return -1;
}

int opt_uint(const char *opt, const char *what, const char *v, unsigned long max, const char *example,
	     unsigned long *out)
{
	if (parse_uint(v, max, out) == 0)
		return 0;
	if (v && *v && strspn(v, "0123456789") == strlen(v)) {
		error("invalid %s '%s': the limit is %lu", what, v, max);
		fix("use %s with a whole number up to %lu, e.g. %s %s", opt, max, opt, example);
	} else {
		error("invalid %s '%s'", what, v ? v : "");
		fix("use %s with a whole number, e.g. %s %s", opt, opt, example);
	}
	return -1;
}

int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}
