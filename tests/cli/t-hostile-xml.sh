# Hostile xctrace output (issue 21): billion laughs, huge ids, 65 events, exit statuses out of range
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (the stand-in is a Python script)"
kpep="$LAUKA_SRCDIR/tests/fixtures/kpep-data/a14.plist"
data="$LAUKA_SRCDIR/tests/fixtures/xctrace-data"
[ -f "$kpep" ] && [ -f "$data/cpu-counters-template-legacy.xml" ] || skip "tests/fixtures/kpep-data or xctrace-data absent (SOURCES.txt there says what they are)"
export LAUKA_XCTRACE="$LAUKA_SRCDIR/tests/support/xctrace-standin" LAUKA_KPEP_FILE="$kpep"
export LAUKA_XCTRACE_TEMPLATE="$data/cpu-counters-template-legacy.xml" LAUKA_XCTRACE_TMPDIR="$PWD/darwin-tmp"
mkdir darwin-tmp work
export TMPDIR="$PWD/work"
asan=0
nm -D "$LAUKA" 2>/dev/null | grep -q __asan_init && asan=1
nm "$LAUKA" 2>/dev/null | grep -q __asan_init && asan=1

# Bounds set here, not assumed: 256 MB peak RSS (ulimit -v too unless ASan), a generous time limit.
bounded() {
	run sh -c 'if [ "$0" = 0 ]; then ulimit -v 1048576; fi; exec /usr/bin/time -f "rss=%M" -o time.out timeout -s KILL 120 "$@"' "$asan" "$@"
	rss=$(sed -n 's/^rss=//p' time.out)
	[ -n "$rss" ] && [ "$rss" -lt 262144 ] || fail "$*: peak RSS ${rss:-unknown} KB (limit 262144); rc $rc; stderr: $err"
}
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed (it measures peak memory)"
one_error() { [ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "not one error line: $err"; }
clean() { [ -z "$(ls work)" ] || fail "left behind in TMPDIR: $(ls work)"; }

# Billion laughs: ten levels of ten references, 10^10 'a's in an attribute of the TOC, then of the export.
laughs() {	# laughs ROOT-ELEMENT-AND-REST
	python3 - "$1" <<'PY'
import sys
ents = '<!ENTITY l0 "aaaaaaaaaa">' + "".join('<!ENTITY l%d "%s">' % (i, ("&l%d;" % (i - 1)) * 10) for i in range(1, 11))
print('<?xml version="1.0"?>\n<!DOCTYPE r [%s]>\n%s' % (ents, sys.argv[1]))
PY
}
laughs '<trace-toc><run number="1"><info><target><process pid="1" return-exit-status="0" name="&l10;"/></target></info></run></trace-toc>' >laughs-toc.xml
laughs '<trace-query-result><node xpath="&l10;"/></trace-query-result>' >laughs-export.xml
LAUKA_STANDIN_TOC="$PWD/laughs-toc.xml" bounded "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; one_error
expect_err "table of contents: the file declares a DTD (<!DOCTYPE>), which xctrace never writes"
clean
LAUKA_STANDIN_EXPORT="$PWD/laughs-export.xml" bounded "$LAUKA" --backend xctrace -m cycles -- true
expect_rc 2; one_error
expect_err "counters-profile export: the file declares a DTD (<!DOCTYPE>)"
clean

# Ids name definitions; they must not size the table: id 100000000 in a small export once took 10 GB.
export LAUKA_STANDIN_PID=4242
cat >ids.xml <<'XML'
<?xml version="1.0"?>
<trace-query-result><node xpath="x"><schema name="counters-profile"><col><mnemonic>time</mnemonic><engineering-type>sample-time</engineering-type></col><col><mnemonic>thread</mnemonic><engineering-type>thread</engineering-type></col><col><mnemonic>counters-array</mnemonic><engineering-type>pmc-events</engineering-type></col></schema>
<row><sample-time id="1">1</sample-time><thread id="100000000"><tid id="2">9</tid><process id="3"><pid id="4">4242</pid></process></thread><pmc-events id="5">1234</pmc-events></row>
<row><sample-time id="6">2</sample-time><thread ref="100000000"/><pmc-events ref="5"/></row>
</node></trace-query-result>
XML
LAUKA_STANDIN_EXPORT="$PWD/ids.xml" bounded "$LAUKA" --color never --backend xctrace -m cycles -n 3 --json ids.json -- true
expect_rc 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=[m for m in d["commands"][0]["measurements"] if m["name"]=="fixed_cycles"][0]; assert m["mean"]==2468, m' ids.json || fail "the two rows' sum is not 2468"
clean
unset LAUKA_STANDIN_PID

# More than 64 counter events in the TOC, and no row for the target: refused, not counts read past the end.
python3 - >many-toc.xml <<'PY'
names = " ".join("&quot;E%d&quot;" % i for i in range(80))
print('<?xml version="1.0"?><trace-toc><run number="1"><info><target><process type="launched" pid="99" '
      'return-exit-status="0"/></target></info><data><table schema="counters-profile" trigger="time" '
      'pmc-events="%s" sample-rate-micro-seconds="1000"/></data></run></trace-toc>' % names)
PY
LAUKA_STANDIN_TOC="$PWD/many-toc.xml" bounded "$LAUKA" --color never --backend xctrace -m cycles -- true
expect_rc 2; one_error
expect_err "table 'counters-profile' names 80 counter events (at most 64)"
clean

# An exit status out of range is never success: 256 once exited 0, 4294967296 silently, -1 printed two errors.
for st in 256 4294967296 -1 x; do
	LAUKA_STANDIN_EXIT_STATUS=$st bounded "$LAUKA" --color never --backend xctrace -m cycles -- true
	expect_rc 2; one_error
	expect_err "return-exit-status '$st' is not an exit status (0 to 255)"
	clean
done
LAUKA_STANDIN_EXIT_STATUS=255 bounded "$LAUKA" --color never --backend xctrace -m cycles -- true
[ "$rc" -ne 0 ] || fail "exit status 255 became success"
