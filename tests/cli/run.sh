#!/bin/sh
# Runs the tests/cli/t-*.sh against a built lauka, several at a time.
#   tests/cli/run.sh [--slow | --all] [-j N] BUILD_DIR [t-name[.sh] ...]
# Without names: every test but the slow ones listed in tests/cli/slow.list (make test-cli, make
# check); --slow runs only those (make check-slow), --all both.  Each test script: first comment
# line = description; exit 0 pass, 2 skip (it prints why), anything else fails.  The timing
# cross-checks ($alone below) run with no other test beside them.
# Jobs: -j N, else $LAUKA_TEST_JOBS, else one per online CPU.  Each test runs with stdin from
# /dev/null in its own empty directory (also its TMPDIR, HOME and LAUKA_DB); its output is kept in a
# file and printed whole, never mixed with another's.  As each test ends one line says
# "[n/N] PASS|FAIL|SKIP name (time, cpu)": n counts the tests ended so far, and a failed test's
# output follows its line.  The tests start longest first, by the times of the last run (kept in
# BUILD_DIR/cli-times).  The CPU time is the test's and its children's (it moves far less with the
# machine's load than the time does: compare tests by it on a busy machine).  At the end:
# "cli: N passed, N failed, N skipped in Ns (cpu Ns)" (CI reads this line), the failed
# tests in list order, and the slowest tests.
set -u
which=fast
case ${1:-} in --slow) which=slow; shift ;; --all) which=all; shift ;; esac
jobs=${LAUKA_TEST_JOBS:-}
case ${1:-} in -j) jobs=${2:-}; shift 2 ;; -j*) jobs=${1#-j}; shift ;; esac
[ -n "$jobs" ] || jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null)
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
export LAUKA="$build/lauka" LAUKA_BUILD="$build" LAUKA_SRCDIR=$(cd "$here/../.." && pwd)
pass=0 fail=0 skip=0 named=$#
slow=$(sed -n 's/^\(t-[A-Za-z0-9_-]*\.sh\).*/\1/p' "$here/slow.list" 2>/dev/null)
is_slow() { printf '%s\n' "$slow" | grep -qxF "$1"; }
# Tests that compare lauka's timings with another tool's run with no other test beside them: a
# sibling test's load falls on one tool's rounds more than the other's (t-crosscheck-hyperfine
# crossed its bound at load 15 beside one).
alone="t-crosscheck-hyperfine.sh t-crosscheck-perf.sh t-crosscheck-rss.sh"
is_alone() { case " $alone " in *" $(basename "$1") "*) return 0 ;; esac; return 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: > "$dir/failed"
bad() { fail=$((fail + 1)); echo "$1" >> "$dir/failed"; echo "FAIL $2"; }
tests=""
if [ "$named" -gt 0 ]; then
	for n in "$@"; do	# a path, or a name in tests/cli with or without its .sh
		t=$n
		[ -f "$t" ] || t="$here/$n"
		[ -f "$t" ] || t="$here/$n.sh"
		if [ -f "$t" ]; then tests="$tests $t"; else bad "$n" "$n: no such test in tests/cli"; fi
	done
else
	for t in "$here"/t-*.sh; do
		b=$(basename "$t")
		case $which in
		fast) is_slow "$b" && continue ;;
		slow) is_slow "$b" || continue ;;
		esac
		tests="$tests $t"
	done
	for n in $slow; do	# a name misspelt there would leave its test to neither half
		[ -f "$here/$n" ] || bad "$n" "tests/cli/slow.list names $n, which does not exist"
	done
fi
# Longest first (a long test started last would end alone): the seconds of the last run, a test
# not timed yet first of all.
order=$(for t in $tests; do
	s=$(awk -v n="$(basename "$t" .sh)" '$2 == n { s = $1 } END { print (s == "" ? 99999 : s) }' "$build/cli-times" 2>/dev/null || echo 99999)
	echo "$s $t"
done | sort -k1,1nr -k2,2 | awk '{ print $2 }')
total=0
for t in $order; do total=$((total + 1)); eval "test_$total=\$t"; done
# A test started with & by this non-interactive shell would inherit SIGINT and SIGQUIT ignored
# (POSIX), and a test that interrupts what it starts would wait in vain: they are reset for it.
if env --default-signal=INT,QUIT true 2>/dev/null; then dfl="env --default-signal=INT,QUIT"
elif command -v perl >/dev/null 2>&1; then dfl="perl -e \$SIG{INT}=\$SIG{QUIT}=q(DEFAULT);exec(@ARGV)or(exit(127))"
else dfl=""; fi
# python3 as the tests find it on PATH, started without a version manager's shim in front (pyenv's
# costs about 1 s per start, 150 s over the suite): a python3 on a PATH directory of its own that
# execs the interpreter the shim chose.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$py" != "$(command -v python3)" ]; then
	mkdir "$dir/bin"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" > "$dir/bin/python3"
	chmod +x "$dir/bin/python3"
	PATH="$dir/bin:$PATH"
fi
# CPU seconds (user + system) of the children a shell has waited for, from `times` written to file
# $1 (`times` run in that shell: in a command substitution it would be a new process, whose counts
# start at 0); its second line is theirs.
cpu_read() { awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"; }
# run_one K PATH, in the background: runs test K, then writes "rc secs cpu" to $dir/K.done (by a
# rename, so that the file is whole once it exists).
run_one() {
	tmp=$(mktemp -d)
	times > "$dir/$1.cpu"
	start=$(date +%s) c0=$(cpu_read "$dir/$1.cpu")
	( cd "$tmp" && LAUKA_DB="$tmp/lauka.db" XDG_DATA_HOME="$tmp/xdg" HOME="$tmp" NO_COLOR= TMPDIR="$tmp" $dfl sh "$2" ) < /dev/null > "$dir/$1.out" 2>&1
	rc=$?
	times > "$dir/$1.cpu"
	echo "$rc $(($(date +%s) - start)) $(awk -v a="$c0" -v b="$(cpu_read "$dir/$1.cpu")" 'BEGIN { printf "%.1f", b - a }')" > "$dir/$1.tmp"
	mv "$dir/$1.tmp" "$dir/$1.done"
	rm -rf "$tmp"
}
# report K: the line of ended test K, and its output when it failed.
ended=0
report() {
	eval "t=\$test_$1 pid=\$pid_$1"
	wait "$pid"
	read -r rc secs cpu < "$dir/$1.done"
	name=$(basename "$t" .sh)
	ended=$((ended + 1))
	echo "$secs $name" >> "$dir/times"
	case $rc in
	0) pass=$((pass + 1)); echo "[$ended/$total] PASS $name (${secs}s, cpu ${cpu}s)" ;;
	2) skip=$((skip + 1)); echo "[$ended/$total] SKIP $name (${secs}s): $(tail -n 1 "$dir/$1.out")" ;;
	*) fail=$((fail + 1)); echo "$name" >> "$dir/failed"
	   echo "[$ended/$total] FAIL $name (exit $rc, ${secs}s, cpu ${cpu}s)"; sed 's/^/    /' "$dir/$1.out" ;;
	esac
}
echo "cli: $total tests, $jobs at a time"
times > "$dir/all"
t0=$(date +%s) cpu0=$(cpu_read "$dir/all")
next=1 live="" nlive=0 solo=0
while [ "$ended" -lt "$total" ]; do
	while [ "$next" -le "$total" ] && [ "$nlive" -lt "$jobs" ] && [ "$solo" -eq 0 ]; do
		eval "t=\$test_$next"
		if is_alone "$t"; then
			[ "$nlive" -eq 0 ] || break	# once the running ones have ended
			solo=$next
		fi
		run_one "$next" "$t" &
		eval "pid_$next=\$!"
		live="$live $next" next=$((next + 1)) nlive=$((nlive + 1))
	done
	still="" n0=$ended
	for k in $live; do
		if [ -f "$dir/$k.done" ]; then
			report "$k"; nlive=$((nlive - 1))
			[ "$solo" -ne "$k" ] || solo=0
		else still="$still $k"; fi
	done
	live=$still
	[ "$ended" -eq "$n0" ] && sleep 0.2
done
times > "$dir/all"
echo "cli: $pass passed, $fail failed, $skip skipped in $(($(date +%s) - t0))s (cpu $(awk -v a="$cpu0" -v b="$(cpu_read "$dir/all")" 'BEGIN { printf "%.0f", b - a }')s)"
if [ "$fail" -gt 0 ]; then	# in the order the tests are listed, not the order they ended in
	ls "$here" | sed -n 's/^\(t-.*\)\.sh$/\1/p' > "$dir/names"
	echo "cli: failed: $(awk 'NR == FNR { f[$0] = 1; next } $0 in f { printf "%s ", $0; delete f[$0] }
		END { for (n in f) printf "%s ", n }' "$dir/failed" "$dir/names")"
fi
if [ -f "$dir/times" ]; then
	[ "$pass" -gt 3 ] && echo "cli: slowest: $(sort -rn "$dir/times" | head -n 5 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
	# what the next run orders its tests by: this run's times, then the older ones of tests not run
	{ cat "$dir/times"; awk 'NR == FNR { seen[$2] = 1; next } !($2 in seen)' "$dir/times" "$build/cli-times" 2>/dev/null; } > "$dir/keep"
	cp "$dir/keep" "$build/cli-times" 2>/dev/null
fi
[ "$which" = fast ] && [ "$named" -eq 0 ] && [ -n "$slow" ] &&
	echo "cli: $(printf '%s\n' "$slow" | wc -l | tr -d ' ') slow tests (tests/cli/slow.list) are left to make check-slow"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
