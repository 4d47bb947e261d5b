# probes: the compiled branch probe keeps its conditional branch (-O2 did not turn it into a select)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v objdump >/dev/null 2>&1 || skip "objdump not installed (binutils)"
P="$LAUKA_BUILD/lauka-probe"

# Disassembly of one function: from its label to the next blank line.
disasm() { objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} on && /^$/ {exit} on'; }

case $(uname -m) in
x86_64|amd64)
	body=$(disasm "$P" probe_branch)
	[ -n "$body" ] || fail "probe_branch not found in the disassembly"
	# two conditional jumps: the loop and the LCG test; no cmov/set (a select)
	nj=$(printf '%s\n' "$body" | grep -cE '\sj(n?[abgelsopcz]|ne|ae|be|ge|le|np|po|pe)\s')
	[ "$nj" -ge 2 ] || fail "expected >= 2 conditional jumps in probe_branch, got $nj:
$body"
	printf '%s\n' "$body" | grep -qE '\s(cmov|set)[a-z]*\s' && fail "probe_branch uses a select: $body"
	# each arm keeps its own inline asm: one nop, and two nops in a row
	[ "$(printf '%s\n' "$body" | awk '$2 == "nop"' | wc -l)" -eq 3 ] || fail "expected 3 nops (1 + 2): $body"
	# alu: exactly dec/jnz in the loop
	alu=$(disasm "$P" probe_alu)
	printf '%s\n' "$alu" | grep -q 'dec' && printf '%s\n' "$alu" | grep -q 'jne' || fail "probe_alu is not dec/jnz: $alu"
	;;
*) skip "disassembly check written for x86-64; the aarch64 build is checked in t-probe-aarch64" ;;
esac
