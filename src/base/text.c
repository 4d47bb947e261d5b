/* base/text.c: the columns text takes on a terminal, word wrapping, and lines that fit the terminal. */
#include "base/text.h"
#include "base/progress.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

char *text_wrap(const char *line, size_t width, size_t indent)
{
	if (!width || text_width(line) <= width)
		return xstrdup(line);
	struct strbuf sb = STRBUF_INIT;
	size_t col = 0;
	bool start = true;	/* nothing but the indent on this line yet */
	const char *p = line;
	while (*p == ' ') {	/* the line's own indent is kept */
		strbuf_add(&sb, p++, 1);
		col++;
	}
	while (*p) {
		size_t gap = strspn(p, " ");
		const char *w = p + gap;
		if (!*w)
			break;
		size_t wl = strcspn(w, " ");
		char *word = xmalloc(wl + 1);
		memcpy(word, w, wl);
		word[wl] = '\0';
		size_t ww = text_width(word);
		if (!start && col + gap + ww > width) {
			strbuf_addf(&sb, "\n%*s", (int)indent, "");
			col = indent;
			gap = 0;
		}
		strbuf_addf(&sb, "%*s%s", (int)gap, "", word);
		col += gap + ww;
		start = false;
		free(word);
		p = w + wl;
	}
	char *out = xstrdup(strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

size_t text_width(const char *s)
{
	size_t w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		if (*p == 0x1b) {	/* skip an ANSI CSI sequence */
			p++;
			if (*p == '[')
				p++;
			while (*p && !(*p >= 0x40 && *p <= 0x7e))
				p++;
			if (*p)
				p++;
			continue;
		}
		unsigned cp;
		int n;
		if (*p < 0x80) { cp = *p; n = 1; }
		else if ((*p & 0xe0) == 0xc0) { cp = *p & 0x1f; n = 2; }
		else if ((*p & 0xf0) == 0xe0) { cp = *p & 0x0f; n = 3; }
		else { cp = *p & 0x07; n = 4; }
		for (int i = 1; i < n && p[i]; i++)
			cp = (cp << 6) | (p[i] & 0x3f);
		for (int i = 0; i < n && *p; i++)
			p++;
		/* Emoji and the few wide symbols lauka prints take two columns. */
		w += (cp >= 0x1f300 && cp <= 0x1faff) || cp == 0x26a1 ? 2 : 1;
	}
	return w;
}

void text_print(FILE *f, const char *line, size_t indent)
{
	size_t width = term_columns(fileno(f));
	const char *p = line;
	for (;;) {	/* each line of a message that has several, on its own */
		size_t n = strcspn(p, "\n");
		char *one = xmalloc(n + 1);
		memcpy(one, p, n);
		one[n] = '\0';
		char *w = text_wrap(one, width, indent);
		fputs(w, f);
		fputc('\n', f);
		free(w);
		free(one);
		if (!p[n])
			break;
		p += n + 1;
	}
}

void text_printf(FILE *f, size_t indent, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	text_print(f, strbuf_str(&sb), indent);
	strbuf_release(&sb);
}
