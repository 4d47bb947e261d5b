# probes: the aarch64 build (cross-compiled) runs under qemu-aarch64 and keeps its subs/b.ne loop and its branch
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v qemu-aarch64 >/dev/null 2>&1 || skip "qemu-aarch64 not installed (qemu-user)"
A="$LAUKA_BUILD/aarch64/lauka-probe"
[ -x "$A" ] || skip "no aarch64 build of lauka-probe (aarch64-linux-gnu-gcc not installed)"
[ -d /usr/aarch64-linux-gnu ] || skip "no aarch64 sysroot in /usr/aarch64-linux-gnu"
Q="qemu-aarch64 -L /usr/aarch64-linux-gnu"

run $Q "$A" alu 2.5e6
expect_rc 0; expect_out '^alu 2500000 iterations$'
run $Q "$A" chase 8192 1M
expect_rc 0; expect_out 'over 8192 slots of 128 bytes, ended at slot 0$'
run $Q "$A" branch 1e5
expect_rc 0
taken=$(printf '%s\n' "$out" | sed -n 's/.*iterations, \([0-9]*\) taken.*/\1/p')
[ "$taken" -gt 49000 ] && [ "$taken" -lt 51000 ] || fail "uneven branch split: $out"
run $Q "$A" store 8192 1M
expect_rc 0; expect_out 'ended at slot 0$'

OD=aarch64-linux-gnu-objdump
command -v $OD >/dev/null 2>&1 || exit 0
disasm() { $OD -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} on && /^$/ {exit} on'; }
# Mnemonics up to the first ret (what follows is alignment padding).
ops() { printf '%s\n' "$1" | awk '{print $2} $2 == "ret" {exit}' | tr '\n' ' '; }
alu=$(disasm "$A" probe_alu)
[ "$(ops "$alu")" = "subs b.ne ret " ] || fail "probe_alu is not subs/b.ne/ret: $alu"
chase=$(disasm "$A" probe_chase)
[ "$(ops "$chase")" = "ldr subs b.ne ret " ] || fail "probe_chase: $chase"
br=$(disasm "$A" probe_branch)
nb=$(printf '%s\n' "$br" | grep -cE '\s(b\.[a-z]+|cbn?z|tbn?z)\s')
[ "$nb" -ge 2 ] || fail "expected >= 2 conditional branches in aarch64 probe_branch: $br"
printf '%s\n' "$br" | grep -qE '\s(csel|csinc|cset)\s' && fail "aarch64 probe_branch uses a select: $br"
exit 0
