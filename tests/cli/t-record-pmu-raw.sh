# perf's PMU form of a raw event no catalogue row names (issue 36 P8): armv8_cortex_a72/event=0x23/ on a core PMU of the sysfs fixture is accepted and handed to the kernel (which on this machine refuses it), a term the PMU's format files lack is one error naming the format directory, a PMU that is not a core PMU stays unknown
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only (perf)"
export LAUKA_SYSFS_PMUS="$LAUKA_SRCDIR/tests/fixtures/sysfs-arm"
run "$LAUKA" record -n 1 --backend perf -m armv8_cortex_a72/event=0x23/ -- true
case $rc in 0 | 2) ;; *) fail "rc $rc: $err" ;; esac
printf '%s\n' "$err" | grep -q 'unknown measurement' && fail "the raw PMU form is unknown: $err"
[ "$rc" -eq 0 ] || expect_err "armv8_cortex_a72/event=0x23/"
run "$LAUKA" record -n 1 --backend perf -m armv8_cortex_a72/umask=3/ -- true
expect_rc 1
expect_err "^error: cannot encode 'armv8_cortex_a72/umask=3/': unknown format term 'umask' .*sysfs-arm/armv8_cortex_a72/format"
expect_err '^tip: '
run "$LAUKA" record -n 1 --backend perf -m software/event=0x1/ -- true
printf '%s\n' "$err" | grep -q "^error: unknown measurement 'software/event=0x1/'" || fail "not a core PMU, yet: rc $rc $err"
