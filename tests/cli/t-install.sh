# make install/uninstall with DESTDIR and PREFIX: the files in their places, nothing outside DESTDIR, the installed lauka finds its probe from any directory, uninstall leaves nothing install created; make dist; the Homebrew formula by Homebrew's rules, its checksum, install and test blocks; the release steps
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

# -Werror only in developer and CI builds (issue 30): a plain make, make install and the sanitizer
# build compile without it (a newer compiler's new warning must not stop a distribution's build);
# DEV=1 and the test targets compile with it.  make -n -B prints every compile line it would run.
werror() { # goal... -> how many of the compile lines it would run carry -Werror, of how many
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEV make -n -B V=1 --no-print-directory -C "$src" \
		BUILD="$PWD/flags" "$@" 2>/dev/null | awk '/ -Wall /{n++; if (/ -Werror /) w++} END{print w+0 "/" n+0}'
}
for goal in build-all install 'install SANITIZE=1' 'build-all DEV=0'; do
	got=$(werror $goal)
	case $got in 0/0) fail "make -n $goal: no compile line" ;; 0/*) ;; *) fail "make $goal compiles with -Werror ($got lines)" ;; esac
done
for goal in 'build-all DEV=1' test-unit 'test-unit SANITIZE=1'; do
	got=$(werror $goal)
	[ "${got%/*}" = "${got#*/}" ] && [ "$got" != 0/0 ] || fail "make $goal: -Werror on $got compile lines, want all"
done
[ ! -e flags ] || fail "make -n wrote $PWD/flags"

# A prefix that does not exist: nothing may appear there.
prefix=/nonexistent-lauka-prefix-$$
stage=$PWD/stage
run mk install DESTDIR="$stage" PREFIX="$prefix"
expect_rc 0
[ ! -e "$prefix" ] || fail "make install with DESTDIR wrote to $prefix"
files=$(cd "$stage" && find . -type f | sort)
spawn=$([ "$(uname -s)" = Linux ] && echo "./$prefix/libexec/lauka/lauka-spawn")
want=$(printf '%s\n' "./$prefix/bin/lauka" "./$prefix/libexec/lauka/lauka-probe" $spawn "./$prefix/libexec/lauka/installed-dirs" \
	"./$prefix/share/man/man1/lauka.1" \
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

# uninstall removes every file it installed, and only those, and every directory it created that
# is empty then: here the whole staged tree but the directory that holds another program's file.
touch "$stage$prefix/bin/other-tool"
run mk uninstall DESTDIR="$stage" PREFIX="$prefix"
expect_rc 0
printf '%s\n' "$out$err" | grep -q 'Error\|ignored' && fail "a successful uninstall reported an error: $out$err"
left=$(cd "$stage" && find . -mindepth 1 | sed 's://*:/:g' | sort)
want=$(printf '%s\n' ".$prefix" ".$prefix/bin" ".$prefix/bin/other-tool" | sed 's://*:/:g' | sort)
[ "$left" = "$want" ] || fail "after uninstall:
$left
want:
$want"
run mk uninstall DESTDIR="$stage" PREFIX="$prefix"
expect_rc 0
[ -f "$stage$prefix/bin/other-tool" ] || fail "a second uninstall removed another program's file"
# Directories that were there before install stay, empty or not; installing twice keeps the record
# of what the first install created.
stage2=$PWD/stage2
mkdir -p "$stage2$prefix/share/zsh/site-functions" "$stage2$prefix/bin"
run mk install DESTDIR="$stage2" PREFIX="$prefix"
expect_rc 0
run mk install DESTDIR="$stage2" PREFIX="$prefix"
expect_rc 0
run mk uninstall DESTDIR="$stage2" PREFIX="$prefix"
expect_rc 0
left=$(cd "$stage2" && find . -mindepth 1 | sed 's://*:/:g' | sort)
want=$(printf '%s\n' ".$prefix" ".$prefix/bin" ".$prefix/share" ".$prefix/share/zsh" ".$prefix/share/zsh/site-functions" |
	sed 's://*:/:g' | sort)
[ "$left" = "$want" ] || fail "after install, install, uninstall over existing directories:
$left
want:
$want"

# The Homebrew formula, by Homebrew's rules (tests/support/brew-standin.rb cites the source of each).
rb="$src/packaging/homebrew/lauka.rb"
standin="$src/tests/support/brew-standin.rb"
v=$(cat "$src/VERSION")
fv=$(sed -n 's#^  url "[^"]*/lauka-\([0-9][^"/]*\)\.tar\.gz"$#\1#p' "$rb")
[ -n "$fv" ] || fail "$rb: no url ending in lauka-VERSION.tar.gz"
for s in 'system "make", "install", "PREFIX=#{prefix}"' 'uses_from_macos "sqlite"' 'uses_from_macos "libxml2"' \
	'depends_on "libplist"' 'test do' 'lauka version' 'lauka counters' 'lauka-probe'; do
	grep -qF "$s" "$rb" || fail "$rb lacks: $s"
done
have_ruby=0
if command -v ruby >/dev/null 2>&1; then
	have_ruby=1
	run ruby "$standin" "$rb" audit
	expect_rc 0
else
	echo "ruby not installed (scripts/deps.sh check installs it): the formula is not audited"
fi

if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "not a git checkout: make dist not tested"
	exit 0
fi
# make dist: a tarball and its SHA-256; the same twice.
run mk dist DISTDIR="$PWD/dist"
expect_rc 0
[ -f "dist/lauka-$v.tar.gz" ] || fail "no dist/lauka-$v.tar.gz"
sum1=$(sha256sum "dist/lauka-$v.tar.gz" | cut -d' ' -f1)
grep -q "^$sum1  lauka-$v.tar.gz\$" "dist/lauka-$v.tar.gz.sha256" || fail "checksum file: $(cat "dist/lauka-$v.tar.gz.sha256"), tarball: $sum1"
run mk dist DISTDIR="$PWD/dist"
sum2=$(sha256sum "dist/lauka-$v.tar.gz" | cut -d' ' -f1)
[ "$sum1" = "$sum2" ] || fail "make dist is not reproducible: $sum1 then $sum2"
tar -tzf "dist/lauka-$v.tar.gz" > list.txt
for f in Makefile mk/install.mk doc/lauka.1 completions/_lauka src/lauka.c probes/lauka-probe.c VERSION \
	tests/fixtures/kpep-data/a14.plist tests/fixtures/kpep-data/as3.plist tests/fixtures/kpep-data/SOURCES.txt \
	tests/fixtures/xctrace-data/counters-profile.xml tests/fixtures/xctrace-data/SOURCES.txt; do
	grep -qx "lauka-$v/$f" list.txt || fail "tarball lacks $f"
done
# No test, fragment or script reads a folder beside the tree: the tarball's make check runs the tests
# a checkout's does (issue 30: the fixtures once lived in a folder beside the tree, and 8 tests skipped
# from the tarball).
mkdir unpacked && tar -xzf "dist/lauka-$v.tar.gz" -C unpacked || fail "cannot unpack the tarball"
beside=shared
hits=$(cd "unpacked/lauka-$v" && grep -rlIE "\.\./(\.\./)*$beside/|$beside/(kpep|xctrace)-data" tests mk scripts Makefile --exclude-dir=corpus)
[ -z "$hits" ] || fail "these read ../$beside, absent beside a tarball: $hits"

# The formula's checksum is the release tarball's: once v$VERSION is tagged, make dist archives the tag.
if git -C "$src" rev-parse -q --verify "refs/tags/v$fv^{commit}" >/dev/null 2>&1; then
	if [ "$fv" = "$v" ]; then
		lit=$(sed -n 's/^  sha256 "\([0-9a-f]*\)"$/\1/p' "$rb")
		[ "$lit" = "$sum1" ] || fail "$rb: sha256 $lit, but make dist (of tag v$v) gives $sum1: run make brew-formula"
	fi
else
	[ "$fv" = "$v" ] || fail "$rb names $fv, VERSION is $v, and v$fv is not tagged"
	echo "v$v is not tagged (not released): the formula's checksum is checked once it is"
	run mk brew-formula DISTDIR="$PWD/dist"
	expect_rc 2; expect_err "no tag v$v"; expect_err "fix: tag the release first"  # make's code for a failed recipe
fi

# The release steps, rehearsed on a clone (tags made there stay there): tag, make brew-formula, and the
# formula's checksum is the tarball's; a later commit does not change the release tarball; brew's
# install and test blocks (the stand-in) build, install and run it from that tarball.
git init -q clone && git -C clone fetch -q --no-tags "$src" HEAD && git -C clone checkout -q FETCH_HEAD ||
	fail "cannot clone $src"
git -C clone tag "v$v" || fail "cannot tag the clone"
crb=clone/packaging/homebrew/lauka.rb
run make -s --no-print-directory -C clone brew-formula DISTDIR="$PWD/rel"
expect_rc 0
rsum=$(sha256sum "rel/lauka-$v.tar.gz" | cut -d' ' -f1)
grep -qx "  sha256 \"$rsum\"" "$crb" || fail "after make brew-formula: $(grep sha256 "$crb"), tarball: $rsum"
grep -qx "  url \"[^\"]*/lauka-$v.tar.gz\"" "$crb" || fail "after make brew-formula: $(grep url "$crb")"
git -C clone -c user.name=t -c user.email=t@example.org commit -q --allow-empty -m later
run make -s --no-print-directory -C clone dist DISTDIR="$PWD/rel2"
expect_rc 0
[ "$(sha256sum "rel2/lauka-$v.tar.gz" | cut -d' ' -f1)" = "$rsum" ] || fail "make dist after a later commit is not the tag's tarball"
if [ "$san" = 0 ] && [ "$have_ruby" = 1 ]; then
	# Not under ASan: building once is enough.
	printf x >> "rel2/lauka-$v.tar.gz"
	run ruby "$standin" "$crb" install "rel2/lauka-$v.tar.gz" "$PWD/brew-prefix"
	expect_rc 1; expect_err "SHA256 mismatch"
	run ruby "$standin" "$crb" install "rel/lauka-$v.tar.gz" "$PWD/brew-prefix"
	expect_rc 0
	[ -x brew-prefix/bin/lauka ] && [ -f brew-prefix/etc/bash_completion.d/lauka ] &&
		[ -f brew-prefix/share/man/man1/lauka.1 ] || fail "brew install: $(cd brew-prefix && find . -type f)"
	run env -u LAUKA_DB -u LAUKA_PROBE ruby "$standin" "$crb" test "$PWD/brew-prefix" "$PWD/brew-test"
	expect_rc 0
fi
