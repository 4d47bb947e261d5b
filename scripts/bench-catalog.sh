#!/bin/sh
# Benchmark of the catalogue: importing a kpep plist and listing the counters.
#   scripts/bench-catalog.sh [path/to/lauka]      (make bench-catalog)
# Uses hyperfine when installed, else a timed shell loop.  Every run is a
# whole lauka process, so the numbers include process start-up (about 2 ms
# on the test VM, see reference/linux.md section 7).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lauka=${1:-$here/build/lauka}
[ -x "$lauka" ] || { echo "error: '$lauka' not built; run make first" >&2; exit 1; }
plist=$here/tests/fixtures/kpep-data/a14.plist
[ -f "$plist" ] || plist=$here/tests/fixtures/kpep/tiny.plist
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAUKA_DB="$tmp/bench.db"
runs=${RUNS:-100}

# mean milliseconds of a command over $runs runs (fallback when hyperfine is absent)
loop_ms() {
	start=$(date +%s%N)
	i=0
	while [ $i -lt "$runs" ]; do "$@" >/dev/null; i=$((i + 1)); done
	end=$(date +%s%N)
	echo "$(( (end - start) / runs / 1000 ))" | awk '{ printf "%.2f ms\n", $1 / 1000 }'
}

bench() {
	label=$1; shift
	if command -v hyperfine >/dev/null; then
		echo "== $label"
		hyperfine -N --style basic --warmup 5 --runs "$runs" "$@" 2>&1 | sed -n 's/^ *Time (mean ± σ): */mean: /p; s/^ *Range (min … max): */range: /p'
	else
		printf '== %s\nmean: %s\n' "$label" "$(loop_ms "$@")"
	fi
}

echo "lauka: $lauka"
echo "plist: $plist ($(wc -c <"$plist") bytes)"
bench "import into a new database (create, migrate, import)" \
	--prepare "rm -f $LAUKA_DB $LAUKA_DB-wal $LAUKA_DB-shm" "$lauka counters --import $plist" 2>/dev/null ||
	bench "import into a new database" sh -c "rm -f $LAUKA_DB*; $lauka counters --import $plist"
"$lauka" counters --import "$plist" >/dev/null
name=$("$lauka" counters --import "$plist" | awk '{ print $2 }')
bench "re-import of the same file (no change)" "$lauka counters --import $plist"
bench "lauka counters (default backend)" "$lauka counters"
bench "lauka counters --details (default backend)" "$lauka counters --details"
bench "lauka counters --pmu $name --details" "$lauka counters --pmu $name --details"
