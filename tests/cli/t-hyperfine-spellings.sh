# hyperfine's spellings: -w, -r, -N, -V, --shell=none, --style, its long options' hints, and parameter scans (-P/-D, -L) checked against the installed hyperfine's own commands and JSON "parameters"
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# -w/--warmup, -r/--runs, -N: the same request as lauka's spellings (-n runs, no shell is the default).
run "$LAUKA" --backend rusage -w 1 -r 4 -N --export-json a.json -- true
expect_rc 0; expect_out '^Benchmark 1 (4 runs): true$'
run "$LAUKA" --backend rusage -r5 -- true
expect_rc 0; expect_out '(5 runs)'
run "$LAUKA" --backend rusage -r 2 -- true
expect_rc 1; expect_err '^error: minimum runs is 3 for the [a-z]* backend (got 2)$'
# --shell=none is no shell (hyperfine's -N), not a program called "none" (it was: exit 127).
run "$LAUKA" --backend rusage --shell=none -- true
expect_rc 0
run "$LAUKA" --backend rusage -S sh --shell none -- 'echo $HOME'
expect_rc 1; expect_err "shell metacharacter"
# -V is --version.
run "$LAUKA" -V
expect_rc 0; expect_out '^lauka [0-9]'
# --style: full (the default), basic and nocolor (no colour), color (always), none (no table; exports are still written).
run "$LAUKA" --backend rusage --style color -- true
expect_rc 0; printf '%s' "$out" | grep -q "$(printf '\033')\[" || fail "--style color has no colour: $out"
for s in basic nocolor full; do
	run "$LAUKA" --backend rusage --style $s -- true
	expect_rc 0; expect_out '^Benchmark 1'
	printf '%s' "$out" | grep -q "$(printf '\033')" && fail "--style $s has escape sequences: $out"
done
run "$LAUKA" --backend rusage --style none --export-json n.json -- true
expect_rc 0; expect_no_out; [ -s n.json ] || fail "--style none wrote no export"
run "$LAUKA" --style fancy -- true
expect_rc 1; expect_err "^error: invalid --style 'fancy'$"; expect_err '^fix: use --style full, basic, nocolor, color or none'
# -n stays the number of runs; a name given to it says where hyperfine's -n went.
run "$LAUKA" -n fast -- true
expect_rc 1; expect_err "hyperfine's -n (a command's name) is --command-name here"
# hyperfine's long options lauka spells otherwise or does without: what to use instead.
for o in --time-unit=ms --export-asciidoc=x --export-orgmode=x --sort=command --output=pipe --input=f; do
	run "$LAUKA" $o -- true
	expect_rc 1; expect_err "^error: unknown option '$o'$"; expect_err '^tip: .*(doc/hyperfine.md)$'
done
run "$LAUKA" --parameter-scn n 1 2 -- true
expect_rc 1; expect_err "^tip: did you mean '--parameter-scan'?$"

# Parameter scans: usage errors before anything runs.
run "$LAUKA" -P n 3 1 -- 'touch ran'
expect_rc 1; expect_err '^error: empty parameter range for -P n: 3 is above 1$'
run "$LAUKA" -P n 1 -- true
expect_rc 1; expect_err "^error: option '-P' needs 3 values$"
run "$LAUKA" -P=n 1 2 -- true
expect_rc 1; expect_err "takes 3 values, each its own argument"
run "$LAUKA" -P n a b -- true
expect_rc 1; expect_err 'not decimal numbers'
run "$LAUKA" -P n 1 3 -D 0 -- true
expect_rc 1; expect_err "^error: invalid -D '0'"
run "$LAUKA" -D 2 -- true
expect_rc 1; expect_err 'there is no -P'
run "$LAUKA" -L n 1,2 -L n 3 -- true
expect_rc 1; expect_err "^error: parameter 'n' given twice$"
run "$LAUKA" -L 'a b' 1,2 -- true
expect_rc 1; expect_err "invalid parameter name 'a b'"
run "$LAUKA" -P n 1 100000 -- true
expect_rc 1; expect_err 'more than 10000'
[ ! -e ran ] || fail "a command ran despite a usage error"

# Every combination becomes a command, in hyperfine's order and with its formatting of the values;
# the JSON's results[].parameters as hyperfine writes them.  The reference is the installed hyperfine.
command -v hyperfine >/dev/null || skip "hyperfine is not installed (the flags above were checked)"
hyperfine --help 2>/dev/null | grep -q -- '--parameter-list' || skip "this hyperfine has no --parameter-list"
i=0
for scan in "-P n 1 3:{n}" "-P n 1 2 -D 0.5:{n}" "-P n 1.0 2 -D 0.25:{n}" "-P n -2 2 -D 2:{n}" "-L a 1,2 -L b x,y:{a}{b}" \
	"-L a 7:{a}"; do
	i=$((i + 1)) use=${scan#*:} scan=${scan%:*}
	# shellcheck disable=SC2086 # the scan is a word list
	hyperfine -N --style none --runs 2 $scan --export-json h$i.json "echo $use" "echo B$use" >/dev/null 2>hf.err ||
		fail "hyperfine $scan: $(cat hf.err)"
	# shellcheck disable=SC2086
	run "$LAUKA" --backend rusage -N -n 3 $scan --export-json l$i.json -- "echo $use" "echo B$use"
	expect_rc 0
	python3 - h$i.json l$i.json "$scan" <<'EOP' || fail "$scan: lauka's expansion differs from hyperfine's: $(cat l$i.json)"
import json, sys
h = json.load(open(sys.argv[1]))["results"]
d = json.load(open(sys.argv[2]))
l = d["results"]
assert [r["command"] for r in h] == [r["command"] for r in l], ([r["command"] for r in h], [r["command"] for r in l])
assert [r["command"] for r in d["commands"]] == [r["command"] for r in l]
for hr, lr in zip(h, l):
    assert hr["parameters"] == lr["parameters"], (hr["parameters"], lr["parameters"])
    assert list(lr)[-1] == "parameters" and all(isinstance(v, str) for v in lr["parameters"].values())
    # What hyperfine's scripts/plot_parametrized.py reads: one parameter as a float, mean and stddev.
    if len(lr["parameters"]) == 1:
        [(name, value)] = lr["parameters"].items()
        float(value), float(lr["mean"]), float(lr["stddev"])
EOP
done
# Without -P/-L, no "parameters" (as hyperfine).
python3 -c 'import json,sys; assert all("parameters" not in r for r in json.load(open("a.json"))["results"])' || fail "parameters without a scan"
# {NAME} in --command-name and in a hook; -n N,N per command given, repeated for every combination.
run "$LAUKA" --backend rusage -N -L x 1,2 -n 3,4 --command-name 'first {x}' --command-name 'second {x}' --prepare 'touch p{x}' -- 'true {x}' 'true'
expect_rc 0
expect_out '^Benchmark 1 (3 runs): first 1 (true 1)$'; expect_out '^Benchmark 2 (4 runs): second 1 (true)$'
expect_out '^Benchmark 3 (3 runs): first 2 (true 2)$'; expect_out '^Benchmark 4 (4 runs): second 2 (true)$'
[ -e p1 ] && [ -e p2 ] || fail "the hook's {x} was not replaced: $(ls)"
run "$LAUKA" -L x 1,2 --command-name 'one' -- true true
expect_rc 1; expect_err 'give --command-name once per command (2), or not at all'
