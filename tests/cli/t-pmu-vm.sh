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
# The machine's variables (issue 36 P10): a CPU name QEMU could take, 1-8 CPUs, an existing device tree.
PMU_VM_CPU='cortex-a72;reboot' refuse "is not a QEMU CPU name" -- true
PMU_VM_CPU=-bios refuse "is not a QEMU CPU name" -- true
PMU_VM_SMP=0 refuse "not a number of CPUs from 1 to 8" -- true
PMU_VM_SMP=9 refuse "not a number of CPUs from 1 to 8" -- true
PMU_VM_SMP=2x refuse "not a number of CPUs from 1 to 8" -- true
PMU_VM_DTB=$PWD/missing.dtb refuse "PMU_VM_DTB .*no such file" -- true
# The cache must be ours and no one else's to write (issue 38 D-9): refused before anything is built.
if command -v qemu-system-aarch64 >/dev/null 2>&1 && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	command -v cpio >/dev/null 2>&1; then
	mkdir -p open-cache && chmod 777 open-cache
	PMU_VM_CACHE=$PWD/open-cache refuse "may be written by others" -- true
	[ -z "$(ls open-cache)" ] || fail "pmu-vm.sh wrote into a cache others may write: $(ls open-cache)"
	if [ "$(id -u)" = 0 ]; then
		mkdir -p their-cache && chmod 755 their-cache && chown 65534 their-cache
		PMU_VM_CACHE=$PWD/their-cache refuse "belongs to another user" -- true
	fi
fi
command -v qemu-system-aarch64 >/dev/null 2>&1 ||
	skip "qemu-system-aarch64 absent: the guest PMU tests (make check-pmu) need it; sh scripts/deps.sh pmu installs it"
exit 0
