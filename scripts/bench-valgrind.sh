#!/bin/sh
# The valgrind backend's tool, callgrind with its fork dump points, next to
# cachegrind with the same cache and branch simulation (what the backend ran
# before), on the same commands in one interleaved session.  Prints each
# command's native time and the ratio of each tool to native and of
# callgrind to cachegrind: ratios survive a noisy shared machine far better
# than absolute times.
#
#   scripts/bench-valgrind.sh [ROUNDS]          (default 5)
#
# A round runs every (command, tool) pair once, in a rotating order; the
# best (minimum) round per pair is kept, since noise only ever adds time.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
BUILD=${BUILD:-build}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
make -s BUILD="$BUILD" >/dev/null
mkdir -p "$BUILD/bench"
cc -O1 -o "$BUILD/bench/forker" tests/fixtures/valgrind/forker.c
P="$BUILD/lauka-probe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

SIM="-q --command-line-only=yes --vgdb=no --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --trace-children=yes"
DUMPS="--combine-dumps=yes --dump-before=fork --dump-before=__libc_fork --dump-before=__fork --dump-before=_Fork --dump-before=vfork --dump-before=__vfork --dump-before=__libc_vfork --dump-before=__spawni"
set -- "$P alu 20000000" "$P chase 1000000 64M" "$P branch 5000000" "sort -n /etc/services" \
	"sh -c '$P alu 1000000; $P alu 1000000; $P alu 1000000'" "$BUILD/bench/forker 2000000 20"
ncmd=$#
now() { date +%s%N; }
# run TOOL INDEX: one timed run of command INDEX, in ns
run() {
	eval "cmd=\${$(($2 + 3))}"
	rm -f "$out"/*
	t0=$(now)
	case $1 in
	native) eval "$cmd" </dev/null >/dev/null 2>&1 ;;
	cachegrind) eval "valgrind $SIM --tool=cachegrind --cachegrind-out-file=$out/cg.%p.out $cmd" </dev/null >/dev/null 2>&1 ;;
	callgrind) eval "valgrind $SIM --tool=callgrind $DUMPS --callgrind-out-file=$out/cg.%p.out $cmd" </dev/null >/dev/null 2>&1 ;;
	esac
	echo $(($(now) - t0))
}
tools="native cachegrind callgrind"
for r in $(seq 1 "$ROUNDS"); do
	i=0
	while [ $i -lt $ncmd ]; do
		# rotate the tools' order per round and command
		k=$(( (r + i) % 3 )); j=0
		for t in $tools $tools; do
			[ $j -ge $k ] && [ $j -lt $((k + 3)) ] || { j=$((j + 1)); continue; }
			j=$((j + 1))
			ns=$(run $t $i "$@")
			eval "b=\${best_${t}_$i:-}"
			[ -z "$b" ] || [ "$ns" -lt "$b" ] && eval "best_${t}_$i=$ns"
		done
		i=$((i + 1))
	done
done
printf '| command | native | cachegrind | callgrind | callgrind / cachegrind |\n|---|---|---|---|---|\n'
i=0
for cmd in "$@"; do
	eval "n=\$best_native_$i c=\$best_cachegrind_$i g=\$best_callgrind_$i"
	label=$(printf '%s' "$cmd" | sed "s#$P#lauka-probe#g; s#$BUILD/bench/##")
	awk -v l="$label" -v n="$n" -v c="$c" -v g="$g" 'BEGIN {
		printf "| `%s` | %.1f ms | %.1fx | %.1fx | %.2fx |\n", l, n / 1e6, c / n, g / n, g / c }'
	i=$((i + 1))
done
