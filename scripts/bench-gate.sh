#!/bin/sh
# What an instruction-count gate costs: `lauka record --backend valgrind -m Ir`
# (3 runs, the minimum) next to one plain `valgrind --tool=callgrind` run of
# the same command, next to three plain callgrind runs started at once (the
# floor: no gate of 3 runs can beat it on this machine, so gate/floor is
# lauka's own overhead), and next to the same record with both simulators on
# (-m Ir,D1mr,Bcm: what every gate ran before the simulators became opt-in),
# on the same commands in one interleaved session.  Prints each pair's best
# time and the ratios side by side: ratios survive a noisy shared machine far
# better than absolute times.  The issue's goal is a ratio of 1.5 or less for
# the Ir gate on a 2-core machine.
#
#   scripts/bench-gate.sh [ROUNDS]          (default 3)
#
# A round runs every (command, way) pair once, in a rotating order; the best
# (minimum) round per pair is kept, since noise only ever adds time.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BUILD=${BUILD:-build}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
make -s BUILD="$BUILD" >/dev/null
P="$BUILD/lauka-probe"
L="$BUILD/lauka"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export LAUKA_DB="$out/lauka.db"
set -- "$P alu 20000000" "$P chase 1000000 64M" "$P branch 5000000" "sort -n /etc/services"
ncmd=$#
now() { date +%s%N; }
callgrind_once() {
	eval "valgrind -q --tool=callgrind --callgrind-out-file=$out/cg.%p.out $1" </dev/null >/dev/null 2>&1
}
# run WAY INDEX: one timed run of command INDEX, in ns
run() {
	eval "cmd=\${$(($2 + 3))}"
	rm -rf "$out"/cg.*
	t0=$(now)
	case $1 in
	plain) callgrind_once "$cmd" ;;
	floor)
		for k in 1 2 3; do callgrind_once "$cmd" & done
		wait ;;
	gate) "$L" record --backend valgrind -m Ir -- "$cmd" </dev/null >/dev/null 2>&1 ;;
	sims) "$L" record --backend valgrind -m Ir,D1mr,Bcm -- "$cmd" </dev/null >/dev/null 2>&1 ;;
	esac
	echo $(($(now) - t0))
}
ways="plain floor gate sims"
nways=$(echo $ways | wc -w)
for r in $(seq 1 "$ROUNDS"); do
	i=0
	while [ $i -lt $ncmd ]; do
		k=$(( (r + i) % nways )); j=0
		for t in $ways $ways; do
			[ $j -ge $k ] && [ $j -lt $((k + nways)) ] || { j=$((j + 1)); continue; }
			j=$((j + 1))
			ns=$(run $t $i "$@")
			eval "b=\${best_${t}_$i:-}"
			[ -z "$b" ] || [ "$ns" -lt "$b" ] && eval "best_${t}_$i=$ns"
		done
		i=$((i + 1))
	done
done
printf '| command | callgrind once | 3 at once (floor) | ratio | -m Ir gate (3 runs) | ratio | gate/floor | -m Ir,D1mr,Bcm (3 runs) | ratio |\n|---|---|---|---|---|---|---|---|---|\n'
i=0
for c in "$@"; do
	eval "p=\$best_plain_$i f=\$best_floor_$i g=\$best_gate_$i s=\$best_sims_$i"
	awk -v c="$c" -v p="$p" -v f="$f" -v g="$g" -v s="$s" 'BEGIN { printf "| %s | %.2f s | %.2f s | %.2f | %.2f s | %.2f | %.2f | %.2f s | %.2f |\n", c, p / 1e9, f / 1e9, f / p, g / 1e9, g / p, g / f, s / 1e9, s / p }'
	i=$((i + 1))
done
echo "(cores: $(nproc); best of $ROUNDS rounds)"
