# Message nits of issue 21 (D-20): empty program, FOO=1 cmd, [ and {, a newline in -m, lauka '', a probe killed by a signal
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
one_error() { [ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"; }

# '""' named an empty program and exited 126 as if it were not executable.
run "$LAUKA" --color never --backend rusage -- '""'
expect_rc 1; one_error
expect_err "^error: command names an empty program ('\"\"')$"

# FOO=1 cmd: not found, with the way to set a variable.
run "$LAUKA" --color never --backend rusage -- 'FOO=1 true'
expect_rc 127
expect_err "^tip: to set FOO for the command, run it through env: lauka -- 'env FOO=1 true'$"

# [ and { mean something to a shell (globbing, test, braces): refused like the other metacharacters.
for c in '[ -f x ]' 'ls [ab]*' 'echo {a,b}'; do
	run "$LAUKA" --color never --backend rusage -- "$c"
	expect_rc 1; one_error
	expect_err "contains the shell metacharacter '[[{]'; lauka runs commands without a shell$"
done

# A newline in -m split the error line in two.
run "$LAUKA" --color never --backend rusage -m "$(printf 'wall\ntime')" -- true
expect_rc 1; one_error
expect_err "^error: --measurements holds a control character (byte 0x0a); names are separated by commas$"

# lauka '': not "put it after '--': lauka -- ' ...'".
run "$LAUKA" ''
expect_rc 1; one_error
expect_err "^error: the verb is empty ('')$"
printf '%s\n' "$err" | grep -q "lauka -- ' \.\.\.'" && fail "the old tip: $err"

# counters --check with 10,000 events: the conflict search was quadratic (36 s).  Timed against 1,000
# events, as the median of three interleaved rounds: linear is about 10 times, quadratic about 100.
python3 - <<'PY' || fail "generating the plist"
import plistlib
ev = {}
for i in range(10000):
    e = {'number': i % 0xffff + 1}
    if i % 10 == 1:
        e['counters_mask'] = 0x80
    elif i % 10 == 2:
        e['counters_mask'] = 0xe0
    ev['E%06d' % i] = e
ev['FIXED_CYCLES'] = {'fixed_counter': 0, 'counters_mask': 1}
cpu = {'architecture': 'arm64', 'marketing_name': 'Generated', 'fixed_counters': 3,
       'config_counters': 0x3fc, 'power_counters': 0xe0, 'events': ev}
d = {'name': 'gen', 'version': [1, 0], 'system': {'cpu': cpu}}
open('gen.plist', 'wb').write(plistlib.dumps(d, fmt=plistlib.FMT_BINARY))
open('all.txt', 'w').write(','.join('E%06d' % i for i in range(10000)))
open('some.txt', 'w').write(','.join('E%06d' % i for i in range(1000)))
PY
run "$LAUKA" counters --import gen.plist
expect_rc 0
ms() { s=$(date +%s%N); timeout -s KILL 150 "$LAUKA" counters --pmu gen --check "$(cat "$1")" >/dev/null 2>check.err; r=$?; echo $(( ($(date +%s%N) - s) / 1000000 )); [ $r -eq 2 ] || echo "exit $r: $(cat check.err)" >&2; }
ratios=""
for round in 1 2 3; do
	a=$(ms some.txt); b=$(ms all.txt)
	ratios="$ratios $(( b * 10 / (a > 0 ? a : 1) ))"
done
grep -q "^tip: these events cannot be counted together: " check.err || fail "no conflict named: $(cat check.err)"
median=$(printf '%s\n' $ratios | sort -n | sed -n 2p)
echo "--check 10,000 vs 1,000 events: ratios x10 =$ratios (median $median)"
[ "$median" -lt 400 ] || fail "--check grows quadratically: 10,000 events take $((median / 10)) times as long as 1,000"

# A probe killed by a signal is said so, not "exit code 139".
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (the other nits passed)"
printf '#!/bin/sh\nkill -SEGV $$\n' >probe.sh
chmod +x probe.sh
LAUKA_PROBE="$PWD/probe.sh" run "$LAUKA" calibrate --backend valgrind --quick
[ "$rc" -ne 0 ] || fail "a crashing probe calibrated"
expect_err "was killed by signal 11 (Segmentation fault)$"
printf '%s\n' "$err" | grep -q "exit code 139" && fail "reported as exit code 139: $err"
exit 0
