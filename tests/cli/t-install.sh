# make install/uninstall with DESTDIR and PREFIX: the files in their places, nothing outside DESTDIR, the installed lauka finds its probe from any directory; make dist; the Homebrew formula
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
src=$LAUKA_SRCDIR
san=0
case $(basename "$LAUKA_BUILD") in build-san*) san=1 ;; esac
mk() { make -s --no-print-directory -C "$src" BUILD="$LAUKA_BUILD" SANITIZE=$san "$@"; }

# relpath.sh, by table (the path an installed lauka follows from BINDIR to LIBEXECDIR)
while read -r from to want; do
	got=$(sh "$src/scripts/relpath.sh" "$from" "$to" 2>/dev/null) || got=error
	[ "$got" = "$want" ] || fail "relpath.sh $from $to: got '$got', want '$want'"
done <<'T'
/usr/local/bin /usr/local/libexec ../libexec
/usr/bin /usr/lib/x86_64-linux-gnu ../lib/x86_64-linux-gnu
/opt/lauka/bin /opt/lauka/bin .
/usr/local/bin/ /usr/local//libexec/ ../libexec
/a/b/c /a ../..
/ /usr/libexec usr/libexec
/foo/bar /foobar/baz ../../foobar/baz
/usr/lib/../bin /usr/libexec error
usr/bin /usr/libexec error
T

# A prefix that does not exist: nothing may appear there.
prefix=/nonexistent-lauka-prefix-$$
stage=$PWD/stage
run mk install DESTDIR="$stage" PREFIX="$prefix"
expect_rc 0
[ ! -e "$prefix" ] || fail "make install with DESTDIR wrote to $prefix"
files=$(cd "$stage" && find . -type f | sort)
spawn=$([ "$(uname -s)" = Linux ] && echo "./$prefix/libexec/lauka/lauka-spawn")
want=$(printf '%s\n' "./$prefix/bin/lauka" "./$prefix/libexec/lauka/lauka-probe" $spawn "./$prefix/share/man/man1/lauka.1" \
	"./$prefix/share/bash-completion/completions/lauka" "./$prefix/share/zsh/site-functions/_lauka" \
	"./$prefix/share/fish/vendor_completions.d/lauka.fish" | sed 's://*:/:g' | sort)
[ "$files" = "$want" ] || fail "installed files:
$files
want:
$want"
[ -x "$stage$prefix/bin/lauka" ] && [ -x "$stage$prefix/libexec/lauka/lauka-probe" ] || fail "binaries not executable"
cmp -s "$stage$prefix/bin/lauka" "$LAUKA" || fail "installed lauka differs from $LAUKA"

# The installed tree works wherever it is, from any directory: move it, then run it from /.
mv "$stage$prefix" "$PWD/moved"
inst=$PWD/moved/bin/lauka
run "$inst" version
expect_rc 0; expect_out "^lauka "
if command -v valgrind >/dev/null 2>&1; then
	out=$(cd / && env -u LAUKA_PROBE "$inst" calibrate --backend valgrind --quick 2>&1) || fail "installed calibrate failed: $out"
	printf '%s\n' "$out" | grep -q "with $PWD/moved/bin/../libexec/lauka/lauka-probe" || fail "did not use the installed probe: $out"
	printf '%s\n' "$out" | grep -qE '^Ir +validated ' || fail "installed calibrate: Ir not validated: $out"
else
	echo "valgrind not installed: the installed lauka's calibration is not run"
	run "$inst" calibrate --backend rusage --plot /nonexistent-dir/x.svg
	expect_rc 1; expect_err "cannot write '/nonexistent-dir/x.svg'"
fi
# Without the probe: the error names both places looked at.
rm "$PWD/moved/libexec/lauka/lauka-probe"
run env -u LAUKA_PROBE "$inst" calibrate --backend rusage --quick
expect_rc 1; expect_err "moved/bin/lauka-probe' is missing, and so is '.*moved/bin/../libexec/lauka/lauka-probe'"
mv "$PWD/moved" "$stage$prefix"
if command -v man >/dev/null 2>&1; then
	run env MANWIDTH=80 man -l "$stage$prefix/share/man/man1/lauka.1"
	expect_rc 0; expect_out "EXIT STATUS"
fi

# uninstall removes every file it installed, and only those.
touch "$stage$prefix/bin/other-tool"
run mk uninstall DESTDIR="$stage" PREFIX="$prefix"
expect_rc 0
left=$(cd "$stage" && find . -type f | sort)
[ "$left" = "./$prefix/bin/other-tool" ] || [ "$left" = ".$prefix/bin/other-tool" ] || fail "after uninstall: $left"

# The Homebrew formula: built from the tarball with make and make install PREFIX, the dependencies, a test block.
rb="$src/packaging/homebrew/lauka.rb"
for s in 'depends_on "libplist"' 'depends_on "sqlite"' 'depends_on "pkg-config" => :build' 'depends_on "libxml2"' \
	'system "make", "install", "PREFIX=#{prefix}"' 'test do' 'lauka version' 'lauka counters'; do
	grep -qF "$s" "$rb" || fail "$rb lacks: $s"
done
grep -q "release = \"$(cat "$src/VERSION")\"" "$rb" || fail "$rb: release is not VERSION ($(cat "$src/VERSION"))"
if command -v ruby >/dev/null 2>&1; then ruby -c "$rb" >/dev/null || fail "ruby -c $rb"; fi

# make dist: a tarball of HEAD and its SHA-256; the same twice.
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "not a git checkout: make dist not tested"
	exit 0
fi
v=$(cat "$src/VERSION")
run mk dist DISTDIR="$PWD/dist"
expect_rc 0
[ -f "dist/lauka-$v.tar.gz" ] || fail "no dist/lauka-$v.tar.gz"
sum1=$(sha256sum "dist/lauka-$v.tar.gz" | cut -d' ' -f1)
grep -q "^$sum1  lauka-$v.tar.gz\$" "dist/lauka-$v.tar.gz.sha256" || fail "checksum file: $(cat "dist/lauka-$v.tar.gz.sha256"), tarball: $sum1"
run mk dist DISTDIR="$PWD/dist"
sum2=$(sha256sum "dist/lauka-$v.tar.gz" | cut -d' ' -f1)
[ "$sum1" = "$sum2" ] || fail "make dist is not reproducible: $sum1 then $sum2"
tar -tzf "dist/lauka-$v.tar.gz" > list.txt
for f in Makefile mk/install.mk doc/lauka.1 completions/_lauka src/lauka.c probes/lauka-probe.c VERSION; do
	grep -qx "lauka-$v/$f" list.txt || fail "tarball lacks $f"
done
# What the formula does, on this machine: build from the tarball and install (not under ASan: once is enough).
if [ "$san" = 0 ]; then
	tar -xzf "dist/lauka-$v.tar.gz"
	bp=$PWD/brew-prefix
	( cd "lauka-$v" && make -s -j2 >build.log 2>&1 && make -s install PREFIX="$bp" >>build.log 2>&1 ) ||
		fail "building the tarball failed: $(tail -20 "lauka-$v/build.log")"
	run env LAUKA_DB="$PWD/t.db" "$PWD/brew-prefix/bin/lauka" counters --backend rusage
	expect_rc 0; expect_out wall_time
fi
