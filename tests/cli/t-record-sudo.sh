# lauka record under sudo: the measured command runs as SUDO_UID/SUDO_GID with that user's groups and HOME
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
home=$(getent passwd nobody | cut -d: -f6)
chmod 755 "$PWD"
check="test \$(id -u) = $uid && test \$(id -g) = $gid && test \$(id -ru) = $uid && test \"\$HOME\" = $home && test \"\$USER\" = nobody"
# -G: no group of root's may survive (the user's supplementary groups only).
check="$check && ! id -G | tr ' ' '\\n' | grep -qx 0"
run env SUDO_UID="$uid" SUDO_GID="$gid" "$LAUKA" record --backend rusage --db "$PWD/l.db" -- "sh -c '$check'"
expect_rc 0
expect_out "wall_time"
# Without sudo variables the command runs as root.
run "$LAUKA" record --backend rusage --db "$PWD/l.db" -- "sh -c 'test \$(id -u) = 0'"
expect_rc 0
# A root SUDO_UID (sudo from root) changes nothing.
run env SUDO_UID=0 SUDO_GID=0 "$LAUKA" record --backend rusage --db "$PWD/l.db" -- "sh -c 'test \$(id -u) = 0'"
expect_rc 0
exit 0
