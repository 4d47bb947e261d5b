# lauka counters lists a catalogue in time linear in its events: 10k and 100k generated events, timed side by side
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
# Binary plists (both under the 4 MiB limit): default-mask events, and 0x80 and 0xE0 ones so
# that the incompat labels have restricted groups to find, as on M1.
python3 - <<'PY' || fail "generating the plists"
import plistlib
for n in (10000, 100000):
    ev = {}
    for i in range(n):
        e = {'number': i % 0xffff + 1}
        if i % 100 == 1:
            e['description'] = 'generated event %d' % i
        if i % 10 == 1:
            e['counters_mask'] = 0x80
        elif i % 10 == 2:
            e['counters_mask'] = 0xe0
        ev['E%06d' % i] = e
    ev['FIXED_CYCLES'] = {'fixed_counter': 0, 'counters_mask': 1}
    cpu = {'architecture': 'arm64', 'marketing_name': 'Generated', 'fixed_counters': 3,
           'config_counters': 0x3fc, 'power_counters': 0xe0, 'events': ev}
    d = {'name': 'gen%d' % n, 'version': [1, 0], 'system': {'cpu': cpu}}
    open('gen%d.plist' % n, 'wb').write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))
PY
run "$LAUKA" counters --import gen10000.plist --import gen100000.plist
expect_rc 0
expect_out "^imported gen100000 (Generated, 100001 events)"
run "$LAUKA" counters --pmu gen100000 --details --no-headers
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c '^e0[0-9]* ')" -eq 100000 ] || fail "not every event listed"
printf '%s\n' "$out" | grep -q '^e000001  *pair,quad  *generated event 1' || fail "labels: $(printf '%s\n' "$out" | head -3)"

# Best of five of each, alternating, so that load on the machine hits both alike.  Linear: the
# ratio is about 10 (less, with the fixed start-up cost); quadratic (the old listing, 17.5 s
# for 100k events): about 100.
python3 - "$LAUKA" <<'PY' >ratio.txt || fail "timing"
import subprocess, sys, time
best = {}
for _ in range(5):
    for n in (10000, 100000):
        t = time.perf_counter()
        subprocess.run([sys.argv[1], 'counters', '--pmu', 'gen%d' % n, '--details'], stdout=subprocess.DEVNULL, check=True)
        best[n] = min(best.get(n, 1e9), time.perf_counter() - t)
print('%.2f %.4f %.4f' % (best[100000] / best[10000], best[10000], best[100000]))
PY
read -r ratio t10 t100 <ratio.txt
echo "100k/10k events: ${t100}s / ${t10}s = ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r < 30) }' || fail "listing is not linear: 100k events take $ratio times as long as 10k (${t100}s vs ${t10}s)"
exit 0
