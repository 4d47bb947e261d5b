/*
 * catalog/notes.c: baselines as JSON lines in git notes (catalog/notes.h).
 *
 * The codec is pure (a JSON writer for one baseline and a reader for the
 * subset it writes: objects, arrays, strings, numbers, null).  The store runs
 * git: `notes --ref=lauka list` for which commits have notes, `rev-list
 * --first-parent` for the ancestors, `cat-file blob` to read a note and
 * `notes --ref=lauka add -f -F FILE` to write one.  A note's lines are
 * written sorted and unique, the form `cat_sort_uniq` merges into, so a
 * merged note reads the same as one written here.
 */
#include "catalog/notes.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- writing ---- */

static void put_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_add(sb, "null", 4);
		return;
	}
	strbuf_add(sb, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(sb, "\\%c", *p);
		else if (*p < 0x20)
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_add(sb, (const char *)p, 1);
	}
	strbuf_add(sb, "\"", 1);
}

static void put_num(struct strbuf *sb, double v)
{
	if (!isfinite(v))
		strbuf_add(sb, "null", 4);
	else if (v == floor(v) && fabs(v) < 9e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.17g", v);
}

char *notes_baseline_encode(const struct db_baseline *b)
{
	struct strbuf sb = STRBUF_INIT;
	/* name first: the sorted lines of a note group by baseline name. */
	strbuf_addf(&sb, "{\"name\":");
	put_str(&sb, b->name);
	strbuf_addf(&sb, ",\"runner_class\":");
	put_str(&sb, b->runner_class);
	strbuf_addf(&sb, ",\"lauka_baseline\":1,\"backend\":");
	put_str(&sb, b->backend);
	strbuf_addf(&sb, ",\"lauka_version\":");
	put_str(&sb, b->lauka_version);
	strbuf_addf(&sb, ",\"git_commit\":");
	put_str(&sb, b->git_commit);
	strbuf_addf(&sb, ",\"shell\":");
	put_str(&sb, b->shell);
	strbuf_addf(&sb, ",\"fingerprint\":");
	put_str(&sb, b->fingerprint);
	strbuf_addf(&sb, ",\"created_at\":%lld,\"measurements\":[", b->created_at);
	for (size_t m = 0; m < b->nmeas; m++) {
		if (m)
			strbuf_add(&sb, ",", 1);
		put_str(&sb, b->meas[m]);
	}
	strbuf_addf(&sb, "],\"units\":[");
	for (size_t m = 0; m < b->nmeas; m++) {
		if (m)
			strbuf_add(&sb, ",", 1);
		put_str(&sb, b->units ? b->units[m] : NULL);
	}
	strbuf_addf(&sb, "],\"commands\":[");
	for (size_t c = 0; c < b->ncmds; c++) {
		const struct db_baseline_cmd *bc = &b->cmds[c];
		strbuf_addf(&sb, "%s{\"name\":", c ? "," : "");
		put_str(&sb, bc->name);
		strbuf_addf(&sb, ",\"command\":");
		put_str(&sb, bc->command);
		strbuf_addf(&sb, ",\"runs\":%zu,\"samples\":[", bc->runs);
		for (size_t m = 0; m < b->nmeas; m++) {
			strbuf_addf(&sb, "%s[", m ? "," : "");
			for (size_t r = 0; r < bc->runs; r++) {
				if (r)
					strbuf_add(&sb, ",", 1);
				put_num(&sb, bc->samples[m][r]);
			}
			strbuf_add(&sb, "]", 1);
		}
		strbuf_add(&sb, "]}", 2);
	}
	strbuf_add(&sb, "]}", 2);
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

/* ---- reading: a JSON value tree for what the writer makes ---- */

enum jtype { J_NULL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype t;
	double num;
	char *str;
	struct jval *items;	/* J_ARR, J_OBJ */
	char **keys;		/* J_OBJ */
	size_t n;
};

struct jparse {
	const char *p, *end;
	int depth;
};

static void jfree(struct jval *v)
{
	free(v->str);
	for (size_t i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
}

static void skip_ws(struct jparse *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static int parse_value(struct jparse *j, struct jval *v);

static int parse_string(struct jparse *j, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if (c != '\\') {
			strbuf_add(&sb, &c, 1);
			continue;
		}
		if (j->p >= j->end)
			break;
		c = *j->p++;
		if (c == 'u') {
			unsigned cp = 0;
			for (int k = 0; k < 4; k++, j->p++) {
				if (j->p >= j->end)
					goto bad;
				char h = *j->p;
				cp = cp * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
							  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 0);
			}
			if (cp < 0x80) {
				char b = (char)cp;
				strbuf_add(&sb, &b, 1);
			} else if (cp < 0x800) {
				char b[2] = { (char)(0xc0 | (cp >> 6)), (char)(0x80 | (cp & 0x3f)) };
				strbuf_add(&sb, b, 2);
			} else {
				char b[3] = { (char)(0xe0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3f)),
					      (char)(0x80 | (cp & 0x3f)) };
				strbuf_add(&sb, b, 3);
			}
		} else {
			char m = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
			strbuf_add(&sb, &m, 1);
		}
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	*out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return 0;
bad:
	strbuf_release(&sb);
	return -1;
}

static int parse_items(struct jparse *j, struct jval *v, bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			v->items = xrealloc(v->items, cap * sizeof(*v->items));
			if (obj)
				v->keys = xrealloc(v->keys, cap * sizeof(*v->keys));
		}
		memset(&v->items[v->n], 0, sizeof(*v->items));
		skip_ws(j);
		if (obj) {
			v->keys[v->n] = NULL;
			if (j->p >= j->end || *j->p != '"' || parse_string(j, &v->keys[v->n]) < 0) {
				v->n++;
				return -1;
			}
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				v->n++;
				return -1;
			}
			j->p++;
		}
		int r = parse_value(j, &v->items[v->n]);
		v->n++;
		if (r < 0)
			return -1;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		return -1;
	}
}

static int parse_value(struct jparse *j, struct jval *v)
{
	memset(v, 0, sizeof(*v));
	skip_ws(j);
	if (j->p >= j->end || ++j->depth > 16)
		return -1;
	int r = 0;
	if (*j->p == '{') {
		v->t = J_OBJ;
		r = parse_items(j, v, true);
	} else if (*j->p == '[') {
		v->t = J_ARR;
		r = parse_items(j, v, false);
	} else if (*j->p == '"') {
		v->t = J_STR;
		r = parse_string(j, &v->str);
	} else if ((size_t)(j->end - j->p) >= 4 && !memcmp(j->p, "null", 4)) {
		v->t = J_NULL;
		j->p += 4;
	} else {
		char buf[64];
		size_t k = 0;
		while (j->p + k < j->end && k < sizeof(buf) - 1 && strchr("+-.0123456789eE", j->p[k]))
			k++;
		memcpy(buf, j->p, k);
		buf[k] = '\0';
		char *e;
		v->t = J_NUM;
		v->num = strtod(buf, &e);
		if (!k || *e)
			r = -1;
		j->p += k;
	}
	j->depth--;
	return r;
}

static const struct jval *jget(const struct jval *o, const char *key, enum jtype t)
{
	for (size_t i = 0; o->t == J_OBJ && i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i].t == t ? &o->items[i] : NULL;
	return NULL;
}

/* A string member, or NULL for null (an error when required and absent). */
static int jstr(const struct jval *o, const char *key, bool required, char **out)
{
	const struct jval *v = jget(o, key, J_STR);
	*out = v ? xstrdup(v->str) : NULL;
	return v || !required ? 0 : -1;
}

int notes_baseline_decode(const char *line, size_t len, struct db_baseline *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct jparse j = { line, line + len, 0 };
	struct jval root;
	int r = parse_value(&j, &root);
	skip_ws(&j);
	const char *why = NULL;
	if (r < 0 || j.p != j.end || root.t != J_OBJ)
		why = "not a JSON object";
	else if (!jget(&root, "lauka_baseline", J_NUM))
		why = "no \"lauka_baseline\" key";
	else if (jget(&root, "lauka_baseline", J_NUM)->num != 1)
		why = "a newer baseline format than this lauka reads";
	const struct jval *meas = why ? NULL : jget(&root, "measurements", J_ARR);
	const struct jval *units = why ? NULL : jget(&root, "units", J_ARR);
	const struct jval *cmds = why ? NULL : jget(&root, "commands", J_ARR);
	if (!why && (!meas || !cmds || (units && units->n != meas->n)))
		why = "no measurements or commands";
	if (!why && (jstr(&root, "name", true, &out->name) < 0 || jstr(&root, "runner_class", true, &out->runner_class) < 0 ||
		     jstr(&root, "backend", true, &out->backend) < 0 ||
		     jstr(&root, "lauka_version", false, &out->lauka_version) < 0 ||
		     jstr(&root, "git_commit", false, &out->git_commit) < 0 || jstr(&root, "shell", false, &out->shell) < 0 ||
		     jstr(&root, "fingerprint", false, &out->fingerprint) < 0))
		why = "a name, runner class or backend is missing";
	if (!why) {
		const struct jval *t = jget(&root, "created_at", J_NUM);
		out->created_at = t ? (long long)t->num : 0;
		if (!out->lauka_version)
			out->lauka_version = xstrdup("?");
		out->nmeas = meas->n;
		out->meas = xcalloc(meas->n ? meas->n : 1, sizeof(char *));
		out->units = xcalloc(meas->n ? meas->n : 1, sizeof(char *));
		for (size_t m = 0; m < meas->n && !why; m++) {
			if (meas->items[m].t != J_STR)
				why = "a measurement name is not a string";
			else
				out->meas[m] = xstrdup(meas->items[m].str);
			if (units && units->items[m].t == J_STR)
				out->units[m] = xstrdup(units->items[m].str);
		}
		out->cmds = xcalloc(cmds->n ? cmds->n : 1, sizeof(*out->cmds));
		out->ncmds = cmds->n;
		for (size_t c = 0; c < cmds->n && !why; c++) {
			const struct jval *jc = &cmds->items[c], *runs = jget(jc, "runs", J_NUM),
					  *samples = jget(jc, "samples", J_ARR);
			struct db_baseline_cmd *bc = &out->cmds[c];
			if (jc->t != J_OBJ || !runs || !samples || samples->n != meas->n || runs->num < 0 ||
			    jstr(jc, "name", false, &bc->name) < 0 || jstr(jc, "command", true, &bc->command) < 0) {
				why = "a command lacks its command, runs or samples";
				break;
			}
			bc->runs = (size_t)runs->num;
			bc->samples = xcalloc(meas->n ? meas->n : 1, sizeof(double *));
			for (size_t m = 0; m < meas->n && !why; m++) {
				const struct jval *row = &samples->items[m];
				bc->samples[m] = xcalloc(bc->runs ? bc->runs : 1, sizeof(double));
				if (row->t != J_ARR || row->n != bc->runs) {
					why = "a command's samples do not match its runs";
					break;
				}
				for (size_t k = 0; k < bc->runs; k++)
					bc->samples[m][k] = row->items[k].t == J_NUM ? row->items[k].num : NAN;
			}
		}
	}
	jfree(&root);
	if (why) {
		lk_errbuf(err, errlen, "not a lauka baseline: %s", why);
		db_baseline_release(out);
		return -LK_EINVAL;
	}
	return 0;
}

/* ---- the git store ---- */

/*
 * Run git with args in the working directory: its standard input from the
 * file `in` (or /dev/null), standard output into *out (malloc'd, may be
 * NULL), standard error kept for the reason.  Returns git's exit status,
 * or -1 with err filled when git could not be run.
 */
static int git(const char *const *args, const char *in, char **out, size_t *outlen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (exec_resolve("git", path, sizeof(path)) < 0) {
		lk_errbuf(err, errlen, "git is not in PATH (--git keeps baselines in git notes)");
		return -1;
	}
	size_t n = 0;
	while (args[n])
		n++;
	char **argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = "git";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	const char *tmp = getenv("TMPDIR");
	char errfile[PATH_MAX];
	snprintf(errfile, sizeof(errfile), "%s/lauka-git.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int efd = mkstemp(errfile);
	if (efd >= 0)
		unlink(errfile);
	int fd[2];
	if (lk_cloexec_pipe(fd) < 0) {
		lk_errbuf(err, errlen, "pipe: %s", strerror(errno));
		free(argv);
		if (efd >= 0)
			close(efd);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int infd = open(in ? in : "/dev/null", O_RDONLY);
		if (infd < 0)
			_exit(127);
		dup2(infd, 0);
		dup2(fd[1], 1);
		dup2(efd >= 0 ? efd : infd, 2);
		execv(path, argv);
		_exit(127);
	}
	close(fd[1]);
	free(argv);
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t r;
	while (pid > 0 && ((r = read(fd[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			strbuf_add(&sb, buf, (size_t)r);
	close(fd[0]);
	int st = 0, rc = -1;
	if (pid > 0) {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	} else
		lk_errbuf(err, errlen, "fork: %s", strerror(errno));
	if (rc > 0 && efd >= 0) {
		char e[400] = "";
		ssize_t k = pread(efd, e, sizeof(e) - 1, 0);
		e[k > 0 ? k : 0] = '\0';
		char *nl = strchr(e, '\n');
		if (nl)
			*nl = '\0';
		lk_errbuf(err, errlen, "git %s failed: %s", args[0], e[0] ? e : "(no message)");
	}
	if (efd >= 0)
		close(efd);
	if (out) {
		*out = xstrdup(strbuf_str(&sb));
		if (outlen)
			*outlen = sb.len;
	}
	strbuf_release(&sb);
	return rc;
}

int notes_check_repo(char *err, size_t errlen)
{
	const char *args[] = { "rev-parse", "--git-dir", NULL };
	int rc = git(args, NULL, NULL, NULL, err, errlen);
	if (rc < 0)
		return -LK_ENOTSUP;
	if (rc > 0) {
		lk_errbuf(err, errlen, "--git needs a git repository: the working directory is not in one");
		return -LK_ENOENT;
	}
	return 0;
}

/* The full id of rev (a commit), or -LK_ENOENT. */
static int rev_commit(const char *rev, char id[65], char *err, size_t errlen)
{
	char *spec = xasprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "-q", spec, NULL };
	char *out = NULL;
	int rc = git(args, NULL, &out, NULL, err, errlen);
	free(spec);
	if (rc == 0) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(id, 65, "%s", out);
	} else if (rc > 0)
		lk_errbuf(err, errlen, "no commit '%s' in this repository", rev);
	free(out);
	return rc == 0 ? 0 : rc < 0 ? -LK_ENOTSUP : -LK_ENOENT;
}

/* Which commits have notes: "note-blob commit" lines of `git notes list`. */
static int note_index(char **out, char *err, size_t errlen)
{
	const char *args[] = { "notes", "--ref=lauka", "list", NULL };
	int rc = git(args, NULL, out, NULL, err, errlen);
	if (rc > 0) {	/* no notes ref yet */
		free(*out);
		*out = xstrdup("");
		return 0;
	}
	return rc < 0 ? -LK_ENOTSUP : 0;
}

/* The note blob of commit in the index, or NULL. */
static const char *index_blob(const char *index, const char *commit, char blob[65])
{
	size_t cl = strlen(commit);
	for (const char *p = index; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		const char *sp = memchr(p, ' ', l);
		if (sp && (size_t)(p + l - sp - 1) == cl && !memcmp(sp + 1, commit, cl) && (size_t)(sp - p) < 65) {
			memcpy(blob, p, (size_t)(sp - p));
			blob[sp - p] = '\0';
			return blob;
		}
		p += l + (nl ? 1 : 0);
	}
	return NULL;
}

/* The note's text of one commit ("" when it has none). */
static int read_note(const char *commit, char **text, char *err, size_t errlen)
{
	const char *args[] = { "notes", "--ref=lauka", "show", commit, NULL };
	int rc = git(args, NULL, text, NULL, err, errlen);
	if (rc > 0) {
		free(*text);
		*text = xstrdup("");
		return 0;
	}
	return rc < 0 ? -LK_ENOTSUP : 0;
}

/* Each line of a note that is a baseline (other lines are left alone). */
static void note_baselines(const char *commit, const char *text, const char *name, struct notes_hit **out, size_t *n)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		struct db_baseline b;
		char e[128];
		if (l && notes_baseline_decode(p, l, &b, e, sizeof(e)) == 0) {
			if (!name || !strcmp(b.name, name)) {
				*out = xrealloc(*out, (*n + 1) * sizeof(**out));
				snprintf((*out)[*n].commit, sizeof((*out)[*n].commit), "%s", commit);
				(*out)[(*n)++].b = b;
			} else
				db_baseline_release(&b);
		}
		p += l + (nl ? 1 : 0);
	}
}

void notes_hits_free(struct notes_hit *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&h[i].b);
	free(h);
}

int notes_find(const char *name, const char *rev, const char *runner_class, int include_head, struct notes_hit **out,
	       size_t *n, int *found, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	*found = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	char id[65];
	if (rev) {
		if ((r = rev_commit(rev, id, err, errlen)) < 0)
			return r;
		char *text = NULL;
		if ((r = read_note(id, &text, err, errlen)) < 0)
			return r;
		note_baselines(id, text, name, out, n);
		free(text);
		for (size_t i = 0; i < *n; i++)
			*found |= !runner_class || !strcmp((*out)[i].b.runner_class, runner_class);
		return 0;
	}
	if (rev_commit("HEAD", id, err, errlen) < 0) {
		lk_errbuf(err, errlen, "--git needs a commit: this repository has none yet");
		return -LK_ENOENT;
	}
	char *index = NULL, *list = NULL;
	if ((r = note_index(&index, err, errlen)) < 0)
		return r;
	const char *args[] = { "rev-list", "--first-parent", "HEAD", NULL };
	if (git(args, NULL, &list, NULL, err, errlen) != 0) {
		free(index);
		free(list);
		return -LK_ENOTSUP;
	}
	bool first = true;
	for (char *p = list, *nl; *p && !*found; p = nl ? nl + 1 : p + strlen(p), first = false) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char blob[65];
		if ((first && !include_head) || !index_blob(index, p, blob))
			continue;
		char *text = NULL;
		if ((r = read_note(p, &text, err, errlen)) < 0)
			break;
		size_t before = *n;
		note_baselines(p, text, name, out, n);
		free(text);
		for (size_t i = before; i < *n; i++)
			if (!runner_class || !strcmp((*out)[i].b.runner_class, runner_class)) {
				/* Found: keep only this commit's lines. */
				struct notes_hit keep = (*out)[i];
				for (size_t k = 0; k < *n; k++)
					if (k != i)
						db_baseline_release(&(*out)[k].b);
				(*out)[0] = keep;
				*n = 1;
				*found = 1;
				break;
			}
	}
	free(index);
	free(list);
	return r < 0 ? r : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Write lines (sorted, unique) as commit's note. */
static int write_note(const char *commit, char **lines, size_t n, char *err, size_t errlen)
{
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_str);
	const char *tmp = getenv("TMPDIR");
	char file[PATH_MAX];
	snprintf(file, sizeof(file), "%s/lauka-note.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(file);
	if (fd < 0) {
		lk_errbuf(err, errlen, "cannot write a temporary file in '%s': %s", tmp && *tmp ? tmp : "/tmp",
			  strerror(errno));
		return -LK_EIO;
	}
	FILE *f = fdopen(fd, "w");
	for (size_t i = 0; f && i < n; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			fprintf(f, "%s\n", lines[i]);
	int e = !f ? errno : ferror(f) ? errno : 0;
	if (f && fclose(f) != 0 && !e)
		e = errno;
	if (!f)
		close(fd);
	int rc;
	if (e) {
		/* TMPDIR, not the repository, is where this failed: say so, with the system's reason */
		lk_errbuf(err, errlen, "cannot write the note's temporary file '%s': %s (it is in TMPDIR='%s'; free space "
			  "there or point TMPDIR elsewhere)", file, strerror(e), tmp && *tmp ? tmp : "/tmp");
		rc = -LK_EIO;
	} else if (n) {
		/* git needs an identity for the notes ref's commit: lauka's stand-in when none is configured. */
		const char *args[] = { "-c", "user.name=lauka", "-c", "user.email=lauka@localhost", "notes", "--ref=lauka",
				       "add", "-f", "-F", file, commit, NULL };
		/* A configured identity is used as it is; GIT_COMMITTER_* in the environment win over -c anyway. */
		const char *cfg[] = { "config", "user.email", NULL };
		bool have_ident = git(cfg, NULL, NULL, NULL, err, errlen) == 0;
		rc = git(have_ident ? args + 4 : args, NULL, NULL, NULL, err, errlen) == 0 ? 0 : -LK_EIO;
	} else {
		const char *args[] = { "-c", "user.name=lauka", "-c", "user.email=lauka@localhost", "notes", "--ref=lauka",
				       "remove", commit, NULL };
		const char *cfg[] = { "config", "user.email", NULL };
		bool have_ident = git(cfg, NULL, NULL, NULL, err, errlen) == 0;
		rc = git(have_ident ? args + 4 : args, NULL, NULL, NULL, err, errlen) == 0 ? 0 : -LK_EIO;
	}
	unlink(file);
	return rc;
}

/* A note's lines, except those for which drop() says so. */
static char **note_lines(const char *text, size_t *n, bool (*drop)(const char *line, size_t len, const void *arg),
			 const void *arg, size_t *dropped)
{
	char **lines = NULL;
	*n = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l && !drop(p, l, arg)) {
			lines = xrealloc(lines, (*n + 1) * sizeof(*lines));
			lines[(*n)++] = xasprintf("%.*s", (int)l, p);
		} else if (l && dropped)
			(*dropped)++;
		p += l + (nl ? 1 : 0);
	}
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* Same name and runner class as the baseline arg. */
static bool same_key(const char *line, size_t len, const void *arg)
{
	const struct db_baseline *nb = arg;
	struct db_baseline b;
	char e[64];
	if (notes_baseline_decode(line, len, &b, e, sizeof(e)) < 0)
		return false;
	bool same = !strcmp(b.name, nb->name) && !strcmp(b.runner_class, nb->runner_class);
	db_baseline_release(&b);
	return same;
}

static bool same_name(const char *line, size_t len, const void *arg)
{
	struct db_baseline b;
	char e[64];
	if (notes_baseline_decode(line, len, &b, e, sizeof(e)) < 0)
		return false;
	bool same = !strcmp(b.name, (const char *)arg);
	db_baseline_release(&b);
	return same;
}

int notes_save(const struct db_baseline *b, char commit[65], char *err, size_t errlen)
{
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	if (rev_commit("HEAD", commit, err, errlen) < 0) {
		lk_errbuf(err, errlen, "--git needs a commit to keep the baseline on: this repository has none yet");
		return -LK_ENOENT;
	}
	char *text = NULL;
	if ((r = read_note(commit, &text, err, errlen)) < 0)
		return r;
	size_t n;
	char **lines = note_lines(text, &n, same_key, b, NULL);
	free(text);
	lines = xrealloc(lines, (n + 1) * sizeof(*lines));
	lines[n++] = notes_baseline_encode(b);
	r = write_note(commit, lines, n, err, errlen);
	free_lines(lines, n);
	return r;
}

int notes_delete(const char *name, const char *rev, size_t *removed, char *err, size_t errlen)
{
	*removed = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	char id[65];
	if ((r = rev_commit(rev ? rev : "HEAD", id, err, errlen)) < 0)
		return r;
	char *text = NULL;
	if ((r = read_note(id, &text, err, errlen)) < 0)
		return r;
	size_t n;
	char **lines = note_lines(text, &n, same_name, name, removed);
	free(text);
	if (!*removed) {
		lk_errbuf(err, errlen, "no baseline '%s' in the note of %s (%.12s)", name, rev ? rev : "HEAD", id);
		free_lines(lines, n);
		return -LK_ENOENT;
	}
	r = write_note(id, lines, n, err, errlen);
	free_lines(lines, n);
	return r;
}

int notes_list(struct notes_hit **out, size_t *n, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	char *index = NULL;
	if ((r = note_index(&index, err, errlen)) < 0)
		return r;
	for (char *p = index, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char *sp = strchr(p, ' ');
		if (!sp)
			continue;
		char *text = NULL;
		if ((r = read_note(sp + 1, &text, err, errlen)) < 0)
			break;
		note_baselines(sp + 1, text, NULL, out, n);
		free(text);
	}
	free(index);
	return r < 0 ? r : 0;
}
