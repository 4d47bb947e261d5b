# mk/macos.mk: macOS support checked on Linux.
#
#   make check-macos   compile every src/*.c and probes/ C file for
#                      aarch64-macos and x86_64-macos with zig cc
#                      (scripts/zig.sh installs zig into .cache/zig once)
#
# The kperf backend's logic is tested on Linux against a stand-in for
# Apple's kperf/kperfdata frameworks, built as a shared object and loaded
# through the same dlopen path ($LAUKA_KPERF_PATH); it must not be linked
# into the test binary, so it is taken out of TEST_SUPPORT.
.PHONY: check-macos

STANDIN_SRC := tests/support/kperf-standin.c
STANDIN_SO  := $(BUILD)/libkperf-standin.so
TEST_SUPPORT := $(filter-out $(STANDIN_SRC),$(TEST_SUPPORT))
CHECK_DEPS  += $(STANDIN_SO)

$(STANDIN_SO): $(STANDIN_SRC) tests/support/kperf-standin.h src/backend-kperf.h src/kperf-agg.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/support $(LK_CFLAGS) -fPIC -shared -o $@ $<

test-unit: $(STANDIN_SO)

check-macos:
	$(Q)sh scripts/check-macos.sh
