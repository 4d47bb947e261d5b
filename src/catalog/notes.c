/*
 * catalog/notes.c: baselines as JSON lines in git notes, the store
 * (catalog/notes.h; the line codec is catalog/notes-json.c).
 *
 * Notes are anyone's input, so the store reads them with a fixed number of
 * git processes whatever their count: the notes commit is pinned once
 * (`rev-parse`), its tree listed once (`ls-tree -r -t`), and every note a
 * walk needs comes through one `cat-file --batch`, whose header gives the
 * size before the bytes, so a note over NOTES_MAX_NOTE is skipped unread.
 *
 * A save or delete builds the new notes commit itself (`hash-object`,
 * `mktree`, `commit-tree`) on the commit it read, and moves the ref with
 * `update-ref REF NEW OLD`: if another writer moved it meanwhile, git
 * refuses and the whole change is made again on the newer notes, so no
 * writer's line is lost.  The rewritten tree keeps every other entry as it
 * was; notes are put flat (no fan-out directories), which git reads as well.
 *
 * git runs as the invoking user under sudo (base/sudo.h), so nothing in
 * the user's .git becomes root's.  Temporary files (git's standard input
 * and error) are unlinked as soon as they are made: a SIGKILL leaves none.
 */
#include "catalog/notes.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/sudo.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SAVE_TRIES 64

/* ---- running git ---- */

/* An unlinked temporary file in TMPDIR holding data, at offset 0; -1 with err. */
static int tmp_fd(const void *data, size_t len, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char file[PATH_MAX];
	snprintf(file, sizeof(file), "%s/lauka-git.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(file);
	if (fd < 0) {
		lk_errbuf(err, errlen, "cannot make a temporary file in TMPDIR='%s': %s", tmp && *tmp ? tmp : "/tmp",
			  strerror(errno));
		return -1;
	}
	unlink(file);	/* nothing to leave behind, whatever ends lauka */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	const char *p = data;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, p + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			lk_errbuf(err, errlen, "cannot write a temporary file in TMPDIR='%s': %s (free space there or "
				  "point TMPDIR elsewhere)", tmp && *tmp ? tmp : "/tmp", strerror(w < 0 ? errno : ENOSPC));
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/*
 * In the child: the invoking user's identity under sudo (su, looked up
 * before the fork), so what git writes in .git stays theirs.
 */
static void as_user(const struct sudo_user *su, bool under_sudo)
{
	if (!under_sudo)
		return;
	if (setgroups(su->ngroups, su->groups) != 0 || setgid((gid_t)su->gid) != 0 || setuid((uid_t)su->uid) != 0)
		_exit(126);
	if (su->home[0])
		setenv("HOME", su->home, 1);
}

struct gitproc {
	pid_t pid;
	int out;	/* git's standard output */
	int efd;	/* its standard error (an unlinked file), or -1 */
};

static int git_start(const char *const *args, int in_fd, struct gitproc *g, char *err, size_t errlen)
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
	g->efd = tmp_fd("", 0, err, errlen);
	int fd[2];
	if (lk_cloexec_pipe(fd) < 0) {
		lk_errbuf(err, errlen, "pipe: %s", strerror(errno));
		free(argv);
		if (g->efd >= 0)
			close(g->efd);
		return -1;
	}
	struct sudo_user su;
	bool under_sudo = sudo_user(&su);
	g->pid = fork();
	if (g->pid == 0) {
		int infd = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
		if (infd < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		as_user(&su, under_sudo);
		dup2(infd, 0);
		dup2(fd[1], 1);
		dup2(g->efd >= 0 ? g->efd : infd, 2);
		execv(path, argv);
		_exit(127);
	}
	close(fd[1]);
	free(argv);
	if (g->pid < 0) {
		lk_errbuf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]);
		if (g->efd >= 0)
			close(g->efd);
		return -1;
	}
	g->out = fd[0];
	return 0;
}

/*
 * git's reason for a failure: its first "fatal:" or "error:" line (a
 * "warning:" or "hint:" line before it is not the reason), else its first
 * line, control characters shown escaped.
 */
static void git_reason(int efd, const char *what, char *err, size_t errlen)
{
	char e[2048] = "";
	ssize_t k = efd >= 0 ? pread(efd, e, sizeof(e) - 1, 0) : -1;
	e[k > 0 ? k : 0] = '\0';
	char *pick = NULL, *first = NULL;
	for (char *line = e, *nl; line && *line && !pick; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (!first && *line)
			first = line;
		if (!strncmp(line, "fatal:", 6) || !strncmp(line, "error:", 6))
			pick = line;
	}
	char *shown = notes_printable(pick ? pick : first ? first : "(no message)");
	lk_errbuf(err, errlen, "git %s failed: %s", what, shown);
	free(shown);
}

/* Wait for g; its exit status (128 for a signal), the reason in err when it is not 0. */
static int git_finish(struct gitproc *g, const char *what, char *err, size_t errlen)
{
	int st = 0;
	close(g->out);
	while (waitpid(g->pid, &st, 0) < 0 && errno == EINTR)
		;
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	if (rc == 126)
		lk_errbuf(err, errlen, "cannot run git as the invoking user (SUDO_UID)");
	else if (rc)
		git_reason(g->efd, what, err, errlen);
	if (g->efd >= 0)
		close(g->efd);
	return rc;
}

/*
 * Run git with args, standard input from in_fd (or /dev/null), standard
 * output into *out (malloc'd, NUL-terminated, *outlen bytes; may be NULL).
 * git's exit status, or -1 with err filled when it could not be run.
 */
static int git(const char *const *args, int in_fd, char **out, size_t *outlen, char *err, size_t errlen)
{
	struct gitproc g;
	if (git_start(args, in_fd, &g, err, errlen) < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t r;
	while ((r = read(g.out, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			strbuf_add(&sb, buf, (size_t)r);
	int rc = git_finish(&g, args[0], err, errlen);
	if (out) {
		*out = xmalloc(sb.len + 1);
		memcpy(*out, sb.buf ? sb.buf : "", sb.len);
		(*out)[sb.len] = '\0';
		if (outlen)
			*outlen = sb.len;
	}
	strbuf_release(&sb);
	return rc;
}

/* git whose first output line is an object id: into id (64 hex at most); 0, or -LK_E* with err. */
static int git_id(const char *const *args, int in_fd, char id[65], char *err, size_t errlen)
{
	char *out = NULL;
	int rc = git(args, in_fd, &out, NULL, err, errlen);
	if (rc == 0) {
		out[strcspn(out, "\n")] = '\0';
		if (strlen(out) < 40 || strlen(out) > 64 || strspn(out, "0123456789abcdef") != strlen(out)) {
			lk_errbuf(err, errlen, "git %s gave no object id", args[0]);
			rc = 1;
		} else
			snprintf(id, 65, "%s", out);
	}
	free(out);
	return rc == 0 ? 0 : rc < 0 ? -LK_ENOTSUP : -LK_EIO;
}

int notes_check_repo(char *err, size_t errlen)
{
	const char *args[] = { "rev-parse", "--git-dir", NULL };
	int rc = git(args, -1, NULL, NULL, err, errlen);
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
	int r = git_id(args, -1, id, err, errlen);
	free(spec);
	if (r == -LK_EIO) {
		char *shown = notes_printable(rev);
		lk_errbuf(err, errlen, "no commit '%s' in this repository", shown);
		free(shown);
		return -LK_ENOENT;
	}
	return r;
}

/* ---- the notes tree, pinned at one notes commit ---- */

struct tentry {
	char *name;	/* a note: the annotated commit's id (fan-out removed); else the entry's name */
	char mode[8], type[8], oid[65];
	bool note;
};

struct ntree {
	char commit[65];	/* the notes commit read, "" when there are no notes yet */
	struct tentry *e;
	size_t n;
};

static void ntree_free(struct ntree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct tentry *)a)->name, ((const struct tentry *)b)->name);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Is path (of ls-tree -r -t) a fan-out directory, or inside one: every component but the last two hex digits? */
static bool in_fanout(const char *path, bool *is_dir_component)
{
	const char *p = path, *slash;
	while ((slash = strchr(p, '/'))) {
		if (slash - p != 2 || !is_hex(p, 2))
			return false;
		p = slash + 1;
	}
	*is_dir_component = strlen(p) == 2 && is_hex(p, 2);
	return true;
}

/* One "mode type oid\tpath" record of ls-tree -z into t. */
static void add_entry(struct ntree *t, const char *rec)
{
	char mode[8], type[8], oid[65];
	const char *tab = strchr(rec, '\t');
	if (!tab || sscanf(rec, "%7s %7s %64s", mode, type, oid) != 3)
		return;
	const char *path = tab + 1;
	bool dir2 = false, fan = in_fanout(path, &dir2);
	bool top = !strchr(path, '/');
	if (!strcmp(type, "tree") && fan && dir2)
		return;	/* a fan-out directory: its notes come as their own records */
	if (!top && !fan)
		return;	/* inside a directory kept whole */
	struct strbuf flat = STRBUF_INIT;
	for (const char *c = path; *c; c++)
		if (*c != '/')
			strbuf_add(&flat, c, 1);
	struct tentry e = { .name = xstrdup(strbuf_str(&flat)) };
	strbuf_release(&flat);
	snprintf(e.mode, sizeof(e.mode), "%s", mode);
	snprintf(e.type, sizeof(e.type), "%s", type);
	snprintf(e.oid, sizeof(e.oid), "%s", oid);
	size_t l = strlen(e.name);
	e.note = !strcmp(type, "blob") && (l == 40 || l == 64) && is_hex(e.name, l);
	if (!top && !e.note) {	/* a stray file inside a fan-out directory: kept under its flat name */
		e.note = false;
	}
	t->e = xrealloc(t->e, (t->n + 1) * sizeof(*t->e));
	t->e[t->n++] = e;
}

/* Pin refs/notes/lauka and list its tree; a ref that exists but does not lead to a commit is an error naming it. */
static int ntree_read(struct ntree *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	const char *args[] = { "rev-parse", "--verify", "-q", NOTES_REF, NULL };
	char id[65];
	int r = git_id(args, -1, id, err, errlen);
	for (int k = 0; r == -LK_EIO && k < 3; k++) {
		/* absent, or a ref file git cannot read; or made by another writer just now: asked again */
		const char *pa[] = { "rev-parse", "--git-path", NOTES_REF, NULL };
		char *path = NULL;
		struct stat st;
		bool there = false;
		if (git(pa, -1, &path, NULL, err, errlen) == 0) {
			path[strcspn(path, "\n")] = '\0';
			there = lstat(path, &st) == 0;
		}
		free(path);
		if (!there)
			return 0;
		struct timespec ts = { 0, 20 * 1000 * 1000L };
		nanosleep(&ts, NULL);
		r = git_id(args, -1, id, err, errlen);
	}
	if (r == 0) {
		char *spec = xasprintf("%s^{commit}", id);
		const char *ca[] = { "rev-parse", "--verify", "-q", spec, NULL };
		r = git_id(ca, -1, t->commit, err, errlen);
		free(spec);
	}
	char *out = NULL;
	size_t len = 0;
	if (r == 0) {
		const char *la[] = { "ls-tree", "-r", "-t", "-z", t->commit, NULL };
		r = git(la, -1, &out, &len, err, errlen) == 0 ? 0 : -LK_EINVAL;
	}
	if (r < 0 && r != -LK_ENOTSUP) {
		lk_errbuf(err, errlen, "the notes ref %s is corrupt: it does not lead to a notes commit with a readable "
			  "tree (git fsck; git update-ref -d %s drops it)", NOTES_REF, NOTES_REF);
		free(out);
		return -LK_EIO;
	}
	if (r < 0) {
		free(out);
		return r;
	}
	for (size_t off = 0; off < len; off += strlen(out + off) + 1)
		add_entry(t, out + off);
	free(out);
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), cmp_entry);
	return 0;
}

static const struct tentry *ntree_note(const struct ntree *t, const char *commit)
{
	struct tentry key = { .name = (char *)commit };
	if (!t->n)
		return NULL;
	const struct tentry *e = bsearch(&key, t->e, t->n, sizeof(*t->e), cmp_entry);
	return e && e->note ? e : NULL;
}

/* ---- reading notes: one cat-file --batch for all ---- */

/* Called with each note's bytes (NULL when it is over NOTES_MAX_NOTE: size says how big); false stops. */
typedef bool (*note_fn)(const char *commit, const char *text, size_t size, void *arg);

/* The sizes of the blobs in req (one id a line), through one `cat-file --batch-check`; 0 or -LK_E*. */
static int blob_sizes(const struct strbuf *req, size_t n, unsigned long long *sizes, char *err, size_t errlen)
{
	int in = tmp_fd(req->buf, req->len, err, errlen);
	if (in < 0)
		return -LK_EIO;
	const char *args[] = { "cat-file", "--batch-check", NULL };
	char *out = NULL;
	int rc = git(args, in, &out, NULL, err, errlen);
	close(in);
	size_t i = 0;
	for (char *p = out, *nl; rc == 0 && p && *p && i < n; p = nl ? nl + 1 : NULL, i++) {
		nl = strchr(p, '\n');
		char oid[65], type[16];
		if (sscanf(p, "%64s %15s %llu", oid, type, &sizes[i]) != 3 || strcmp(type, "blob"))
			break;
	}
	free(out);
	if (rc < 0)
		return -LK_ENOTSUP;
	if (rc > 0 || i < n) {
		lk_errbuf(err, errlen, "git cat-file gave no note where %s lists one: the repository is damaged (git fsck)",
			  NOTES_REF);
		return -LK_EIO;
	}
	return 0;
}

/*
 * Each note of commits[0..n) (all in t) in that order: their sizes first
 * (one git process), then the bytes of those within NOTES_MAX_NOTE (one
 * more), up to NOTES_MAX_WALK in all; a larger note is given to fn as NULL
 * without being read.
 */
static int read_notes(const struct ntree *t, char *const *commits, size_t n, note_fn fn, void *arg, char *err,
		      size_t errlen)
{
	if (!n)
		return 0;
	struct strbuf req = STRBUF_INIT, want = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&req, "%s\n", ntree_note(t, commits[i])->oid);
	unsigned long long *sizes = xcalloc(n, sizeof(*sizes)), total = 0;
	int r = blob_sizes(&req, n, sizes, err, errlen);
	size_t nread = 0;	/* the notes read: within the cap per note and in all */
	for (size_t i = 0; r == 0 && i < n; i++)
		if (sizes[i] <= NOTES_MAX_NOTE) {
			if ((total += sizes[i]) > NOTES_MAX_WALK)
				break;
			strbuf_addf(&want, "%s\n", ntree_note(t, commits[i])->oid);
			nread++;
		}
	strbuf_release(&req);
	int in = r == 0 && nread ? tmp_fd(want.buf, want.len, err, errlen) : -1;
	strbuf_release(&want);
	struct gitproc g = { .pid = -1 };
	const char *args[] = { "cat-file", "--batch", NULL };
	if (r == 0 && nread && (in < 0 || git_start(args, in, &g, err, errlen) < 0))
		r = in < 0 ? -LK_EIO : -LK_ENOTSUP;
	if (in >= 0)
		close(in);
	FILE *f = g.pid > 0 ? fdopen(dup(g.out), "r") : NULL;
	char *buf = NULL;
	bool go = true;
	size_t done = 0;
	for (size_t i = 0; r == 0 && go && i < n; i++) {
		if (sizes[i] > NOTES_MAX_NOTE) {
			go = fn(commits[i], NULL, (size_t)sizes[i], arg);
			continue;
		}
		if (done == nread) {
			warning("the notes past the first %u MiB of this walk were not read (%s)", NOTES_MAX_WALK >> 20,
				NOTES_REF);
			break;
		}
		char hdr[256], oid[65], type[16];
		unsigned long long size;
		buf = xrealloc(buf, (size_t)sizes[i] + 1);
		if (!f || !fgets(hdr, sizeof(hdr), f) || sscanf(hdr, "%64s %15s %llu", oid, type, &size) != 3 ||
		    size != sizes[i] || fread(buf, 1, (size_t)size, f) != size || fgetc(f) != '\n') {
			lk_errbuf(err, errlen, "git cat-file gave no note where %s lists one: the repository is damaged "
				  "(git fsck)", NOTES_REF);
			r = -LK_EIO;
			break;
		}
		buf[size] = '\0';
		done++;
		go = fn(commits[i], buf, (size_t)size, arg);
	}
	free(buf);
	free(sizes);
	if (f)
		fclose(f);
	if (g.pid > 0) {
		if (done < nread)
			kill(g.pid, SIGTERM);	/* done early: the rest is not needed */
		char e2[256];
		int rc = git_finish(&g, "cat-file", e2, sizeof(e2));
		if (rc && done == nread && r == 0) {
			lk_errbuf(err, errlen, "%s", e2);
			r = -LK_EIO;
		}
	}
	return r;
}

/* ---- a note's lines ---- */

static unsigned warned;	/* skipped lines reported in this process: a walk over a hostile history stays readable */
static size_t skipped_named;	/* lines of the name notes_find looked for that were skipped */

size_t notes_find_skipped(void)
{
	return skipped_named;
}

static bool may_warn(void)
{
	if (warned++ < 8)
		return true;
	if (warned == 9)
		warning("more notes were skipped (only the first 8 are named)");
	return false;
}

static void warn_note(const char *commit, const char *what)
{
	if (may_warn())
		warning("skipped %s in the note of commit %.12s (%s)", what, commit, NOTES_REF);
}

/* A note over the cap: named, not read. */
static void warn_big(const char *commit, size_t size)
{
	if (may_warn())
		warning("the note of commit %.12s is %zu bytes, over lauka's cap of %u bytes: not read (%s)", commit, size,
			NOTES_MAX_NOTE, NOTES_REF);
}

/* A line that is meant to be a baseline (others in a note are somebody else's, left alone). */
static bool meant_as_baseline(const char *p, size_t l)
{
	static const char key[] = "\"lauka_baseline\"";
	if (memchr(p, '\0', l))
		return true;
	for (size_t i = 0; i + sizeof(key) - 1 <= l; i++)
		if (!memcmp(p + i, key, sizeof(key) - 1))
			return true;
	return false;
}

/* The value of "key":"..." in a refused line as far as it can be read (escaped, short), for its warning. */
static char *peek_string(const char *p, size_t l, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl + 4 <= l; i++)
		if (p[i] == '"' && !memcmp(p + i + 1, key, kl) && !memcmp(p + i + 1 + kl, "\":\"", 3)) {
			const char *v = p + i + kl + 4;
			size_t n = 0;
			while (v + n < p + l && v[n] != '"' && v[n] != '\0' && n < 64)
				n++;
			char *raw = xasprintf("%.*s", (int)n, v);
			char *shown = notes_printable(raw);
			free(raw);
			return shown;
		}
	return NULL;
}

/* A line meant as a baseline that is not a valid one: a warning naming the commit, the baseline and runner class. */
static void refused_line(const char *commit, const char *p, size_t l, const char *why)
{
	char *name = peek_string(p, l, "name"), *cls = peek_string(p, l, "runner_class");
	char *what = xasprintf("baseline '%s' of runner class '%s' (%s)", name ? name : "?", cls ? cls : "?", why);
	warn_note(commit, what);
	free(what);
	free(name);
	free(cls);
}

/*
 * Each baseline line of a note named name (all when NULL) into *out;
 * invalid ones warned about and skipped (counted when of name and cls).
 */
static void note_baselines(const char *commit, const char *text, size_t size, const char *name, const char *cls,
			   struct notes_hit **out, size_t *n)
{
	for (size_t off = 0; off < size;) {
		const char *p = text + off, *nl = memchr(p, '\n', size - off);
		size_t l = nl ? (size_t)(nl - p) : size - off;
		off += l + 1;
		struct db_baseline b;
		char e[256];
		if (!l || !meant_as_baseline(p, l))
			continue;
		if (notes_baseline_decode(p, l, &b, e, sizeof(e)) < 0) {
			refused_line(commit, p, l, e);
			/* counted when it may have been the line looked for: that name and class, or unreadable ones */
			char *nm = name ? peek_string(p, l, "name") : NULL, *c = cls ? peek_string(p, l, "runner_class") : NULL;
			skipped_named += name && (!nm || !strcmp(nm, name)) && (!cls || !c || !strcmp(c, cls));
			free(nm);
			free(c);
			continue;
		}
		if (name && strcmp(b.name, name)) {
			db_baseline_release(&b);
			continue;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		snprintf((*out)[*n].commit, sizeof((*out)[*n].commit), "%s", commit);
		(*out)[(*n)++].b = b;
	}
}

void notes_hits_free(struct notes_hit *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_baseline_release(&h[i].b);
	free(h);
}

/* ---- finding ---- */

struct find {
	const char *name, *runner_class;
	struct notes_hit **out;
	size_t *n;
	int *found;
};

static bool find_in_note(const char *commit, const char *text, size_t size, void *arg)
{
	struct find *fd = arg;
	if (!text) {
		warn_big(commit, size);
		return true;
	}
	size_t before = *fd->n;
	note_baselines(commit, text, size, fd->name, fd->runner_class, fd->out, fd->n);
	for (size_t i = before; i < *fd->n && !*fd->found; i++)
		*fd->found = !fd->runner_class || !strcmp((*fd->out)[i].b.runner_class, fd->runner_class);
	if (!*fd->found)
		return true;
	/* Found: keep only this commit's lines of that class (of every class when none is asked for). */
	size_t k = 0;
	for (size_t i = 0; i < *fd->n; i++) {
		struct notes_hit *h = &(*fd->out)[i];
		if (i >= before && (!fd->runner_class || !strcmp(h->b.runner_class, fd->runner_class)))
			(*fd->out)[k++] = *h;
		else
			db_baseline_release(&h->b);
	}
	*fd->n = k;
	return false;
}

int notes_find(const char *name, const char *rev, const char *runner_class, int include_head, struct notes_hit **out,
	       size_t *n, int *found, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	*found = 0;
	skipped_named = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	char id[65];
	if (!rev && rev_commit("HEAD", id, err, errlen) < 0) {
		lk_errbuf(err, errlen, "--git needs a commit: this repository has none yet");
		return -LK_ENOENT;
	}
	if (rev && (r = rev_commit(rev, id, err, errlen)) < 0)
		return r;
	struct ntree t;
	if ((r = ntree_read(&t, err, errlen)) < 0)
		return r;
	char *list = NULL;
	size_t len = 0;
	if (!rev) {
		const char *args[] = { "rev-list", "--first-parent", "HEAD", NULL };
		if (git(args, -1, &list, &len, err, errlen) != 0) {
			free(list);
			ntree_free(&t);
			return -LK_ENOTSUP;
		}
	} else
		list = xasprintf("%s\n", id);
	/* The commits of the walk that have a note, nearest first. */
	char **with = NULL;
	size_t nw = 0;
	bool first = true;
	for (char *p = list, *nl; *p; p = nl ? nl + 1 : p + strlen(p), first = false) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if ((first && !rev && !include_head) || !ntree_note(&t, p))
			continue;
		with = xrealloc(with, (nw + 1) * sizeof(*with));
		with[nw++] = p;
	}
	struct find fd = { name, runner_class, out, n, found };
	r = read_notes(&t, with, nw, find_in_note, &fd, err, errlen);
	if (rev && !r)
		for (size_t i = 0; i < *n; i++)
			*found |= !runner_class || !strcmp((*out)[i].b.runner_class, runner_class);
	free(with);
	free(list);
	ntree_free(&t);
	return r;
}

static bool list_note(const char *commit, const char *text, size_t size, void *arg)
{
	struct find *fd = arg;
	if (!text)
		warn_big(commit, size);
	else
		note_baselines(commit, text, size, NULL, NULL, fd->out, fd->n);
	return true;
}

int notes_list(struct notes_hit **out, size_t *n, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	struct ntree t;
	if ((r = ntree_read(&t, err, errlen)) < 0)
		return r;
	char **with = xcalloc(t.n + 1, sizeof(*with));
	size_t nw = 0;
	for (size_t i = 0; i < t.n; i++)
		if (t.e[i].note)
			with[nw++] = t.e[i].name;
	int found = 0;
	struct find fd = { NULL, NULL, out, n, &found };
	r = read_notes(&t, with, nw, list_note, &fd, err, errlen);
	free(with);
	ntree_free(&t);
	return r;
}

/* ---- writing: a compare-and-swap of the notes ref ---- */

struct span {
	const char *p;
	size_t l;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->l < y->l ? x->l : y->l);
	return c ? c : x->l < y->l ? -1 : x->l > y->l;
}

/* What a save or delete does to one note. */
struct change {
	const struct db_baseline *add;		/* save: this line in, the one of the same name and class out */
	const char *name, *runner_class;	/* delete: lines of name (and runner_class unless NULL) out */
	const char *what;			/* for the notes commit's message */
	size_t removed;
	char *class1;				/* delete: the runner class of the first line dropped */
	bool several;				/* delete without a class: lines of more than one class matched */
	bool all_classes;			/* delete: --all-classes, several may go */
};

static bool drops(struct change *ch, const char *p, size_t l)
{
	struct db_baseline b;
	char e[64];
	if (!meant_as_baseline(p, l) || notes_baseline_decode(p, l, &b, e, sizeof(e)) < 0)
		return false;	/* not a baseline lauka reads: somebody's, kept byte for byte */
	bool d = ch->add ? !strcmp(b.name, ch->add->name) && !strcmp(b.runner_class, ch->add->runner_class)
			 : !strcmp(b.name, ch->name) && (!ch->runner_class || !strcmp(b.runner_class, ch->runner_class));
	if (d && !ch->add && !ch->class1)
		ch->class1 = xstrdup(b.runner_class);
	else if (d && !ch->add && strcmp(ch->class1, b.runner_class))
		ch->several = true;
	db_baseline_release(&b);
	return d;
}

/* The note's new text: every line but those the change drops, the new one, sorted and unique (cat_sort_uniq's form). */
static void rewrite_note(const char *text, size_t size, struct change *ch, struct strbuf *out)
{
	struct span *ls = xcalloc(size / 2 + 2, sizeof(*ls));
	size_t n = 0;
	char *added = ch->add ? notes_baseline_encode(ch->add) : NULL;
	ch->removed = 0;
	ch->several = false;
	FREE_AND_NULL(ch->class1);
	for (size_t off = 0; off < size;) {
		const char *p = text + off, *nl = memchr(p, '\n', size - off);
		size_t l = nl ? (size_t)(nl - p) : size - off;
		off += l + 1;
		if (l && drops(ch, p, l))
			ch->removed++;
		else if (l)
			ls[n++] = (struct span){ p, l };
	}
	if (added)
		ls[n++] = (struct span){ added, strlen(added) };
	qsort(ls, n, sizeof(*ls), cmp_span);
	for (size_t i = 0; i < n; i++)
		if (!i || cmp_span(&ls[i], &ls[i - 1])) {
			strbuf_add(out, ls[i].p, ls[i].l);
			strbuf_add(out, "\n", 1);
		}
	free(added);
	free(ls);
}

struct one_note {
	struct strbuf text;
	size_t size;
	bool big;
};

static bool keep_note(const char *commit, const char *text, size_t size, void *arg)
{
	(void)commit;
	struct one_note *o = arg;
	o->size = size;
	o->big = !text;
	if (text)
		strbuf_add(&o->text, text, size);
	return true;
}

/* git with lauka's stand-in identity when none is configured (a notes commit needs one). */
static int git_ident(const char **args, size_t nargs, int in_fd, char id[65], char *err, size_t errlen)
{
	const char *cfg[] = { "config", "user.email", NULL };
	char e2[64];
	bool have = git(cfg, -1, NULL, NULL, e2, sizeof(e2)) == 0;
	const char **full = xcalloc(nargs + 5, sizeof(*full));
	size_t k = 0;
	if (!have) {
		full[k++] = "-c";
		full[k++] = "user.name=lauka";
		full[k++] = "-c";
		full[k++] = "user.email=lauka@localhost";
	}
	for (size_t i = 0; i < nargs; i++)
		full[k++] = args[i];
	int r = git_id(full, in_fd, id, err, errlen);
	free(full);
	return r;
}

/* The new tree: every entry of t but commit's note, and the note's new blob unless it is empty. */
static int new_tree(const struct ntree *t, const char *commit, const char *blob, char tree[65], char *err,
		    size_t errlen)
{
	struct strbuf in = STRBUF_INIT;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->e[i].name, commit))
			strbuf_addf(&in, "%s %s %s\t%s%c", t->e[i].mode, t->e[i].type, t->e[i].oid, t->e[i].name, 0);
	if (blob)
		strbuf_addf(&in, "100644 blob %s\t%s%c", blob, commit, 0);
	int fd = tmp_fd(in.buf ? in.buf : "", in.len, err, errlen);
	strbuf_release(&in);
	if (fd < 0)
		return -LK_EIO;
	const char *args[] = { "mktree", "-z", NULL };
	int r = git_id(args, fd, tree, err, errlen);
	close(fd);
	return r;
}

/* One attempt: 0 done, 1 the ref could not be moved (another writer: try again), or -LK_E*. */
static int try_change(const char *commit, struct change *ch, char *err, size_t errlen)
{
	struct ntree t;
	int r = ntree_read(&t, err, errlen);
	if (r < 0)
		return r;
	struct one_note o = { STRBUF_INIT, 0, false };
	char *c1 = (char *)commit;
	if (ntree_note(&t, commit) && (r = read_notes(&t, &c1, 1, keep_note, &o, err, errlen)) < 0)
		goto out;
	if (o.big) {
		lk_errbuf(err, errlen, "the note of commit %.12s is %zu bytes, over lauka's cap of %u bytes: lauka does "
			  "not rewrite it (%s)", commit, o.size, NOTES_MAX_NOTE, NOTES_REF);
		r = -LK_EINVAL;
		goto out;
	}
	struct strbuf text = STRBUF_INIT;
	rewrite_note(o.text.buf ? o.text.buf : "", o.text.len, ch, &text);
	char blob[65] = "", tree[65], next[65];
	if (!ch->add && !ch->removed) {
		r = -LK_ENOENT;
	} else if (ch->several && !ch->all_classes) {
		r = -LK_EBUSY;
	} else if (text.len > NOTES_MAX_NOTE) {
		lk_errbuf(err, errlen, "the note of commit %.12s would grow to %zu bytes, over lauka's cap of %u bytes",
			  commit, text.len, NOTES_MAX_NOTE);
		r = -LK_EINVAL;
	} else if (text.len) {
		const char *ha[] = { "hash-object", "-w", "--stdin", NULL };
		int fd = tmp_fd(text.buf, text.len, err, errlen);
		r = fd < 0 ? -LK_EIO : git_id(ha, fd, blob, err, errlen);
		if (fd >= 0)
			close(fd);
	}
	strbuf_release(&text);
	if (r == 0)
		r = new_tree(&t, commit, blob[0] ? blob : NULL, tree, err, errlen);
	if (r == 0) {
		char *msg = xasprintf("Notes: %s (lauka)", ch->what);
		const char *ca[] = { "commit-tree", tree, "-m", msg, "-p", t.commit, NULL };
		r = git_ident(ca, t.commit[0] ? 6 : 4, -1, next, err, errlen);
		/* the swap: only if the ref is still the commit read ("" : only if there is none) */
		const char *ua[] = { "update-ref", "-m", msg, NOTES_REF, next, t.commit, NULL };
		/* refused: the ref moved, or another writer holds its lock; either way, again on what is there then */
		if (r == 0 && git(ua, -1, NULL, NULL, err, errlen) != 0)
			r = 1;
		free(msg);
	}
out:
	strbuf_release(&o.text);
	ntree_free(&t);
	return r;
}

/* Apply ch to commit's note, again on the newer notes whenever another writer moved the ref first. */
static int change_note(const char *commit, struct change *ch, char *err, size_t errlen)
{
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	for (int k = 0; k < SAVE_TRIES; k++) {
		int r = try_change(commit, ch, err, errlen);
		if (r <= 0)
			return r;
		/* a short random wait, longer each time, so racing writers do not meet again */
		struct timespec ts = { 0, (long)(rand_r(&seed) % (1000 * (k + 1))) * 1000L };
		nanosleep(&ts, NULL);
	}
	char last[512];
	snprintf(last, sizeof(last), "%s", err);
	lk_errbuf(err, errlen, "%s could not be updated in %d tries (%s): nothing was changed", NOTES_REF, SAVE_TRIES,
		  last);
	return -LK_EIO;
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
	struct change ch = { .add = b, .what = "baseline saved" };
	return change_note(commit, &ch, err, errlen);
}

int notes_delete(const char *name, const char *rev, const char *runner_class, bool all_classes, size_t *removed,
		 char *err, size_t errlen)
{
	*removed = 0;
	int r = notes_check_repo(err, errlen);
	if (r < 0)
		return r;
	char id[65];
	if ((r = rev_commit(rev ? rev : "HEAD", id, err, errlen)) < 0)
		return r;
	struct change ch = { .name = name, .runner_class = runner_class, .what = "baseline deleted",
			     .all_classes = all_classes };
	r = change_note(id, &ch, err, errlen);
	free(ch.class1);
	if (r == -LK_EBUSY) {
		char *n = notes_printable(name), *rv = notes_printable(rev ? rev : "HEAD");
		lk_errbuf(err, errlen, "baseline '%s' in the note of %s (%.12s) is there for several runner classes: "
			  "nothing was deleted", n, rv, id);
		free(n);
		free(rv);
	} else if (r == -LK_ENOENT) {
		char *n = notes_printable(name), *c = notes_printable(runner_class), *rv = notes_printable(rev ? rev : "HEAD");
		lk_errbuf(err, errlen, "no baseline '%s'%s%s%s in the note of %s (%.12s)", n,
			  runner_class ? " of runner class '" : "", runner_class ? c : "", runner_class ? "'" : "", rv, id);
		free(n);
		free(c);
		free(rv);
	}
	*removed = ch.removed;
	return r;
}
