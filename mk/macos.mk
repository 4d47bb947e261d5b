# mk/macos.mk: macOS support checked on Linux.
#
#   make check-macos   compile every src/**/*.c and probes/ C file for
#                      aarch64-macos and x86_64-macos with zig cc
#                      (scripts/zig.sh installs zig into .cache/zig once)
#
# The kperf backend's logic is tested on Linux against a stand-in for
# Apple's kperf/kperfdata frameworks, built as a shared object and loaded
# through the same dlopen path ($LAUKA_KPERF_PATH); it must not be linked
# into the test binary, so it is taken out of TEST_SUPPORT.  Its samples
# come from the real child; kperf-spin is a CPU-bound child of known
# length and thread count for those tests (a program of its own).
.PHONY: check-macos

STANDIN_SRC := tests/support/kperf-standin.c
STANDIN_SO  := $(BUILD)/libkperf-standin.so
SPIN_SRC    := tests/support/kperf-spin.c
SPIN        := $(BUILD)/kperf-spin
TEST_SUPPORT := $(filter-out $(STANDIN_SRC) $(SPIN_SRC),$(TEST_SUPPORT))
CHECK_DEPS  += $(STANDIN_SO) $(SPIN)

# kperf-spin is a workload, not code under test, so it is built without the sanitizers: a
# sanitized one spends 10-25 ms of CPU in LeakSanitizer's exit-time scan, which wait4 counts
# and the stand-in's proc_pid_rusage read did not always see (test_run_counts failed its 5%
# bound under SANITIZE=1, 2 runs in 3 on an idle machine).
$(SPIN): $(SPIN_SRC)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(filter-out $(SAN_FLAGS),$(LK_CFLAGS)) -pthread -o $@ $< $(filter-out $(SAN_FLAGS),$(LK_LDFLAGS)) -pthread

$(STANDIN_SO): $(STANDIN_SRC) tests/support/kperf-standin.h src/backend/kperf/kperf.h src/backend/kperf/agg.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/support $(LK_CFLAGS) -fPIC -shared -pthread -o $@ $< $(LK_LDFLAGS)

test-unit: $(STANDIN_SO) $(SPIN)

check-macos:
	$(Q)sh scripts/check-macos.sh
