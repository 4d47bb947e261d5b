/*
 * record/plan-commands.c: the commands and hooks of a request, checked before
 * anything runs: quoting (base/cmdline.c), shell mode (-S), whether each
 * program exists and may be executed (126/127 now, never after a half-printed
 * table), and the counts of --command-name, -n N,N,... and hook options.
 */
#include "base/cmdline.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/util.h"
#include "record/plan.h"
#include "record/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Words after `--` that look like options or bare numbers are almost always
 * an unquoted command line split by the shell: `lauka -- myapp --flag 1`.
 * An empty word is an empty command, reported as such later.
 */
static int check_split_mistake(const struct record_opts *o)
{
	for (size_t i = 1; i < o->ncmds; i++) {
		const char *c = o->cmds[i];
		if (*c && (c[0] == '-' || strspn(c, "0123456789.") == strlen(c))) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t j = 0; j < o->ncmds; j++)
				strbuf_addf(&sb, "%s%s", j ? " " : "", o->cmds[j]);
			error("command '%s' looks like an argument of the previous command", c);
			fix("wrap each command in quotes: lauka -- '%s'", strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

/* Resolve argv[0] into prog->path; 0, or the exit code (127/126) after an error line. */
static int resolve(struct record_prog *p, const char *what)
{
	if (!p->argv[0][0]) {
		error("%s names an empty program ('%s')", what, p->text);
		return EXIT_USAGE;
	}
	int r = exec_resolve(p->argv[0], p->path, sizeof(p->path));
	if (r == -ENAMETOOLONG) {
		error("%s path is longer than the system's limit (%zu bytes): '%.60s...'", what, sizeof(p->path) - 1,
		      p->argv[0]);
		return 126;
	}
	if (r == -ENOENT) {
		error("%s not found: '%s'", what, p->argv[0]);
		const char *eq = strchr(p->argv[0], '=');
		if (eq && eq != p->argv[0] && !strchr(p->argv[0], '/'))
			tip("to set %.*s for the command, run it through env: lauka -- 'env %s'", (int)(eq - p->argv[0]),
			    p->argv[0], p->text);
		return 127;
	}
	if (r < 0) {
		error("%s is not executable: '%s'", what, p->argv[0]);
		return 126;
	}
	return 0;
}

/* `SHELL -c TEXT` (-S/--shell). */
void shell_prog(const struct record *rec, const char *text, struct record_prog *p)
{
	size_t n = 0;
	while (rec->shell_argv[n])
		n++;
	p->text = text;
	p->argv = xcalloc(n + 3, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		p->argv[i] = xstrdup(rec->shell_argv[i]);
	p->argv[n] = xstrdup("-c");
	p->argv[n + 1] = xstrdup(text);
	snprintf(p->path, sizeof(p->path), "%s", rec->shell_path);
}

/*
 * Turn one command or hook string into a program: quoted like a command
 * (base/cmdline.c) and run without a shell, or `SHELL -c TEXT` in shell mode.
 * `what` names it in errors ("command 2", "--prepare").
 */
static int make_prog(struct record *rec, const char *text, const char *what, bool is_cmd, struct record_prog *p)
{
	p->text = text;
	if (!*text || strspn(text, " \t\n") == strlen(text)) {
		error("%s is empty", what);
		return EXIT_USAGE;
	}
	if (rec->shell_argv) {
		shell_prog(rec, text, p);
		return 0;
	}
	char bad = 0;
	switch (cmdline_split(text, &p->argv, &bad)) {
	case CMDLINE_OK:
		break;
	case CMDLINE_EMPTY:
		error("%s is empty", what);
		return EXIT_USAGE;
	case CMDLINE_UNBALANCED:
		error("unbalanced quote or trailing backslash in %s '%s'", is_cmd ? "command" : what, text);
		fix("close every ' and \" inside it");
		return EXIT_USAGE;
	case CMDLINE_META:
		error("%s '%s' contains the shell metacharacter '%c'; lauka runs commands without a shell",
		      is_cmd ? "command" : what, text, bad);
		{
			/* one level of quoting, for the shell the fix is typed into (issue 31 D-18: quotes inside quotes) */
			struct strbuf q = STRBUF_INIT;
			strbuf_add(&q, "'", 1);
			for (const char *t = text; *t; t++)
				strbuf_add(&q, *t == '\'' ? "'\\''" : t, *t == '\'' ? 4 : 1);
			strbuf_add(&q, "'", 1);
			fix("run it through a shell: lauka -S sh -- %s (-S sh runs every command through sh)", strbuf_str(&q));
			strbuf_release(&q);
		}
		return EXIT_USAGE;
	}
	return resolve(p, is_cmd ? "command" : what);
}

static int plan_shell(struct record *rec)
{
	const char *sh = rec->o.shell;
	if (!sh)
		return 0;
	char bad = 0;
	if (cmdline_split(sh, &rec->shell_argv, &bad) != CMDLINE_OK) {
		error("invalid --shell '%s'", sh);
		fix("name a shell and its options, e.g. -S sh or -S 'bash --norc'");
		return EXIT_USAGE;
	}
	struct record_prog p = { .text = sh, .argv = rec->shell_argv };
	int r = resolve(&p, "shell");
	snprintf(rec->shell_path, sizeof(rec->shell_path), "%s", p.path);
	return r;
}

int plan_commands(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	if (check_split_mistake(o) < 0)
		return EXIT_USAGE;
	int r;
	if ((r = plan_shell(rec)))
		return r;
	if (o->names.n > o->ncmds) {
		error("%zu --command-name options for %zu command%s", o->names.n, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give at most one --command-name per command, in the order of the commands");
		return EXIT_USAGE;
	}
	if (o->runs_each && o->nruns_each != o->ncmds) {
		error("-n gives %zu numbers of runs for %zu command%s", o->nruns_each, o->ncmds, o->ncmds == 1 ? "" : "s");
		fix("give one number for every command (-n 10), or one per command, in their order (-n 10,5)");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->names.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->names.v[i], o->names.v[j])) {
				error("two commands are named '%s'", o->names.v[i]);
				return EXIT_USAGE;
			}
	rec->ncmds = o->ncmds;
	rec->cmds = xcalloc(o->ncmds, sizeof(*rec->cmds));
	for (size_t i = 0; i < o->ncmds; i++) {
		char what[32];
		snprintf(what, sizeof(what), "command %zu", i + 1);
		if ((r = make_prog(rec, o->cmds[i], what, true, &rec->cmds[i].prog)))
			return r;
		rec->cmds[i].name = i < o->names.n ? o->names.v[i] : NULL;
	}
	for (int k = 0; k < HOOK_COUNT; k++) {
		const struct record_list *l = &o->hooks[k];
		if (!l->n)
			continue;
		if (l->n != 1 && l->n != o->ncmds) {
			error("%zu --%s options for %zu commands", l->n, record_hook_names[k], o->ncmds);
			fix("give --%s once for every command, or once per command in their order", record_hook_names[k]);
			return EXIT_USAGE;
		}
		rec->nhooks[k] = l->n;
		rec->hooks[k] = xcalloc(l->n, sizeof(struct record_prog));
		char what[32];
		snprintf(what, sizeof(what), "--%s", record_hook_names[k]);
		for (size_t i = 0; i < l->n; i++)
			if ((r = make_prog(rec, l->v[i], what, false, &rec->hooks[k][i])))
				return r;
		for (size_t i = 0; i < o->ncmds; i++)
			rec->cmds[i].hook[k] = &rec->hooks[k][l->n == 1 ? 0 : i];
		/*
		 * Every command starts from the spawner with the environment lauka
		 * had when it started (spawn/runner.h), so a hook gets its indices from
		 * env(1) in front of it.
		 */
		if (!rec->env_path[0] && exec_resolve("env", rec->env_path, sizeof(rec->env_path)) < 0) {
			error("hooks need env(1) to pass LAUKA_COMMAND_INDEX and LAUKA_RUN_INDEX, and it is not in PATH");
			return 127;
		}
	}
	return 0;
}
