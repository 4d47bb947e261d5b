# lauka doctor's macOS facts, measured on the model of XNU (the kperf stand-in) with real probes
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
kperf_standin "$LAUKA_SRCDIR/tests/fixtures/kpep/tiny.plist"

# As root: every fact holds on the model; the numbers are the model's rules (2+5 / 2+8, 3 records, 100 ms).
run "$LAUKA" doctor --backend kperf
expect_rc 0
expect_out '^ok    kpep file .*found in \$KPEP_DB_PATH, resolves to .*/kpep/chip.plist$'
expect_out '^ok    kpc counters .*7 before forcing, 10 after$'
expect_out '^ok    thread samples .*10 values per sample$'
expect_out '^ok    record layout .*3.00 records per sample'
expect_out '^ok    sample rate '
expect_out '^ok    coverage 1 s '
expect_out '^info  coverage 10 ms '
expect_out '^info  user mode only '
printf '%s\n' "$out" | grep -Eq '^info  kdebug cost .*open [1-9][0-9]{2,} ms, close [1-9][0-9]{2,} ms$' ||
	fail "kdebug set-up/reset not at least 100 ms each: $out"

run "$LAUKA" doctor --backend kperf --json
expect_rc 0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True
f = {x["name"]: x for x in d["facts"]}
assert f["kpc counters"]["observed"] == "7 before forcing, 10 after", f["kpc counters"]
' || fail "doctor --json: $out"

# N1 (audit 3): another kperf client left 32 actions; doctor names the count, and every fact still
# holds (the old code failed "kperf open" with 'kperf_action_count_set': Invalid argument).
LAUKA_STANDIN_STATE="$PWD/n1.state" LAUKA_STANDIN_ACTIONS=32 run "$LAUKA" doctor --backend kperf --json
expect_rc 0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True, [f for f in d["facts"] if f["verdict"] == "fail"]
f = {x["name"]: x for x in d["facts"]}
assert f["kperf actions"]["observed"].startswith("32 (set by another kperf client"), f["kperf actions"]
# what could not be verified without a Mac is listed, each with what stands in for the evidence
u = d["unverified"]
assert len(u) >= 8 and all(x["what"] and x["instead"] for x in u), u
assert any("Intel" in x["what"] for x in u), u
assert any("kpc_get_config" in x["what"] for x in u), u
# no internal audit codes (N1, C2, A5, ...) in what users read
import re
for x in u:
    for k in ("what", "instead"):
        v = x.get(k) or ""
        assert not re.search(r"\b(audit [0-9]|[ACDKNRX][0-9]{1,2}\b)", v), v
' || fail "doctor --json with 32 actions: $out"
run "$LAUKA" doctor --backend kperf
expect_out '^info  kperf actions  *[0-9]*'
expect_out '^not verified without a Mac'

# Without root: what rusage gives, and what sudo adds.  rusage is the intended no-root set-up, so
# kperf needing root is information, not a failure (exit 0).
LAUKA_STANDIN_EUID=501 run "$LAUKA" doctor --backend kperf
expect_rc 0
expect_out '^ok    rusage .*instructions [0-9]*, cycles [0-9]* of this process$'
expect_out '^info  kperf .*needs root'
expect_err '^tip: sudo lauka doctor checks kperf too'

# The counters held by another live process (this shell): EACCES, named as such.
LAUKA_STANDIN_STATE="$PWD/forced.state" LAUKA_STANDIN_FORCED=1 run "$LAUKA" doctor --backend kperf
expect_rc 2
expect_out '^FAIL  kpc forcing .*held by another process'

# Under Rosetta: refused.
LAUKA_STANDIN_TRANSLATED=1 run "$LAUKA" doctor --backend kperf
expect_rc 2
expect_out 'Rosetta'

# C1 (audit 4): doctor --macos prints each kernel answer (read only), then one open -> attach ->
# exited -> close cycle on lauka-probe alu.  The model of XNU answers the sysctls; fake
# DevToolsSecurity and xcode-select stand in for Apple's.
mkdir fakebin
printf '#!/bin/sh\necho "Developer mode is currently enabled."\n' > fakebin/DevToolsSecurity
printf '#!/bin/sh\necho /Applications/Xcode-16.2.app/Contents/Developer\n' > fakebin/xcode-select
chmod +x fakebin/*
PATH="$PWD/fakebin:$PATH" LAUKA_STANDIN_STATE="$PWD/c1.state" run "$LAUKA" doctor --macos
expect_rc 0
for row in 'ktrace.state  *0' 'ktrace.owning_pid  *0' 'ktrace.background_pid  *0' 'ktrace.configured_by' \
	'kperf.action.count  *0' 'kperf.sampling  *0' 'kperf.lightweight_pet  *0' 'kpc.counting  *0x0' \
	'kpc.thread_counting  *0x0' 'kpc.force_all_ctrs  *0' 'kpc counters  *2+5' 'kern.osrelease  *24.4.0' \
	'DevToolsSecurity -status  *Developer mode is currently enabled. (exit 0)' \
	'xcode-select -p  */Applications/Xcode-16.2.app/Contents/Developer (exit 0)'; do
	expect_out "^info  $row"
done
expect_out '^ok    stale state  *none$'
# INST_ALL is sampled: "(scaled)" unless the samples covered the whole run, which a loaded machine's longer run may do
expect_out '^ok    cycle  *lauka-probe alu 100000000: INST_ALL [0-9]*\( (scaled)\)\?, FIXED_INSTRUCTIONS [0-9]*$'
expect_out '^info  known count  *not compared: the model'
expect_out '^ok    after the cycle  *none$'
# The JSON a bug report attaches: every answer by name.
PATH="$PWD/fakebin:$PATH" LAUKA_STANDIN_STATE="$PWD/c1j.state" run "$LAUKA" doctor --macos --json
expect_rc 0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True
f = {x["name"]: x for x in d["facts"]}
for k in ("ktrace.state", "ktrace.owning_pid", "ktrace.background_pid", "ktrace.configured_by",
          "kperf.action.count", "kperf.sampling", "kperf.lightweight_pet", "kpc.counting",
          "kpc.thread_counting", "kpc.force_all_ctrs", "kpc counters", "DevToolsSecurity -status",
          "xcode-select -p", "cycle", "after the cycle"):
    assert k in f, k
assert f["kperf.action.count"]["observed"] == "0"
assert any("doctor --macos" in x["what"] for x in d["unverified"]), d["unverified"]
' || fail "doctor --macos --json: $out"

# A5: a killed run left sampling, PET and kpc counting on: shown with the command that clears it;
# the cycle resets it and says so.
LAUKA_STANDIN_STATE="$PWD/c1s.state" LAUKA_STANDIN_STALE=1 run "$LAUKA" doctor --macos
expect_rc 0
expect_out '^info  kperf.sampling  *1$'
expect_out '^info  kperf.action.count  *32$'
expect_out "^info  stale state  *kperf.sampling = 1, kperf.lightweight_pet = 1, kpc.counting = 0x3, kpc.thread_counting = 0x3 with no live ktrace owner (last configured by 'lauka'): .*clear it: sudo lauka doctor --macos.*; the cycle below reset it$"
expect_out '^ok    after the cycle  *none$'

# A live foreground owner (Instruments, this shell): named, with EBUSY for kperf; exit 2.
LAUKA_STANDIN_STATE="$PWD/c1b.state" LAUKA_STANDIN_BUSY=1 run "$LAUKA" doctor --macos
expect_rc 2
expect_out "^info  ktrace.state  *1$"
expect_out "^FAIL  ktrace owner  *pid $$ ('Instruments') owns ktrace: kperf runs fail with EBUSY"

# A background tool (tailspind): state 2, its pid; lauka takes ktrace over, the cycle works.
LAUKA_STANDIN_STATE="$PWD/c1g.state" LAUKA_STANDIN_BGTOOL=1 run "$LAUKA" doctor --macos
expect_rc 0
expect_out "^info  ktrace.state  *2$"
expect_out "^info  ktrace.background_pid  *$$\$"

# A4: the CPU's PMU held by another kernel client (macOS 14.4+): kpc answers EBUSY, named as such.
LAUKA_STANDIN_STATE="$PWD/c1c.state" LAUKA_STANDIN_CPMU=1 run "$LAUKA" doctor --macos
expect_rc 2
expect_out '^FAIL  kpc.counting  *unreadable: Device or resource busy'
expect_out '^FAIL  cycle  .*held by another kernel client'

# Without root: the public ktrace.* answers, the rest "needs root", one FAIL (root), and the fix.
LAUKA_STANDIN_STATE="$PWD/c1r.state" LAUKA_STANDIN_EUID=501 run "$LAUKA" doctor --macos
expect_rc 2
expect_out '^info  ktrace.state  *0$'
expect_out '^info  kperf.sampling  *needs root$'
expect_out '^info  cycle  *needs root$'
[ "$(printf '%s\n' "$out" | grep -c '^FAIL')" -eq 1 ] || fail "more than one FAIL without root: $out"
expect_out '^FAIL  root '
expect_err '^fix: sudo lauka doctor --macos$'

# Root, and a failure whose text mentions root (another root process rewrote kpc's counting
# classes): no "sudo" fix for a user who is root already.
LAUKA_STANDIN_STATE="$PWD/c1t.state" LAUKA_STANDIN_TAMPER=counting run "$LAUKA" doctor --macos
expect_rc 2
expect_out '^FAIL  cycle .*another root process'
printf '%s\n' "$err" | grep -q 'fix: sudo' && fail "sudo suggested to root: $err"

# Another program's output is shown escaped: a terminal escape from a tool on PATH does not reach the terminal.
mkdir evilbin
printf '#!/bin/sh\nprintf "/Applications/Xcode.app\\033[2J\\033]0;pwn\\007\\n"\n' > evilbin/xcode-select
chmod +x evilbin/xcode-select
PATH="$PWD/evilbin:$PATH" LAUKA_STANDIN_STATE="$PWD/c1e.state" run "$LAUKA" doctor --macos
expect_out '^info  xcode-select -p  */Applications/Xcode.app\\x1b\[2J\\x1b\]0;pwn\\x07 (exit 0)$'
printf '%s' "$out" | grep -q "$(printf '\033')" && fail "an escape reached the output"
exit 0
