# Probes: build/lauka-probe, the workloads lauka calibrate measures, and an
# aarch64 build of it (run under qemu-aarch64 in tests) when the cross
# compiler is installed.  Probes are built without sanitizers and with fixed
# flags: their instruction counts are part of what calibration checks.

PROBE_ARCH_x86_64  := x86_64
PROBE_ARCH_amd64   := x86_64
PROBE_ARCH_aarch64 := aarch64
PROBE_ARCH_arm64   := aarch64
# The probes' assembly follows the compiler's target, not the host: `make
# CC=aarch64-linux-gnu-gcc` (and `make cross-aarch64`, mk/cross.mk) build the
# aarch64 loops on an x86_64 host.
PROBE_TARGET_M := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)) $(UNAME_M))
PROBE_ARCH   := $(PROBE_ARCH_$(PROBE_TARGET_M))
PROBE_CFLAGS := -std=c11 -O2 -g $(WARN) -Iprobes
PROBE_C      := probes/lauka-probe.c probes/branch.c probes/store.c
PROBE_HDR    := probes/probe.h probes/asm.h
probe_src     = $(PROBE_C) probes/$(1)/alu.S probes/$(1)/chase.S

ifneq ($(PROBE_ARCH),)
$(BUILD)/lauka-probe: $(call probe_src,$(PROBE_ARCH)) $(PROBE_HDR) mk/probes.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PROBE_CFLAGS) -o $@ $(call probe_src,$(PROBE_ARCH))
ALL_TARGETS += $(BUILD)/lauka-probe
CHECK_DEPS  += $(BUILD)/lauka-probe
endif

AARCH64_CC ?= aarch64-linux-gnu-gcc
ifneq ($(shell command -v $(AARCH64_CC) 2>/dev/null),)
ifneq ($(PROBE_ARCH),aarch64)
$(BUILD)/aarch64/lauka-probe: $(call probe_src,aarch64) $(PROBE_HDR) mk/probes.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(AARCH64_CC) $(PROBE_CFLAGS) -o $@ $(call probe_src,aarch64)
CHECK_DEPS += $(BUILD)/aarch64/lauka-probe
.PHONY: probes-aarch64
probes-aarch64: $(BUILD)/aarch64/lauka-probe
endif
endif
