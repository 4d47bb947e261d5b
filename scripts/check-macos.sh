#!/bin/sh
# scripts/check-macos.sh: compile-check every macOS source on Linux with
# zig cc (scripts/zig.sh installs it on first use): each src/**/*.c, each C
# file under probes/ and, when check.h is installed, the unit tests and the
# kperf stand-in, for every target below, with the project's warnings
# and -Werror.  Objects are thrown away: this proves the code compiles
# against Apple's headers (as bundled with zig 0.11: macOS 11-13), nothing
# more.  The libplist, SQLite and check headers are not in zig's macOS
# sysroot, so just those headers (and libxml2's) are copied from the Linux system into a
# private include directory (never the whole of /usr/include, whose libc
# headers would shadow Apple's).
#
# Then it replays the fixtures real Macs recorded, when there are any (tests/fixtures/macos).
#
#   MACOS_TARGETS="aarch64-macos x86_64-macos aarch64-macos.13.0"  (default;
#   11.7 is zig's default minimum, whose headers lack RUSAGE_INFO_V6; 13.0 has it)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
zig=$(sh scripts/zig.sh)
targets=${MACOS_TARGETS:-aarch64-macos x86_64-macos aarch64-macos.13.0}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lauka-macos.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

find_header() {	# $1 = header path relative to an include dir, $2 = pkg-config name
	for d in $(pkg-config --cflags-only-I "$2" 2>/dev/null | sed 's/-I//g') /usr/include /usr/local/include /opt/homebrew/include; do
		if [ -f "$d/$1" ]; then
			printf '%s\n' "$d/$1"
			return 0
		fi
	done
	return 1
}
mkdir -p "$tmp/inc/plist" "$tmp/gen"
if ! h=$(find_header plist/plist.h libplist-2.0); then
	echo "error: 'plist/plist.h' not found; install Debian package 'libplist-dev' (or run scripts/deps.sh)" >&2
	exit 1
fi
cp "$h" "$tmp/inc/plist/plist.h"
if ! h=$(find_header sqlite3.h sqlite3); then
	echo "error: 'sqlite3.h' not found; install Debian package 'libsqlite3-dev' (or run scripts/deps.sh)" >&2
	exit 1
fi
cp "$h" "$tmp/inc/sqlite3.h"
# libxml2: the macOS SDK has its own headers (usr/include/libxml2); zig's sysroot has
# none, so the Linux ones stand in, with one change: Debian builds libxml2 with ICU
# (its encoding.h then includes <unicode/ucnv.h>, absent from macOS), Apple's with
# iconv only, so LIBXML_ICU_ENABLED is switched off as Apple's xmlversion.h has it.
if ! h=$(find_header libxml2/libxml/xmlreader.h libxml-2.0) && ! h=$(find_header libxml/xmlreader.h libxml-2.0); then
	echo "error: 'libxml/xmlreader.h' not found; install Debian package 'libxml2-dev' (or run scripts/deps.sh)" >&2
	exit 1
fi
cp -R "$(dirname "$h")" "$tmp/inc/libxml"
sed 's|^#define LIBXML_ICU_ENABLED$|/* LIBXML_ICU_ENABLED: off, as in the macOS SDK */|' "$(dirname "$h")/xmlversion.h" > "$tmp/inc/libxml/xmlversion.h"
# check.h (optional): lets the unit tests and the kperf stand-in be checked too.
tests=""
if h=$(find_header check.h check) && [ -f "$(dirname "$h")/check_stdint.h" ]; then
	cp "$h" "$(dirname "$h")/check_stdint.h" "$tmp/inc/"
	tests=$(ls tests/*.c tests/support/*.c 2>/dev/null || true)
	# the suite list check_main.c includes, generated as the Makefile does
	sed -n 's/^Suite \*\([a-z0-9_]*_suite\)(void).*/SUITE(\1)/p' $(ls tests/check_*.c | grep -v check_main.c) > "$tmp/gen/suites.h"
fi
# every data file the Makefile embeds (its CATALOG_DATA)
for f in catalog/*.sql catalog/*.tsv catalog/*.json; do
	[ -f "$f" ] || continue
	sh scripts/embed.sh "$f" > "$tmp/gen/$(basename "$f").inc"
done
# the install layout mk/install.mk writes (BINDIR to LIBEXECDIR)
echo "#define LAUKA_LIBEXEC_REL \"$(sh scripts/relpath.sh /usr/local/bin /usr/local/libexec)\"" > "$tmp/gen/install-dirs.h"

export ZIG_GLOBAL_CACHE_DIR="$root/.cache/zig/cache" ZIG_LOCAL_CACHE_DIR="$root/.cache/zig/cache"
srcs="$(find src -name '*.c' | sort; find probes -name '*.c' 2>/dev/null | sort || true) $tests"
flags="-std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
 -D_DARWIN_C_SOURCE -DLAUKA_VERSION=\"check\" -DLAUKA_GIT_REV=\"check\" -iquote src -iquote $tmp/gen -isystem $tmp/inc
 -iquote tests -DLAUKA_SRCDIR=\"$root\" -DLAUKA_BUILD=\"$root/build\""
n=0
fail=0
for t in $targets; do
	for f in $srcs; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		# Not -o /dev/null: zig 0.11 then also leaves <name>.o in the current directory.
		extra=""
		case "$f" in tests/*) extra="-Wno-missing-prototypes" ;; esac	# as the Makefile builds tests
		# shellcheck disable=SC2086
		if ! "$zig" cc -target "$t" $flags $extra -c "$f" -o "$tmp/out.o" 2>"$tmp/err"; then
			echo "check-macos: $t: $f failed:" >&2
			cat "$tmp/err" >&2
			fail=$((fail + 1))
		fi
	done
done
if [ "$fail" -ne 0 ]; then
	echo "check-macos: $fail of $n compilations failed" >&2
	exit 1
fi
echo "check-macos: $n compilations clean ($(echo $srcs | wc -w) files x targets: $targets)"

# C9 (audit 4): replay what real Macs recorded (tests/fixtures/macos/README.md defines the set,
# scripts/macos-fixtures.sh records it): the doctor JSON is checked here, the kdebug dumps by the
# kperf unit suite, the xctrace exports by t-xctrace-fixtures.sh.  MACOS_FIXTURES: another directory.
fx=${MACOS_FIXTURES:-tests/fixtures/macos}
dirs=$(for d in "$fx"/*/; do if [ -d "$d" ]; then printf '%s\n' "${d%/}"; fi; done)
if [ -z "$dirs" ]; then
	echo "check-macos: no fixtures from a real Mac yet (see $fx/README.md; scripts/macos-fixtures.sh records them)"
	exit 0
fi
for d in $dirs; do
	[ -f "$d/doctor-macos.json" ] || continue
	python3 - "$d/doctor-macos.json" <<'PY' || { echo "check-macos: $d/doctor-macos.json does not replay" >&2; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["facts"]}
need = ("ktrace.state", "ktrace.owning_pid", "ktrace.background_pid", "ktrace.configured_by", "kperf.action.count",
        "kperf.sampling", "kperf.lightweight_pet", "kpc.counting", "kpc.thread_counting", "kpc.force_all_ctrs",
        "kpc counters", "DevToolsSecurity -status", "xcode-select -p", "cycle")
missing = [k for k in need if k not in f]
assert not missing, "missing answers: %s" % missing
print("check-macos: %s: %s" % (sys.argv[1], "; ".join("%s=%s" % (k, f[k]["observed"]) for k in need[:11])))
PY
done
case "$fx" in /*) ;; *) fx="$root/$fx" ;; esac
make -s build/check_lauka build/libkperf-standin.so build/kperf-spin build/lauka build/lauka-probe >/dev/null
export LAUKA_MACOS_FIXTURES="$fx"
CK_RUN_SUITE=kperf CK_RUN_CASE=agg build/check_lauka
sh tests/cli/run.sh build t-xctrace-fixtures.sh
