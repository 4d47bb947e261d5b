#!/bin/sh
# Runs the tests/cli/t-*.sh against a built lauka.
#   tests/cli/run.sh [--slow | --all] BUILD_DIR [t-name ...]
# Without names: every test but the slow ones listed in tests/cli/slow.list (make test-cli, make
# check); --slow runs only those (make check-slow), --all both.  Each test script: first comment
# line = description; exit 0 pass, 2 skip (it prints why), anything else fails.  Prints each test's
# time and the CPU time it and its children used (which moves far less with the machine's load than
# the time does: compare tests by it on a busy machine), then "cli: N passed, N failed, N skipped in
# Ns (cpu Ns)" and the slowest tests.
set -u
which=fast
case ${1:-} in --slow) which=slow; shift ;; --all) which=all; shift ;; esac
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
export LAUKA="$build/lauka" LAUKA_BUILD="$build" LAUKA_SRCDIR=$(cd "$here/../.." && pwd)
pass=0 fail=0 skip=0 failed=""
slow=$(sed -n 's/^\(t-[A-Za-z0-9_-]*\.sh\).*/\1/p' "$here/slow.list" 2>/dev/null)
is_slow() { printf '%s\n' "$slow" | grep -qxF "$1"; }
if [ $# -gt 0 ]; then tests="$*"; else
	tests=""
	for t in "$here"/t-*.sh; do
		b=$(basename "$t")
		case $which in
		fast) is_slow "$b" && continue ;;
		slow) is_slow "$b" || continue ;;
		esac
		tests="$tests $t"
	done
	for n in $slow; do	# a name misspelt there would leave its test to neither half
		[ -f "$here/$n" ] || { fail=$((fail + 1)); failed="$failed $n"; echo "FAIL tests/cli/slow.list names $n, which does not exist"; }
	done
fi
times=$(mktemp) tf=$(mktemp)
# CPU seconds (user + system) of the children this shell has waited for: `times` runs in this shell
# (in a command substitution it would be a new process, whose counts start at 0); its second line is
# theirs.  cpu_read then gives the seconds that line says.
cpu_read() { awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tf"; }
times > "$tf"
t0=$(date +%s) cpu0=$(cpu_read)
for t in $tests; do
	[ -f "$t" ] || t="$here/$t"
	name=$(basename "$t" .sh)
	out=$(mktemp)
	tmp=$(mktemp -d)
	times > "$tf"
	start=$(date +%s) c0=$(cpu_read)
	( cd "$tmp" && LAUKA_DB="$tmp/lauka.db" XDG_DATA_HOME="$tmp/xdg" HOME="$tmp" NO_COLOR= TMPDIR="$tmp" sh "$t" ) >"$out" 2>&1
	rc=$?
	times > "$tf"
	secs=$(($(date +%s) - start)) cpu=$(awk -v a="$c0" -v b="$(cpu_read)" 'BEGIN { printf "%.1f", b - a }')
	echo "$secs $name" >> "$times"
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${secs}s, cpu ${cpu}s)" ;;
	2) skip=$((skip + 1)); echo "SKIP $name (${secs}s): $(tail -n 1 "$out")" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc, ${secs}s, cpu ${cpu}s)"; sed 's/^/    /' "$out" ;;
	esac
	rm -rf "$out" "$tmp"
done
times > "$tf"
echo "cli: $pass passed, $fail failed, $skip skipped in $(($(date +%s) - t0))s (cpu $(awk -v a="$cpu0" -v b="$(cpu_read)" 'BEGIN { printf "%.0f", b - a }')s)"
[ "$pass" -gt 3 ] && echo "cli: slowest: $(sort -rn "$times" | head -n 5 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
[ "$which" = fast ] && [ $# -eq 0 ] && [ -n "$slow" ] &&
	echo "cli: $(printf '%s\n' "$slow" | wc -l | tr -d ' ') slow tests (tests/cli/slow.list) are left to make check-slow"
rm -f "$times" "$tf"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
