# record --interleave: one run of each command per round, shuffled; --seed repeats the order and is printed; -n N,N,... gives each command its own runs
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

cmds() { "$LAUKA" --backend rusage "$@" -- "sh -c 'echo A >> order'" "sh -c 'echo B >> order'" "sh -c 'echo C >> order'"; }
order() { tr -d '\n' < order; rm -f order; }

# The default stays sequential.
cmds -n 4 > /dev/null 2>&1 || fail "sequential run failed"
[ "$(order)" = AAAABBBBCCCC ] || fail "default order is not sequential"

run cmds -n 6 --warmup 1 --interleave --seed 42
expect_rc 0
expect_out '^Interleaved: one run of each command per round, order shuffled (--seed 42)$'
first=$(order)
run cmds -n 6 --warmup 1 --interleave --seed 42
second=$(order)
[ "$first" = "$second" ] || fail "--seed 42 gave two orders: $first and $second"
# Never the sequential order: every round (warm-ups first) holds each command once.
printf '%s\n' "$first" | grep -Eq '^([ABC]{3}){7}$' || fail "not 7 rounds of 3: $first"
for r in $(printf '%s\n' "$first" | fold -w 3); do
	[ "$(printf '%s\n' "$r" | fold -w 1 | sort | tr -d '\n')" = ABC ] || fail "round '$r' in $first"
done
[ "$first" != AAAAAAABBBBBBBCCCCCCC ] || fail "interleaved gave the sequential order"
# Shuffled every round, not one permutation repeated.
[ "$(printf '%s\n' "$first" | fold -w 3 | sort -u | wc -l)" -gt 1 ] || fail "the same order in every round: $first"
# Another seed, another order (18 measured runs: the chance of the same one is 6^-6).
cmds -n 6 --warmup 1 --interleave --seed 43 > /dev/null 2>&1
[ "$(order)" != "$first" ] || fail "--seed 43 gave the order of --seed 42"

# Without --seed one is chosen and printed; giving it back repeats the order.
run cmds -n 5 --interleave
seed=$(printf '%s\n' "$out" | sed -n 's/.*(--seed \([0-9]*\))$/\1/p')
[ -n "$seed" ] || fail "no seed printed: $out"
a=$(order)
cmds -n 5 --interleave --seed "$seed" > /dev/null 2>&1
[ "$(order)" = "$a" ] || fail "--seed $seed did not repeat the order"

# Blocks are still printed in command order, and the seed is exported.
run cmds -n 3 --interleave --seed 7 --json i.json
rm -f order
printf '%s\n' "$out" | grep '^Benchmark' | cut -c1-11 | tr -d '\n' | grep -qx 'Benchmark 1Benchmark 2Benchmark 3' ||
	fail "blocks out of order: $out"
grep -q '"order": "interleaved"' i.json && grep -q '"seed": 7' i.json || fail "seed not exported: $(cat i.json)"

# -n N1,N2,...: each command its own number of runs. Sequentially, as given.
run cmds -n 4,3,5 --json n.json
expect_rc 0
[ "$(order)" = AAAABBBCCCCC ] || fail "-n 4,3,5 sequentially"
python3 -c '
import json, sys
d = json.load(open("n.json"))
assert [c["runs"] for c in d["commands"]] == [4, 3, 5], [c["runs"] for c in d["commands"]]
assert [len(c["measurements"][0]["samples"]) for c in d["commands"]] == [4, 3, 5]' || fail "runs per command in the JSON"
expect_out '^Benchmark 2 (3 runs)'
# Interleaved, a command with fewer runs takes part in evenly spaced rounds: r of R = 6 rounds are
# rounds floor((j + 1/2) 6 / r), so with 3 runs rounds 1, 3 and 5 (0-based), and A alone in 0, 2, 4.
run cmds -n 6,3,3 --interleave --seed 11
expect_rc 0
o=$(order)
[ ${#o} -eq 12 ] || fail "-n 6,3,3 interleaved ran $o"
r0=$(printf '%s' "$o" | cut -c1) r1=$(printf '%s' "$o" | cut -c2-4) r2=$(printf '%s' "$o" | cut -c5)
r3=$(printf '%s' "$o" | cut -c6-8) r4=$(printf '%s' "$o" | cut -c9) r5=$(printf '%s' "$o" | cut -c10-12)
[ "$r0$r2$r4" = AAA ] || fail "-n 6,3,3: rounds 0, 2, 4 are not A alone: $o"
for r in "$r1" "$r3" "$r5"; do
	[ "$(printf '%s\n' "$r" | fold -w 1 | sort | tr -d '\n')" = ABC ] || fail "-n 6,3,3: round '$r' in $o"
done
# One number per command, or one for all; each at least 3.
run cmds -n 5,5
expect_rc 1; expect_err "^error: -n gives 2 numbers of runs for 3 commands$"; expect_err "^fix: give one number for every command"
run cmds -n 5,2,5
expect_rc 1; expect_err "^error: minimum runs is 3 for the [a-z]* backend (got 2)$"
run cmds -n 5,,5
expect_rc 1; expect_err "^error: invalid number of runs ''"
[ ! -e order ] || fail "a command ran although -n was refused"

run "$LAUKA" --seed 3 -- true
expect_rc 1; expect_err "^error: --seed sets the order of interleaved rounds"
run "$LAUKA" --interleave --seed x -- true
expect_rc 1; expect_err "invalid --seed 'x'"
exit 0
