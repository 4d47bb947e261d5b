# lauka counters under sudo: the database and its new directories belong to the invoking user
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
chmod 755 "$PWD"
mkdir u && chown "$uid:$gid" u	# the user's own directory: lauka creates only where the user could
SUDO_UID=$uid SUDO_GID=$gid "$LAUKA" counters --backend rusage --db "$PWD/u/new/dir/l.db" >/dev/null || fail "run failed"
cd u
for f in new new/dir new/dir/l.db; do
	[ "$(stat -c %u:%g "$f")" = "$uid:$gid" ] || fail "$f belongs to $(stat -c %u:%g "$f"), not $uid:$gid"
done
for f in new/dir/l.db-wal new/dir/l.db-shm; do
	[ ! -e "$f" ] || [ "$(stat -c %u "$f")" = "$uid" ] || fail "$f belongs to root"
done
# An existing directory keeps its owner.
[ "$(stat -c %u ..)" -eq 0 ] || fail "the existing directory changed owner"
exit 0
