# Binary plist bombs (issue 21): deep nesting, shared-reference fan-out, cycles, U+0000 in a template, at every entry point
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (it writes the bombs)"
bomb="$LAUKA_SRCDIR/tests/bplist-bomb.py"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
[ -f "$data/cpu-counters-template-legacy.xml" ] && [ -f "$kpep" ] || skip "tests/fixtures/xctrace-data or kpep-data absent (SOURCES.txt there says what they are)"

# libplist 2.2 recursed 100,000 deep (SIGSEGV), built 2^40 nodes from 730 bytes (never ended; 2^24 took
# 3.7 GB), followed a self-reference, and asserted on U+0000.  Each must be refused within the bounds of
# issue 21, asserted here: 256 MB of memory (peak RSS from /usr/bin/time; ulimit -v too where the
# binary is not built with ASan, whose shadow memory needs terabytes of address space) and a time
# limit far above what a refusal takes even on a loaded machine.
python3 "$bomb" deep 100000 deep.bplist
python3 "$bomb" fanout 40 fanout.bplist
python3 "$bomb" fanout 24 fanout24.bplist
python3 "$bomb" cycle cycle.bplist
python3 "$bomb" nul16 "$kpep" nul16.bplist
python3 "$bomb" nul16 "$data/cpu-counters-template-legacy.xml" nul16-legacy.bplist
python3 "$bomb" nul16 "$data/l2-miss-xcode16.tracetemplate" nul16-x16.bplist
[ "$(wc -c <fanout.bplist)" -lt 1000 ] || fail "the fan-out bomb is not small"
asan=0
nm -D "$LAUKA" 2>/dev/null | grep -q __asan_init && asan=1
nm "$LAUKA" 2>/dev/null | grep -q __asan_init && asan=1

bounded() {	# bounded CMD...: run with the limits; $rc, $err as run() sets them, $rss in KB
	if [ -x /usr/bin/time ]; then
		run sh -c 'if [ "$0" = 0 ]; then ulimit -v 1048576; fi; exec /usr/bin/time -f "rss=%M" -o time.out timeout -s KILL 60 "$@"' "$asan" "$@"
		rss=$(sed -n 's/^rss=//p' time.out)
		[ -n "$rss" ] && [ "$rss" -lt 262144 ] || fail "$*: peak RSS ${rss:-unknown} KB (limit 262144); stderr: $err"
	else
		run sh -c 'if [ "$0" = 0 ]; then ulimit -v 262144; fi; exec timeout -s KILL 60 "$@"' "$asan" "$@"
	fi
}
refused() {	# refused LIMIT-PATTERN: one error line naming the limit, exit 2
	expect_rc 2
	expect_err "$1"
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"
}

# 1. counters --import
run "$LAUKA" counters --import "$kpep"
expect_rc 0
snapshot=$(cksum <"$LAUKA_DB")
for f in deep fanout fanout24 cycle nul16; do
	bounded "$LAUKA" counters --import $f.bplist
	case $f in
	deep) refused "^error: .*deep.bplist: binary plist nested more than 256 levels deep (lauka's limit)$" ;;
	fanout*) refused "^error: .*$f.bplist: binary plist expands to more than 1000000 objects through shared references (lauka's limit)$" ;;
	cycle) refused "^error: .*cycle.bplist: not a plist: binary plist object 0 contains itself$" ;;
	nul16) refused "^error: .*nul16.bplist: string '.*' contains a NUL character (U+0000) at position [0-9]*$" ;;
	esac
done
[ "$(cksum <"$LAUKA_DB")" = "$snapshot" ] || fail "a refused import changed the database"

# A plist nested 200 deep (within the limit) is read: the pre-pass refuses only what is over a limit.
python3 "$bomb" ok 200 ok.bplist
bounded "$LAUKA" counters --import ok.bplist
expect_rc 2
expect_err "the root is an array, expected a dictionary"

# 2 and 3. LAUKA_KPEP_FILE and LAUKA_XCTRACE_TEMPLATE, through the xctrace stand-in.
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_XCTRACE_TMPDIR="$PWD/darwin-tmp"
export LAUKA_STANDIN_LOG="$PWD/standin.log"
mkdir darwin-tmp work
export TMPDIR="$PWD/work"
for f in deep fanout cycle nul16 nul16-legacy nul16-x16; do
	LAUKA_KPEP_FILE="$PWD/$f.bplist" LAUKA_XCTRACE_TEMPLATE="$data/cpu-counters-template-legacy.xml" \
		bounded "$LAUKA" --backend xctrace -m cycles -- true
	expect_rc 2
	expect_err "$f.bplist"
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "LAUKA_KPEP_FILE=$f: not one error line: $err"
	LAUKA_KPEP_FILE="$kpep" LAUKA_XCTRACE_TEMPLATE="$PWD/$f.bplist" bounded "$LAUKA" --backend xctrace -m cycles -- true
	expect_rc 2
	case $f in
	deep) expect_err "^error: .*$f.bplist.*binary plist nested more than 256 levels deep (lauka's limit)$" ;;
	fanout) expect_err "^error: .*$f.bplist.*more than 1000000 objects through shared references (lauka's limit)$" ;;
	cycle) expect_err "^error: .*$f.bplist.*object 0 contains itself$" ;;
	nul16*) expect_err "^error: .*$f.bplist.*string '.*' contains a NUL character (U+0000)" ;;
	esac
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "LAUKA_XCTRACE_TEMPLATE=$f: not one error line: $err"
	[ -z "$(ls work)" ] || fail "left behind in TMPDIR after $f: $(ls work)"
done

# A FIFO as LAUKA_XCTRACE_TEMPLATE or LAUKA_EXPECTATIONS blocked forever: refused before a read.
mkfifo fifo
LAUKA_KPEP_FILE="$kpep" LAUKA_XCTRACE_TEMPLATE="$PWD/fifo" run timeout -s KILL 30 "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2
expect_err "^error: xctrace backend: cannot read the template '$PWD/fifo': not a regular file$"
[ -z "$(ls work)" ] || fail "left behind in TMPDIR after a FIFO template: $(ls work)"
if command -v valgrind >/dev/null 2>&1; then
	LAUKA_EXPECTATIONS="$PWD/fifo" run timeout -s KILL 30 "$LAUKA" calibrate --backend valgrind --quick
	expect_rc 2
	expect_err "^error: cannot read LAUKA_EXPECTATIONS='$PWD/fifo': not a regular file$"
fi
