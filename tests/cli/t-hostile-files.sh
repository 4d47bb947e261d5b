# Files lauka writes (issue 21): the invoking user's under sudo, the replaced file's mode, a full disk or Ctrl-C never destroys the old file
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (simulates sudo with SUDO_UID/SUDO_GID and mounts a small tmpfs)"
owner() { stat -c '%u:%g %a' "$1"; }
chmod 777 .
uid=65534 gid=65534
rec() { run env SUDO_UID=$uid SUDO_GID=$gid "$LAUKA" record --color never --backend rusage -n 3 "$@"; }

# New exports and plots belong to the invoking user, 0666 less the umask.
umask 022
rec --export-json new.json --export-csv new.csv --export-markdown new.md --plot new.svg -- true 'sh -c true'
expect_rc 0
for f in new.json new.csv new.md new.svg; do
	[ "$(owner $f)" = "$uid:$gid 644" ] || fail "$f is $(owner $f), not $uid:$gid 644"
done
# A user's existing 0600 export and plot stay theirs and 0600 (they became root's 0644).  (Under sudo
# they are written as that user, so another user's file would become the invoking user's, as a
# rename by that user would make it: t-sudo-export.sh.)
echo old >mine.json; echo old >mine.svg
chown $uid:$gid mine.json mine.svg; chmod 600 mine.json mine.svg
rec --export-json mine.json --plot mine.svg -- true 'sh -c true'
expect_rc 0
for f in mine.json mine.svg; do
	[ "$(owner $f)" = "$uid:$gid 600" ] || fail "$f is $(owner $f), not $uid:$gid 600"
	[ "$(cat $f)" != old ] || fail "$f was not written"
done
[ -z "$(ls | grep '\.tmp-')" ] || fail "temporary files left: $(ls)"

# A full disk: the old plot and export stay whole, exit 2 (the plot was written in place: emptied, exit 1).
mkdir mnt
mount -t tmpfs -o size=64k tmpfs mnt 2>mount.err || skip "cannot mount a tmpfs: $(cat mount.err)"
trap 'umount "$PWD/mnt"' EXIT
trap 'exit 1' INT TERM HUP
head -c 20000 /dev/zero | tr '\0' x >mnt/old.svg
cp mnt/old.svg mnt/old.json
sum=$(cksum <mnt/old.svg)
dd if=/dev/zero of=mnt/fill bs=4096 2>/dev/null
run "$LAUKA" record --color never --backend rusage -n 3 --plot mnt/old.svg -- true 'sh -c true'
expect_rc 2
expect_err "^error: cannot write '.*old.svg': No space left on device$"
[ "$(cksum <mnt/old.svg)" = "$sum" ] || fail "a full disk destroyed the old plot"
run "$LAUKA" record --color never --backend rusage -n 3 --export-json mnt/old.json -- true
[ "$rc" -ne 0 ] || fail "an export to a full disk succeeded"
[ "$(cksum <mnt/old.json)" = "$sum" ] || fail "a full disk destroyed the old export"
[ -z "$(ls mnt | grep '\.tmp-')" ] || fail "temporary files left: $(ls mnt)"

# Ctrl-C: an existing export keeps its results; a new one is marked "complete": false.
interrupt() {	# interrupt EXPORT: lauka with --export-json EXPORT, SIGINT during its second command
	rm -f started
	"$LAUKA" record --color never --backend rusage -n 3 --export-json "$1" \
		-- true 'sh -c "touch started; exec sleep 60"' >out.txt 2>err.txt &
	pid=$!
	i=0
	while [ ! -e started ]; do i=$((i + 1)); [ $i -lt 600 ] || fail "never started: $(cat err.txt)"; sleep 0.1; done
	kill -INT $pid
	wait $pid
	rc=$?
	err=$(cat err.txt)
	[ "$rc" -eq 130 ] || fail "exit $rc after SIGINT: $err"
}
echo '{"old": true}' >kept.json
interrupt kept.json
[ "$(cat kept.json)" = '{"old": true}' ] || fail "SIGINT replaced an existing export with partial results"
expect_err "^lauka: interrupted; 'kept.json' was left as it was$"
interrupt new2.json
expect_err "^lauka: interrupted; 'new2.json' holds the completed runs only (\"complete\": false)$"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] is False, d' new2.json ||
	fail "the partial export is not marked"
[ -z "$(ls | grep '\.tmp-')" ] || fail "temporary files left: $(ls)"
