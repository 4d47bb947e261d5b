#!/bin/sh
# scripts/macos-fixtures.sh: record, on a real Mac, the fixtures tests/fixtures/macos/README.md
# defines (audit 4, C9), into tests/fixtures/macos/<model>-macos<version>/.  Run it from the
# source tree after `make`, as a user who may sudo (the kperf parts need root; the xctrace parts
# must not run as root).  Each step is independent: one that fails is reported and skipped.
#
#   sh scripts/macos-fixtures.sh [OUTDIR]
set -u
[ "$(uname -s)" = Darwin ] || { echo "error: run this on a Mac (it records what macOS answers)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
lauka="$root/build/lauka"
probe="$root/build/lauka-probe"
[ -x "$lauka" ] && [ -x "$probe" ] || { echo "error: build lauka first ('make')" >&2; echo "fix: make" >&2; exit 2; }
model=$(sysctl -n hw.model 2>/dev/null | tr -c 'A-Za-z0-9,._-\n' '_')
ver=$(sw_vers -productVersion 2>/dev/null)
out=${1:-"$root/tests/fixtures/macos/$model-macos$ver"}
mkdir -p "$out/guided" || exit 2
step() {	# step NAME CMD...: run it, say how it went
	name=$1; shift
	if "$@"; then echo "ok    $name"; else echo "FAIL  $name (exit $?)"; fi
}
{
	sw_vers
	sysctl hw.model machdep.cpu.brand_string hw.cputype hw.cpusubtype hw.cpufamily kern.osrelease
	xcrun xctrace version 2>&1
	"$lauka" version
} > "$out/about.txt" 2>&1
step "doctor --macos --json" sh -c 'sudo "$1" doctor --macos --json > "$2/doctor-macos.json"' _ "$lauka" "$out"
step "doctor --json" sh -c 'sudo "$1" doctor --json > "$2/doctor.json"' _ "$lauka" "$out"
python3 -c '
import json, sys
f = {x["name"]: x for x in json.load(open(sys.argv[1]))["facts"]}
print(f["thread samples"]["observed"].split()[0])' "$out/doctor.json" > "$out/kdebug-alu.values" 2>/dev/null ||
	echo "FAIL  kdebug-alu.values (no 'thread samples' fact in doctor.json)"
rm -f "$out/kdebug-alu.bin"
step "kdebug dump of lauka-probe alu" sudo LAUKA_KPERF_DUMP="$out/kdebug-alu.bin" "$lauka" --backend kperf \
	-m inst_all -n 3 -- "$probe alu 1e8"
[ -f "$out/kdebug-alu.bin" ] && sudo chown "$(id -u):$(id -g)" "$out/kdebug-alu.bin"
step "xctrace manual recording" env LAUKA_XCTRACE_KEEP="$out" "$lauka" --backend xctrace \
	-m fixed_instructions,inst_branch -n 3 -- "$probe alu 1e8"
step "xctrace guided recording" env LAUKA_XCTRACE_KEEP="$out/guided" "$lauka" --backend xctrace --guided \
	-n 3 -- "$probe alu 1e8"
echo "fixtures in $out: please attach them to an issue (or open a pull request adding the directory)"
