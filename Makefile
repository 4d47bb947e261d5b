# lauka: the only build entry point.
#
#   make                 build $(BUILD)/lauka (never installs anything)
#   make check           install missing test dependencies, then run the tests
#                        (with -Werror, as DEV=1 builds are; a plain make is not)
#   make check-slow      the same for the slow CLI tests check leaves out (tests/cli/slow.list)
#   make check SANITIZE=1  the same, built with -fsanitize=address,undefined
#   make check-loaded    make check 5 times beside 4 busy processes (ROUNDS=, LOAD=)
#   make demo            install missing dependencies, build, compare two probes
#   make install         PREFIX=/usr/local DESTDIR=...; make uninstall; make dist
#   make clean
#
# Feature fragments live in mk/*.mk (probes, macOS checks, benchmarks); they
# add to ALL_TARGETS, CHECK_DEPS, UNIT_TEST_SRC and the like.

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD ?= build-san
else
BUILD ?= build
endif
CC         ?= cc
PKG_CONFIG ?= pkg-config
UNAME_S    := $(shell uname -s)
UNAME_M    := $(shell uname -m)
V          ?= 0
ifeq ($(UNAME_S),Darwin)
# Homebrew's libxml2 is keg-only: its .pc file is not on pkg-config's default path.
BREW_XML_PC := $(shell brew --prefix libxml2 2>/dev/null)/lib/pkgconfig
export PKG_CONFIG_PATH := $(if $(PKG_CONFIG_PATH),$(PKG_CONFIG_PATH):)$(BREW_XML_PC)
endif
Q          := $(if $(filter 1,$(V)),,@)

# Goals that must work before the dependencies exist: they install them
# first (check, demo) or need none (clean, check-macos, help).
NODEP_GOALS := check check-slow check-loaded demo clean check-macos help dist brew-formula lint-man
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(NODEP_GOALS),$(MAKECMDGOALS)),)
SKIP_DEP_CHECK := 1
endif
endif

# $(call need,pkg-config name,Debian package,Homebrew formula)
need = $(if $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo y),,$(error missing dependency '$(1)': install Debian package '$(2)' (apt-get install $(2)) or Homebrew formula '$(3)' (brew install $(3)), or run scripts/deps.sh))

ifneq ($(SKIP_DEP_CHECK),1)
ifeq ($(shell command -v $(PKG_CONFIG) 2>/dev/null),)
$(error missing tool 'pkg-config': install Debian package 'pkg-config' or Homebrew formula 'pkgconf', or run scripts/deps.sh)
endif
$(call need,libplist-2.0,libplist-dev,libplist)
$(call need,sqlite3,libsqlite3-dev,sqlite)
$(call need,libxml-2.0,libxml2-dev,libxml2)
ifneq ($(filter test-all test-unit unit,$(MAKECMDGOALS)),)
$(call need,check,check,check)
endif
endif

PLIST_CFLAGS := $(shell $(PKG_CONFIG) --cflags libplist-2.0 2>/dev/null)
PLIST_LIBS   := $(shell $(PKG_CONFIG) --libs libplist-2.0 2>/dev/null)
# libplist 2.3 changed plist_from_memory() to take a format out-parameter.
PLIST_NEW    := $(shell $(PKG_CONFIG) --atleast-version=2.3.0 libplist-2.0 2>/dev/null && echo 1)
SQLITE_CFLAGS := $(shell $(PKG_CONFIG) --cflags sqlite3 2>/dev/null)
SQLITE_LIBS   := $(shell $(PKG_CONFIG) --libs sqlite3 2>/dev/null)
XML_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libxml-2.0 2>/dev/null)
XML_LIBS      := $(shell $(PKG_CONFIG) --libs libxml-2.0 2>/dev/null)
CHECK_CFLAGS  := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS    := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# -Werror only where the warnings are ours to fix: developer and CI builds (DEV=1, which make check
# and the test targets set), never a plain make or make install, where a newer compiler's new
# warning would stop a distribution's or Homebrew's build of a release.  The flag changes no object
# code, so objects are not rebuilt when DEV changes; CI builds from a clean tree.
ifneq ($(filter check check-slow check-loaded test-all test-unit test-cli test-slow,$(MAKECMDGOALS)),)
DEV ?= 1
endif
DEV      ?= 0
WERROR   := $(if $(filter 1,$(DEV)),-Werror)
WARN     := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT      ?= -O2 -g
CFLAGS   ?=
# Includes name their folder ("catalog/sched.h"), so no header of ours can shadow a system one.
CPPFLAGS += -iquote src -iquote $(BUILD)/gen
ifeq ($(UNAME_S),Darwin)
CPPFLAGS += -D_DARWIN_C_SOURCE
LDLIBS_OS :=
else
CPPFLAGS += -D_GNU_SOURCE
LDLIBS_OS := -ldl -lm
endif
ifeq ($(PLIST_NEW),1)
CPPFLAGS += -DLAUKA_PLIST_2_3
endif
SAN_FLAGS :=
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Catch stack memory used after its function returned, too: the runner once kept a pointer into a
# caller's frame (the sudo user's groups), which only this finds (t-record-sudo fails on it).
export ASAN_OPTIONS ?= detect_stack_use_after_return=1
endif
LK_CFLAGS := -std=c11 $(OPT) $(WARN) $(SAN_FLAGS) $(PLIST_CFLAGS) $(SQLITE_CFLAGS) $(XML_CFLAGS) $(CFLAGS)
LK_LIBS   := $(PLIST_LIBS) $(SQLITE_LIBS) $(XML_LIBS) $(LDLIBS_OS) -lm
LK_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

# libpfm4 (Linux vendor event tables, src/catalog/pfm.c) has no pkg-config
# file: a compile-and-link probe finds its header and library.  Without it
# lauka builds all the same and `lauka counters` says what is missing; macOS
# never needs it.  HAVE_LIBPFM=0 builds without it where it is installed.
ifneq ($(UNAME_S),Darwin)
ifeq ($(origin HAVE_LIBPFM),undefined)
HAVE_LIBPFM := $(shell printf '\043include <perfmon/pfmlib_perf_event.h>\nint main(void){return pfm_initialize();}\n' | $(CC) -x c - -lpfm -o /dev/null >/dev/null 2>&1 && echo 1 || echo 0)
endif
endif
ifeq ($(HAVE_LIBPFM),1)
CPPFLAGS += -DLAUKA_HAVE_LIBPFM
LK_LIBS  += -lpfm
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)
CPPFLAGS += -DLAUKA_VERSION='"$(VERSION)"' -DLAUKA_GIT_REV='"$(GIT_REV)"'

# Everything in src/ (one folder per layer, src/README.md) except main() and
# the spawner program goes into a static library that the tests link against too.
SRC      := $(sort $(filter-out src/lauka.c src/spawn/lauka-spawn.c,$(shell find src -name '*.c')))
OBJ      := $(SRC:src/%.c=$(BUILD)/src/%.o)
LIB      := $(BUILD)/liblauka.a
LAUKA    := $(BUILD)/lauka

# Data in catalog/ is embedded: catalog/foo.tsv becomes $(BUILD)/gen/foo.tsv.inc,
# a C array named foo_tsv.
CATALOG_DATA := $(filter-out catalog/README.md,$(wildcard catalog/*.sql catalog/*.tsv catalog/*.json))
GEN          := $(CATALOG_DATA:catalog/%=$(BUILD)/gen/%.inc)

UNIT_TEST_SRC  := $(wildcard tests/check_*.c)
TEST_SUPPORT   := $(wildcard tests/support/*.c)
ALL_TARGETS    := $(LAUKA)
CHECK_DEPS     := $(LAUKA) $(BUILD)/check_lauka
CLEAN_EXTRA    :=

.PHONY: all check check-slow test-all test-unit test-cli test-slow demo run-demo clean help
all: build-all

include $(sort $(wildcard mk/*.mk))

build-all: $(ALL_TARGETS)

$(BUILD)/gen/%.inc: catalog/% scripts/embed.sh
	@mkdir -p $(@D)
	$(Q)sh scripts/embed.sh $< > $@.tmp && mv $@.tmp $@

$(BUILD)/src/%.o: src/%.c | $(GEN)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(LK_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LAUKA): $(BUILD)/src/lauka.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LK_LDFLAGS) -o $@ $^ $(LK_LIBS)

# Unit tests: one runner; each tests/check_*.c exports `Suite *NAME_suite(void)`
# and the list of suites is generated, so adding a file is enough.
$(BUILD)/gen/suites.h: $(UNIT_TEST_SRC)
	@mkdir -p $(@D)
	$(Q)sed -n 's/^Suite \*\([a-z0-9_]*_suite\)(void).*/SUITE(\1)/p' $(filter-out tests/check_main.c,$(UNIT_TEST_SRC)) > $@.tmp && mv $@.tmp $@

TEST_OBJ := $(UNIT_TEST_SRC:tests/%.c=$(BUILD)/tests/%.o) $(TEST_SUPPORT:tests/%.c=$(BUILD)/tests/%.o)
$(BUILD)/tests/%.o: tests/%.c $(BUILD)/gen/suites.h | $(GEN)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests $(LK_CFLAGS) -Wno-missing-prototypes $(CHECK_CFLAGS) -DLAUKA_SRCDIR='"$(CURDIR)"' -DLAUKA_BUILD='"$(abspath $(BUILD))"' -MMD -MP -c $< -o $@

$(BUILD)/check_lauka: $(TEST_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LK_LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(CHECK_LIBS) $(LK_LIBS)

# check, check-slow and demo build with one job per CPU unless make was given -j itself (a -jN
# forced on a sub-make would turn off the caller's job server); tests/cli/run.sh runs that many CLI
# tests at a time (LAUKA_TEST_JOBS=N to choose).
NPROC   := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
SUB_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

# `make check` is what CI and the README run: it installs what is missing
# (scripts/deps.sh says what), then runs the unit and CLI tests.
check:
	$(Q)sh scripts/deps.sh check
	$(Q)$(MAKE) $(SUB_JOBS) --no-print-directory test-all

test-all: $(CHECK_DEPS)
	$(Q)$(MAKE) --no-print-directory test-unit
	$(Q)$(MAKE) --no-print-directory test-cli

test-unit: $(BUILD)/check_lauka
	@echo "unit: running the check suites (one line at the end)"
	$(Q)cd $(BUILD) && LAUKA_SRCDIR=$(CURDIR) ./check_lauka

test-cli: $(CHECK_DEPS)
	$(Q)sh tests/cli/run.sh $(abspath $(BUILD))

# `make check-slow`: the CLI tests of tests/cli/slow.list, which make check leaves out so that it
# takes under 8 minutes on an idle 2-core machine (HACKING.md, Tests); .ci/run runs them too.
check-slow:
	$(Q)sh scripts/deps.sh check
	$(Q)$(MAKE) $(SUB_JOBS) --no-print-directory test-slow

test-slow: $(CHECK_DEPS)
	$(Q)sh tests/cli/run.sh --slow $(abspath $(BUILD))

demo:
	$(Q)sh scripts/deps.sh demo
	$(Q)$(MAKE) $(SUB_JOBS) --no-print-directory run-demo

clean:
	rm -rf build build-san $(CLEAN_EXTRA)

help:
	@sed -n '3,/^#$$/p' Makefile | sed '/^#$$/d; s/^# \{0,1\}//'

-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/src/lauka.d
