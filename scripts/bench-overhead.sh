#!/bin/sh
# Per-run overhead of lauka next to perf stat -r and hyperfine -N, against
# a bare fork/execv/wait4 loop (the floor) and a vfork/execv/wait4 loop, all
# timing the same trivial command in one interleaved session.  Prints
# ratios to the floor and to hyperfine -N, which survive a noisy shared
# machine far better than absolute times.
#
#   scripts/bench-overhead.sh [RUNS] [ROUNDS]       (default 200 runs, 9 rounds)
#
# A round runs every tool twice, RUNS and then 2 x RUNS runs, in a rotating
# order; per tool the fastest round of each length is kept (noise only ever
# adds time) and the per-run cost is their difference over RUNS, so start-up
# costs cancel.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-200}
ROUNDS=${2:-9}
BUILD=${BUILD:-build}
# A database of its own: the bench must not touch (or depend on) the user's.
export LAUKA_DB="$PWD/$BUILD/bench/lauka.db"
make -s BUILD="$BUILD" >/dev/null
mkdir -p "$BUILD/bench"
cc -O2 -o "$BUILD/bench/floor" scripts/bench/floor.c
TRUE=$(command -v true)
case "$TRUE" in /*) ;; *) TRUE=/bin/true ;; esac

now() { date +%s%N; }
t_floor() { "$BUILD/bench/floor" "$1" "$TRUE"; }
t_vfork() { "$BUILD/bench/floor" -v "$1" "$TRUE"; }
t_lauka_default() { "$BUILD/lauka" --color never -n "$1" -- "$TRUE" >/dev/null 2>&1; }
t_lauka_rusage() { "$BUILD/lauka" --color never --backend rusage -n "$1" -- "$TRUE" >/dev/null; }
t_lauka_perf() { "$BUILD/lauka" --color never --backend perf -m task-clock,page-faults -n "$1" -- "$TRUE" >/dev/null; }
t_perf_stat() { perf stat -r "$1" -e task-clock,page-faults -- "$TRUE" >/dev/null 2>&1; }
t_hyperfine() { hyperfine -N --style none --runs "$1" "$TRUE" >/dev/null 2>&1; }

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
		s=$(now); "t_$t" "$RUNS"; e=$(now)
		short=$((e - s))
		s=$(now); "t_$t" $((2 * RUNS)); e=$(now)
		long=$((e - s))
		b=$(best "${t}_s"); [ -z "$b" ] || [ "$short" -lt "$b" ] && eval "best_${t}_s=$short"
		b=$(best "${t}_l"); [ -z "$b" ] || [ "$long" -lt "$b" ] && eval "best_${t}_l=$long"
	done
done
# Per run: the best 2N-run time minus the best N-run time, over N, so each tool's own start-up
# (lauka opening its database, hyperfine its statistics) cancels out.
for t in $tools; do eval "best_$t=\$(( (best_${t}_l - best_${t}_s) / RUNS ))"; done

floor=$(best floor)
hf=$(best hyperfine)
echo "per-run cost of $TRUE, best of $ROUNDS rounds of $RUNS and $((2 * RUNS)) runs, difference per run:"
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
