#!/bin/sh
# Benchmark of the vendor catalogues (issue 17): `lauka counters --details` on
# libpfm4's 500-event Sapphire Rapids catalogue (goal: under 10 ms), and the
# first import of a model.
#   scripts/bench-pfm.sh [path/to/lauka]      (make bench-pfm)
# Uses hyperfine when installed, else a timed shell loop.  Every run is a
# whole lauka process (start-up included), reading the catalogue from the
# database as a user's second and later calls do.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lauka=${1:-$here/build/lauka}
[ -x "$lauka" ] || { echo "error: '$lauka' not built; run make first" >&2; exit 1; }
"$lauka" version | grep -q '^vendor events: libpfm4' ||
	{ echo "error: '$lauka' was built without libpfm4 (scripts/deps.sh installs libpfm4-dev)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LAUKA_DB="$tmp/bench.db"
runs=${RUNS:-100}
model=${MODEL:-spr}

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

echo "lauka: $lauka ($("$lauka" version | sed -n 's/^vendor events: //p'))"
"$lauka" counters --pmu "$model" >/dev/null
echo "model: $model ($("$lauka" counters --pmu "$model" | wc -l) events)"
bench "import $model into a new database" \
	--prepare "rm -f $LAUKA_DB $LAUKA_DB-wal $LAUKA_DB-shm" "$lauka counters --pmu $model"
"$lauka" counters --pmu "$model" >/dev/null
bench "counters --pmu $model --details (goal: < 10 ms)" "$lauka counters --pmu $model --details"
bench "counters --pmu $model (names only)" "$lauka counters --pmu $model"
bench "calibrate --backend perf --pmu $model --passes (the plan)" "$lauka calibrate --backend perf --pmu $model --passes"

# Side by side with another build (issue 27: the vendor tables must not slow the listing or the plan down):
#   OLD=/path/to/old/lauka scripts/bench-pfm.sh
# Each binary reads its own database (their fingerprints differ); hyperfine runs both commands in one
# invocation and each line gives new/old, the ratio of the means.
if [ -n "${OLD:-}" ] && command -v hyperfine >/dev/null; then
	[ -x "$OLD" ] || { echo "error: OLD='$OLD' is not an executable" >&2; exit 1; }
	for m in skl icl spr amd64_fam19h_zen4; do
		"$lauka" counters --db "$tmp/new.db" --pmu "$m" >/dev/null
		"$OLD" counters --db "$tmp/old.db" --pmu "$m" >/dev/null
		# the plan alone: --passes (a --dry-run now also times the probes' warm-ups); older builds had only --dry-run
		plan=--passes
		"$OLD" help calibrate | grep -q -- '--passes' || plan=--dry-run
		for what in "counters --pmu $m --details" "calibrate --backend perf --pmu $m --passes"; do
			old_what=$(echo "$what" | sed "s/--passes/$plan/")
			hyperfine -N --style basic --warmup 3 --runs "$runs" --export-json "$tmp/cmp.json" \
				"$lauka ${what%% *} --db $tmp/new.db ${what#* }" "$OLD ${old_what%% *} --db $tmp/old.db ${old_what#* }" >/dev/null 2>&1
			python3 - "$tmp/cmp.json" "$what" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
new, old = r[0]["mean"] * 1e3, r[1]["mean"] * 1e3
print("%-55s new %7.2f ms  old %7.2f ms  new/old %.2f" % (sys.argv[2], new, old, new / old))
PY
		done
	done
fi
