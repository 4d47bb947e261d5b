# valgrind counts do not move with TMPDIR, the working directory's length, PATH or HOME (raw callgrind runs made here move with each); Ir without the simulators misses only the exit calls; the user's locale is kept (sort counts as raw callgrind in that locale) and a baseline from another locale says so
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
P="$LAUKA_BUILD/lauka-probe"
ONE="$P alu 1000"
# Children made by fork, without a shell: a shell's own work depends on the working directory's
# length (it copies the path), and its count on when SIGCHLD arrives.
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC) to build the forking fixture"
"$CC" -O1 -o "$PWD/forker" "$LAUKA_SRCDIR/tests/fixtures/valgrind/forker.c" || fail "cannot build forker"
KIDS="$PWD/forker 1000 3 fork"
long=$PWD/dddddddddddddddddddddddddddddddddddddddddddddddddd
mkdir -p "$long/x" tmp2/tttttttttttttt
OPTS="-q --command-line-only=yes --vgdb=no --tool=callgrind --trace-children=yes --combine-dumps=yes --dump-before=fork --dump-before=__libc_fork --dump-before=__fork --dump-before=_Fork --dump-before=vfork --dump-before=__vfork --dump-before=__libc_vfork --dump-before=__spawni"

# lauka's Ir (every run's; they must agree) for command $2 of the conditions in env assignments $1,
# run from directory $3 (default here).
ir() { (cd "${3:-.}" && env $1 "$LAUKA" record --backend valgrind -m "${4:-Ir}" --export-json "$OLDPWD/j.json" -- "$2" \
	>/dev/null 2>"$OLDPWD/e.txt") || fail "lauka failed under '$1': $(cat e.txt)"
	python3 -c 'import json, sys
m = [m for m in json.load(open("j.json"))["commands"][0]["measurements"] if m["name"] == "Ir"][0]
s = set(m["samples"])
assert len(s) == 1, s
print(s.pop())'; }
# Raw callgrind as a user runs it (`valgrind`, Debian's wrapper, in the given environment): Ir.
raw() { rm -rf cl && mkdir cl && (cd "${3:-.}" && env $1 valgrind -q --tool=callgrind --trace-children=yes \
	--callgrind-out-file="$OLDPWD/cl/cg.%p.out" sh -c "$2" </dev/null >/dev/null 2>"$OLDPWD/vg.err") ||
	fail "valgrind failed: $(cat vg.err)"
	sum_ir cl; }
# Ir of every part of every file in dir $1: the larger of summary: and totals: per part, as lauka adds them.
sum_ir() { cat "$1"/* | awk '/^events:/ {t += (s > u ? s : u); s = u = 0} /^summary:/ {s = $2} /^totals:/ {u = $2}
	END {t += (s > u ? s : u); print t}'; }

for cmd in "$ONE" "$KIDS"; do
	# The reference: raw callgrind started as lauka documents it (tests/cli/lib.sh), run by this test.
	rm -rf cl && mkdir cl
	eval "set -- $cmd"
	vg_pinned valgrind $OPTS --cache-sim=no --callgrind-out-file="$PWD/cl/cg.%p.out" "$@"
	want=$(sum_ir cl)
	base=$(ir "" "$cmd")
	[ "$base" = "$want" ] || fail "$cmd: lauka $base vs raw callgrind pinned by hand $want"
	# Ir with both simulators: callgrind without the cache simulator misses each process's exit
	# system call (2 instructions on x86-64), as raw callgrind does.
	sims=$(ir "" "$cmd" . Ir,D1mr,Bcm)
	rm -rf cl && mkdir cl
	vg_pinned valgrind $OPTS --cache-sim=yes --callgrind-out-file="$PWD/cl/cg.%p.out" "$@"
	wants=$(sum_ir cl)
	[ "$sims" = "$wants" ] || fail "$cmd: Ir with the simulators: lauka $sims vs raw callgrind $wants"
	[ $((sims - base)) -ge 0 ] && [ $((sims - base)) -le $((2 * $(ls cl | wc -l))) ] ||
		fail "$cmd: Ir $base alone but $sims with the simulators"

	rawseen=""
	# (TMPDIR or HOME unset is another environment, not another size: lauka sets no value a program
	# reads, so it does not fill them in; doc/valgrind.md gives what that moves.)
	for cond in "TMPDIR=$PWD/tmp2/tttttttttttttt" "PATH=$PATH:/a" "PATH=$PATH:/ab" "PATH=$PATH:/abc" \
		"HOME=/h" "HOME=/hh" "HOME=/hhh" "HOME=/hhhh" "DIR=$long" "DIR=$long/x"; do
		dir=.
		case $cond in DIR=*) dir=${cond#DIR=}; cond="" ;; esac
		got=$(ir "$cond" "$cmd" "$dir")
		[ "$got" = "$base" ] || fail "$cmd: Ir $got under '$cond' (in $dir), $base here"
		r=$(raw "$cond" "$cmd" "$dir")
		case " $rawseen " in *" $r "*) ;; *) rawseen="$rawseen $r" ;; esac
	done
	# The conditions are real: raw callgrind runs under them give several different counts.
	[ $(echo $rawseen | wc -w) -ge 3 ] || fail "$cmd: raw callgrind gave only [$rawseen] under the conditions"
	echo "$cmd: Ir $base under every condition; raw callgrind:$rawseen"
done

# --collect main: only main's work (callgrind's --toggle-collect), as a raw callgrind run with the same
# option counts it, and free of start-up: unset HOME moves the whole run, not main.
cir() { env $1 "$LAUKA" record --backend valgrind -m Ir $2 --export-json c.json -- "$ONE" >/dev/null 2>e.txt ||
	fail "lauka --collect failed under '$1': $(cat e.txt)"
	python3 -c 'import json
print([m for m in json.load(open("c.json"))["commands"][0]["measurements"] if m["name"] == "Ir"][0]["samples"][0])'; }
rm -rf cl && mkdir cl
eval "set -- $ONE"
vg_pinned valgrind $OPTS --cache-sim=no --branch-sim=no --toggle-collect=main --callgrind-out-file="$PWD/cl/cg.%p.out" "$@"
want=$(sum_ir cl)
m1=$(cir "" "--collect main"); m2=$(cir "-u HOME" "--collect main")
w1=$(cir "" ""); w2=$(cir "-u HOME" "")
[ "$m1" = "$want" ] || fail "--collect main: lauka $m1, raw callgrind --toggle-collect=main $want"
[ "$m1" = "$m2" ] || fail "--collect main moved with HOME: $m1 vs $m2"
[ "$w1" != "$w2" ] || fail "the whole run did not move with HOME ($w1): this case proves nothing"
[ "$m1" -lt "$w1" ] || fail "--collect main counted $m1, the whole run $w1"
echo "--collect main: $m1 Ir with and without HOME; the whole run $w1 and $w2"
run "$LAUKA" record --backend valgrind -m Ir --collect no_such_function_xyz -- "$ONE"
expect_rc 0; expect_err "collect 'no_such_function_xyz' counted nothing in command 1"
run "$LAUKA" record --backend rusage --collect main -- true
expect_rc 1; expect_err "^error: --collect counts from a function on, which only the valgrind backend can"

# The user's locale is the command's (lauka set LC_ALL=C: sort ran 82.4M Ir under lauka, 189.5M in
# LANG=C.UTF-8): sort's count equals a raw callgrind run's in the same locale within 0.5% (Debian's
# valgrind wrapper and the whole environment make the small rest), and differs in LC_ALL=C.
locale -a 2>/dev/null | grep -qix 'c.utf-\?8' || { echo "no C.UTF-8 locale: the locale part skipped"; exit 0; }
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %d \303\274 \303\244\n", (i * 7919) % 3001 }' > words.txt
lir() { env $1 "$LAUKA" record --backend valgrind -m Ir --export-json l.json -- 'sort words.txt' >/dev/null 2>e.txt ||
	fail "lauka failed under '$1': $(cat e.txt)"
	python3 -c 'import json
print([m for m in json.load(open("l.json"))["commands"][0]["measurements"] if m["name"] == "Ir"][0]["samples"][0])'; }
utf=$(lir "-u LC_ALL LANG=C.UTF-8"); c=$(lir "LC_ALL=C")
rm -rf cl && mkdir cl
# the raw run as a user types it, in the environment lauka keeps (PATH, HOME, TMPDIR and the locale;
# doc/valgrind.md): what make, the sanitizer build and the test runner add to the tests' environment
# (the runner's PATH entry, ASAN_OPTIONS, MAKEFLAGS) moved sort's raw count by up to 0.52%
env -i PATH="$PATH" HOME="$HOME" ${TMPDIR:+TMPDIR="$TMPDIR"} LANG=C.UTF-8 \
	valgrind -q --tool=callgrind --callgrind-out-file="$PWD/cl/cg.%p.out" sort words.txt \
	</dev/null >/dev/null 2>vg.err || fail "valgrind failed: $(cat vg.err)"
rutf=$(sum_ir cl)
python3 -c 'import sys
u, c, r = map(int, sys.argv[1:])
assert abs(u - r) <= 0.005 * r, ("lauka %d vs raw callgrind %d in C.UTF-8" % (u, r))
assert u > 1.2 * c, ("C.UTF-8 %d vs C %d: the locale was not kept" % (u, c))' "$utf" "$c" "$rutf" ||
	fail "sort under lauka: C.UTF-8 $utf, C $c; raw callgrind in C.UTF-8 $rutf"
echo "sort: lauka $utf in C.UTF-8 (raw callgrind $rutf), $c in C"
# A baseline made in another locale: the gate says so (the fingerprint travels with git-notes baselines).
command -v git >/dev/null 2>&1 || { echo "git not installed: the fingerprint part skipped"; exit 0; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
git init -q repo && cp words.txt repo/ && cd repo && git add words.txt && git commit -q -m one || fail "git"
env -u LC_ALL LANG=C.UTF-8 "$LAUKA" record --git --backend valgrind -m Ir --save-baseline loc --runner-class ci \
	-- 'sort words.txt' >/dev/null 2>../e.txt || fail "saving the baseline failed: $(cat ../e.txt)"
echo 2 > f && git add f && git commit -q -m two || fail "git"
run env LANG=C.UTF-8 LC_ALL=C "$LAUKA" record --git --backend valgrind -m Ir --baseline loc --runner-class ci \
	--gate Ir=1% -- 'sort words.txt'
expect_rc 0
expect_err "^warning: baseline 'loc' was measured with another environment: .*env:LANG=C.UTF-8.*, now .*LC_ALL=C"
expect_err "another locale or time zone"
cd ..
exit 0
