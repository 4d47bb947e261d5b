# mk/pmu.mk: lauka against a real kernel PMU driver (an arm64 guest under QEMU).
#
#   make check-pmu   build the aarch64 tree (mk/cross.mk), boot the guest of
#                    scripts/pmu-vm.sh twice and run tests/pmu/guest.sh there:
#                    doctor, counters, exact record, --passes, calibrate's
#                    verdicts, --explain (doc/linux-events.md says what it proves)
#
# Without QEMU it prints one SKIP line (PMU_REQUIRED=1 makes that a failure);
# `sh scripts/deps.sh pmu` installs what it needs.  `make check` does not boot
# the guest: tests/cli/t-pmu-vm.sh checks pmu-vm.sh's refusals of bad input.
.PHONY: check-pmu
check-pmu:
	$(Q)sh tests/pmu/run.sh
