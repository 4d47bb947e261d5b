# valgrind backend and calibrate under sudo: the command runs as SUDO_UID and can write cachegrind's output
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
P="$LAUKA_BUILD/lauka-probe"
su nobody -s /bin/sh -c "test -x '$P'" 2>/dev/null || skip "nobody cannot run '$P'"
chmod 755 "$PWD"
mkdir t && chmod 1777 t
export TMPDIR="$PWD/t" SUDO_UID=$uid SUDO_GID=$gid

cat > who.sh <<EOS
#!/bin/sh
id -u > "$PWD/t/uid"
EOS
chmod 755 who.sh
run "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5" "$PWD/who.sh"
expect_rc 0
row_of 1 Ir | grep -q '^Ir  *3[01][0-9]K ± 0 ' || fail "no count under sudo: $out"
[ "$(cat t/uid)" = "$uid" ] || fail "the command ran as uid $(cat t/uid), not $uid"

run "$LAUKA" calibrate --backend valgrind --quick --db "$PWD/t/cal.db"
expect_rc 0
expect_out '^13 events: 9 validated'
[ "$(stat -c %u t/cal.db)" = "$uid" ] || fail "the database belongs to $(stat -c %u t/cal.db)"
[ -z "$(ls t | grep lauka-valgrind)" ] || fail "cachegrind output left behind: $(ls t)"
exit 0
