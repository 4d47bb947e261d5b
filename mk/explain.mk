# mk/explain.mk: programs for the tests of `record --explain`.
#
# explain-work runs workloads of known character (a pointer chase, a coin-flip
# branch loop, an arithmetic chain in L1); cg-funcs prints what lauka's
# callgrind parser makes of an output file, to be set beside
# callgrind_annotate's table.  Programs of their own, not part of check_lauka.
EXPLAIN_WORK_SRC := tests/support/explain-work.c
CG_FUNCS_SRC     := tests/support/cg-funcs.c
EXPLAIN_WORK     := $(BUILD)/explain-work
CG_FUNCS         := $(BUILD)/cg-funcs
TEST_SUPPORT     := $(filter-out $(EXPLAIN_WORK_SRC) $(CG_FUNCS_SRC),$(TEST_SUPPORT))
CHECK_DEPS       += $(EXPLAIN_WORK) $(CG_FUNCS)

# -O2 without sanitizers: the workloads' instruction counts are the point, not lauka's.
$(EXPLAIN_WORK): $(EXPLAIN_WORK_SRC)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=c11 -O2 -g $(WARN) -o $@ $<

$(CG_FUNCS): $(CG_FUNCS_SRC) $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CPPFLAGS) $(LK_CFLAGS) -o $@ $< $(LIB) $(LK_LDFLAGS) $(LK_LIBS)
