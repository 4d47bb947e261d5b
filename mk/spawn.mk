# lauka-spawn: the small program every measured command is started from
# (src/spawn/spawner.h says why).  Static where the C library allows it (its
# resident size is the floor of every peak_rss), never sanitized, fixed flags.
SPAWN_SRC    := src/spawn/lauka-spawn.c src/spawn/spawner.c
SPAWN_CFLAGS := -std=c11 -O2 $(WARN) -D_GNU_SOURCE -iquote src
ifneq ($(UNAME_S),Darwin)
$(BUILD)/lauka-spawn: $(SPAWN_SRC) src/spawn/spawner.h mk/spawn.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(SPAWN_CFLAGS) -static -o $@ $(SPAWN_SRC) 2>/dev/null || $(CC) $(SPAWN_CFLAGS) -o $@ $(SPAWN_SRC)
ALL_TARGETS += $(BUILD)/lauka-spawn
CHECK_DEPS  += $(BUILD)/lauka-spawn
# The same spawner without Linux's parent-death signal, as it is built on macOS: the tests see its
# pipe watch kill the command of a SIGKILLed lauka alone (t-hostile-signals).
$(BUILD)/tests/lauka-spawn-watch: $(SPAWN_SRC) src/spawn/spawner.h mk/spawn.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(SPAWN_CFLAGS) -DLAUKA_SPAWN_NO_PDEATHSIG -o $@ $(SPAWN_SRC)
CHECK_DEPS  += $(BUILD)/tests/lauka-spawn-watch
endif
