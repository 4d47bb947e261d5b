# perf without the right to count the kernel: one error line naming why, then fix: (sudo) and tip: (perf_event_paranoid), never advice inside the error
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (runs lauka as user nobody)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
id nobody >/dev/null 2>&1 || skip "no user 'nobody'"
level=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) || skip "no perf_event_paranoid"
[ "$level" -ge 2 ] || skip "perf_event_paranoid=$level lets every user count the kernel"
"$LAUKA" version | grep -q '^  perf .*available' || skip "perf backend not available"
chmod 777 "$PWD"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env HOME="$PWD" LAUKA_DB="$PWD/nb.db" "$@"; }
# context-switches happen in the kernel: exclude_kernel would read 0, so lauka refuses it.
out=$(as_nobody "$LAUKA" --backend perf -m context-switches -- true 2>err.txt); rc=$?
err=$(cat err.txt)
expect_rc 2
first=$(head -n 1 err.txt)
case "$first" in
"error: cannot count 'context-switches' with the perf backend: it happens in the kernel, which this user may not count (perf_event_paranoid=$level)") ;;
*) fail "first line: $first" ;;
esac
printf '%s\n' "$first" | grep -q "root" && fail "advice inside the error line: $first"
expect_err "^fix: run it as root: sudo .*lauka --backend perf -m context-switches -- true"
expect_err "^tip: or let every user count: lower /proc/sys/kernel/perf_event_paranoid"
exit 0
