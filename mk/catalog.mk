# Catalogue (issue 3): keep the embedded data headers between builds (they
# are made by a pattern rule, so make would otherwise delete them as
# intermediate files and rebuild their users every time), and the benchmark.
.PRECIOUS: $(BUILD)/gen/%.inc

.PHONY: bench-catalog
bench-catalog: $(LAUKA)
	$(Q)sh scripts/bench-catalog.sh $(abspath $(LAUKA))

# Vendor catalogues from libpfm4 (issue 17): counters --details on 500 events.
.PHONY: bench-pfm
bench-pfm: $(LAUKA)
	$(Q)sh scripts/bench-pfm.sh $(abspath $(LAUKA))
