# options: every verb parses its options with the one parser: a mistyped option gets "did you mean", --opt=VALUE and --opt VALUE agree, --color always is ansi, and every help text fits 80 columns
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# A mistyped option: the error, and the nearest option of that verb (as for verbs); exit 1.
for case in "counters --detail:--details" "counters --no-header:--no-headers" "calibrate --quik:--quick" \
	"doctor --jsn:--json" "baselines --colour=ansi:--color" "counters --improt=x:--import" \
	"record --runz:--runs" "record --exprot-json=x:--export-json" "record --warmpu:--warmup" "--interleaved:--interleave"; do
	args=${case%:*} want=${case##*:}
	run "$LAUKA" $args
	expect_rc 1
	expect_err "^error: unknown option '${args#* }'$"
	expect_err "^tip: did you mean '$want'?$"
done
# Nothing near: the verb's help is named instead, never a far-fetched guess.
for verb in record counters calibrate doctor baselines version; do
	run "$LAUKA" $verb --bogus
	expect_rc 1
	expect_err "^error: unknown option '--bogus'$"
	expect_err "^tip: see 'lauka $verb --help'$"
	printf '%s\n' "$err" | grep -q 'did you mean' && fail "$verb --bogus got a suggestion: $err"
done
run "$LAUKA" counters --x
expect_rc 1; expect_err "see 'lauka counters --help'"
# A missing value, an empty one, an unexpected argument.
run "$LAUKA" counters --db
expect_rc 1; expect_err "^error: option '--db' needs a value$"
run "$LAUKA" calibrate --plot=
expect_rc 1; expect_err "^error: option '--plot' needs a value, not an empty string$"
run "$LAUKA" calibrate now
expect_rc 1; expect_err "^error: unexpected argument 'now'$"
run "$LAUKA" baselines show a b
expect_rc 1; expect_err "^error: unexpected argument 'b'$"

# --db PATH and --db=PATH are the same option.
run "$LAUKA" baselines --db a.db
expect_rc 0; expect_err "no baselines in 'a.db'"
run "$LAUKA" baselines --db=b.db
expect_rc 0; expect_err "no baselines in 'b.db'"

# --color: always is ansi; a wrong value is named with the ones that exist.
run "$LAUKA" baselines --color always --db a.db
expect_rc 0
esc=$(printf '\033')
for c in always ansi; do
	run "$LAUKA" record --color $c -n 3 -- true
	expect_rc 0
	printf '%s\n' "$out" | grep -q "$esc\[" || fail "--color $c: no colour in: $out"
done
run "$LAUKA" record --color never -n 3 -- true
printf '%s\n' "$out" | grep -q "$esc" && fail "--color never coloured: $out"
# A short option's value may be attached (-n5); a word before "--" is a command without it.
run "$LAUKA" record --color never -n5 -- true
expect_rc 0; expect_out "(5 runs)"
run "$LAUKA" record -n 3 true
expect_rc 1; expect_err "^error: missing '--' before the command 'true'$"
run "$LAUKA" baselines --color sometimes
expect_rc 1; expect_err "^error: invalid --color 'sometimes'$"; expect_err "^fix: use --color auto, never or ansi$"

# -h and --help: the verb's help on stdout, exit 0, and no line wider than 80 columns.
for verb in "" record counters calibrate doctor baselines version help; do
	run "$LAUKA" help $verb
	expect_rc 0
	[ -n "$out" ] || fail "no help for '$verb'"
	wide=$(printf '%s\n' "$out" | awk 'length > 80 { print length ": " $0 }')
	[ -z "$wide" ] || fail "lauka help $verb: lines over 80 columns:
$wide"
	[ -z "$verb" ] && continue
	[ "$verb" = help ] && continue
	for h in -h --help; do
		run "$LAUKA" $verb $h
		expect_rc 0
		[ "$out" = "$("$LAUKA" help $verb)" ] || fail "lauka $verb $h differs from lauka help $verb"
	done
done
exit 0
