#!/bin/sh
# tests/pmu/run.sh: make check-pmu.  lauka against a real kernel PMU driver: an arm64 Debian
# kernel under qemu-system-aarch64 (QEMU's PMUv3, the kernel's armv8_pmuv3 driver), three
# boots of scripts/pmu-vm.sh: one for pmu-vm.sh's own contract (stdout and stderr apart,
# the command's exit code), one for every lauka check (tests/pmu/guest.sh) on a Cortex-A57,
# one for the checks without calibration on a Cortex-A72 whose PMU is named after the core.
#
# Bounds: the first boot 60 s, the others $PMU_TIMEOUT (400 s) each: under 15 minutes even
# when a guest hangs.  Measured: 95-120 s wall for the first two on a 2-core VM at load 12
# (about 45 s of CPU; the calibration is most of it), boots of 5-16 s; all three 270-350 s
# on a 2-core machine shared with five other builds (the A72 leg about 90 s of it).
#
# Without qemu-system-aarch64 or the cross compiler it says so in one line and exits 0
# (SKIP) unless PMU_REQUIRED=1 (CI: .ci/run installs them with scripts/deps.sh pmu first).
set -u
cd "$(dirname "$0")/../.."
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "check-pmu: SKIP: $t not installed (sh scripts/deps.sh pmu installs what the guest tests need)"
		[ "${PMU_REQUIRED:-0}" = 1 ] && exit 1
		exit 0
	fi
done
start=$(date +%s)
fail=0
tmp=${TMPDIR:-/tmp}/lauka-check-pmu.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# 1. pmu-vm.sh itself: the command's stdout and stderr come back apart, and its exit code.
sh scripts/pmu-vm.sh --timeout 60 -- 'echo to-stdout; echo to-stderr >&2; exit 3' >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ $rc -eq 3 ] && [ "$(cat "$tmp/o")" = to-stdout ] && grep -qx to-stderr "$tmp/e" &&
	! grep -q 'Linux version\|Booting' "$tmp/o" "$tmp/e"; then
	echo "ok - pmu-vm: stdout and stderr apart from the console, exit code 3 kept"
else
	echo "not ok - pmu-vm: exit $rc, stdout '$(head -c 200 "$tmp/o")', stderr '$(head -c 200 "$tmp/e")'"
	fail=1
fi

# 2. Every lauka check, in one boot (the guest runs code tens of times slower than the host):
#    a Cortex-A57, which libpfm4 knows, its PMU called armv8_pmuv3.
# hog: pins counters CPU-wide, so guest.sh sees doctor name counters another process holds
hog=
aarch64-linux-gnu-gcc -static -O2 -o "$tmp/hog" tests/pmu/hog.c && hog="--add $tmp/hog"
sh scripts/pmu-vm.sh --timeout "${PMU_TIMEOUT:-400}" --add tests/pmu/guest.sh $hog -- sh guest.sh || fail=1

# 3. A real board's case (issue 36): a Cortex-A72, which libpfm4 has no model for, with a device
#    tree that names its PMU after the core (QEMU's own, dumped, its PMU node made
#    arm,cortex-a72-pmu: Linux calls the PMU armv8_cortex_a72, as on a Raspberry Pi 4).  The
#    checks that need no calibration (GUEST_QUICK=1).
if command -v dtc >/dev/null 2>&1; then
	qemu-system-aarch64 -M virt,dumpdtb="$tmp/virt.dtb" -cpu cortex-a72 -smp 1 -m 1024 -nographic \
		-net none -monitor none >/dev/null 2>&1
	dtc -q -I dtb -O dts "$tmp/virt.dtb" | sed 's/"arm,armv8-pmuv3"/"arm,cortex-a72-pmu"/' >"$tmp/a72.dts"
	if grep -q '"arm,cortex-a72-pmu"' "$tmp/a72.dts" && dtc -q -I dts -O dtb -o "$tmp/a72.dtb" "$tmp/a72.dts"; then
		PMU_VM_CPU=cortex-a72 PMU_VM_DTB=$tmp/a72.dtb sh scripts/pmu-vm.sh --timeout "${PMU_TIMEOUT:-400}" \
			--add tests/pmu/guest.sh -- GUEST_QUICK=1 GUEST_PMU=armv8_cortex_a72 sh guest.sh || fail=1
	else
		echo "not ok - a device tree with arm,cortex-a72-pmu could not be made from QEMU's"
		fail=1
	fi
else
	echo "check-pmu: SKIP the Cortex-A72 leg: dtc not installed (sh scripts/deps.sh pmu installs device-tree-compiler)"
	[ "${PMU_REQUIRED:-0}" = 1 ] && fail=1
fi
echo "check-pmu: $( [ $fail -eq 0 ] && echo PASS || echo FAIL ) in $(( $(date +%s) - start )) s"
exit $fail
