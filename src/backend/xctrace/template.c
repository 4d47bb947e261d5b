/* backend/xctrace/template.c: the manual event list written into a CPU Counters template (see backend/xctrace/template.h). */
#include "backend/xctrace/template.h"
#include "base/bplist.h"
#include "base/error.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plist/plist.h>

#ifdef LAUKA_PLIST_2_3
#define plist_buf_free(p) plist_mem_free(p)
#else
#define plist_buf_free(p) free(p)
#endif

static plist_t parse(const void *buf, size_t len)
{
	plist_t root = NULL;
	if (len > UINT32_MAX)
		return NULL;
#ifdef LAUKA_PLIST_2_3
	plist_format_t fmt;
	if (plist_from_memory(buf, (uint32_t)len, &root, &fmt) != PLIST_ERR_SUCCESS && root) {
		plist_free(root);
		root = NULL;
	}
#else
	plist_from_memory(buf, (uint32_t)len, &root);
#endif
	return root;
}

/* ---- base64 ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *xct_base64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < len ? p[i + 2] : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

void *xct_unbase64(const char *s, size_t *len)
{
	size_t n = strlen(s);
	unsigned char *out = xmalloc(n / 4 * 3 + 3);
	size_t k = 0;
	unsigned v = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		const char *c = strchr(b64, s[i]);
		if (s[i] == '=')
			break;
		if (!c || !s[i]) {
			free(out);
			return NULL;
		}
		v = v << 6 | (unsigned)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(v >> bits & 0xff);
		}
	}
	*len = k;
	return out;
}

/* ---- archives of XRCountersSetupEventOrFormula ---- */

static plist_t archive_root(void)
{
	plist_t root = plist_new_dict();
	plist_dict_set_item(root, "$version", plist_new_uint(100000));
	plist_dict_set_item(root, "$archiver", plist_new_string("NSKeyedArchiver"));
	plist_t top = plist_new_dict();
	plist_dict_set_item(top, "root", plist_new_uid(1));
	plist_dict_set_item(root, "$top", top);
	return root;
}

static plist_t class_dict(const char *name, const char *super)
{
	plist_t c = plist_new_dict();
	plist_dict_set_item(c, "$classname", plist_new_string(name));
	plist_t cl = plist_new_array();
	plist_array_append_item(cl, plist_new_string(name));
	if (super)
		plist_array_append_item(cl, plist_new_string(super));
	plist_array_append_item(cl, plist_new_string("NSObject"));
	plist_dict_set_item(c, "$classes", cl);
	return c;
}

/* Append one event object (and its strings) to objs; returns its index. */
static uint64_t append_event(plist_t objs, const struct xct_tmpl_event *ev, uint64_t class_uid)
{
	uint64_t at = plist_array_get_size(objs);
	uint64_t name_uid = at + 1, desc_uid = at + 2;
	plist_t o = plist_new_dict();
	plist_dict_set_item(o, "$class", plist_new_uid(class_uid));
	plist_dict_set_item(o, "_formulaEvaluator", plist_new_uid(0));
	plist_dict_set_item(o, "_formulaText", plist_new_uid(0));
	plist_dict_set_item(o, "_explanation", plist_new_uid(desc_uid));
	plist_dict_set_item(o, "_mnemonic", plist_new_uid(name_uid));
	plist_dict_set_item(o, "_displayName", plist_new_uid(name_uid));
	plist_dict_set_item(o, "_aliasOrMnemonic", plist_new_uid(name_uid));
	plist_array_append_item(objs, o);
	plist_array_append_item(objs, plist_new_string(ev->name));
	plist_array_append_item(objs, plist_new_string(ev->desc ? ev->desc : ev->name));
	return at;
}

static int to_bin(plist_t root, char **out, size_t *outlen)
{
	char *bin = NULL;
	uint32_t n = 0;
	plist_to_bin(root, &bin, &n);
	plist_free(root);
	if (!bin)
		return -LK_ENOMEM;
	*out = xmalloc(n ? n : 1);
	memcpy(*out, bin, n);
	*outlen = n;
	plist_buf_free(bin);
	return 0;
}

int xct_event_archive(const struct xct_tmpl_event *ev, char **out, size_t *outlen)
{
	plist_t root = archive_root(), objs = plist_new_array();
	plist_array_append_item(objs, plist_new_string("$null"));
	/* [1] event, [2] name, [3] description, [4] its class */
	append_event(objs, ev, 4);
	plist_array_append_item(objs, class_dict("XRCountersSetupEventOrFormula", NULL));
	plist_dict_set_item(root, "$objects", objs);
	return to_bin(root, out, outlen);
}

/* The legacy pmcEventsWithFormulas: an archived NSArray of events. */
static int events_archive(const struct xct_tmpl_opts *o, char **out, size_t *outlen)
{
	plist_t root = archive_root(), objs = plist_new_array();
	plist_array_append_item(objs, plist_new_string("$null"));
	plist_t arr = plist_new_dict();
	plist_array_append_item(objs, arr);
	/* class objects go last; their uids are known once the events are in */
	uint64_t ev_class = 2 + 3 * o->nevents, arr_class = ev_class + 1;
	plist_t list = plist_new_array();
	for (size_t i = 0; i < o->nevents; i++)
		plist_array_append_item(list, plist_new_uid(append_event(objs, &o->events[i], ev_class)));
	plist_dict_set_item(arr, "NS.objects", list);
	plist_dict_set_item(arr, "$class", plist_new_uid(arr_class));
	plist_array_append_item(objs, class_dict("XRCountersSetupEventOrFormula", NULL));
	plist_array_append_item(objs, class_dict("NSArray", NULL));
	plist_dict_set_item(root, "$objects", objs);
	return to_bin(root, out, outlen);
}

/* ---- finding keys in a keyed archive ---- */

/*
 * A keyed-archive reference: a UID node, or (XML plists read by libplist
 * before 2.3) the dictionary {CF$UID: n} that XML spells it as.
 */
static plist_t uid_int(plist_t n)
{
	if (!n || plist_get_node_type(n) != PLIST_DICT || plist_dict_get_size(n) != 1)
		return NULL;
	plist_t v = plist_dict_get_item(n, "CF$UID");
	return v && plist_get_node_type(v) == PLIST_UINT ? v : NULL;
}

static bool uid_of(plist_t n, uint64_t *uid)
{
	plist_t i;
	if (n && plist_get_node_type(n) == PLIST_UID) {
		plist_get_uid_val(n, uid);
		return true;
	}
	if ((i = uid_int(n))) {
		plist_get_uint_val(i, uid);
		return true;
	}
	return false;
}

static void set_uid(plist_t n, uint64_t uid)
{
	plist_t i;
	if (plist_get_node_type(n) == PLIST_UID)
		plist_set_uid_val(n, uid);
	else if ((i = uid_int(n)))
		plist_set_uint_val(i, uid);
}

static bool is_string(plist_t n, const char *s)
{
	if (!n || plist_get_node_type(n) != PLIST_STRING)
		return false;
	char *v = NULL;
	plist_get_string_val(n, &v);
	bool eq = v && !strcmp(v, s);
	plist_buf_free(v);
	return eq;
}

/*
 * The NS.objects entry (a UID node) holding the value of `key` in the first
 * NSDictionary of the archive that has it, or NULL.
 */
static plist_t value_slot(plist_t objs, const char *key)
{
	uint32_t n = plist_array_get_size(objs);
	for (uint32_t i = 0; i < n; i++) {
		plist_t d = plist_array_get_item(objs, i);
		if (plist_get_node_type(d) != PLIST_DICT)
			continue;
		plist_t keys = plist_dict_get_item(d, "NS.keys"), vals = plist_dict_get_item(d, "NS.objects");
		if (!keys || !vals || plist_get_node_type(keys) != PLIST_ARRAY || plist_get_node_type(vals) != PLIST_ARRAY)
			continue;
		uint32_t nk = plist_array_get_size(keys);
		for (uint32_t k = 0; k < nk && k < plist_array_get_size(vals); k++) {
			uint64_t u;
			if (uid_of(plist_array_get_item(keys, k), &u) && u < n && is_string(plist_array_get_item(objs, (uint32_t)u), key))
				return plist_array_get_item(vals, k);
		}
	}
	return NULL;
}

/* Point slot at a new object appended to objs (never mutate an object others may share). */
static void repoint(plist_t objs, plist_t slot, plist_t value)
{
	uint64_t at = plist_array_get_size(objs);
	plist_array_append_item(objs, value);
	set_uid(slot, at);
}

static plist_t slot_target(plist_t objs, plist_t slot)
{
	uint64_t u;
	if (!uid_of(slot, &u) || u >= plist_array_get_size(objs))
		return NULL;
	return plist_array_get_item(objs, (uint32_t)u);
}

static int patch_legacy(plist_t objs, const struct xct_tmpl_opts *o, char *err, size_t errlen)
{
	plist_t ev_slot = value_slot(objs, "pmcEvents");
	if (o->pmi_event) {
		lk_errbuf(err, errlen, "sampling on an event (PMI) needs an Xcode 16 template (optionsEncoded)");
		return -LK_EPLIST;
	}
	/* pmcEvents: a new NSArray object of new strings, with the class of the old one. */
	plist_t old = slot_target(objs, ev_slot);
	plist_t cls = old && plist_get_node_type(old) == PLIST_DICT ? plist_dict_get_item(old, "$class") : NULL;
	uint64_t cls_uid;
	if (!uid_of(cls, &cls_uid)) {
		lk_errbuf(err, errlen, "the template's pmcEvents is not an archived array");
		return -LK_EPLIST;
	}
	plist_t list = plist_new_array();
	for (size_t i = 0; i < o->nevents; i++) {
		uint64_t at = plist_array_get_size(objs);
		plist_array_append_item(objs, plist_new_string(o->events[i].name));
		plist_array_append_item(list, plist_new_uid(at));
	}
	plist_t arr = plist_new_dict();
	plist_dict_set_item(arr, "NS.objects", list);
	plist_dict_set_item(arr, "$class", plist_new_uid(cls_uid));
	repoint(objs, ev_slot, arr);

	plist_t f_slot = value_slot(objs, "pmcEventsWithFormulas");
	if (f_slot) {
		char *bin;
		size_t n;
		if (events_archive(o, &bin, &n) < 0) {
			lk_errbuf(err, errlen, "cannot archive the event list");
			return -LK_ENOMEM;
		}
		repoint(objs, f_slot, plist_new_data(bin, n));
		free(bin);
	}
	/* The same list as an NSMutableData ({NS.data, $class}) under the hyphenated key, where present. */
	plist_t h_slot = value_slot(objs, "pmc-events-with-formulas");
	plist_t h_old = slot_target(objs, h_slot);
	plist_t h_cls = h_old && plist_get_node_type(h_old) == PLIST_DICT ? plist_dict_get_item(h_old, "$class") : NULL;
	uint64_t h_uid;
	if (h_slot && uid_of(h_cls, &h_uid) && plist_dict_get_item(h_old, "NS.data")) {
		char *bin;
		size_t n;
		if (events_archive(o, &bin, &n) < 0) {
			lk_errbuf(err, errlen, "cannot archive the event list");
			return -LK_ENOMEM;
		}
		plist_t d = plist_new_dict();
		plist_dict_set_item(d, "NS.data", plist_new_data(bin, n));
		plist_dict_set_item(d, "$class", plist_new_uid(h_uid));
		repoint(objs, h_slot, d);
		free(bin);
	}
	plist_t t_slot = value_slot(objs, "samplingType"), r_slot = value_slot(objs, "samplingRate");
	if (t_slot)
		repoint(objs, t_slot, plist_new_string("time"));
	if (r_slot && o->sample_us)
		repoint(objs, r_slot, plist_new_uint(o->sample_us));
	return 0;
}

/* ---- optionsEncoded JSON: top-level members kept or replaced ---- */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* RFC 8259: control characters in a string must be escaped.  A raw one (a NUL above all) is not
 * JSON, and the writer below could not carry it through its C strings. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *end)
{
	p = skip_ws(p, end);
	if (p >= end)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				if (!(p = skip_string(p, end)))
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if (*p == '}' || *p == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return NULL;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
		p++;
	return p;
}

static void json_str(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addf(sb, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			strbuf_addf(sb, "\\u%04x", *s);
		else
			strbuf_add(sb, s, 1);
	}
	strbuf_add(sb, "\"", 1);
}

struct member { const char *key; char *value; bool written; };

static int rewrite_options(const char *json, size_t len, const struct xct_tmpl_opts *o, char **out,
			   char *err, size_t errlen)
{
	struct strbuf ev = STRBUF_INIT;
	strbuf_add(&ev, "[", 1);
	for (size_t i = 0; i < o->nevents; i++) {
		char *bin;
		size_t n;
		if (xct_event_archive(&o->events[i], &bin, &n) < 0) {
			strbuf_release(&ev);
			lk_errbuf(err, errlen, "cannot archive '%s'", o->events[i].name);
			return -LK_ENOMEM;
		}
		char *b = xct_base64(bin, n);
		if (i)
			strbuf_add(&ev, ",", 1);
		json_str(&ev, b);
		free(b);
		free(bin);
	}
	strbuf_add(&ev, "]", 1);
	struct strbuf pmi = STRBUF_INIT;
	json_str(&pmi, o->pmi_event ? o->pmi_event : "");
	struct member m[] = {
		{ "configurationType", xstrdup("{\"manual\":{}}"), false },
		{ "allEventsAndFormulas", xstrdup(strbuf_str(&ev)), false },
		{ "sampleByTime", xstrdup(o->pmi_event ? "false" : "true"), false },
		{ "pmiEventAliasOrMnemonic", xstrdup(strbuf_str(&pmi)), false },
		{ "pmiThreshold", o->pmi_event ? xasprintf("%llu", (unsigned long long)o->pmi_threshold) : NULL, false },
		{ "countingLevel", xstrdup("\"EL0\""), false },
	};
	strbuf_release(&ev);
	strbuf_release(&pmi);
	size_t nm = sizeof(m) / sizeof(*m);

	const char *p = json, *end = json + len;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;
	p = skip_ws(p, end);
	if (memchr(json, '\0', len) || p >= end || *p != '{') {
		ret = -LK_EPLIST;
		goto bad;
	}
	p++;
	strbuf_add(&sb, "{", 1);
	bool first = true;
	for (;;) {
		p = skip_ws(p, end);
		if (p < end && *p == '}')
			break;
		if (p >= end || *p != '"') {
			ret = -LK_EPLIST;
			goto bad;
		}
		const char *ks = p, *ke = skip_string(p, end);
		if (!ke) {
			ret = -LK_EPLIST;
			goto bad;
		}
		p = skip_ws(ke, end);
		if (p >= end || *p != ':') {
			ret = -LK_EPLIST;
			goto bad;
		}
		const char *vs = skip_ws(p + 1, end), *ve = skip_value(vs, end);
		if (!ve) {
			ret = -LK_EPLIST;
			goto bad;
		}
		const char *value = NULL;
		size_t vlen = (size_t)(ve - vs);
		for (size_t i = 0; i < nm; i++)
			if (m[i].value && (size_t)(ke - ks) == strlen(m[i].key) + 2 && !memcmp(ks + 1, m[i].key, strlen(m[i].key))) {
				value = m[i].value;
				vlen = strlen(value);
				m[i].written = true;
			}
		strbuf_addf(&sb, "%s%.*s:%.*s", first ? "" : ",", (int)(ke - ks), ks, (int)vlen, value ? value : vs);
		first = false;
		p = skip_ws(ve, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		ret = -LK_EPLIST;
		goto bad;
	}
	for (size_t i = 0; i < nm; i++)
		if (m[i].value && !m[i].written) {
			strbuf_addf(&sb, "%s\"%s\":%s", first ? "" : ",", m[i].key, m[i].value);
			first = false;
		}
	strbuf_add(&sb, "}", 1);
	*out = xstrdup(strbuf_str(&sb));
bad:
	if (ret < 0)
		lk_errbuf(err, errlen, "the template's optionsEncoded is not a JSON object");
	strbuf_release(&sb);
	for (size_t i = 0; i < nm; i++)
		free(m[i].value);
	return ret;
}

static int patch_options(plist_t objs, plist_t slot, const struct xct_tmpl_opts *o, char *err, size_t errlen)
{
	plist_t v = slot_target(objs, slot);
	char *json = NULL;
	size_t len = 0;
	bool was_string = false;
	if (v && plist_get_node_type(v) == PLIST_DATA) {
		char *d = NULL;
		uint64_t n = 0;
		plist_get_data_val(v, &d, &n);
		json = xmalloc(n + 1);
		memcpy(json, d, n);
		json[n] = '\0';
		len = n;
		plist_buf_free(d);
	} else if (v && plist_get_node_type(v) == PLIST_STRING) {
		char *s = NULL;
		plist_get_string_val(v, &s);
		json = xstrdup(s ? s : "");
		len = strlen(json);
		plist_buf_free(s);
		was_string = true;
	} else {
		lk_errbuf(err, errlen, "the template's optionsEncoded is neither data nor a string");
		return -LK_EPLIST;
	}
	char *nj = NULL;
	int r = rewrite_options(json, len, o, &nj, err, errlen);
	free(json);
	if (r < 0)
		return r;
	repoint(objs, slot, was_string ? plist_new_string(nj) : plist_new_data(nj, strlen(nj)));
	free(nj);
	return 0;
}

int xct_template_patch(const void *base, size_t len, const struct xct_tmpl_opts *o, char **out, size_t *outlen,
		       enum xct_tmpl_kind *kind, char *err, size_t errlen)
{
	if (lk_bplist_is(base, len)) {	/* bounded before libplist sees it (base/bplist.h) */
		char why[512];
		if (lk_bplist_check(base, len, NULL, NULL, why, sizeof(why)) < 0) {
			lk_errbuf(err, errlen, "%s", why);
			return -LK_EPLIST;
		}
	} else if (memchr(base, '\0', len)) {
		/* XML allows no U+0000: libplist would carry it into a string and the template written back
		 * would be cut there (found by fuzzing) */
		lk_errbuf(err, errlen, "not a property list: a NUL byte at offset %zu (XML allows none)",
			  (size_t)((const char *)memchr(base, '\0', len) - (const char *)base));
		return -LK_EPLIST;
	} else {
		char why[512];
		if (lk_xmlplist_check(base, len, LK_BPLIST_MAX_DEPTH, why, sizeof(why)) < 0) {
			lk_errbuf(err, errlen, "%s", why);
			return -LK_EPLIST;
		}
	}
	plist_t root = parse(base, len);
	if (!root || plist_get_node_type(root) != PLIST_DICT) {
		if (root)
			plist_free(root);
		lk_errbuf(err, errlen, "not a property list");
		return -LK_EPLIST;
	}
	plist_t objs = plist_dict_get_item(root, "$objects");
	if (!objs || plist_get_node_type(objs) != PLIST_ARRAY) {
		plist_free(root);
		lk_errbuf(err, errlen, "not an Instruments template (no keyed archive $objects)");
		return -LK_EPLIST;
	}
	int r;
	plist_t opt = value_slot(objs, "optionsEncoded");
	if (opt) {
		*kind = XCT_TMPL_OPTIONS;
		r = patch_options(objs, opt, o, err, errlen);
	} else if (value_slot(objs, "pmcEvents")) {
		*kind = XCT_TMPL_LEGACY;
		r = patch_legacy(objs, o, err, errlen);
	} else {
		lk_errbuf(err, errlen, "not a CPU Counters template: neither optionsEncoded nor pmcEvents is set");
		r = -LK_EPLIST;
	}
	if (r == 0) {
		char *xml = NULL;
		uint32_t n = 0;
		plist_to_xml(root, &xml, &n);
		if (!xml) {
			lk_errbuf(err, errlen, "cannot write the template");
			r = -LK_ENOMEM;
		} else {
			*out = xmalloc(n + 1);
			memcpy(*out, xml, n);
			(*out)[n] = '\0';
			*outlen = n;
			plist_buf_free(xml);
		}
	}
	plist_free(root);
	return r;
}
