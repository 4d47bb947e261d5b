# mk/fuzz.mk: fuzzing lauka's readers of untrusted files (tests/fuzz/).
# Targets: kpep (the kpep importer), xctrace (TOC and table exports),
# template (Instruments templates, behind the binary-plist pre-pass),
# notes (baselines in git notes: decode, encode, decode again),
# vendor (Intel's perfmon and Arm's PMU JSON tables, the catalogues made
# from them and their overlays on a shipped table's catalogue),
# valgrind (cachegrind/callgrind output files: totals, cmd:, self costs).
#
#   make fuzz                 build $(FUZZ_BUILD)/fuzz_$(FUZZ_TARGET) with clang (libFuzzer,
#                             ASan, UBSan) and fuzz for FUZZ_TIME seconds (60),
#                             on a working corpus seeded from tests/fuzz/corpus[-TARGET]
#   make fuzz FUZZ_TARGET=xctrace   another target (kpep, xctrace, template, notes, vendor, valgrind)
#   make fuzz FUZZ_TIME=3600  longer; FUZZ_JOBS=N runs N workers
#   make fuzz-build           only build it
#
# `make check` needs no clang: $(BUILD)/fuzz-replay[-TARGET] (tests/fuzz/replay.c
# with the target, the normal compiler) replay each target's corpus and
# tests/fuzz/crashes through the same target function, in tests/cli/t-fuzz-replay.sh.
.PHONY: fuzz fuzz-build

FUZZ_CC    ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60
FUZZ_JOBS  ?= 1
FUZZ_TARGET ?= kpep
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BIN   := $(FUZZ_BUILD)/fuzz_$(FUZZ_TARGET)
# each target's seed corpus in the tree: kpep's is tests/fuzz/corpus
FUZZ_SEEDS := tests/fuzz/corpus$(if $(filter-out kpep,$(FUZZ_TARGET)),-$(FUZZ_TARGET))
# and the real xctrace exports and templates the tests read (the kpep plists: tests/fuzz/seed.sh)
FUZZ_FIXTURES := $(if $(filter xctrace template notes,$(FUZZ_TARGET)),$(filter-out %/SOURCES.txt,$(wildcard tests/fixtures/xctrace-data/*))) \
		 $(if $(filter vendor,$(FUZZ_TARGET)),$(wildcard catalog/*.json)) \
		 $(if $(filter valgrind,$(FUZZ_TARGET)),$(wildcard tests/fixtures/valgrind/*))
FUZZ_DICT  := $(if $(filter kpep template,$(FUZZ_TARGET)),-dict=../tests/fuzz/plist.dict,$(if $(filter notes vendor,$(FUZZ_TARGET)),-dict=../tests/fuzz/notes.dict,$(if $(filter valgrind,$(FUZZ_TARGET)),,-dict=../tests/fuzz/xml.dict)))
# clang warns where gcc does not; the gcc build (make check, DEV=1) is the one held to -Werror.
FUZZ_CFLAGS ?= -Wno-error
CLEAN_EXTRA += $(FUZZ_BUILD) $(FUZZ_BUILD)-cov

REPLAY := $(BUILD)/fuzz-replay
REPLAYS := $(REPLAY) $(BUILD)/fuzz-replay-xctrace $(BUILD)/fuzz-replay-template $(BUILD)/fuzz-replay-notes \
	   $(BUILD)/fuzz-replay-vendor $(BUILD)/fuzz-replay-valgrind
CHECK_DEPS += $(REPLAYS)

# The replays' objects are kept (make would otherwise delete them as intermediates at the end of
# every make check, printing an 'rm' line after the results).
.SECONDARY: $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%.o,$(wildcard tests/fuzz/*.c))

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c | $(GEN)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(LK_CFLAGS) -MMD -MP -c $< -o $@

$(REPLAY): $(BUILD)/tests/fuzz/replay.o $(BUILD)/tests/fuzz/fuzz_kpep.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LK_LDFLAGS) -o $@ $^ $(LK_LIBS)

$(BUILD)/fuzz-replay-%: $(BUILD)/tests/fuzz/replay.o $(BUILD)/tests/fuzz/fuzz_%.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LK_LDFLAGS) -o $@ $^ $(LK_LIBS)

# The library again, with clang and the fuzzer's coverage instrumentation.
fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz: $(FUZZ_CC) is not installed (Debian: clang libclang-rt-14-dev)" >&2; exit 1; }
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN_FLAGS="$(FUZZ_FLAGS)" CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ_BUILD)/liblauka.a $(FUZZ_BUILD)/tests/fuzz/fuzz_$(FUZZ_TARGET).o
	@$(if $(Q),echo "  LD      $(FUZZ_BIN)")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $(FUZZ_BIN) $(FUZZ_BUILD)/tests/fuzz/fuzz_$(FUZZ_TARGET).o $(FUZZ_BUILD)/liblauka.a $(LK_LIBS)

fuzz: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET) $(FUZZ_BUILD)/artifacts
	$(Q)cp -n $(FUZZ_SEEDS)/* $(FUZZ_FIXTURES) tests/fuzz/crashes/* $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET)/ 2>/dev/null || true
	$(Q)if [ $(FUZZ_TARGET) = kpep ]; then sh tests/fuzz/seed.sh $(FUZZ_BUILD)/corpus-kpep; fi
	$(Q)cd $(FUZZ_BUILD) && ./fuzz_$(FUZZ_TARGET) -max_total_time=$(FUZZ_TIME) $(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
		-max_len=$(if $(filter xctrace,$(FUZZ_TARGET)),262144,65536) -timeout=30 -rss_limit_mb=2048 -artifact_prefix=artifacts/ -print_final_stats=1 \
		$(FUZZ_DICT) corpus-$(FUZZ_TARGET)

# Line coverage of what the corpus reaches: the replay driver built with
# clang's source-based coverage, run over $(FUZZ_CORPUS), reported by llvm-cov
# for the importer's modules.
.PHONY: fuzz-coverage
FUZZ_CORPUS ?= $(FUZZ_BUILD)/corpus-kpep
FUZZ_COV    := $(FUZZ_BUILD)-cov
fuzz-coverage:
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_COV) CC=$(FUZZ_CC) SAN_FLAGS="-fprofile-instr-generate -fcoverage-mapping" CFLAGS="$(FUZZ_CFLAGS)" \
		$(FUZZ_COV)/fuzz-replay
	$(Q)rm -f $(FUZZ_COV)/*.profraw
	$(Q)LLVM_PROFILE_FILE=$(FUZZ_COV)/replay.profraw $(FUZZ_COV)/fuzz-replay $(FUZZ_CORPUS) tests/fuzz/crashes
	$(Q)llvm-profdata merge -o $(FUZZ_COV)/replay.profdata $(FUZZ_COV)/replay.profraw
	$(Q)llvm-cov report $(FUZZ_COV)/fuzz-replay -instr-profile=$(FUZZ_COV)/replay.profdata src/catalog/kpep.c src/catalog/pmu.c src/catalog/sched.c src/catalog/db.c
