# a full disk under the database or TMPDIR (a small tmpfs the test fills): what is stored can still be read, a write is refused before anything runs with the disk named, nothing changes; a full TMPDIR is named for git notes and does not stop what does not need it
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts a small tmpfs)"
command -v git >/dev/null 2>&1 || skip "git not installed"
mkdir mnt
mount -t tmpfs -o size=256k tmpfs mnt 2>mount.err || skip "cannot mount a tmpfs: $(cat mount.err)"
trap 'umount "$PWD/mnt"' EXIT
trap 'exit 1' INT TERM HUP
export LAUKA_DB="$PWD/mnt/lauka.db"
run "$LAUKA" record --color never --backend rusage -n 3 --save-baseline before -- true
expect_rc 0
dd if=/dev/zero of=mnt/fill bs=4096 2>/dev/null
[ "$(df -k mnt | awk 'NR == 2 { print $4 }')" -eq 0 ] || fail "the tmpfs is not full: $(df -k mnt)"
sum=$(cksum < mnt/lauka.db)

# Reading needs no room: WAL's shared memory (the -shm file) cannot be made, so lauka reads the file
# as it stands.  Twice: the first attempt may leave empty -wal/-shm files, which must not change that.
for i in 1 2; do
	run "$LAUKA" baselines list
	expect_rc 0
	expect_out "^before "
	run "$LAUKA" counters
	expect_rc 0
done
# A write is refused before anything is measured, naming the disk; the file is as it was.
run "$LAUKA" record --color never --backend rusage -n 3 --save-baseline after -- "sh -c 'echo ran >> ran.txt'"
expect_rc 2
expect_err "^error: database '$LAUKA_DB': the disk is full (no space left on the filesystem of '$PWD/mnt'"
expect_err "^fix: free some space there, or use --db PATH on another filesystem"
[ ! -e ran.txt ] || fail "the command ran although its results could not be stored"
run "$LAUKA" baselines delete before
expect_rc 2
expect_err "the disk is full"
[ "$(cksum < mnt/lauka.db)" = "$sum" ] || fail "the database changed on a full disk"
rm mnt/fill
run "$LAUKA" baselines list
expect_out "^before "
[ "$(printf '%s\n' "$out" | grep -c '^after ')" -eq 0 ] || fail "a refused baseline was stored: $out"

# TMPDIR full: measuring with rusage writes nothing there and works; a git note's temporary file cannot
# be written, which is named with TMPDIR, and no note is made.
export LAUKA_DB="$PWD/lauka.db"
git init -q repo && (cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one) || fail "git"
dd if=/dev/zero of=mnt/fill bs=4096 2>/dev/null
run env TMPDIR="$PWD/mnt" "$LAUKA" record --color never --backend rusage -n 3 -- true
expect_rc 0
cd repo
run env TMPDIR="$OLDPWD/mnt" "$LAUKA" record --color never --backend rusage -n 3 --git --save-baseline main -- true
cd ..
expect_rc 2
expect_err "^error: cannot save baseline 'main': cannot write a temporary file in TMPDIR='$PWD/mnt': No space left on device (free space there or point TMPDIR elsewhere)$"
[ -z "$(git -C repo notes --ref=lauka list 2>/dev/null)" ] || fail "a note was made"
! ls mnt | grep -q "^lauka-" || fail "left in TMPDIR: $(ls mnt)"
exit 0
