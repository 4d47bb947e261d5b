# Under sudo valgrind's private directory is the invoking user's: a link the measured command puts
# at .space or at a cg.* name reaches no root-only file (read, probed and emptied as the user, no
# link followed), and the victim stays whole and root's
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
chmod 755 "$PWD"
mkdir R && echo secret > R/victim && chmod 600 R/victim
mkdir t && chmod 1777 t && mkdir U && chown "$uid:$gid" U
export TMPDIR="$PWD/t" SUDO_UID=$uid SUDO_GID=$gid LAUKA_DB="$PWD/U/l.db"
victim_intact() {
	[ "$(cat R/victim)" = secret ] || fail "the victim was changed: $(od -c R/victim | head -2)"
	[ "$(stat -c %u:%a R/victim)" = 0:600 ] || fail "the victim is now $(stat -c %u:%a R/victim)"
}
cat > plant.sh <<EOS
#!/bin/sh
for d in $PWD/t/lauka-valgrind.*; do ln -s $PWD/R/victim \$d/.space; echo junk > \$d/cg.1.out; done
EOS
chmod 755 plant.sh
run "$LAUKA" record --backend valgrind -m Ir -- "$PWD/plant.sh"
[ "$rc" -ne 0 ] || fail "a junk output file was accepted"
expect_err "cg.1.out.*not a cachegrind or callgrind output file"
victim_intact

# A root-only file shaped like callgrind output, linked in as an output file, is not read.
cat > R/cg.out <<EOS
events: Ir
summary: 999999999
EOS
chmod 600 R/cg.out
cat > plant.sh <<EOS
#!/bin/sh
for d in $PWD/t/lauka-valgrind.*; do ln -s $PWD/R/cg.out \$d/cg.1.out; done
EOS
run "$LAUKA" record --backend valgrind -m Ir -- "$PWD/plant.sh"
[ "$rc" -ne 0 ] || fail "a link to a root-only file was read as valgrind's output: $out"
expect_err "cannot read valgrind's output.*cg.1.out"
[ "$(stat -c %u:%a R/cg.out)" = 0:600 ] || fail "R/cg.out is now $(stat -c %u:%a R/cg.out)"
victim_intact
[ -z "$(ls t)" ] || fail "left behind: $(ls -a t/*)"
exit 0
