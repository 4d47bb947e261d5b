# valgrind backend: a full disk where valgrind writes its counts is a collection error (exit 2) saying so and where, not the command failing
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts a small tmpfs)"
P="$LAUKA_BUILD/lauka-probe"
mkdir mnt
mount -t tmpfs -o size=1m,mode=1777 tmpfs mnt 2>mount.err || skip "cannot mount a tmpfs: $(cat mount.err)"
trap 'umount "$PWD/mnt"' EXIT
trap 'exit 1' INT TERM HUP

# Room: it works (so what follows fails for the reason tested).
run env TMPDIR="$PWD/mnt" "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5"
expect_rc 0

# Full before valgrind starts: it writes empty files (and, with its gdbserver on, exited 1 for
# want of room for a shared-memory file, which was reported as the command failing).
dd if=/dev/zero of=mnt/fill bs=4096 2>/dev/null
run env TMPDIR="$PWD/mnt" "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5"
expect_rc 2
expect_err "the disk is full: valgrind could not write its counts in '$PWD/mnt/lauka-valgrind\."
printf '%s\n' "$err" | grep -q 'exit' && fail "reported as the command failing: $err"

# Room for part of the output only: the file is cut short.
rm mnt/fill
dd if=/dev/zero of=mnt/fill bs=1024 count=$((1024 - 24)) 2>/dev/null
run env TMPDIR="$PWD/mnt" "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5"
expect_rc 2
expect_err "the disk is full: valgrind could not write its counts in '$PWD/mnt/lauka-valgrind\."

rm mnt/fill
[ -z "$(ls mnt)" ] || fail "left behind in TMPDIR: $(ls mnt)"
exit 0
