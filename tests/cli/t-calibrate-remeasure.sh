# calibrate re-measures a probe on which a count reads non-linear, rather than calling a counter
# "not linear" on three disturbed rounds: the probe here is a wrapper that runs the chase probe's 4x
# scale twice (a disturbed run, as a loaded machine makes one) the first three times it is asked for
# it, and once after that.  task-clock (perf, a software event: no PMU needed) must come out
# validated, and the output must say that probes were measured again.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

run "$LAUKA" version
printf '%s\n' "$out" | grep -q '^  perf .*available' || skip "perf backend not available here"
probe=$(dirname "$LAUKA")/lauka-probe
[ -x "$probe" ] || skip "no lauka-probe beside lauka"

cat > probe.sh <<EOS
#!/bin/sh
# chase at its quick 4x scale: the first three runs are disturbed (the work done twice)
if [ "\$1" = chase ] && [ "\$2" = 4000000 ]; then
	echo x >> "$PWD/chase4x.count"
	if [ \$(wc -l < "$PWD/chase4x.count") -le 3 ]; then
		"$probe" "\$@" > /dev/null || exit 1
	fi
fi
exec "$probe" "\$@"
EOS
chmod +x probe.sh

run env LAUKA_PROBE="$PWD/probe.sh" "$LAUKA" calibrate --backend perf --quick
expect_rc 0
row=$(printf '%s\n' "$out" | grep -E '^task-clock ')
printf '%s\n' "$row" | grep -qE '^task-clock +validated ' || fail "task-clock not validated after re-measuring: $row"
expect_out '^re-measured: [1-9][0-9]* more rounds\? of the probes where a count read non-linear'
[ "$(wc -l < chase4x.count)" -ge 4 ] || fail "chase at 4x ran only $(wc -l < chase4x.count) times"
