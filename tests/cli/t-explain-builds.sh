# valgrind functions of two builds of one program (./a-O0, ./b-O2) compare by name: main with main, not "main removed" and "main added" (issue 28)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
cat > prog.c <<'C'
static unsigned long work(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i % 7;
	return s;
}

int main(void)
{
	volatile unsigned long r = work(200000);
	return r == 42;
}
C
"$CC" -O0 -o a-O0 prog.c && "$CC" -O2 -o b-O2 prog.c || fail "cannot build the two builds"
# -O2 inlines work() into main; -O0 keeps it apart: a-O0's main lost nearly all of b-O2's main's work.
run "$LAUKA" record --backend valgrind -m Ir --gate Ir=1% --color never -- ./b-O2 ./a-O0
expect_rc 3; expect_out '^Command 2 (failed a gate): ./a-O0'
changed=$(printf '%s\n' "$out" | sed -n '/^  changed most/,$p')
printf '%s\n' "$changed" | grep -q ' main  .*/b-O2$' && fail "main of b-O2 listed as removed: $changed"
line=$(printf '%s\n' "$changed" | grep ' main  .*/a-O0$') || fail "main not compared with main: $changed"
# Its change is a-O0's main less b-O2's: a loss of about the whole loop (b-O2's main is the loop).
b=$(printf '%s\n' "$out" | awk '/^Benchmark 1/ {on = 1} on && $1 == "Ir" {print $2; exit}')
case $line in *-[0-9]*M*) ;; *) fail "main's change should be a loss of millions: $line (b-O2: Ir $b)" ;; esac
printf '%s\n' "$changed" | grep -q '+.*work  .*/a-O0$' || fail "work() of a-O0 not listed as added: $changed"
# Issue 37 T9: the builds' PLT stubs (addresses callgrind cannot name, 0x0000000000001110) sit at
# other addresses; they are one entry per object, matched between the builds, never "changed functions".
printf '%s\n' "$changed" | grep -q ' 0x[0-9a-f]*  ' && fail "unnamed addresses listed as changed functions: $changed"
exit 0
