# `make demo` (after scripts/deps.sh demo): build lauka and the probes, make
# sure this machine's catalogue is in the database, then compare two probe
# workloads with the best backend here, and again under valgrind (exact
# simulated counts) when it is installed.

DEMO_PROBE := $(BUILD)/lauka-probe

# build-all: lauka-spawn too, without which peak_rss cannot read below lauka's own size.
# explain-work (mk/explain.mk, included after this file: hence the path) is the workload of the
# README's --explain example, which says "after make demo".
run-demo: build-all $(DEMO_PROBE) $(BUILD)/explain-work
	@echo
	@echo "== catalogue for this machine: $$($(LAUKA) counters --no-headers 2>/dev/null | wc -l) events ('$(LAUKA) counters --details' lists them)"
	@echo "== alu (2 instructions per iteration) vs branch (an unpredictable branch per iteration), best backend here"
	$(LAUKA) -n 10 -- '$(DEMO_PROBE) alu 1e7' '$(DEMO_PROBE) branch 1e7'
	@if command -v valgrind >/dev/null 2>&1; then \
		echo; echo "== the same under valgrind: simulated counters, identical in every run"; \
		echo '$(LAUKA) -n 3 --backend valgrind -- '\''$(DEMO_PROBE) alu 1e6'\'' '\''$(DEMO_PROBE) branch 1e6'\'''; \
		$(LAUKA) -n 3 --backend valgrind -- '$(DEMO_PROBE) alu 1e6' '$(DEMO_PROBE) branch 1e6'; \
	else echo; echo "== valgrind is not installed: skipping the simulated-counter comparison"; fi
