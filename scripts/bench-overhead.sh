#!/bin/sh
# Per-run overhead of lauka next to perf stat -r and hyperfine -N, against
# a bare fork/execv/wait4 loop (the floor) and a vfork/execv/wait4 loop, all
# timing the same trivial command in one interleaved session.  Prints
# ratios to the floor and to hyperfine -N, which survive a noisy shared
# machine far better than absolute times.
#
#   scripts/bench-overhead.sh [RUNS] [ROUNDS]       (default 300 runs, 7 rounds)
#
# Each tool does RUNS runs per round; a round runs every tool once, in a
# rotating order; the best (minimum) round per tool is reported, since noise
# only ever adds time.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-300}
ROUNDS=${2:-7}
BUILD=${BUILD:-build}
# A database of its own: the bench must not touch (or depend on) the user's.
export LAUKA_DB="$PWD/$BUILD/bench/lauka.db"
make -s BUILD="$BUILD" >/dev/null
mkdir -p "$BUILD/bench"
cc -O2 -o "$BUILD/bench/floor" scripts/bench/floor.c
TRUE=$(command -v true)
case "$TRUE" in /*) ;; *) TRUE=/bin/true ;; esac

now() { date +%s%N; }
t_floor() { "$BUILD/bench/floor" "$RUNS" "$TRUE"; }
t_vfork() { "$BUILD/bench/floor" -v "$RUNS" "$TRUE"; }
t_lauka_default() { "$BUILD/lauka" --color never -n "$RUNS" -- "$TRUE" >/dev/null 2>&1; }
t_lauka_rusage() { "$BUILD/lauka" --color never --backend rusage -n "$RUNS" -- "$TRUE" >/dev/null; }
t_lauka_perf() { "$BUILD/lauka" --color never --backend perf -m task-clock,page-faults -n "$RUNS" -- "$TRUE" >/dev/null; }
t_perf_stat() { perf stat -r "$RUNS" -e task-clock,page-faults -- "$TRUE" >/dev/null 2>&1; }
t_hyperfine() { hyperfine -N --style none --runs "$RUNS" "$TRUE" >/dev/null 2>&1; }

tools="floor vfork lauka_rusage"
"$BUILD/lauka" version | grep -q '^  perf .*available' && tools="$tools lauka_default lauka_perf"
command -v perf >/dev/null && perf stat -r 1 -e task-clock true >/dev/null 2>&1 && tools="$tools perf_stat"
command -v hyperfine >/dev/null && tools="$tools hyperfine"

best() { eval "echo \${best_$1:-}"; }
for r in $(seq 1 "$ROUNDS"); do
	# rotate the order so no tool always runs first (cache, frequency effects)
	set -- $tools
	k=$(( (r - 1) % $# ))
	order=""; i=0
	for t in $tools; do [ $i -ge $k ] && order="$order $t"; i=$((i + 1)); done
	i=0
	for t in $tools; do [ $i -lt $k ] && order="$order $t"; i=$((i + 1)); done
	for t in $order; do
		s=$(now); "t_$t"; e=$(now)
		ns=$(( (e - s) / RUNS ))
		b=$(best "$t")
		if [ -z "$b" ] || [ "$ns" -lt "$b" ]; then eval "best_$t=$ns"; fi
	done
done

floor=$(best floor)
hf=$(best hyperfine)
echo "per-run cost, best of $ROUNDS rounds of $RUNS runs of $TRUE:"
echo
echo "| tool | per run | ratio to floor | ratio to hyperfine -N |"
echo "|---|---|---|---|"
for t in $tools; do
	b=$(best "$t")
	awk -v t="$t" -v b="$b" -v f="$floor" -v h="${hf:-0}" 'BEGIN {
		names["floor"] = "fork/execv/wait4 loop (floor)"; names["vfork"] = "vfork/execv/wait4 loop";
		names["lauka_rusage"] = "lauka --backend rusage";
		names["lauka_default"] = "lauka (default counters, perf)";
		names["lauka_perf"] = "lauka --backend perf -m task-clock,page-faults";
		names["perf_stat"] = "perf stat -r -e task-clock,page-faults"; names["hyperfine"] = "hyperfine -N";
		printf "| %s | %.3f ms | %.2fx | %s |\n", names[t], b / 1e6, b / f, (h > 0 ? sprintf("%.2fx", b / h) : "-") }'
done
