#!/bin/sh
# What an instruction-count gate costs, as CI runs it:
#   lauka record --backend valgrind -m Ir --baseline B --gate Ir=1% -- CMD
# (the baseline saved once before the rounds) next to one plain
# `valgrind --tool=callgrind CMD` run, for a short, a medium and a long
# command.  Each round times every (command, way) pair once, the ways in
# alternating order; per command the ratio gate/plain of each round, and the
# median of those ratios: a ratio taken within one round survives a noisy
# shared machine far better than absolute times.  Issue 28's goal: at most 1.2.
# The last column is the same gate with both simulators on (-m Ir,D1mr,Bcm),
# what a gate cost before the simulators ran only for the events asked.
#
#   scripts/bench-gate.sh [ROUNDS]          (default 5)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
BUILD=${BUILD:-build}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
make -s BUILD="$BUILD" >/dev/null
P="$BUILD/lauka-probe"
L="$BUILD/lauka"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export LAUKA_DB="$out/lauka.db"
# short (valgrind's own start-up dominates), medium, long
set -- "$P alu 1000" "sort -n /etc/services" "$P alu 20000000"
ncmd=$#
now() { date +%s%N; }
i=0
for c in "$@"; do
	"$L" record --backend valgrind -m Ir --save-baseline "b$i" --runner-class bench -- "$c" </dev/null >/dev/null 2>&1
	"$L" record --backend valgrind -m Ir,D1mr,Bcm --save-baseline "s$i" --runner-class bench -- "$c" \
		</dev/null >/dev/null 2>&1
	i=$((i + 1))
done
# run WAY INDEX: one timed run of command INDEX, in ns
run() {
	eval "cmd=\${$(($2 + 3))}"
	rm -rf "$out"/cg.*
	t0=$(now)
	case $1 in
	plain) eval "valgrind -q --tool=callgrind --callgrind-out-file=$out/cg.%p.out $cmd" </dev/null >/dev/null 2>&1 ;;
	gate) "$L" record --backend valgrind -m Ir --baseline "b$2" --runner-class bench --gate Ir=1% -- "$cmd" \
		</dev/null >/dev/null 2>"$out/err" || { echo "the gate failed: $(cat "$out/err")" >&2; exit 1; } ;;
	sims) "$L" record --backend valgrind -m Ir,D1mr,Bcm --baseline "s$2" --runner-class bench --gate Ir=1% \
		-- "$cmd" </dev/null >/dev/null 2>"$out/err" || { echo "the gate failed: $(cat "$out/err")" >&2; exit 1; } ;;
	esac
	echo $(($(now) - t0))
}
for r in $(seq 1 "$ROUNDS"); do
	i=0
	while [ $i -lt $ncmd ]; do
		if [ $(((r + i) % 2)) -eq 0 ]; then order="plain gate sims"; else order="sims gate plain"; fi
		for t in $order; do
			ns=$(run $t $i "$@") || exit 1
			eval "t_${t}_${i}_$r=$ns"
		done
		i=$((i + 1))
	done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '| command | callgrind once (median) | gate (median) | gate/plain, median of rounds | range | -m Ir,D1mr,Bcm gate/plain |\n'
printf '|---|---|---|---|---|---|\n'
i=0
for c in "$@"; do
	ratios="" sims="" plains="" gates=""
	for r in $(seq 1 "$ROUNDS"); do
		eval "p=\$t_plain_${i}_$r g=\$t_gate_${i}_$r s=\$t_sims_${i}_$r"
		ratios="$ratios $(awk -v g="$g" -v p="$p" 'BEGIN { printf "%.4f", g / p }')"
		sims="$sims $(awk -v s="$s" -v p="$p" 'BEGIN { printf "%.4f", s / p }')"
		plains="$plains $p" gates="$gates $g"
	done
	med=$(printf '%s\n' $ratios | median)
	lo=$(printf '%s\n' $ratios | sort -g | head -n 1) hi=$(printf '%s\n' $ratios | sort -g | tail -n 1)
	mp=$(printf '%s\n' $plains | median) mg=$(printf '%s\n' $gates | median)
	ms=$(printf '%s\n' $sims | median)
	awk -v c="$c" -v mp="$mp" -v mg="$mg" -v med="$med" -v lo="$lo" -v hi="$hi" -v ms="$ms" \
		'BEGIN { printf "| %s | %.2f s | %.2f s | %.2f | %.2f-%.2f | %.2f |\n", c, mp / 1e9, mg / 1e9, med, lo, hi, ms }'
	i=$((i + 1))
done
echo "(cores: $(nproc); $ROUNDS interleaved rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?))"
