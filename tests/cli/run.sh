#!/bin/sh
# Runs every tests/cli/t-*.sh against a built lauka.
#   tests/cli/run.sh BUILD_DIR [t-name ...]
# Each test script: first comment line = description; exit 0 pass, 2 skip
# (it prints why), anything else fails.  Prints "cli: N passed, N failed, N skipped".
set -u
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
export LAUKA="$build/lauka" LAUKA_BUILD="$build" LAUKA_SRCDIR=$(cd "$here/../.." && pwd)
pass=0 fail=0 skip=0 failed=""
if [ $# -gt 0 ]; then tests="$*"; else tests=$(ls "$here"/t-*.sh); fi
for t in $tests; do
	[ -f "$t" ] || t="$here/$t"
	name=$(basename "$t" .sh)
	out=$(mktemp)
	tmp=$(mktemp -d)
	start=$(date +%s)
	( cd "$tmp" && LAUKA_DB="$tmp/lauka.db" XDG_DATA_HOME="$tmp/xdg" HOME="$tmp" NO_COLOR= TMPDIR="$tmp" sh "$t" ) >"$out" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
	2) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$out")" ;;
	*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$out" ;;
	esac
	rm -rf "$out" "$tmp"
done
echo "cli: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
