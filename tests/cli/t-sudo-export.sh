# Under sudo exports and plots are written with the invoking user's ids: a root-owned directory,
# or a link the user planted to a root-only file, is refused and root's file stays as it was
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID)"
uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
gid=$(id -g nobody)
chmod 755 "$PWD"
mkdir R && echo secret > R/victim && chmod 600 R/victim	# R stands in for /etc
mkdir U && chown "$uid:$gid" U
export SUDO_UID=$uid SUDO_GID=$gid LAUKA_DB="$PWD/U/l.db"
victim_intact() {
	[ "$(cat R/victim)" = secret ] || fail "the victim was changed: $(od -c R/victim | head -2)"
	[ "$(stat -c %u:%a R/victim)" = 0:600 ] || fail "the victim is now $(stat -c %u:%a R/victim)"
	[ "$(ls R)" = victim ] || fail "lauka created in the root-owned directory: $(ls -l R)"
}
rec() { run "$LAUKA" record --backend rusage -n 3 "$@" -- true "sleep 0"; }

rec --export-json "$PWD/R/a.json"
[ "$rc" -ne 0 ] || fail "--export-json in a root-owned directory succeeded"
expect_err "^error: .*R/a.json.*Permission denied"
victim_intact
rec --export-csv "$PWD/R/a.csv"
[ "$rc" -ne 0 ] || fail "--export-csv in a root-owned directory succeeded"
victim_intact
rec --plot "$PWD/R/p.svg"
[ "$rc" -ne 0 ] || fail "--plot in a root-owned directory succeeded"
victim_intact
ln -s "$PWD/R/victim" U/out.json
rec --export-json "$PWD/U/out.json"
[ "$rc" -ne 0 ] || fail "an export through the user's link to a root-only file succeeded"
victim_intact

# Where the user may write, it works and the files are theirs.
rec --export-json "$PWD/U/ok.json" --plot "$PWD/U/ok.svg"
expect_rc 0
for f in U/ok.json U/ok.svg; do
	[ "$(stat -c %u:%g "$f")" = "$uid:$gid" ] || fail "$f belongs to $(stat -c %u:%g "$f")"
done
exit 0
