# scripts/deps.sh names every package it will install, and why, before apt-get runs; nothing at all when nothing is missing
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
deps="$LAUKA_SRCDIR/scripts/deps.sh"
[ "$(uname -s)" = Linux ] || skip "the apt-get path is Debian's"

# A PATH with every command of this one but zsh and hyperfine, an apt-get that only says how it was
# called (on stderr, which deps.sh leaves open, so its place among deps.sh's lines shows), and id
# saying root, so no sudo is needed.
mkdir bin
old_ifs=$IFS; IFS=:
for d in $PATH; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		b=${f##*/}
		[ -x "$f" ] && [ ! -e "bin/$b" ] && ln -s "$f" "bin/$b"
	done
done
IFS=$old_ifs
rm -f bin/zsh bin/hyperfine bin/apt-get bin/id bin/sudo
printf '#!/bin/sh\necho "APT-GET $*" >&2\necho "APT-SAYS $1"\n' > bin/apt-get
printf '#!/bin/sh\necho 0\n' > bin/id
chmod +x bin/apt-get bin/id

PATH="$PWD/bin" sh "$deps" check > log 2>&1 || fail "deps.sh check: $(cat log)"
first_apt=$(grep -n '^APT-GET' log | head -n 1 | cut -d: -f1)
[ -n "$first_apt" ] || fail "apt-get was not called: $(cat log)"
listed=$(head -n "$first_apt" log | awk '/^  [a-z0-9][a-z0-9.+-]+ +[^ ]/ {print $1}' | sort)
for p in zsh hyperfine; do
	printf '%s\n' "$listed" | grep -qx "$p" || fail "$p is not named before apt-get runs: $(cat log)"
done
# each line gives a reason of its own words, not just the name
grep -q '^  zsh  *the zsh completion tests$' log || fail "no reason given for zsh: $(cat log)"
grep -q '^  hyperfine  *.*cross-check' log || fail "no reason given for hyperfine: $(cat log)"
installed=$(sed -n 's/^APT-GET install .*--no-install-recommends //p' log | tr ' ' '\n' | sed '/^$/d' | sort)
[ "$installed" = "$listed" ] || fail "announced:
$listed
installed:
$installed"
grep -q 'make test-all runs the tests without installing anything' log || fail "no word on how not to install: $(cat log)"

# npm is for make check-macos only (deps.sh macos, which .ci/run calls before it), never make check's.
grep -q '^  npm ' log && fail "deps.sh check installs npm, which only check-macos uses: $(cat log)"
# apt-get's output is shown (it was sent to /dev/null: no progress in a long install).
grep -q '^APT-SAYS install' log || fail "apt-get install's output is hidden: $(cat log)"

# Nothing missing for a build: one line saying so, and apt-get is not called.  (lauka is built, so
# only libpfm4's header, which it builds without, can be missing.)
[ -f /usr/include/perfmon/pfmlib_perf_event.h ] || exit 0
PATH="$PWD/bin" sh "$deps" build > log 2>&1 || fail "deps.sh build: $(cat log)"
[ "$(cat log)" = "deps: all present for scripts/deps.sh build" ] || fail "deps.sh build with nothing missing said: $(cat log)"
