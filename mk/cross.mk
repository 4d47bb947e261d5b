# mk/cross.mk: lauka built for aarch64 Linux on any Debian host.
#
#   make cross-aarch64   build-aarch64/lauka, lauka-probe and lauka-spawn,
#                        compiled by aarch64-linux-gnu-gcc against the arm64
#                        multiarch libraries (scripts/deps.sh pmu installs them)
#
# lauka is linked dynamically (Debian ships no static libplist); the guest of
# scripts/pmu-vm.sh gets the libraries it needs copied from the host's
# /usr/lib/aarch64-linux-gnu.  lauka-spawn is static as on every Linux build.
# The same Makefile runs again with another BUILD and CC; pkg-config is pointed
# at the arm64 .pc files only, so a missing arm64 library is named as missing.
.PHONY: cross-aarch64
CROSS_AARCH64_CC    ?= aarch64-linux-gnu-gcc
CROSS_AARCH64_BUILD ?= build-aarch64
CROSS_AARCH64_PC    := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
CLEAN_EXTRA         += $(CROSS_AARCH64_BUILD)

cross-aarch64:
	@command -v $(CROSS_AARCH64_CC) >/dev/null 2>&1 || { echo "error: $(CROSS_AARCH64_CC) not found; fix: sh scripts/deps.sh pmu (Debian package gcc-aarch64-linux-gnu)" >&2; exit 1; }
	$(Q)PKG_CONFIG_LIBDIR=$(CROSS_AARCH64_PC) PKG_CONFIG_PATH= $(MAKE) --no-print-directory \
		BUILD=$(CROSS_AARCH64_BUILD) CC=$(CROSS_AARCH64_CC) AR=aarch64-linux-gnu-ar \
		UNAME_M=aarch64 SANITIZE=0 \
		$(CROSS_AARCH64_BUILD)/lauka $(CROSS_AARCH64_BUILD)/lauka-probe $(CROSS_AARCH64_BUILD)/lauka-spawn
