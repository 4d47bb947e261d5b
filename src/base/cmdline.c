/* base/cmdline.c: shell-like splitting of command strings without a shell. */
#include "base/cmdline.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Characters whose meaning only a shell gives; refused outside quotes. */
/* [ globs like * and ?; { is brace expansion (bash) or a group: a shell would not pass either as is */
static const char meta_unquoted[] = "|&;<>()$`*?[{";

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void push_arg(char ***argv, size_t *argc, struct strbuf *word)
{
	*argv = xrealloc(*argv, (*argc + 2) * sizeof(**argv));
	(*argv)[(*argc)++] = word->buf ? word->buf : xstrdup("");
	(*argv)[*argc] = NULL;
	word->buf = NULL;
	word->len = word->cap = 0;
}

enum cmdline_err cmdline_split(const char *s, char ***out, char *bad)
{
	char **argv = NULL;
	size_t argc = 0;
	struct strbuf word = STRBUF_INIT;
	int in_word = 0;
	enum cmdline_err err = CMDLINE_OK;

	*out = NULL;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (is_blank(c)) {
			if (in_word)
				push_arg(&argv, &argc, &word);
			in_word = 0;
			continue;
		}
		if (c == '\'') {
			const char *end = strchr(p + 1, '\'');
			if (!end) {
				err = CMDLINE_UNBALANCED;
				goto fail;
			}
			strbuf_add(&word, p + 1, (size_t)(end - p - 1));
			in_word = 1;
			p = end;
			continue;
		}
		if (c == '"') {
			in_word = 1;
			if (!word.buf)
				strbuf_add(&word, "", 0);
			for (p++;; p++) {
				if (!*p) {
					err = CMDLINE_UNBALANCED;
					goto fail;
				}
				if (*p == '"')
					break;
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
					p++;
					if (*p != '\n')
						strbuf_add(&word, p, 1);
					continue;
				}
				if (*p == '$' || *p == '`') {
					if (bad)
						*bad = *p;
					err = CMDLINE_META;
					goto fail;
				}
				strbuf_add(&word, p, 1);
			}
			continue;
		}
		if (c == '\\') {
			if (!p[1]) {
				err = CMDLINE_UNBALANCED;
				goto fail;
			}
			p++;
			if (*p != '\n')
				strbuf_add(&word, p, 1);
			in_word = 1;
			continue;
		}
		/* '#' starts a comment and '~' expands only at the start of a word. */
		if (strchr(meta_unquoted, c) || (!in_word && (c == '#' || c == '~'))) {
			if (bad)
				*bad = c;
			err = CMDLINE_META;
			goto fail;
		}
		strbuf_add(&word, &c, 1);
		in_word = 1;
	}
	if (in_word)
		push_arg(&argv, &argc, &word);
	if (!argc)
		return CMDLINE_EMPTY;
	*out = argv;
	return CMDLINE_OK;
fail:
	strbuf_release(&word);
	cmdline_free(argv);
	return err;
}

void cmdline_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

static int needs_quotes(const char *a)
{
	if (!*a)
		return 1;
	for (; *a; a++)
		if (is_blank(*a) || strchr("'\"\\#~", *a) || strchr(meta_unquoted, *a))
			return 1;
	return 0;
}

char *cmdline_join(char *const argv[])
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_add(&sb, " ", 1);
		if (!needs_quotes(argv[i])) {
			strbuf_addf(&sb, "%s", argv[i]);
			continue;
		}
		strbuf_add(&sb, "'", 1);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				strbuf_addf(&sb, "'\\''");
			else
				strbuf_add(&sb, p, 1);
		}
		strbuf_add(&sb, "'", 1);
	}
	return sb.buf ? sb.buf : xstrdup("");
}
