# Raw x86 encodings no row has (catalog-audit-5 C13, C14): perf's cpu/event=..,umask=../ and rNNNN spellings,
# with cmask/inv/edge, are ad-hoc rows under the model's default counter rule in counters --check: Intel's
# general counters with HT on (the highest Counter of Intel's table, read here by Python's JSON parser), narrowed
# to the kernel's constraint for the code (ICL: 0xd0-0xe6 on counters 0-3).  Ill-formed ones stay unknown.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ "$(uname -s)" = Linux ] || skip "Linux only"
"$LAUKA" version | grep -q '^vendor events: libpfm4' || skip "lauka built without libpfm4 (scripts/deps.sh installs libpfm4-dev)"
command -v python3 >/dev/null || skip "no python3"

gp() {	# Intel's general counters per thread (HT on) for a shipped table
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["Events"]
print(max(int(c) for x in e if not x["Counter"].startswith("Fixed") for c in x["Counter"].split(",")) + 1)' \
		"$LAUKA_SRCDIR/catalog/intel-$1.json"
}

for m in skl icl spr; do
	n=$(gp $m)
	# one spelling of each kind, a code no row of these models has (0x9a: no event of Intel's tables, no kernel constraint)
	python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["Events"]
sys.exit(any(int(x["EventCode"].split(",")[0], 16) == 0x9a for x in e))' "$LAUKA_SRCDIR/catalog/intel-$m.json" ||
		fail "$m: Intel's table has event 0x9a; pick another code"
	set -- 'cpu/event=0x9a,umask=0xff/' r0ff9a 'cpu/event=0x9a,umask=0x1,cmask=1/' \
		'cpu/event=0x9a,umask=0x1,cmask=1,inv/' 'cpu/event=0x9a,umask=0x2,edge/' r184049a
	# three at a time (SKL has 4 general counters with HT on), beside cycles on its fixed counter
	for group in "$1,$2,$3" "$4,$5,$6"; do
		run "$LAUKA" counters --pmu $m --check "cycles,$group"
		expect_rc 0
		for e in "$@"; do
			case ",$group," in *",$e,"*) ;; *) continue ;; esac
			c=$(printf '%s\n' "$out" | awk -v e="$e" '$1 == e { print $2 }')
			[ -n "$c" ] && [ "$c" -ge 0 ] && [ "$c" -lt "$n" ] || fail "$m: $e not on a general counter 0-$((n - 1)): $out"
		done
	done
	# as many as Intel's general counters fit together; one more does not
	list=$(i=1; while [ $i -le "$n" ]; do printf 'cpu/event=0x9a,umask=0x%x/,' $i; i=$((i + 1)); done)
	run "$LAUKA" counters --pmu $m --check "${list%,}"
	expect_rc 0
	run "$LAUKA" counters --pmu $m --check "${list}cpu/event=0x9a,umask=0x1,cmask=2/"
	expect_rc 2
	expect_err '^error: requested measurements could not be scheduled'
done

# the kernel's constraint (Linux intel_icl_event_constraints: INTEL_EVENT_CONSTRAINT_RANGE(0xd0, 0xe6, 0xf)):
# four raw 0xd1 variants fit on ICL, five do not, though ICL has 8 general counters
four='cpu/event=0xd1,umask=0x1,cmask=1/,cpu/event=0xd1,umask=0x2,cmask=1/,cpu/event=0xd1,umask=0x4,cmask=1/,cpu/event=0xd1,umask=0x8,cmask=1/'
run "$LAUKA" counters --pmu icl --check "$four"
expect_rc 0
run "$LAUKA" counters --pmu icl --check "$four,cpu/event=0xd1,umask=0x10,cmask=1/"
expect_rc 2

# ill-formed: beyond PERFEVTSEL's fields, event 0 (no fixed counter's), a config1 on an event with no shared register
for e in r1234567d1 'cpu/event=0x0,umask=0x5/' 'cpu/event=0x9a,umask=0x1,config1=0x3/' 'cpu/event=0x9a,bogus=1/'; do
	run "$LAUKA" counters --pmu skl --check "$e"
	expect_rc 1
	expect_err "^error: unknown event '$e' in catalogue 'skl'"
done
exit 0
