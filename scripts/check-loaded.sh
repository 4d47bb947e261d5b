#!/bin/sh
# make check-loaded: runs the test suite ROUNDS times with LOAD CPU-bound processes beside it, as on
# a shared 2-core machine or a busy CI runner, and says for each round whether it passed.  The busy
# loops are started before the first round and stopped on every way out (end, failure, Ctrl-C).
#
#   scripts/check-loaded.sh [-r ROUNDS] [-l LOAD] [-t TARGET] [-- make arguments...]
#     ROUNDS  rounds of the suite (default 5); LOAD busy processes (default 4);
#     TARGET  the make goal each round runs (default check; test-all skips the dependency step)
# Exit 0 when every round passed, 1 otherwise.  Each round's output is kept in
# $LOG_DIR/round-N.log (default: a directory under /tmp, named at the end).
set -u
rounds=5 load=4 target=check
while [ $# -gt 0 ]; do
	case $1 in
	-r) rounds=$2; shift 2 ;;
	-l) load=$2; shift 2 ;;
	-t) target=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [-r ROUNDS] [-l LOAD] [-t TARGET] [-- make arguments...]" >&2; exit 1 ;;
	esac
done
case "$rounds$load" in *[!0-9]*|'') echo "error: ROUNDS and LOAD are whole numbers" >&2; exit 1 ;; esac
log_dir=${LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/lauka-check-loaded.XXXXXX")}
mkdir -p "$log_dir"

pids=""
stop_load() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=""
}
trap 'stop_load' EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM HUP

# Each busy loop is a shell doing arithmetic: CPU-bound, no I/O, no memory growth.
i=0
while [ "$i" -lt "$load" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "check-loaded: $load busy processes on $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs, $rounds rounds of 'make $target'"

passed=0 r=1
while [ "$r" -le "$rounds" ]; do
	start=$(date +%s)
	if make --no-print-directory "$target" "$@" > "$log_dir/round-$r.log" 2>&1; then
		verdict=PASS; passed=$((passed + 1))
	else
		verdict=FAIL
	fi
	secs=$(($(date +%s) - start))
	failed=$(grep -E '^(\[[0-9]+/[0-9]+] )?FAIL |^[^ ]*:[0-9]+:[EF]:' "$log_dir/round-$r.log" | cut -c1-100 | tr '\n' ' ')
	echo "round $r: $verdict in ${secs}s${failed:+ ($failed)}"
	r=$((r + 1))
done
stop_load
echo "check-loaded: $passed of $rounds rounds passed (logs in $log_dir)"
[ "$passed" -eq "$rounds" ]
