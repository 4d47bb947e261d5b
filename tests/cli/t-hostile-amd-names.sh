# scripts/amd-perf-names.py reads a kernel tree as input: an EventName with a tab or newline (a row
# of its own in catalog/amd-perf-names.tsv) is refused, and nothing is written (audit 5, D-18)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
mkdir -p kernel/tools/perf/pmu-events/arch/x86/amdzen4
cat > kernel/tools/perf/pmu-events/arch/x86/amdzen4/core.json <<'JSON'
[
  {"EventName": "ex_ret_instr", "EventCode": "0xc0"},
  {"EventName": "evil\namd64_fam19h_zen4\tmy_fake_cycles\t0x0c0\t0x00", "EventCode": "0x76"}
]
JSON
run python3 "$LAUKA_SRCDIR/scripts/amd-perf-names.py" kernel --source "test tree"
[ "$rc" -ne 0 ] || fail "a name with a newline and tabs was written: $out"
expect_err "EventName 'evil\\\\namd64_fam19h_zen4\\\\tmy_fake_cycles.*is not a plain name"
printf '%s\n' "$out" | grep -q my_fake_cycles && fail "the forged row was written: $out"
printf '[{"EventName": "ex_ret_instr", "EventCode": "0xc0"}]\n' > kernel/tools/perf/pmu-events/arch/x86/amdzen4/core.json
run python3 "$LAUKA_SRCDIR/scripts/amd-perf-names.py" kernel --source "$(printf 'a\nb')"
[ "$rc" -ne 0 ] || fail "a --source with a newline was taken"
expect_err "^--source 'a\\\\nb' holds a control character"
exit 0
