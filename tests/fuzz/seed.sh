#!/bin/sh
# tests/fuzz/seed.sh DIR: add Apple's real kpep plists (tests/fixtures/kpep-data,
# when present) and their binary conversions
# (plistutil, when installed) to the fuzzing corpus DIR.
set -eu
dir=$1
shared="$(dirname "$0")/../fixtures/kpep-data"
[ -d "$shared" ] || { echo "seed: $shared absent; fuzzing from tests/fuzz/corpus only"; exit 0; }
for f in "$shared"/*.plist; do
	b=$(basename "$f" .plist)
	cp -n "$f" "$dir/real-$b.plist"
	if command -v plistutil >/dev/null 2>&1 && [ ! -e "$dir/real-$b.bplist" ]; then
		if plistutil -h 2>&1 | grep -q -- '--format'; then plistutil -i "$f" -o "$dir/real-$b.bplist" -f bin
		else plistutil -i "$f" -o "$dir/real-$b.bplist"; fi
	fi
done
