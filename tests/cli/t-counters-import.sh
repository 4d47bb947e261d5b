# lauka counters --import: kpep plists (XML and binary), re-import, changes, directories, flags, --check
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
fixtures="$LAUKA_SRCDIR/tests/fixtures/kpep"
shared="$LAUKA_SRCDIR/tests/fixtures/kpep-data"
command -v plistutil >/dev/null || skip "plistutil not installed (Debian: libplist-utils)"
to_binary() {
	if plistutil -h 2>&1 | grep -q -- '--format'; then plistutil -i "$1" -o "$2" -f bin
	else plistutil -i "$1" -o "$2"; fi
	head -c 8 "$2" | grep -q bplist00 || fail "plistutil did not write a binary plist"
}
count() { printf '%s\n' "$out" | grep -c .; }

# The synthetic fixture: import, list, re-import changes nothing.
run "$LAUKA" counters --import "$fixtures/tiny.plist"
expect_rc 0
expect_out "^imported tiny (Tiny Test Chip, 9 events) from "
before=$(cksum <"$LAUKA_DB")
run "$LAUKA" counters --import "$fixtures/tiny.plist"
expect_rc 0
expect_out "^unchanged tiny (Tiny Test Chip, 9 events)"
[ "$(cksum <"$LAUKA_DB")" = "$before" ] || fail "re-importing the same file changed the database"
run "$LAUKA" counters --pmu tiny
expect_rc 0
[ "$(count)" -eq 9 ] || fail "tiny: $out"
printf '%s\n' "$out" | grep -qx inst_all || fail "names not lower-case: $out"
run "$LAUKA" counters --pmu TINY -d
expect_rc 0
printf '%s\n' "$out" | grep -q '^inst_all  *pair,triple  *All retired instructions \[kperf: user mode only\]$' || fail "inst_all row: $out"
printf '%s\n' "$out" | grep -q '^fixed_instructions  *none  *(fixed counter 1; falls back to inst_all)$' || fail "fixed row: $out"
printf '%s\n' "$out" | grep -q '^errata_event .*\[errata: counts twice on core 0\]$' || fail "errata: $out"

# A changed file replaces that catalogue's events; the binary form of the same data too.
sed -e 's/Tiny Test Chip/Tiny Test Chip v2/' -e '/<key>ERRATA_EVENT<\/key>/,/<\/dict>/d' "$fixtures/tiny.plist" >tiny2.plist
run "$LAUKA" counters --import tiny2.plist
expect_rc 0
expect_out "^updated tiny (Tiny Test Chip v2, 8 events)"
run "$LAUKA" counters --pmu tiny
[ "$(count)" -eq 8 ] || fail "changed catalogue not replaced: $out"
to_binary "$fixtures/tiny.plist" tiny.bplist
run "$LAUKA" counters --import tiny.bplist
expect_rc 0
expect_out "^updated tiny (Tiny Test Chip, 9 events) from .*tiny.bplist"

# Apple's real catalogues.
[ -f "$shared/a14.plist" ] && [ -f "$shared/as3.plist" ] || skip "tests/fixtures/kpep-data absent (SOURCES.txt there says what it is)"
mkdir kpep
cp "$shared/a14.plist" "$shared/as3.plist" kpep/
ln -s a14.plist kpep/cpu_100000c_2_1b588bb3.plist
run "$LAUKA" counters --import kpep
expect_rc 0
expect_out "^imported a14 (Apple A14/M1, 61 events)"
expect_out "^imported as3 (Apple silicon, 63 events)"
[ "$(count)" -eq 2 ] || fail "the cpu_* symlink was imported twice: $out"
run "$LAUKA" counters --pmu a14
[ "$(count)" -eq 61 ] || fail "a14 has 61 events: $out"
run "$LAUKA" counters --pmu as3
[ "$(count)" -eq 63 ] || fail "as3 has 63 events: $out"
run "$LAUKA" counters --pmu a14 --details --no-headers
expect_rc 0
row() { printf '%s\n' "$out" | awk -v n="$1" '$1 == n { print $2 }'; }
[ "$(row inst_all)" = pair,quad ] || fail "inst_all: $(row inst_all)"
[ "$(row l1d_cache_miss_ld_nonspec)" = quad ] || fail "l1d_cache_miss_ld_nonspec: $(row l1d_cache_miss_ld_nonspec)"
[ "$(row core_active_cycle)" = none ] || fail "core_active_cycle: $(row core_active_cycle)"
[ "$(printf '%s\n' "$out" | awk '$2 == "quad"' | wc -l)" -eq 19 ] || fail "19 quad-only events expected"
[ "$(printf '%s\n' "$out" | awk '$2 == "pair,quad"' | wc -l)" -eq 6 ] || fail "6 pair,quad events expected"
# Column widths fit the longest name (branch_call_indir_mispred_nonspec, 33 characters).
printf '%s\n' "$out" | grep -q '^inst_all                           pair,quad' || fail "column width: $out"

# Binary conversions import to the same events.
to_binary "$shared/as3.plist" as3.bplist
run "$LAUKA" counters --import as3.bplist --pmu as3
expect_rc 0
expect_err "^updated as3 (Apple silicon, 63 events) from .*as3.bplist"
[ "$(count)" -eq 63 ] || fail "binary as3: $out"

# Scheduling: three 0xE0 events plus INST_ALL do not fit on M1; 8 default-mask events plus the 2 fixed do.
run "$LAUKA" counters --pmu a14 --check inst_branch,l1d_cache_miss_ld_nonspec,Cycles,branch_mispred_nonspec,INST_ALL
expect_rc 2
expect_err "^error: requested measurements could not be scheduled on Apple A14/M1$"
expect_err "^tip: these events cannot be counted together: inst_branch, l1d_cache_miss_ld_nonspec, branch_mispred_nonspec, inst_all$"
run "$LAUKA" counters --pmu a14 --check inst_all,retire_uop,core_active_cycle
expect_rc 2
expect_err "cannot be counted together: inst_all, retire_uop$"
run "$LAUKA" counters --pmu a14 --check core_active_cycle,l1d_cache_miss_ld,map_stall_dispatch,l1i_tlb_fill,l2_tlb_miss_data,inst_int_ld,schedule_uop,fetch_restart,cycles,instructions
expect_rc 0
[ "$(printf '%s\n' "$out" | awk 'NR > 1 { print $2 }' | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 " ] ||
	fail "ten events on ten counters: $out"
# Aliases: the plist's own (Cycles), case-insensitive, and the portable ones.
run "$LAUKA" counters --pmu a14 --check Cycles,INSTRUCTIONS,branch-misses,cycles
expect_rc 0
[ "$out" = "$(printf 'event                   counter\nfixed_cycles            0\nfixed_instructions      1\nbranch_mispred_nonspec  5')" ] ||
	fail "aliases: $out"
run "$LAUKA" counters --pmu a14 --check cycles,nope
expect_rc 1
expect_err "unknown event 'nope'"
exit 0
