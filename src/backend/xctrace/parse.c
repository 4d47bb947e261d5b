/* backend/xctrace/parse.c: the TOC and table exports of xctrace, read with libxml2's xmlTextReader. */
#include "backend/xctrace/parse.h"
#include "backend/xctrace/agg.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/xmlreader.h>

/*
 * No network, no entity substitution (nothing outside the file is read), and
 * not XML_PARSE_HUGE: with it libxml2 drops its guards on entity amplification
 * and nesting depth (256), and a "billion laughs" attribute grows without bound.
 * The streaming reader needs no HUGE for large exports: its limits are per
 * text node and name (10 MB), not per document.  xctrace never writes a DTD,
 * so one is refused before libxml2 parses it (prolog_check).
 */
#define XCT_XML_OPTS (XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR)
/* Bytes of prolog (declaration, comments, processing instructions) before the root element. */
#define XCT_PROLOG_MAX 65536

/* ---- shared reader plumbing ---- */

/*
 * Text from the file as an error may quote it: control characters (an
 * attribute may hold &#10;) shown as '?' and cut at 60 bytes, so an error
 * stays one line.  buf holds at least 64 bytes.
 */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	for (; s && *s && n + 4 < len && n < 60; s++)
		buf[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	if (s && *s && n + 4 < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

struct xerr {
	char msg[256];
	int line;
};

static void on_xml_error(void *arg, const char *msg, xmlParserSeverities sev, xmlTextReaderLocatorPtr loc)
{
	struct xerr *e = arg;
	if (e->msg[0])
		return;
	snprintf(e->msg, sizeof(e->msg), "%s", msg ? msg : "malformed XML");
	for (char *c = e->msg; *c; c++)	/* libxml2's messages may span lines; lauka's error is one */
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	size_t n = strlen(e->msg);
	while (n && (e->msg[n - 1] == '\n' || e->msg[n - 1] == ' '))
		e->msg[--n] = '\0';
	e->line = loc ? xmlTextReaderLocatorLineNumber(loc) : 0;
}

/*
 * What comes before the root element: refuse a <!DOCTYPE> (where entities are
 * declared; xctrace writes none) before libxml2 reads a byte of it.  buf holds
 * the file's first len bytes (all of it, or XCT_PROLOG_MAX).
 */
static int prolog_check(const char *buf, size_t len, bool whole, char *err, size_t errlen)
{
	size_t i = 0;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len) {
		char c = buf[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			i++;
			continue;
		}
		if (c != '<')
			return 0;	/* not XML: libxml2 says so */
		const char *close = NULL;
		size_t endlen = 2;
		if (len - i >= 4 && !memcmp(buf + i, "<!--", 4))
			close = memmem(buf + i + 4, len - i - 4, "-->", endlen = 3);
		else if (len - i >= 2 && buf[i + 1] == '?')
			close = memmem(buf + i + 2, len - i - 2, "?>", 2);
		else if (len - i >= 2 && buf[i + 1] == '!') {
			lk_errbuf(err, errlen, "the file declares a DTD (<!DOCTYPE>), which xctrace never writes; refused, "
				  "as its entities could expand without bound");
			return -LK_EINVAL;
		} else
			return 0;	/* the root element */
		if (!close) {
			if (whole)
				return 0;	/* unterminated: libxml2 reports it */
			lk_errbuf(err, errlen, "more than %d bytes of comments and declarations before the root element "
				  "(lauka's limit)", XCT_PROLOG_MAX);
			return -LK_EINVAL;
		}
		i = (size_t)(close - buf) + endlen;
	}
	if (!whole) {
		lk_errbuf(err, errlen, "more than %d bytes of comments and declarations before the root element "
			  "(lauka's limit)", XCT_PROLOG_MAX);
		return -LK_EINVAL;
	}
	return 0;
}

static int prolog_check_file(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* the reader reports it */
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		lk_errbuf(err, errlen, "cannot read '%s': not a regular file", path);
		return -LK_EINVAL;
	}
	char *buf = xmalloc(XCT_PROLOG_MAX);
	size_t n = 0;
	ssize_t k;
	while (n < XCT_PROLOG_MAX && (k = read(fd, buf + n, XCT_PROLOG_MAX - n)) > 0)
		n += (size_t)k;
	close(fd);
	int r = prolog_check(buf, n, n < XCT_PROLOG_MAX, err, errlen);
	free(buf);
	return r;
}

/* 0 and the reader in *out, or -LK_EINVAL (a DTD, a FIFO) or -LK_EIO with err set. */
static int open_reader(const char *buf, size_t len, const char *path, struct xerr *xe, xmlTextReaderPtr *out,
		       char *err, size_t errlen)
{
	xmlTextReaderPtr r;
	*out = NULL;
	if (path ? prolog_check_file(path, err, errlen) < 0 : prolog_check(buf, len, true, err, errlen) < 0)
		return -LK_EINVAL;
	if (path)
		r = xmlReaderForFile(path, NULL, XCT_XML_OPTS);
	else
		r = len > (size_t)0x7fffffff ? NULL : xmlReaderForMemory(buf, (int)len, NULL, NULL, XCT_XML_OPTS);
	if (!r) {
		if (path)
			lk_errbuf(err, errlen, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
		else
			lk_errbuf(err, errlen, "cannot start the XML reader");
		return -LK_EIO;
	}
	memset(xe, 0, sizeof(*xe));
	xmlTextReaderSetErrorHandler(r, on_xml_error, xe);
	*out = r;
	return 0;
}

static int read_failed(const struct xerr *xe, char *err, size_t errlen)
{
	if (xe->line)
		lk_errbuf(err, errlen, "malformed XML at line %d: %s", xe->line, xe->msg[0] ? xe->msg : "parse error");
	else
		lk_errbuf(err, errlen, "malformed XML: %s", xe->msg[0] ? xe->msg : "parse error");
	return -LK_EINVAL;
}

static bool name_is(xmlTextReaderPtr r, const char *name)
{
	const xmlChar *n = xmlTextReaderConstLocalName(r);
	return n && !strcmp((const char *)n, name);
}

static char *attr(xmlTextReaderPtr r, const char *name)
{
	xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

/* Decimal digits only (optional leading '-' when neg is allowed), no overflow. */
static bool parse_u64(const char *s, uint64_t *out)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s)
		return false;
	*out = v;
	return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
	bool neg = false;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-') {
		neg = true;
		s++;
	}
	uint64_t v;
	if (!parse_u64(s, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

size_t xct_split_names(const char *a, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	const char *p = a ? a : "";
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		const char *start, *end;
		if (*p == '"') {
			start = ++p;
			end = strchr(p, '"');
			if (!end)
				end = p + strlen(p);
			p = *end ? end + 1 : end;
		} else {
			start = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				p++;
			end = p;
		}
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n] = xmalloc((size_t)(end - start) + 1);
		memcpy(names[n], start, (size_t)(end - start));
		names[n][end - start] = '\0';
		n++;
	}
	*out = names;
	return n;
}

void xct_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- the TOC ---- */

static char *unquote(char *s)
{
	if (!s)
		return NULL;
	char **names = NULL;
	size_t n = xct_split_names(s, &names);
	free(s);
	char *one = n ? xstrdup(names[0]) : xstrdup("");
	xct_free_names(names, n);
	return one;
}

static void add_table(struct xct_toc *t, xmlTextReaderPtr r)
{
	t->tables = xrealloc(t->tables, (t->ntables + 1) * sizeof(*t->tables));
	struct xct_table *tb = &t->tables[t->ntables++];
	memset(tb, 0, sizeof(*tb));
	tb->schema = attr(r, "schema");
	if (!tb->schema)
		tb->schema = xstrdup("");
	char *ev = attr(r, "pmc-events");
	if (ev) {
		tb->has_events = true;
		tb->nevents = xct_split_names(ev, &tb->events);
		free(ev);
	}
	tb->trigger = attr(r, "trigger");
	tb->pmi_event = unquote(attr(r, "pmi-event"));
	tb->counting_mode = unquote(attr(r, "counting-mode"));
	char *v = attr(r, "pmi-threshold");
	if (v && !parse_u64(v, &tb->pmi_threshold))
		tb->pmi_threshold = 0;
	free(v);
	v = attr(r, "sample-rate-micro-seconds");
	if (v && !parse_u64(v, &tb->sample_rate_us))
		tb->sample_rate_us = 0;
	free(v);
}

/* Text content of the current element (the reader moves past it). */
static char *element_text(xmlTextReaderPtr r)
{
	xmlChar *s = xmlTextReaderReadString(r);
	if (!s)
		return xstrdup("");
	char *out = xstrdup((const char *)s);
	xmlFree(s);
	return out;
}

/* The launched process of the TOC's target: pid, exit status (0-255, else -1 after the error), names. */
static int target_process_attrs(xmlTextReaderPtr r, struct xct_toc *t, char *err, size_t errlen)
{
	char *v = attr(r, "pid");
	int64_t pid;
	if (v && parse_i64(v, &pid))
		t->pid = (long)pid;
	free(v);
	/* an exit status is 0-255: anything else is a corrupt TOC, never a success */
	v = attr(r, "return-exit-status");
	int64_t st = 0;
	if (v && (!parse_i64(v, &st) || st < 0 || st > 255)) {
		char sv[72];
		lk_errbuf(err, errlen, "the launched process's return-exit-status '%s' is not an exit status (0 to 255)",
			  shown(v, sv, sizeof(sv)));
		free(v);
		return -1;
	}
	if (v) {
		t->has_exit = true;
		t->exit_status = (int)st;
	}
	free(v);
	t->termination = attr(r, "termination-reason");
	t->process_name = attr(r, "name");
	return 0;
}

/* One element of the run's <summary>: the first value of each field is kept. */
static void summary_field(xmlTextReaderPtr r, struct xct_toc *t)
{
	char **dst = NULL;
	if (name_is(r, "instruments-version"))
		dst = &t->instruments_version;
	else if (name_is(r, "template-name"))
		dst = &t->template_name;
	else if (name_is(r, "end-reason"))
		dst = &t->end_reason;
	if (dst && !*dst) {
		*dst = element_text(r);
	} else if (name_is(r, "duration")) {
		char *s = element_text(r), *end = NULL;
		double d = strtod(s, &end);
		if (end != s)
			t->duration_s = d;
		free(s);
	}
}

static int toc_parse(xmlTextReaderPtr r, struct xerr *xe, struct xct_toc *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->pid = -1;
	int depth_run = -1, runs = 0;
	bool in_target = false, in_summary = false, in_data = false, root_seen = false, target_process = false;
	int ret;
	while ((ret = xmlTextReaderRead(r)) == 1) {
		if (lk_interrupted) {
			xct_toc_release(t);
			lk_errbuf(err, errlen, "reading stopped: lauka was interrupted");
			return -LK_EINTR;
		}
		int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
		if (type == XML_READER_TYPE_END_ELEMENT) {
			if (name_is(r, "run") && depth == depth_run)
				depth_run = -2;	/* run 1 is done; later runs are ignored */
			else if (name_is(r, "target"))
				in_target = false;
			else if (name_is(r, "summary"))
				in_summary = false;
			else if (name_is(r, "data"))
				in_data = false;
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		if (!root_seen) {
			root_seen = true;
			if (!name_is(r, "trace-toc")) {
				lk_errbuf(err, errlen, "not an xctrace table of contents (root element <%s>)",
					  (const char *)xmlTextReaderConstLocalName(r));
				return -LK_EINVAL;
			}
			continue;
		}
		bool empty = xmlTextReaderIsEmptyElement(r);
		if (name_is(r, "run")) {
			runs++;
			if (depth_run == -1 && !empty)
				depth_run = depth;
			continue;
		}
		if (depth_run < 0)
			continue;
		if (name_is(r, "target"))
			in_target = !empty;
		else if (name_is(r, "summary"))
			in_summary = !empty;
		else if (name_is(r, "data"))
			in_data = !empty;
		else if (in_target && name_is(r, "process") && !target_process) {
			target_process = true;	/* the first process of the target only (found by fuzzing: a later one leaked) */
			if (target_process_attrs(r, t, err, errlen) < 0) {
				xct_toc_release(t);
				return -LK_EINVAL;
			}
		} else if (in_summary && !empty && depth == depth_run + 3) {
			summary_field(r, t);
		} else if (in_data && name_is(r, "table")) {
			add_table(t, r);
			const struct xct_table *tb = &t->tables[t->ntables - 1];
			if (tb->nevents > XCT_MAX_VALUES) {
				char sv[72];
				lk_errbuf(err, errlen, "table '%s' names %zu counter events (at most %d)",
					  shown(tb->schema, sv, sizeof(sv)), tb->nevents, XCT_MAX_VALUES);
				xct_toc_release(t);
				return -LK_EINVAL;
			}
		}
	}
	if (ret < 0 || xe->msg[0]) {
		xct_toc_release(t);
		return read_failed(xe, err, errlen);
	}
	if (!root_seen) {
		lk_errbuf(err, errlen, "empty table of contents");
		return -LK_EINVAL;
	}
	if (!runs) {
		xct_toc_release(t);
		lk_errbuf(err, errlen, "the table of contents has no run (trace is malformed)");
		return -LK_EINVAL;
	}
	return 0;
}

int xct_toc_parse(const char *buf, size_t len, struct xct_toc *out, char *err, size_t errlen)
{
	struct xerr xe;
	memset(out, 0, sizeof(*out));
	out->pid = -1;
	xmlTextReaderPtr r;
	int o = open_reader(buf, len, NULL, &xe, &r, err, errlen);
	if (o < 0)
		return o;
	int ret = toc_parse(r, &xe, out, err, errlen);
	xmlFreeTextReader(r);
	return ret;
}

int xct_toc_parse_file(const char *path, struct xct_toc *out, char *err, size_t errlen)
{
	struct xerr xe;
	memset(out, 0, sizeof(*out));
	out->pid = -1;
	errno = 0;
	xmlTextReaderPtr r;
	int o = open_reader(NULL, 0, path, &xe, &r, err, errlen);
	if (o < 0)
		return o;
	int ret = toc_parse(r, &xe, out, err, errlen);
	xmlFreeTextReader(r);
	return ret;
}

void xct_toc_release(struct xct_toc *t)
{
	for (size_t i = 0; i < t->ntables; i++) {
		struct xct_table *tb = &t->tables[i];
		free(tb->schema);
		xct_free_names(tb->events, tb->nevents);
		free(tb->trigger);
		free(tb->pmi_event);
		free(tb->counting_mode);
	}
	free(t->tables);
	free(t->termination);
	free(t->process_name);
	free(t->instruments_version);
	free(t->template_name);
	free(t->end_reason);
	memset(t, 0, sizeof(*t));
	t->pid = -1;
}

const struct xct_table *xct_toc_table(const struct xct_toc *t, const char *schema, size_t nth)
{
	for (size_t i = 0; i < t->ntables; i++)
		if (!strcmp(t->tables[i].schema, schema) && nth-- == 0)
			return &t->tables[i];
	return NULL;
}

/* ---- table exports ---- */

enum col_role { COL_OTHER, COL_TIME, COL_THREAD, COL_PROCESS, COL_CORE, COL_WEIGHT, COL_STACK, COL_VALUES };

/* What an element stands for once closed (and what an id names). */
struct xval {
	char tag[24];
	bool defined;
	bool has_num;
	uint64_t num;
	int64_t tid, pid;
	uint64_t *vals;		/* pmc-events */
	size_t nvals;
	bool has_vals;
};

struct frame {
	struct xval v;
	long id, ref;
	struct strbuf text;
	/* <col> and <row> bookkeeping */
	char *mnemonic, *etype;
	size_t ncells;
};

/*
 * Definitions by id: an open-addressed table sized by how many ids are
 * defined (never by their values: id="50000000" in a tiny file must not
 * allocate 5 GB), so it grows with the file.
 */
struct id_slot {
	long id;		/* -1: empty */
	struct xval v;
};

struct export_state {
	struct id_slot *ids;
	size_t nids, idcap;
	struct frame *stack;
	size_t depth, cap;
	enum col_role *roles;
	char **col_names;
	size_t ncols;
	bool schema_seen, schema_done, in_schema;
	char *schema_name;
	struct xct_row row;
	uint64_t *rowvals;
	size_t rowcap;
	size_t nrows;
	bool row_open;
};

static void xval_free(struct xval *v)
{
	free(v->vals);
	v->vals = NULL;
}

static void xval_copy(struct xval *dst, const struct xval *src)
{
	char tag[24];
	memcpy(tag, dst->tag, sizeof(tag));
	free(dst->vals);
	*dst = *src;
	memcpy(dst->tag, tag, sizeof(tag));
	if (src->vals) {
		dst->vals = xcalloc(src->nvals ? src->nvals : 1, sizeof(uint64_t));
		memcpy(dst->vals, src->vals, src->nvals * sizeof(uint64_t));
	}
}

static enum col_role role_of(const char *mn, const char *et)
{
	mn = mn ? mn : "";
	et = et ? et : "";
	if (!strcmp(et, "pmc-events") || !strcmp(mn, "counters-array"))
		return COL_VALUES;
	if (!strcmp(mn, "weight"))
		return COL_WEIGHT;
	if (!strcmp(mn, "time") || !strcmp(et, "sample-time"))
		return COL_TIME;
	if (!strcmp(mn, "thread") || !strcmp(et, "thread"))
		return COL_THREAD;
	if (!strcmp(mn, "process") || !strcmp(et, "process"))
		return COL_PROCESS;
	if (!strcmp(mn, "core") || !strcmp(et, "core"))
		return COL_CORE;
	if (!strcmp(mn, "stack") || !strcmp(et, "backtrace") || !strcmp(et, "tagged-backtrace"))
		return COL_STACK;
	return COL_OTHER;
}

static const char *role_tag(enum col_role r)
{
	switch (r) {
	case COL_TIME: return "sample-time";
	case COL_THREAD: return "thread";
	case COL_PROCESS: return "process";
	case COL_CORE: return "core";
	case COL_VALUES: return "pmc-events";
	default: return NULL;
	}
}

static int parse_values(const char *s, struct xval *v, char *err, size_t errlen)
{
	v->has_vals = true;
	v->nvals = 0;
	size_t cap = 0;
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		uint64_t x = 0;
		if (*p < '0' || *p > '9') {
			char sv[72], cut[24];
			snprintf(cut, sizeof(cut), "%.20s", p);
			lk_errbuf(err, errlen, "pmc-events value '%s' is not an integer", shown(cut, sv, sizeof(sv)));
			return -LK_EINVAL;
		}
		for (; *p >= '0' && *p <= '9'; p++) {
			if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
				lk_errbuf(err, errlen, "pmc-events value out of range");
				return -LK_EINVAL;
			}
			x = x * 10 + (uint64_t)(*p - '0');
		}
		if (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
			char sv[72], cut[24];
			snprintf(cut, sizeof(cut), "%.20s", s);
			lk_errbuf(err, errlen, "pmc-events value '%s' is not an integer", shown(cut, sv, sizeof(sv)));
			return -LK_EINVAL;
		}
		if (v->nvals == cap) {
			cap = cap ? cap * 2 : 16;
			v->vals = xrealloc(v->vals, cap * sizeof(uint64_t));
		}
		v->vals[v->nvals++] = x;
	}
	return 0;
}

static struct frame *push(struct export_state *st, const char *tag)
{
	if (st->depth == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 32;
		st->stack = xrealloc(st->stack, st->cap * sizeof(*st->stack));
	}
	struct frame *f = &st->stack[st->depth++];
	memset(f, 0, sizeof(*f));
	snprintf(f->v.tag, sizeof(f->v.tag), "%s", tag);
	f->v.tid = f->v.pid = -1;
	f->id = f->ref = -1;
	return f;
}

static void frame_release(struct frame *f)
{
	xval_free(&f->v);
	strbuf_release(&f->text);
	free(f->mnemonic);
	free(f->etype);
}

static int row_cell(struct export_state *st, struct frame *row, const struct xval *v, char *err, size_t errlen)
{
	size_t i = row->ncells++;
	if (i >= st->ncols)
		return 0;	/* too many cells: reported when the row closes */
	enum col_role role = st->roles[i];
	struct xct_row *r = &st->row;
	bool sentinel = !strcmp(v->tag, "sentinel");
	if (role == COL_OTHER)
		return 0;
	if (role == COL_STACK) {
		r->sentinel_stack = sentinel;
		return 0;
	}
	if (sentinel)
		return 0;
	const char *want = role_tag(role);
	if (want && strcmp(v->tag, want)) {
		lk_errbuf(err, errlen, "row %zu: cell %zu is <%s> but column '%s' holds <%s>", st->nrows + 1, i + 1,
			  v->tag, st->col_names[i], want);
		return -LK_EINVAL;
	}
	switch (role) {
	case COL_TIME:
		if (v->has_num) {
			r->has_time = true;
			r->time_ns = v->num;
		}
		break;
	case COL_THREAD:
		r->tid = v->tid;
		if (v->pid >= 0)
			r->pid = v->pid;
		break;
	case COL_PROCESS:
		if (v->pid >= 0)
			r->pid = v->pid;
		break;
	case COL_CORE:
		if (v->has_num)
			r->core = (int64_t)v->num;
		break;
	case COL_WEIGHT:
		r->weight_kind = !strcmp(v->tag, "weight") ? XCT_WEIGHT_TIME
				 : !strcmp(v->tag, "pmc-event") ? XCT_WEIGHT_PMI
				 : !strcmp(v->tag, "cycle-weight") ? XCT_WEIGHT_CYCLES : XCT_WEIGHT_OTHER;
		if (!v->has_num) {
			lk_errbuf(err, errlen, "row %zu: the weight <%s> is not an integer", st->nrows + 1, v->tag);
			return -LK_EINVAL;
		}
		r->weight = v->num;
		break;
	case COL_VALUES:
		if (v->nvals > st->rowcap) {
			st->rowcap = v->nvals;
			st->rowvals = xrealloc(st->rowvals, st->rowcap * sizeof(uint64_t));
		}
		if (v->nvals)
			memcpy(st->rowvals, v->vals, v->nvals * sizeof(uint64_t));
		r->has_values = true;
		r->nvalues = v->nvals;
		r->values = st->rowvals;
		break;
	default:
		break;
	}
	return 0;
}

static size_t id_hash(long id, size_t cap)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static struct id_slot *id_find(struct export_state *st, long id)
{
	if (!st->idcap)
		return NULL;
	for (size_t i = id_hash(id, st->idcap);; i = (i + 1) & (st->idcap - 1)) {
		if (st->ids[i].id == id)
			return &st->ids[i];
		if (st->ids[i].id < 0)
			return NULL;
	}
}

/* The slot for id, added (empty) when new; the table doubles at half full. */
static struct id_slot *id_slot(struct export_state *st, long id)
{
	struct id_slot *s = id_find(st, id);
	if (s)
		return s;
	if (2 * (st->nids + 1) > st->idcap) {
		size_t cap = st->idcap ? 2 * st->idcap : 64;
		struct id_slot *t = xmalloc(cap * sizeof(*t));
		for (size_t i = 0; i < cap; i++)
			t[i].id = -1;
		for (size_t i = 0; i < st->idcap; i++) {
			if (st->ids[i].id < 0)
				continue;
			size_t j = id_hash(st->ids[i].id, cap);
			while (t[j].id >= 0)
				j = (j + 1) & (cap - 1);
			t[j] = st->ids[i];
		}
		free(st->ids);
		st->ids = t;
		st->idcap = cap;
	}
	size_t j = id_hash(id, st->idcap);
	while (st->ids[j].id >= 0)
		j = (j + 1) & (st->idcap - 1);
	memset(&st->ids[j], 0, sizeof(st->ids[j]));
	st->ids[j].id = id;
	st->nids++;
	return &st->ids[j];
}

static void row_start(struct export_state *st)
{
	memset(&st->row, 0, sizeof(st->row));
	st->row.index = st->nrows;
	st->row.tid = st->row.pid = st->row.core = -1;
	st->row_open = true;
}

/* Close the top frame: resolve it, name it, hand it to its parent. */
static int close_top(struct export_state *st, xct_row_fn fn, void *ctx, char *err, size_t errlen)
{
	struct frame *f = &st->stack[st->depth - 1];
	struct frame *parent = st->depth >= 2 ? &st->stack[st->depth - 2] : NULL;
	int ret = 0;
	if (f->ref >= 0) {
		struct id_slot *def = id_find(st, f->ref);
		if (!def || !def->v.defined) {
			lk_errbuf(err, errlen, "<%s ref=\"%ld\"> points to no earlier definition", f->v.tag, f->ref);
			ret = -LK_EINVAL;
			goto done;
		}
		xval_copy(&f->v, &def->v);
	} else {
		const char *text = strbuf_str(&f->text);
		if (!strcmp(f->v.tag, "pmc-events")) {
			if ((ret = parse_values(text, &f->v, err, errlen)) < 0)
				goto done;
		} else if (text[0]) {
			uint64_t n;
			if (parse_u64(text, &n)) {
				f->v.has_num = true;
				f->v.num = n;
			}
		}
	}
	f->v.defined = true;
	if (f->id >= 0) {
		struct xval *slot = &id_slot(st, f->id)->v;
		xval_free(slot);
		memset(slot, 0, sizeof(*slot));
		memcpy(slot->tag, f->v.tag, sizeof(slot->tag));
		xval_copy(slot, &f->v);
		slot->defined = true;
	}
	if (!parent)
		goto done;
	/* Schema columns. */
	if (!strcmp(parent->v.tag, "col") && st->in_schema) {
		if (!strcmp(f->v.tag, "mnemonic") && !parent->mnemonic)
			parent->mnemonic = xstrdup(strbuf_str(&f->text));
		else if (!strcmp(f->v.tag, "engineering-type") && !parent->etype)
			parent->etype = xstrdup(strbuf_str(&f->text));
		goto done;
	}
	if (!strcmp(f->v.tag, "col") && st->in_schema) {
		st->roles = xrealloc(st->roles, (st->ncols + 1) * sizeof(*st->roles));
		st->col_names = xrealloc(st->col_names, (st->ncols + 1) * sizeof(*st->col_names));
		st->roles[st->ncols] = role_of(f->mnemonic, f->etype);
		char sv[72];
		st->col_names[st->ncols] = xstrdup(f->mnemonic ? shown(f->mnemonic, sv, sizeof(sv)) : "?");
		st->ncols++;
		goto done;
	}
	/* Nested definitions: a thread's tid and process, a process's pid. */
	if (!strcmp(f->v.tag, "tid") && f->v.has_num)
		parent->v.tid = (int64_t)f->v.num;
	else if (!strcmp(f->v.tag, "pid") && f->v.has_num)
		parent->v.pid = (int64_t)f->v.num;
	else if (!strcmp(f->v.tag, "process") && f->v.pid >= 0 && !strcmp(parent->v.tag, "thread"))
		parent->v.pid = f->v.pid;
	if (!strcmp(parent->v.tag, "row"))
		ret = row_cell(st, parent, &f->v, err, errlen);
	if (!strcmp(f->v.tag, "row")) {
		if (f->ncells != st->ncols) {
			lk_errbuf(err, errlen, "row %zu has %zu cells for %zu columns", st->nrows + 1, f->ncells, st->ncols);
			ret = -LK_EINVAL;
			goto done;
		}
		st->row_open = false;
		if (fn && (ret = fn(ctx, &st->row, err, errlen)) < 0)
			goto done;
		st->nrows++;
	}
done:
	if (!strcmp(f->v.tag, "schema"))
		st->in_schema = false, st->schema_done = true;
	frame_release(f);
	st->depth--;
	return ret;
}

static long id_attr(xmlTextReaderPtr r, const char *name, bool *bad)
{
	char *v = attr(r, name);
	if (!v)
		return -1;
	uint64_t n;
	long out = -1;
	if (parse_u64(v, &n) && n < (1u << 30))
		out = (long)n;
	else
		*bad = true;
	free(v);
	return out;
}

static int export_parse(xmlTextReaderPtr r, struct xerr *xe, const char *schema, xct_row_fn fn, void *ctx,
			char *err, size_t errlen)
{
	struct export_state st;
	memset(&st, 0, sizeof(st));
	int ret = 0, rr;
	bool root_seen = false;
	while ((rr = xmlTextReaderRead(r)) == 1) {
		if (lk_interrupted) {	/* a large export takes a while: stop when the user asks */
			lk_errbuf(err, errlen, "reading stopped: lauka was interrupted");
			ret = -LK_EINTR;
			break;
		}
		int type = xmlTextReaderNodeType(r);
		if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
			if (st.depth) {
				const xmlChar *t = xmlTextReaderConstValue(r);
				if (t)
					strbuf_add(&st.stack[st.depth - 1].text, (const char *)t, strlen((const char *)t));
			}
			continue;
		}
		if (type == XML_READER_TYPE_END_ELEMENT) {
			if (st.depth && (ret = close_top(&st, fn, ctx, err, errlen)) < 0)
				break;
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		const char *tag = (const char *)xmlTextReaderConstLocalName(r);
		if (!root_seen) {
			root_seen = true;
			if (strcmp(tag, "trace-query-result")) {
				lk_errbuf(err, errlen, "not an xctrace table export (root element <%s>)", tag);
				ret = -LK_EINVAL;
				break;
			}
		}
		if (!strcmp(tag, "schema")) {
			if (st.schema_seen) {
				lk_errbuf(err, errlen, "the export holds more than one table");
				ret = -LK_EINVAL;
				break;
			}
			st.schema_seen = true;
			st.in_schema = true;
			st.schema_name = attr(r, "name");
			if (schema && (!st.schema_name || strcmp(st.schema_name, schema))) {
				char sv[72];
				lk_errbuf(err, errlen, "the export is table '%s', not '%s'",
					  st.schema_name ? shown(st.schema_name, sv, sizeof(sv)) : "?", schema);
				ret = -LK_EINVAL;
				break;
			}
		}
		if (!strcmp(tag, "row") && !st.schema_done) {
			lk_errbuf(err, errlen, "a row comes before the table's schema");
			ret = -LK_EINVAL;
			break;
		}
		struct frame *f = push(&st, tag);
		bool bad = false;
		f->id = id_attr(r, "id", &bad);
		f->ref = id_attr(r, "ref", &bad);
		if (bad) {
			lk_errbuf(err, errlen, "<%s> has an id or ref that is not a small integer", tag);
			ret = -LK_EINVAL;
			break;
		}
		if (!strcmp(tag, "row"))
			row_start(&st);
		if (xmlTextReaderIsEmptyElement(r) && (ret = close_top(&st, fn, ctx, err, errlen)) < 0)
			break;
	}
	if (ret == 0 && (rr < 0 || xe->msg[0]))
		ret = read_failed(xe, err, errlen);
	if (ret == 0 && !root_seen) {
		lk_errbuf(err, errlen, "empty export");
		ret = -LK_EINVAL;
	}
	if (ret == 0 && !st.schema_seen) {
		lk_errbuf(err, errlen, "the export holds no table (no <schema>): the table is missing from the trace");
		ret = -LK_EINVAL;
	}
	while (st.depth)
		frame_release(&st.stack[--st.depth]);
	free(st.stack);
	for (size_t i = 0; i < st.idcap; i++)
		if (st.ids[i].id >= 0)
			xval_free(&st.ids[i].v);
	free(st.ids);
	for (size_t i = 0; i < st.ncols; i++)
		free(st.col_names[i]);
	free(st.col_names);
	free(st.roles);
	free(st.schema_name);
	free(st.rowvals);
	return ret;
}

int xct_export_parse(const char *buf, size_t len, const char *schema, xct_row_fn fn, void *ctx,
		     char *err, size_t errlen)
{
	struct xerr xe;
	xmlTextReaderPtr r;
	int o = open_reader(buf, len, NULL, &xe, &r, err, errlen);
	if (o < 0)
		return o;
	int ret = export_parse(r, &xe, schema, fn, ctx, err, errlen);
	xmlFreeTextReader(r);
	return ret;
}

int xct_export_parse_file(const char *path, const char *schema, xct_row_fn fn, void *ctx,
			  char *err, size_t errlen)
{
	struct xerr xe;
	errno = 0;
	xmlTextReaderPtr r;
	int o = open_reader(NULL, 0, path, &xe, &r, err, errlen);
	if (o < 0)
		return o;
	int ret = export_parse(r, &xe, schema, fn, ctx, err, errlen);
	xmlFreeTextReader(r);
	return ret;
}
