#!/bin/sh
# src/ layout: every source sits in a layer folder and no include runs up a layer
. "$(dirname "$0")/lib.sh"
src="$LAUKA_SRCDIR/src"
# Layer order, low to high (src/README.md says what each owns).  Folders on
# one rank may include each other; a file may include only its own rank or below.
rank() {
	case "$1" in
	base) echo 0 ;;
	stats | catalog) echo 1 ;;
	backend) echo 2 ;;
	spawn) echo 3 ;;
	machine) echo 4 ;;
	output) echo 5 ;;
	record) echo 6 ;;
	cmd) echo 7 ;;
	lauka.c) echo 8 ;;
	*) echo "" ;;
	esac
}
bad=0
files=$(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort)
[ -n "$files" ] || fail "no sources under $src"
for f in $files; do
	top=${f%%/*}
	r=$(rank "$top")
	if [ -z "$r" ]; then
		echo "src/$f: not in a layer folder (add it to one, or to this test and src/README.md)"
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*"/\1/p' "$src/$f" | sort -u); do
		ir=$(rank "$inc")
		if [ -z "$ir" ]; then
			echo "src/$f: includes from unknown folder '$inc'"
			bad=1
		elif [ "$ir" -gt "$r" ]; then
			echo "src/$f ($top, layer $r) includes $inc/ (layer $ir): an upward include"
			bad=1
		fi
	done
	# A quoted include without a folder can only be generated data (build/gen).
	for inc in $(sed -n 's/^#include "\([^/"]*\)"/\1/p' "$src/$f"); do
		case "$inc" in
		*.inc | install-dirs.h) ;;
		*) echo "src/$f: #include \"$inc\" does not name its folder"; bad=1 ;;
		esac
	done
done
# Within the kperf backend, fw.* (frameworks and the Darwin seam) is the lowest layer: kperf.h
# includes fw.h, and fw.* includes nothing else from backend/kperf/.
for f in "$src"/backend/kperf/fw.*; do
	[ -f "$f" ] || { echo "src/backend/kperf/fw.* is missing"; bad=1; continue; }
	for inc in $(sed -n 's/^#include "backend\/kperf\/\([^"]*\)"/\1/p' "$f"); do
		case "$inc" in
		fw.h) ;;
		*) echo "src/backend/kperf/${f##*/} includes backend/kperf/$inc: fw is the kperf backend's lowest layer"; bad=1 ;;
		esac
	done
done
[ -f "$src/README.md" ] || { echo "src/README.md is missing"; bad=1; }
for d in $(cd "$src" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||'); do
	grep -q "^- \`$d/\`" "$src/README.md" 2>/dev/null || { echo "src/README.md does not describe $d/"; bad=1; }
done
# No function over 120 lines: one that long owns more than one concern (a body runs from a
# "{" alone at the start of a line to the next "}" alone there, as every function here is written).
long=$(cd "$src" && find . -name '*.c' | sort | xargs awk '
	FNR == 1 { start = 0 }
	/^\{$/ { start = FNR; name = prev }
	/^\}$/ && start { if (FNR - start + 1 > 120) printf "src/%s:%d: %s is %d lines\n", substr(FILENAME, 3), start, name, FNR - start + 1; start = 0 }
	{ prev = $0 }')
if [ -n "$long" ]; then
	echo "$long"
	echo "split these into functions of one concern each (at most 120 lines)"
	bad=1
fi
[ "$bad" -eq 0 ] || fail "src/ layout check failed"
exit 0
