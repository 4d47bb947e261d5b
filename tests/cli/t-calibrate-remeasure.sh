# calibrate re-measures a probe on which a count reads non-linear, rather than calling a counter
# "not linear" on three disturbed rounds: the probe here is a wrapper that runs the alu probe's 4x
# scale twice (a disturbed run, as a loaded machine makes one) the first three times it is asked for
# it, and once after that.  task-clock (perf, a software event: no PMU needed) must come out
# validated, and the output must say that probes were measured again.
# Every probe is stood in for by the alu loop, at about 40 ms per 1x: task-clock of the real chase
# and store probes is their 256M set-up plus a walk of about the same time at --quick scales, and
# whether that reads linear within 25% is the machine's business, not this test's (CI's EPYC once
# read chase below the noise floor, so nothing was re-measured; this machine once read it 26% off).
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
probe=$(dirname "$LAUKA")/lauka-probe
[ -x "$probe" ] || skip "no lauka-probe beside lauka"

cat > probe.sh <<EOS
#!/bin/sh
# the alu loop for every probe: N steps of probe P become N*F alu iterations
case "\$1" in
alu) f=4 ;; chase) f=200 ;; branch) f=40 ;; store) f=20 ;; *) exit 2 ;;
esac
n=\$((\$2 * f))
# alu at its quick 4x scale: the first three runs are disturbed (the work done twice)
if [ "\$1" = alu ] && [ "\$2" = 200000000 ]; then
	echo x >> "$PWD/alu4x.count"
	if [ \$(wc -l < "$PWD/alu4x.count") -le 3 ]; then
		"$probe" alu \$n > /dev/null || exit 1
	fi
fi
exec "$probe" alu \$n
EOS
chmod +x probe.sh

run env LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
expect_rc 0
row=$(printf '%s\n' "$out" | grep -E '^task-clock ')
printf '%s\n' "$row" | grep -qE '^task-clock +validated ' || fail "task-clock not validated after re-measuring: $row"
expect_out '^re-measured: [1-9][0-9]* more rounds\? of the probes where a count read non-linear'
[ "$(wc -l < alu4x.count)" -ge 4 ] || fail "alu at 4x ran only $(wc -l < alu4x.count) times"
