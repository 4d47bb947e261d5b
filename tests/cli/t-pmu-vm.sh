#!/bin/sh
# scripts/pmu-vm.sh refuses bad input with one error line and exit 1 before booting anything; the guest tests themselves run in make check-pmu (skipped here, with why, when QEMU is absent)
. "$(dirname "$0")/lib.sh"
vm="$LAUKA_SRCDIR/scripts/pmu-vm.sh"
# refuse FIX_PATTERN ARGS...: exit 1, one error line naming the problem, nothing on stdout, no guest.
refuse() {
	want=$1; shift
	run sh "$vm" "$@"
	expect_rc 1
	expect_no_out
	[ "$(printf '%s\n' "$err" | grep -c '^error: ')" -eq 1 ] || fail "expected one error line for $*: $err"
	expect_err "$want"
}
refuse "unknown option '--bogus'" --bogus -- true
refuse "no such file" --add "$PWD/missing.sh" -- true
refuse "no COMMAND after --"
refuse "no COMMAND after --" --add "$vm" --
refuse "--add needs a FILE" --add
refuse "not a whole number" --timeout 1x -- true
refuse "at least 1 second" --timeout 0 -- true
command -v qemu-system-aarch64 >/dev/null 2>&1 ||
	skip "qemu-system-aarch64 absent: the guest PMU tests (make check-pmu) need it; sh scripts/deps.sh pmu installs it"
exit 0
