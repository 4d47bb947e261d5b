# Under sudo the xctrace self-check keeps its result with the invoking user's ids: a link the user
# put at the state file's name is not followed, the victim stays whole and root's
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
chmod 755 "$PWD"
mkdir R && echo secret > R/victim && chmod 600 R/victim
mkdir -p H/.local/share/lauka && chown -R "$uid:$gid" H
ln -s "$PWD/R/victim" H/.local/share/lauka/xctrace-check
export SUDO_UID=$uid SUDO_GID=$gid HOME="$PWD/H" LAUKA_DB="$PWD/H/.local/share/lauka/lauka.db"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin"
export LAUKA_KPEP_FILE="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
export LAUKA_XCTRACE_TEMPLATE="$LAUKA_SRCDIR/tests/fixtures/xctrace-data/cpu-counters-template-legacy.xml"
run "$LAUKA" doctor --backend xctrace
[ "$(cat R/victim)" = secret ] || fail "the victim was changed: $(cat R/victim)"
[ "$(stat -c %u:%a R/victim)" = 0:600 ] || fail "the victim is now $(stat -c %u:%a R/victim)"
[ -L H/.local/share/lauka/xctrace-check ] || fail "the link was replaced"
exit 0
