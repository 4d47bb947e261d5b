# error tips: every error that has a known way out names it (a table of error paths, their exit codes and their fix:/tip: lines)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# A PATH without valgrind (or anything but the commands the rows run).
mkdir nobin
for d in /usr/bin /bin; do [ -x $d/true ] && { ln -s $d/true nobin/true; break; }; done

# Whether this machine has no hardware PMU, as perf stat itself reports it (not lauka's belief):
# `perf stat -e instructions` says "<not supported>" where no PMU is exposed (most VMs).
nopmu=unknown
if command -v perf >/dev/null 2>&1 && perf stat -x, -e instructions true 2>perf.err >/dev/null; then
	grep -q 'not supported' perf.err && nopmu=yes || nopmu=no
fi
[ "$(uname -s)" = Linux ] || nopmu=unknown

standin="$LAUKA_BUILD/libkperf-standin.so"
tiny="$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"

# Columns: condition | exit code | a line the error must have (grep regex) | env assignments | lauka's arguments.
# Conditions: any; nopmu (perf stat reports no PMU here); standin (the kperf stand-in is built).
checked=0 skipped=0
while IFS='|' read -r cond want line envs args; do
	case $cond in ''|'#'*) continue ;; esac
	case $cond in
	nopmu) [ "$nopmu" = yes ] || { skipped=$((skipped + 1)); continue; } ;;
	standin) [ -f "$standin" ] || { skipped=$((skipped + 1)); continue; } ;;
	esac
	rm -rf kpep; mkdir kpep; cp "$tiny" kpep/chip.plist; ln -s chip.plist kpep/cpu_100000c_2_1b588bb3.plist
	# shellcheck disable=SC2086 # envs and args are word lists on purpose
	run env LAUKA_STANDIN_STATE="$PWD/standin.state" KPEP_DB_PATH="$PWD/kpep" $envs "$LAUKA" $args
	[ "$rc" -eq "$want" ] || fail "lauka $args ($envs): exit $rc, expected $want; stderr: $err"
	printf '%s\n' "$err" | grep -q -- "$line" || fail "lauka $args ($envs): stderr lacks '$line': $err"
	# One error line, then only fix:/tip: lines (nothing unlabelled, nothing twice).
	[ "$(printf '%s\n' "$err" | grep -c '^error: ')" = 1 ] || fail "lauka $args: not one error line: $err"
	printf '%s\n' "$err" | grep -v -q -E '^(error|fix|tip): ' && fail "lauka $args: unlabelled line: $err"
	checked=$((checked + 1))
done <<EOF
# A hardware event on a machine without a PMU: the first thing a VM user types.
nopmu|2|^tip: no PMU here; --backend valgrind counts Ir, cache and branch misses by simulation$||-m instructions -- true
nopmu|2|^tip: no PMU here; --backend valgrind counts Ir, cache and branch misses by simulation$||--backend perf -m cycles,task-clock -- true
nopmu|2|^tip: no PMU here; --backend valgrind||-m branch-misses --passes -- true
nopmu|2|^tip: no PMU here; --backend valgrind||-m L1-dcache-load-misses -- true
nopmu|2|^tip: no PMU here; --backend valgrind||-m cpu_clk_unhalted.thread -- true
# valgrind missing: how to install it.
any|2|^fix: install valgrind (Debian/Ubuntu: apt-get install valgrind|PATH=$PWD/nobin|--backend valgrind -- true
any|2|^fix: install valgrind|PATH=$PWD/nobin|calibrate --backend valgrind --quick
# kperf without root: sudo, or xctrace; kperf that cannot load: what still works.
standin|2|^fix: run it as root: sudo .*lauka|LAUKA_KPERF_PATH=$standin LAUKA_KPERFDATA_PATH=$standin LAUKA_STANDIN_EUID=501|--backend kperf -- true
standin|2|^tip: 'lauka record --backend xctrace' needs no root (it needs Xcode)$|LAUKA_KPERF_PATH=$standin LAUKA_KPERFDATA_PATH=$standin LAUKA_STANDIN_EUID=501|--backend kperf -- true
standin|2|^tip: 'lauka record --backend xctrace' needs no root|LAUKA_KPERF_PATH=$standin LAUKA_KPERFDATA_PATH=$standin LAUKA_STANDIN_EUID=501|--backend kperf -m inst_all -- true
standin|2|^tip: 'lauka calibrate --backend xctrace' needs no root|LAUKA_KPERF_PATH=$standin LAUKA_KPERFDATA_PATH=$standin LAUKA_STANDIN_EUID=501|calibrate --backend kperf --quick
any|2|^tip: without kperf and xctrace, 'lauka record --backend rusage' still measures time and memory$|LAUKA_KPERF_PATH=/nonexistent LAUKA_KPERFDATA_PATH=/nonexistent|--backend kperf -- true
# xctrace that cannot run: Xcode, or kperf with sudo.
any|2|^tip: xctrace comes with Xcode (not the Command Line Tools); without it, 'sudo lauka record --backend kperf'|LAUKA_XCTRACE=/nonexistent|--backend xctrace -- true
any|2|^tip: xctrace comes with Xcode .*'sudo lauka calibrate --backend kperf'|LAUKA_XCTRACE=/nonexistent|calibrate --backend xctrace
# Usage errors with a known way out.
any|1|^tip: backends built into this lauka: ||--backend nope -- true
any|1|^tip: 'D1mr' is a valgrind event: add --backend valgrind$||-m D1mr -- true
any|1|^tip: did you mean 'wall_time'||-m wall_tme -- true
any|1|^fix: use -n 3 or higher||-n 2 -- true
any|1|^fix: run it through a shell: ||-- ls|wc
any|1|^tip: did you mean '--runs'?$||record --runz 3 -- true
# hyperfine's habits (doc/hyperfine.md).
any|1|^tip: -n is the number of runs, as -r; hyperfine's -n (a command's name) is --command-name here$||-n fast -- true
any|1|^tip: lauka picks each value's unit itself||--time-unit ms -- true
any|1|^tip: hyperfine's -s is --setup here||-s 'make' -- true
any|1|^fix: give the smaller bound first: -P n 1 3$||-P n 3 1 -- true
any|1|^fix: scan a range: -P NAME MIN MAX -D 2$||-D 2 -- true
any|1|^fix: use --style full, basic, nocolor, color or none||--style fancy -- true
EOF
[ "$checked" -ge 12 ] || fail "only $checked rows checked"
echo "$checked error paths checked, $skipped skipped (nopmu=$nopmu)"
