# calibrate re-measures a probe on which a count reads non-linear, rather than calling a counter
# "not linear" on three disturbed rounds: the probe here is a wrapper whose chase probe at its 4x
# scale does its work twice (a disturbed run, as a loaded machine makes one) the first three times
# it is asked for, and once after that.  The count watched is page-faults (perf, a software event:
# no PMU needed), which the stand-in work makes exact: must come out linear, and the output must
# say that probes were measured again.
# Every probe is stood in for by dd filling a buffer of N bytes from /dev/zero (one fault per 4 KiB
# page: 12,292 faults for 50 MB, 48,910 for 200 MB, perf stat, this VM).  chase is the one disturbed:
# its 20 bytes a step are 0.005 faults a step, above CALIB_SILENT (0.001 a unit), where alu's 0.4
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
# N steps of probe P fill N*F/5 bytes (about 20 MB at each probe's quick 1x scale)
case "\$1" in
alu) f=2 ;; chase) f=100 ;; branch) f=20 ;; store) f=10 ;; *) exit 2 ;;
esac
bytes=\$((\$2 * f / 5))
[ "\$bytes" -ge 1 ] || bytes=1
# chase at its quick 4x scale: the first three runs are disturbed (the work done twice)
if [ "\$1" = chase ] && [ "\$2" = 4000000 ]; then
	echo x >> "$PWD/chase4x.count"
	if [ \$(wc -l < "$PWD/chase4x.count") -le 3 ]; then
		dd if=/dev/zero of=/dev/null bs=\$bytes count=1 2> /dev/null || exit 1
	fi
fi
exec dd if=/dev/zero of=/dev/null bs=\$bytes count=1 2> /dev/null
EOS
chmod +x probe.sh

run env LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
expect_rc 0
row=$(printf '%s\n' "$out" | grep -E '^page-faults ')
printf '%s\n' "$row" | grep -qE '^page-faults +linear ' || fail "page-faults not linear after re-measuring: $row"
expect_out '^re-measured: [1-9][0-9]* more rounds\? of the probes where a count read non-linear'
[ "$(wc -l < chase4x.count)" -ge 4 ] || fail "chase at 4x ran only $(wc -l < chase4x.count) times"
