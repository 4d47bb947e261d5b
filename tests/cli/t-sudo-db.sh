# Under sudo the database and its directories are made with the invoking user's ids: --db in a
# root-owned directory, a link planted at the default path, and a link to a root-only file leave
# root's files untouched and root's
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
chmod 755 "$PWD"
mkdir R && echo secret > R/victim && chmod 600 R/victim	# R stands in for /etc
mkdir -p H/.local/share/lauka && chown -R "$uid:$gid" H
export SUDO_UID=$uid SUDO_GID=$gid
victim_intact() {
	[ "$(cat R/victim)" = secret ] || fail "the victim was changed: $(od -c R/victim | head -2)"
	[ "$(stat -c %u:%a R/victim)" = 0:600 ] || fail "the victim is now $(stat -c %u:%a R/victim)"
	[ "$(ls R)" = victim ] || fail "lauka created in the root-owned directory: $(ls -l R)"
}

run "$LAUKA" counters --backend rusage --db "$PWD/R/ld.so.preload"
[ "$rc" -ne 0 ] || fail "--db in a root-owned directory succeeded"
expect_err "^error: cannot create database '$PWD/R/ld.so.preload'"
victim_intact
run "$LAUKA" counters --backend rusage --db "$PWD/R/x.service.d/sub/x.db"
[ "$rc" -ne 0 ] || fail "--db below a root-owned directory succeeded"
expect_err "cannot create directory '$PWD/R/x.service.d'.*Permission denied"
victim_intact

# The default path (under XDG_DATA_HOME here): a dangling link, then a link to a root-only file.
unset LAUKA_DB
export XDG_DATA_HOME="$PWD/H/.local/share"
ln -s "$PWD/R/new" H/.local/share/lauka/lauka.db
run "$LAUKA" counters --backend rusage
[ "$rc" -ne 0 ] || fail "a link at the default path to a root-owned directory was followed"
victim_intact
rm H/.local/share/lauka/lauka.db
ln -s "$PWD/R/victim" H/.local/share/lauka/lauka.db
run "$LAUKA" counters --backend rusage
[ "$rc" -ne 0 ] || fail "a link at the default path to a root-only file was followed"
victim_intact

# What the user may write still works, and is theirs.
rm H/.local/share/lauka/lauka.db
run "$LAUKA" counters --backend rusage
expect_rc 0
for f in H/.local/share/lauka/lauka.db H/.local/share/lauka/lauka.db-*; do
	[ ! -e "$f" ] || [ "$(stat -c %u "$f")" = "$uid" ] || fail "$f belongs to $(stat -c %u "$f")"
done
exit 0
