# valgrind backend: record gives σ = 0, sums child processes, cleans up, ignores VALGRIND_OPTS, says when valgrind is missing, refuses what exec refuses, warns about exec
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
P="$LAUKA_BUILD/lauka-probe"

# Missing valgrind: a clear reason and exit 2 (PATH without valgrind, commands by absolute path).
run env PATH=/nonexistent "$LAUKA" record --backend valgrind -- "$P alu 10"
expect_rc 2; expect_err "valgrind not found in PATH"

command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"

run "$LAUKA" record --color never --backend valgrind -- "$P alu 1e5"
expect_rc 0
for m in Ir D1mr DLmr Bcm; do
	row_of 1 $m | grep -q ' ± 0 ' || fail "$m varies between runs: $(row_of 1 $m)"
done
row_of 1 Ir | grep -q '^Ir  *3[01][0-9]K ± 0 ' || fail "alu 1e5 should be about 310K instructions: $(row_of 1 Ir)"

# Aliases, and every one of the 13 events.
run "$LAUKA" record --color never --backend valgrind -m instructions,branch-misses,Ir,I1mr,ILmr,Dr,D1mr,DLmr,Dw,D1mw,DLmw,Bc,Bcm,Bi,Bim -- "$P alu 10"
expect_rc 0
for m in Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim; do expect_out "^$m "; done

# Child processes are traced and summed: three alu runs under sh count more than three times one.
run "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e6" "sh -c '$P alu 1e6; $P alu 1e6; $P alu 1e6'"
expect_rc 0
one=$(row_of 1 Ir | awk '{print $2}'); three=$(row_of 2 Ir | awk '{print $2}')
case "$one/$three" in 2.1[0-9]M/6.[3-9]*M) ;; *) fail "children not summed: $one vs $three" ;; esac

# VALGRIND_OPTS and ./.valgrindrc are ignored (they would break the run or change the counts).
printf -- '--tool=memcheck\n' > .valgrindrc
run env VALGRIND_OPTS=--bogus-option "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e6"
expect_rc 0
[ "$(row_of 1 Ir | awk '{print $2}')" = "$one" ] || fail "VALGRIND_OPTS or .valgrindrc changed the count"

# The environment is pinned: a bigger environment does not change the count...
run env LAUKA_TEST_PADDING=$(printf '%01000d' 0) "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5"
padded=$(row_of 1 Ir)
run "$LAUKA" record --color never --backend valgrind -m Ir -- "$P alu 1e5"
[ "$(row_of 1 Ir)" = "$padded" ] || fail "environment size changed Ir: $padded vs $(row_of 1 Ir)"
# Hash-randomising interpreters repeat too when the user pins their seed (lauka passes PYTHONHASHSEED
# on and sets none itself): a set of strings built and sorted gives one count over 3 runs (without a
# seed it moves by about 35 K of 21 M).
# Python is started so that it reads no file a package install rewrites, or another install on the
# machine during the test would move the count between runs (it did, by 165 Ir): -S skips the
# site-packages directories (their .pth files), -s the user's; and the loader, started with
# --library-path, finds python's libraries without /etc/ld.so.cache, whose binary search depends on
# every library installed.  (-I or -E would also drop PYTHONHASHSEED, the point of the test.)
if [ -x /usr/bin/python3 ]; then
	ldso=$(readelf -l /usr/bin/python3 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	libdir=$(ldd /usr/bin/python3 | awk '$1 ~ /^libc\.so/ { print $3 }')
	[ -x "$ldso" ] && [ -n "$libdir" ] || fail "cannot find python3's loader ($ldso) or libc ($libdir)"
	run env PYTHONHASHSEED=0 "$LAUKA" record --color never --backend valgrind -m Ir -n 3 --json py.json -- \
		"$ldso --library-path ${libdir%/*} /usr/bin/python3 -s -S -c 'print(sorted({str(i) for i in range(300)}))'"
	expect_rc 0
	python3 -c 'import json; s = json.load(open("py.json"))["commands"][0]["measurements"][-1]["samples"]
assert len(set(s)) == 1, s' || fail "python's Ir varies between runs: $(cat py.json | tr -d '\n' | cut -c1-400)"
fi
# ...unless asked to inherit it; a bad mode is an error.
run env LAUKA_VALGRIND_ENV=inherit "$LAUKA" record --backend valgrind -m Ir -- "$P alu 10"
expect_rc 0
run env LAUKA_VALGRIND_ENV=bogus "$LAUKA" record --backend valgrind -m Ir -- "$P alu 10"
expect_rc 2; expect_err "LAUKA_VALGRIND_ENV='bogus'"

# A failing command: its exit code is forwarded, valgrind's and the command's stderr shown.
run "$LAUKA" record --backend valgrind -- "$P nope 1"
expect_rc 1; expect_err "unknown probe 'nope'"

# A file without #! is refused by exec (ENOEXEC): 126 as with the other backends, though valgrind
# itself would run it with /bin/sh.
printf 'echo hi\n' > noshebang && chmod +x noshebang
run "$LAUKA" record --backend rusage -- ./noshebang
expect_rc 126; rusage_err=$err
run "$LAUKA" record --backend valgrind -- ./noshebang
expect_rc 126
[ "$err" = "$rusage_err" ] || fail "valgrind and rusage differ on a script without #!: '$err' vs '$rusage_err'"
expect_err "cannot execute './noshebang': Exec format error"
# ...while a #! script runs, with no warning.
printf '#!/bin/sh\n%s alu 10\n' "$P" > withshebang && chmod +x withshebang
run "$LAUKA" record --color never --backend valgrind -m Ir -- ./withshebang "$P alu 10"
expect_rc 0
[ -z "$err" ] || fail "a #! script or a plain command warned: $err"
# (valgrind names a script found in PATH by its full path: still no exec)
run env PATH="$PWD:$PATH" "$LAUKA" record --color never --backend valgrind -m Ir -- withshebang
expect_rc 0
[ -z "$err" ] || fail "a #! script found in PATH warned: $err"

# A command that replaces itself by exec counts only the program it became: say so, once per command.
run "$LAUKA" record --color never --backend valgrind -m Ir -- "sh -c 'exec $P alu 10'" "env $P alu 10"
expect_rc 0
[ "$(printf '%s\n' "$err" | grep -c 'replaced itself by exec')" -eq 2 ] || fail "no (or repeated) exec warnings: $err"
expect_err "'sh -c exec $P alu 10' replaced itself by exec with '$P alu 10': valgrind counts only the program it became"
expect_err "'env $P alu 10' replaced itself by exec"

# Nothing is left in TMPDIR.
ls -d "$TMPDIR"/lauka-valgrind.* 2>/dev/null && fail "cachegrind output left behind"
exit 0
