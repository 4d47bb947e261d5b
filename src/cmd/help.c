/*
 * cmd/help.c: `lauka help [verb]` and the usage text of every verb.
 *
 *   $ lauka help counters
 *   usage: lauka counters [--details] [--no-headers] [--pmu NAME] ...
 */
#include "cmd/builtin.h"
#include "base/error.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char overview[] =
	"lauka: hardware performance counters, compared across commands\n"
	"\n"
	"usage: lauka [options] -- '<cmd1>' ['<cmd2>' ...]     (same as lauka record)\n"
	"       lauka record [options] -- '<cmd1>' ['<cmd2>' ...]\n"
	"       lauka counters [--details] [--no-headers]\n"
	"       lauka calibrate [--backend NAME] [--pmu NAME] [--quick] [--dry-run]\n"
	"       lauka baselines [list | show NAME | delete NAME]\n"
	"       lauka doctor [--backend NAME] [--macos] [--json]\n"
	"       lauka version\n"
	"       lauka help [verb]\n"
	"\n"
	"verbs:\n"
	"  record      run commands N times; statistics per command, deltas against\n"
	"              the first\n"
	"  counters    list this machine's events, their constraints and calibration\n"
	"              verdicts\n"
	"  calibrate   validate every counter with probe workloads of known behaviour\n"
	"  baselines   list, show or delete the baselines record --save-baseline stored\n"
	"  doctor      check the facts lauka relies on, on this machine\n"
	"  version     version, build features and which counter backends work here\n"
	"  help        show help for a verb\n"
	"\n"
	"exit codes: 0 success, 1 usage error, 2 counter scheduling or collection error,\n"
	"3 a regression gate failed (record --gate) and no command failed,\n"
	"4 a gate could not tell (record --gate: its interval reaches both sides of\n"
	"the limit, is unbounded, or too few runs), 126/127 a command is not\n"
	"executable or not found, otherwise the first failing command's exit code\n"
	"(128 + N when killed by signal N; 130 when lauka itself is interrupted).\n";

static const char record_usage[] =
	"usage: lauka [record] [options] -- '<cmd1>' ['<cmd2>' ...]\n"
	"\n"
	"Run each command (all its warm-ups and runs, then the next command) and print\n"
	"one block of statistics per command; later commands get a delta against the\n"
	"first (or, with --baseline, every command against the stored one).\n"
	"Each argument after '--' is one command, split with shell-like quoting and run\n"
	"without a shell; use -S sh, or sh -c '...', for pipes, redirections or\n"
	"variables.\n"
	"\n"
	"options:\n"
	"  -n, --runs N[,N...]     measured runs per command, one after another (a\n"
	"                          sampled backend: 3 or more); N,N,...: one per\n"
	"                          command, in order.  Default: valgrind 1 run (its\n"
	"                          counts are exact); others 3 runs, then more until\n"
	"                          10 runs and 3 s of measurement, at most 100 runs\n"
	"                          and what fits in 30 s\n"
	"      --min-runs N        the automatic count's first runs (default 3)\n"
	"      --max-runs N        the automatic count's cap (default 100)\n"
	"      --jobs J            valgrind: J runs at once; only for commands without\n"
	"                          side effects (runs at once race on their files)\n"
	"      --collect FUNC      valgrind: count only while FUNC runs, callees\n"
	"                          included (callgrind's --toggle-collect; e.g. main:\n"
	"                          no start-up or exit)\n"
	"  -w, --warmup N          unmeasured runs before the measured ones (default 0)\n"
	"  -m, --measurements L    comma-separated events or aliases (see lauka counters)\n"
	"                          repeatable: each list adds to the others\n"
	"      --backend NAME      counter source: perf, valgrind, kperf, xctrace,\n"
	"                          rusage (default: the best available)\n"
	"      --guided            with --backend xctrace: the guided mode's slots,\n"
	"                          named by calibration\n"
	"      --explain           why it is slow: memory-bound, branch-bound, both\n"
	"                          or neither, from this machine's calibration; the cause\n"
	"                          of each delta; valgrind: where the instructions go\n"
	"      --color WHEN        auto (default), never or ansi (or always)\n"
	"      --show-output       let the commands (and hooks) write to the terminal\n"
	"  -S, --shell SHELL       run each command as SHELL -c CMD; the empty\n"
	"                          command's cost is shown\n"
	"      --interleave        one run of each command per round, in an order\n"
	"                          shuffled every round (the default with a gate on\n"
	"                          wall_time, user_time or sys_time)\n"
	"      --no-interleave     keep the runs in sequence even with a timing gate\n"
	"  -i, --ignore-failure    measure commands whatever their exit status (not\n"
	"                          one killed by a signal or that cannot execute)\n"
	"      --ok-exit-codes L   the exit statuses that count as success, e.g. 0,1\n"
	"      --seed N            the shuffle's seed (printed with --interleave;\n"
	"                          repeats the order)\n"
	"      --passes            events that do not fit the counters together are\n"
	"                          measured in passes: every command's runs once per\n"
	"                          pass, none multiplexed\n"
	"      --plot FILE         also draw every delta with its interval as SVG (two\n"
	"                          or more commands)\n"
	"      --db PATH           the catalogue database (default: $LAUKA_DB or\n"
	"                          ~/.local/share/lauka/lauka.db)\n"
	"  -h, --help              show this help\n"
	"\n"
	"hooks (untimed, quoted like commands; once for all commands or once per\n"
	"command):\n"
	"      --setup CMD         once per command, before its first run\n"
	"      --prepare CMD       before every run, warm-ups included\n"
	"      --conclude CMD      after every run\n"
	"      --check CMD         after every measured run: a non-zero exit marks that\n"
	"                          sample failed; lauka then exits with the first\n"
	"                          failing check's code\n"
	"      --cleanup CMD       once per command, after its last run\n"
	"  Hooks see LAUKA_COMMAND_INDEX (1, 2, ...) and LAUKA_RUN_INDEX\n"
	"  (1, 2, ..., warmup-1, ...).\n"
	"\n"
	"baselines and gates:\n"
	"      --save-baseline NAME\n"
	"                          store every sample in the database under NAME\n"
	"                          (replacing it)\n"
	"      --baseline NAME     compare each command with the stored one instead of\n"
	"                          the first\n"
	"      --command-name NAME name the commands in order (baselines match by name,\n"
	"                          else by position)\n"
	"      --runner-class NAME the class of machine (default: this machine's id, as\n"
	"                          calibrate stores it); a baseline from another class\n"
	"                          is refused\n"
	"      --any-runner        compare with a baseline from another runner class\n"
	"                          anyway (not with --git)\n"
	"      --git               keep baselines in git notes (refs/notes/lauka) on\n"
	"                          HEAD, not in the database; --baseline NAME compares\n"
	"                          with the nearest first-parent ancestor of HEAD whose\n"
	"                          note holds NAME for this runner class, NAME@REV\n"
	"                          with REV's; the default class leaves out the host.\n"
	"                          lauka never pushes or fetches refs/notes/lauka\n"
	"      --gate NAME=LIMIT%  fail (exit 3) when the change's whole 95% interval\n"
	"                          lies above LIMIT, pass when it lies at or below;\n"
	"                          one on both sides, unbounded, or of too few runs\n"
	"                          is inconclusive (exit 4); without -n more rounds\n"
	"                          come until it can tell; deterministic counts\n"
	"                          (valgrind's) are compared directly; repeatable\n"
	"      --gate-inconclusive pass|fail\n"
	"                          count an inconclusive gate as passed or failed\n"
	"\n"
	"exports (written whole at the end; the files are checked before the first run):\n"
	"      --export-json, --json FILE\n"
	"                          every sample, statistics, deltas, gates, checks\n"
	"                          as JSON, with hyperfine's \"results\" (seconds)\n"
	"      --export-csv FILE   one row per command and measurement\n"
	"      --export-markdown FILE  a table for a pull-request comment\n"
	"  FILE - is standard output (the table then goes to standard error).\n"
	"  Each export option may be given once.\n"	"\n"
	"hyperfine's spellings (doc/hyperfine.md; -n stays the number of runs, and\n"
	"hyperfine's -n is --command-name):\n"
	"  -r N                    the same as -n N\n"
	"  -N                      no shell, the default (also --shell=none)\n"
	"      --style STYLE       full (the default), basic (no colour, no progress\n"
	"                          line), nocolor, color (always) or none (no table:\n"
	"                          errors and exports only)\n"
	"  -P, --parameter-scan NAME MIN MAX\n"
	"                          each command once per value MIN, MIN+STEP, ... up to\n"
	"                          MAX, with {NAME} in it (and in its --command-name\n"
	"                          and hooks) replaced by the value\n"
	"  -D, --parameter-step-size STEP\n"
	"                          the step of -P (default 1; decimals allowed)\n"
	"  -L, --parameter-list NAME V1,V2,...\n"
	"                          each command once per value; with several -P/-L,\n"
	"                          once per combination, the first changing fastest\n"
	"\n"
	"wall_time and peak_rss are always measured.\n"
	"With --backend valgrind, a program that replaces itself by exec counts only\n"
	"the program it becomes: wrappers such as env or sh -c '...; exec x' add\n"
	"nothing of their own (lauka warns when the command itself does this).\n"
	"exit codes: 0, 1 usage, 2 collection error, 3 a gate failed, 4 a gate was\n"
	"inconclusive, else the first failing command's (or hook's, then check's)\n"
	"code; an exit 3 or 4 says on stderr (and in the JSON's exit_cause) whether a\n"
	"gate or a command caused it.\n"
	"One run of a measurement that varies has no spread: its delta has no interval\n"
	"and no verdict.  With -n 2 or more under valgrind lauka says whether the\n"
	"runs' counts were identical.\n"
	"\n"
	"examples:\n"
	"  lauka -- 'gzip -k -f big.txt'\n"
	"  lauka -n 9 -m cycles,instructions,branch-misses -- './old -O0' './new -O1'\n"
	"  lauka --backend valgrind -m Ir,D1mr -- './prog 1000'\n"
	"  lauka --backend valgrind -m Ir -- 'gzip -k -f small.txt'\n"
	"  lauka --backend valgrind --save-baseline main --runner-class ci -- './prog'\n"
	"  lauka --backend valgrind --baseline main --runner-class ci --gate Ir=1% \\\n"
	"      -- './prog'\n"
	"  lauka --git --backend valgrind --save-baseline main --baseline main \\\n"
	"      --gate Ir=1% -- './prog'\n"
	"  lauka --interleave -n 10 --prepare 'make clean' -- 'make -j2' 'make -j4'\n";

static const char baselines_usage[] =
	"usage: lauka baselines [--git] [list | show NAME | delete NAME] [--db PATH]\n"
	"                       [--runner-class NAME] [--all-classes]\n"
	"\n"
	"The baselines lauka record --save-baseline NAME stored in the database.\n"
	"  list          name, date, runner class, backend and commands of each\n"
	"                (the default)\n"
	"  show NAME     its details and one table per command\n"
	"  delete NAME   remove it\n"
	"With --git, those in git notes (refs/notes/lauka) instead: list adds the\n"
	"commit; show NAME[@REV] shows REV's, or the nearest first-parent ancestor's\n"
	"from HEAD on, every runner class; delete NAME[@REV] removes one from REV's\n"
	"note (default HEAD): --runner-class's, or the only class there is.\n"
	"\n"
	"options:\n"
	"      --git               the baselines in git notes rather than the database\n"
	"      --runner-class NAME only this runner class's baselines\n"
	"      --all-classes       delete the baseline of every runner class\n"
	"      --db PATH           the database (default: $LAUKA_DB or\n"
	"                          ~/.local/share/lauka/lauka.db)\n"
	"      --color WHEN        auto (default), never or ansi (or always)\n"
	"  -h, --help              show this help\n";

static const char counters_usage[] =
	"usage: lauka counters [options] [PATTERN]\n"
	"\n"
	"List the events of this machine from lauka's catalogue (built on first use),\n"
	"one name per line; names are case-insensitive wherever lauka takes them.\n"
	"A PATTERN lists only the events whose name or an alias contains it.\n"
	"\n"
	"options:\n"
	"  -d, --details           name, incompat flags, calibration verdict (once\n"
	"                          calibrated), the perf encoding of vendor events\n"
	"                          (cpu/event=0xd1,umask=0x8/) and description\n"
	"      --no-headers        leave out the header line\n"
	"      --wide              whole lines on a terminal too (else --details\n"
	"                          wraps to its width; pipes get whole lines)\n"
	"      --backend NAME      whose events to list (default: best available)\n"
	"      --pmu NAME          show another stored catalogue (e.g. a14 or as3,\n"
	"                          once imported), or any libpfm4 model (skl, icl,\n"
	"                          amd64_fam19h_zen4), imported on demand\n"	"      --smt on|off        a libpfm4 model's counters with SMT on (per\n"
	"                          thread, the default) or off (Skylake: 8, not 4)\n"
	"      --import PATH       import kpep plists (a file, or every *.plist in a\n"
	"                          directory) or an Intel perfmon or Arm PMU event\n"
	"                          file (.json);\n"
	"                          repeatable; lists nothing unless another option\n"
	"                          asks to\n"
	"      --check LIST        can these comma-separated events be counted\n"
	"                          together? prints the counter of each, or the\n"
	"                          conflicting events (exit 2)\n"
	"      --json              the catalogue as JSON: per event its name, aliases,\n"
	"                          encoding, counters allowed, verdict and sources\n"
	"      --check-sources     with --pmu skl, icl or spr: where libpfm4's\n"
	"                          encoding differs from Intel's table (Intel's wins)\n"
	"      --plot FILE         also draw the latest stored calibration as SVG\n"
	"                          (nothing is run)\n"
	"      --db PATH           the database (default: $LAUKA_DB,\n"
	"                          $XDG_DATA_HOME/lauka/lauka.db,\n"
	"                          ~/.local/share/lauka/lauka.db)\n"
	"  -h, --help              show this help\n"
	"\n"
	"incompat flags (from the catalogue's counter masks):\n"
	"  none        no constraint beyond the number of counters\n"
	"  pair        only one counter can count it: two such events conflict\n"
	"  quad        it shares a group of three counters: four such events conflict\n"
	"  triple, groupN  groups of two or of N counters\n"
	"and its other scheduling rules (vendor events):\n"
	"  fixedN      it may use fixed counter N (cycle-counter: Arm's)\n"
	"  offcore, ldlat, frontend  it holds that shared register: a group has\n"
	"              two offcore values, one load-latency and one frontend value\n"
	"  alone       Intel's TakenAlone: no other event of its register beside it\n"
	"  sampling    Intel's PEBS=2: counts only when sampled; calibrate skips it\n"
	"\n"
	"examples:\n"
	"  lauka counters\n"
	"  lauka counters --details\n"
	"  lauka counters --import /usr/share/kpep --pmu a14 --details\n"
	"  lauka counters --pmu a14 --check cycles,inst_all,l1d_cache_miss_ld_nonspec\n"
	"  lauka counters --pmu skl --details\n"
	"  lauka counters --pmu skl --check 'cycles,cpu/event=0xd1,umask=0x20/'\n"
	"  lauka counters --pmu spr --check-sources\n"
	"  lauka counters --details --plot calibration.svg\n";

static const char calibrate_usage[] =
	"usage: lauka calibrate [options]\n"
	"\n"
	"Run probe workloads of known behaviour (alu, chase, branch, store) at 1x and 4x\n"
	"scale, measure every schedulable event, and store a verdict per event.\n"
	"Verdicts: validated, off by X%, silent, not linear, noisy (the rounds differ\n"
	"too much to judge), dead here, linear (no expectation), unsupported,\n"
	"unschedulable.  Expectations: catalog/expectations.tsv.\n"
	"\n"
	"options:\n"
	"      --backend NAME      counter source to calibrate (default: best available;\n"
	"                          xctrace: name the guided mode's slots)\n"
	"      --pmu NAME          calibrate this stored or libpfm4 catalogue (e.g.\n"
	"                          skl) instead of the backend's own\n"	"      --smt on|off        with --pmu: the model's counters with SMT on (per\n"
	"                          thread, the default) or off\n"
	"      --quick             smaller probe scales; on catalogues of ten passes\n"
	"                          or more (vendor events) one round, not three\n"
	"      --passes            print the plan, one line per pass (pass N: event\n"
	"                          ...), and the number of probe runs; run nothing\n"
	"      --dry-run           --passes and the expected time, from timed\n"
	"                          warm-up runs of the probes; measure nothing\n"
	"      --plot FILE         also draw the responses as SVG (counter response per\n"
	"                          unit of work on every probe, log scale)\n"
	"      --db PATH           the catalogue database\n"
	"  -h, --help              show this help\n"
	"\n"
	"environment:\n"
	"  LAUKA_PROBE             the probe program (default: lauka-probe next to\n"
	"                          lauka, else the one installed in LIBEXECDIR/lauka)\n"
	"  LAUKA_EXPECTATIONS      a file of expectations to use instead of the\n"
	"                          built-in ones\n"
	"  LAUKA_CALIB_SCALES      small: the valgrind backend's smaller probe\n"
	"                          scales on any backend (an emulated CPU)\n"
	"  LAUKA_VALGRIND_ENV      pin (default: PATH, HOME, TMPDIR, the locale, TZ\n"
	"                          and hash seeds, with the user's values) or\n"
	"                          inherit the whole environment of commands run\n"
	"                          under valgrind\n"
	"\n"
	"examples:\n"
	"  lauka calibrate --backend valgrind --quick\n"
	"  lauka calibrate --backend perf --pmu skl --dry-run\n"
	"  lauka calibrate --plot calibration.svg\n";

static const char doctor_usage[] =
	"usage: lauka doctor [--backend NAME] [--macos] [--json]\n"
	"\n"
	"Check, on this machine, what lauka relies on and print each fact with what\n"
	"lauka expects, what was observed and a verdict (ok, info, FAIL).  On macOS\n"
	"run it with sudo: as root it measures kperf itself (counter counts, the\n"
	"trace record layout, sampling rate and coverage, kdebug costs, the kperf\n"
	"action count other clients left) and lists what no Mac has verified yet.\n"
	"\n"
	"options:\n"
	"      --backend NAME      only the facts of one backend (perf, valgrind, kperf,\n"
	"                          rusage)\n"
	"      --macos             read-only: each kernel answer kperf depends on\n"
	"                          (ktrace, kperf and kpc sysctls, counter counts,\n"
	"                          DevToolsSecurity, xcode-select), state a killed\n"
	"                          run left, then one run of lauka-probe alu\n"
	"      --json              print the facts as JSON (for a bug report;\n"
	"                          \"unverified\": what no Mac could check)\n"
	"  -h, --help              show this help\n"
	"\n"
	"exit codes: 0 every fact lauka needs holds, 2 otherwise (the FAIL lines).\n";

static const char version_usage[] =
	"usage: lauka version\n"
	"\n"
	"Print the version, and for each compiled-in backend whether it works here and\n"
	"why not.\n";

static const char help_usage[] =
	"usage: lauka help [verb]\n";

static const struct {
	const char *verb, *text;
} texts[] = {
	{ "record", record_usage },
	{ "counters", counters_usage },
	{ "calibrate", calibrate_usage },
	{ "baselines", baselines_usage },
	{ "doctor", doctor_usage },
	{ "version", version_usage },
	{ "help", help_usage },
};

int help_show(const char *verb)
{
	if (!verb || !*verb) {
		fputs(overview, stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		if (!strcmp(texts[i].verb, verb)) {
			fputs(texts[i].text, stdout);
			return 0;
		}
	return -1;
}

void help_hint(const char *verb)
{
	if (verb)
		fprintf(stderr, "tip: see 'lauka %s --help'\n", verb);
	else
		fputs("tip: see 'lauka help'\n", stderr);
}

int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		error("help takes at most one verb");
		return EXIT_USAGE;
	}
	if (help_show(argc > 1 ? argv[1] : NULL) < 0) {
		error("no help for unknown verb '%s'", argv[1]);
		help_hint(NULL);
		return EXIT_USAGE;
	}
	return 0;
}
