/*
 * backend/xctrace/template.h: writing the event list of a manual-mode recording into
 * an Instruments "CPU Counters" template (reference/xctrace.md 3).  Pure:
 * template bytes in, template bytes out; libplist does the plists.
 *
 * A template is an NSKeyedArchiver plist.  Two layouts exist, told apart by
 * what the base template holds:
 *  - legacy (up to Xcode 15): the recording state dictionary has pmcEvents
 *    (an array of mnemonics), pmcEventsWithFormulas (a nested archive of an
 *    array of XRCountersSetupEventOrFormula objects; the same again as
 *    NSData under pmc-events-with-formulas), samplingType ("time") and
 *    samplingRate (microseconds); all are rewritten;
 *  - options (Xcode 16 and later): the instrument state has one key,
 *    optionsEncoded, whose value is UTF-8 JSON; configurationType becomes
 *    {"manual":{}}, allEventsAndFormulas the base64 archives of one
 *    XRCountersSetupEventOrFormula per event, sampleByTime true (or the PMI
 *    event and threshold), countingLevel "EL0".  Keys lauka does not set are
 *    kept as the base template has them.
 * The result is an XML plist: `xctrace record --template PATH` takes one
 * under any file name.
 */
#ifndef LAUKA_XCTRACE_TEMPLATE_H
#define LAUKA_XCTRACE_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

enum xct_tmpl_kind { XCT_TMPL_LEGACY, XCT_TMPL_OPTIONS };

struct xct_tmpl_event {
	const char *name;	/* kpep mnemonic */
	const char *desc;	/* may be NULL */
};

struct xct_tmpl_opts {
	const struct xct_tmpl_event *events;
	size_t nevents;
	unsigned sample_us;		/* sampling period by time (legacy samplingRate); 0 keeps the base's */
	const char *pmi_event;		/* NULL: sample by time */
	uint64_t pmi_threshold;
};

/*
 * Patch base (an XML or binary plist) with the options; *out is a malloc'd
 * XML plist.  Returns 0 and the layout found in *kind, or -LK_EPLIST with a
 * reason when base is not a CPU Counters template lauka knows.
 */
int xct_template_patch(const void *base, size_t len, const struct xct_tmpl_opts *o, char **out, size_t *outlen,
		       enum xct_tmpl_kind *kind, char *err, size_t errlen);

/* One XRCountersSetupEventOrFormula archived as a binary plist (malloc'd). */
int xct_event_archive(const struct xct_tmpl_event *ev, char **out, size_t *outlen);

/* Base64 (RFC 4648, padded) of len bytes, malloc'd; and back (NULL when invalid). */
char *xct_base64(const void *buf, size_t len);
void *xct_unbase64(const char *s, size_t *len);

#endif
