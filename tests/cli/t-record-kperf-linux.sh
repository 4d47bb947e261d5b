# kperf on Linux: never listed or chosen by default; with the stand-in frameworks the whole record path runs
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
standin="$LAUKA_BUILD/libkperf-standin.so"
[ -f "$standin" ] || skip "stand-in library not built"
a14="$LAUKA_SRCDIR/../shared/kpep-data/a14.plist"
[ -f "$a14" ] || a14="$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"

run "$LAUKA" --backend kperf -- true
expect_rc 1; expect_err "unknown backend 'kperf'"

export LAUKA_KPERF_PATH="$standin" LAUKA_KPERFDATA_PATH="$standin" LAUKA_STANDIN_STATE="$PWD/standin.state"
run "$LAUKA" version
expect_rc 0
printf '%s\n' "$out" | grep -q kperf && fail "version lists kperf on Linux: $out"

# The stand-in reports the M1 cpu string; serve the a14 catalogue under that name, as /usr/share/kpep does.
mkdir kpep
cp "$a14" kpep/chip.plist
ln -s chip.plist kpep/cpu_100000c_2_1b588bb3.plist
export KPEP_DB_PATH="$PWD/kpep"
[ "$a14" = "${a14%tiny.plist}" ] || skip "../shared/kpep-data/a14.plist not found"

run "$LAUKA" --color never --backend kperf -m l1d_cache_miss_ld_nonspec,core_active_cycle -- "$LAUKA_BUILD/kperf-spin 20"
expect_rc 0
expect_out '^l1d_cache_miss_ld_nonspec '; expect_out '^core_active_cycle '
row_of 1 l1d_cache_miss_ld_nonspec | grep -q '(scaled, [0-9.]*% counted)' || fail "sampled count not marked as scaled"

# F1: the M1 default set puts three events on PMC5-7, which exist only once the counters are
# forced (the model logs 2+8 values then, 2+5 before); the code before the fix failed here with
# "kpep_config_kpc_map gave counter 7 of 7".
run "$LAUKA" --color never --backend kperf -- "$LAUKA_BUILD/kperf-spin 10"
expect_rc 0
for e in inst_branch branch_mispred_nonspec l1d_cache_miss_ld_nonspec l1i_cache_miss_demand; do
	row_of 1 $e | grep -q '(scaled, [0-9.]*% counted)' || fail "default event $e not counted: $out"
done
expect_err "^tip: kperf's configurable events count user mode only"
# F2: kdebug's 100 ms set-up and reset are not in wall_time: a 10 ms command stays under 200 ms.
# The minimum (the column after 'min ...') is the least loaded of the runs.
wall=$(row_of 1 wall_time | awk '{print $5}')
case $wall in *ms) ms=${wall%ms}; [ "${ms%.*}" -lt 200 ] || fail "wall_time $wall includes kdebug set-up" ;;
*us) ;; *) fail "wall_time minimum '$wall'" ;; esac

# F9: a shell's children are not counted; record says so.
run "$LAUKA" --color never --backend kperf -m inst_branch -- "sh -c '$LAUKA_BUILD/kperf-spin 5; true'"
expect_rc 0
expect_err '^tip: on macOS the counts are of the direct process only'

# Four events that share the three counters PMC5-7: refused before the command runs, exit 2.
run "$LAUKA" --backend kperf -m inst_branch,l1d_cache_miss_ld_nonspec,branch_mispred_nonspec,inst_all -- 'touch ran'
expect_rc 2
expect_err '^error: requested measurements could not be scheduled on Apple A14/M1$'
expect_err '^tip: these events cannot be counted together: .*inst_all'
[ ! -e ran ] || fail "command ran although its events cannot be scheduled"
# Order of naming does not matter.
run "$LAUKA" --backend kperf -m inst_all,branch_mispred_nonspec,l1d_cache_miss_ld_nonspec,inst_branch -- true
expect_rc 2

# Without root: one line saying to use sudo, exit 2.
LAUKA_STANDIN_EUID=501 run "$LAUKA" --backend kperf -- true
expect_rc 2
expect_err "^error: backend 'kperf' needs root"
expect_err '^fix: run it as root: sudo .*lauka'
exit 0
