# calibrate re-measures a probe on which a count reads non-linear, rather than calling a counter
# "not linear" on three disturbed rounds: the probe here is a wrapper whose chase probe at its 4x
# scale does its work twice (a disturbed run, as a loaded machine makes one) the first three times
# it is asked for, and once after that.  The count watched is page-faults (perf, a software event:
# no PMU needed), which the stand-in work makes exact: must come out linear, and the output must
# say that probes were measured again.  Then the two other cases: every run disturbed alike ("not
# linear"), and every run disturbed by a different amount ("noisy": the rounds cannot tell).
# Every probe is stood in for by dd filling a buffer of N bytes from /dev/zero (one fault per 4 KiB
# page: 12,292 faults for 50 MB, 48,910 for 200 MB, perf stat, this VM).  chase is the one disturbed:
# its 10 bytes a step are 0.0024 faults a step, above CALIB_SILENT (0.001 a unit), where alu's 0.2
# bytes an iteration would be no response at all, and so never judged.  Not task-clock: CPU time
# on a shared 2-core VM moves by a quarter between runs of 10-40 ms (a neighbour test, the host's
# steal), and the real chase probe's task-clock at --quick scales is mostly its 256M set-up, which
# on CI's EPYC hid the walk below CALIB_NOISE_FLOOR so that nothing was re-measured.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
	skip "transparent huge pages are always on: a buffer takes one fault per 2 MiB, not per page"

cat > probe.sh <<EOS
#!/bin/sh
# N steps of probe P fill N*F/10 bytes (about 10 MB at each probe's quick 1x scale)
case "\$1" in
alu) f=2 ;; chase) f=100 ;; branch) f=20 ;; store) f=10 ;; *) exit 2 ;;
esac
bytes=\$((\$2 * f / 10))
[ "\$bytes" -ge 1 ] || bytes=1
# chase at its quick 4x scale: the work done again (a disturbed run, as load makes one) in
# DISTURB=first3 the first three runs once; always: every run once; vary: every run 1, 2, 3 times
if [ "\$1" = chase ] && [ "\$2" = 4000000 ]; then
	echo x >> "$PWD/chase4x.count"
	k=\$(wc -l < "$PWD/chase4x.count")
	case "\$DISTURB" in
	first3) extra=\$(( k <= 3 ? 1 : 0 )) ;; always) extra=1 ;; vary) extra=\$(( (k - 1) % 3 + 1 )) ;; *) exit 2 ;;
	esac
	while [ \$extra -gt 0 ]; do
		dd if=/dev/zero of=/dev/null bs=\$bytes count=1 2> /dev/null || exit 1
		extra=\$((extra - 1))
	done
fi
exec dd if=/dev/zero of=/dev/null bs=\$bytes count=1 2> /dev/null
EOS
chmod +x probe.sh

# calibrate_disturbed MODE VERDICT WHY: calibrate with the stand-in disturbed as MODE says (a fresh count
# of chase's 4x runs), and page-faults' row must give VERDICT, else fail with WHY.
calibrate_disturbed() {
	rm -f chase4x.count
	run env DISTURB=$1 LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
	expect_rc 0
	row=$(printf '%s\n' "$out" | grep -E '^page-faults ')
	printf '%s\n' "$row" | grep -qE "^page-faults +$2 " || fail "$3: $row"
}

calibrate_disturbed first3 linear "page-faults not linear after re-measuring"
expect_out '^re-measured: [1-9][0-9]* more rounds\? of the probes where a count read non-linear'
[ "$(wc -l < chase4x.count)" -ge 4 ] || fail "chase at 4x ran only $(wc -l < chase4x.count) times"

# The same disturbance in every run, so the rounds agree: the bend is the counter's, "not linear".
calibrate_disturbed always 'not linear' "a bend every round agrees on is not 'not linear'"
expect_out "^not linear: 'page-faults' on chase"

# Every run disturbed, by a different amount each round: the smallest count is still bent, but the
# rounds differ by more than the bend, so neither verdict can be given: "noisy", and said why.
calibrate_disturbed vary noisy "rounds that disagree by more than the bend are not 'noisy'"
expect_out "^noisy: 'page-faults' on chase: .* moved by up to [0-9]*% between rounds"
expect_out "^[1-9][0-9]* events\\? too noisy to judge"
