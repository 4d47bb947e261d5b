# cross-check: peak_rss agrees with /usr/bin/time -f %M (true within 10%, a 200 MB dd within 1%, no drift in one invocation), on every backend that runs commands natively
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed (Debian package time)"
/usr/bin/time -f %M true >/dev/null 2>&1 || skip "/usr/bin/time does not take -f (not GNU time)"
N=40
big='dd if=/dev/zero of=/dev/null bs=200M count=1'

# Reference: GNU time's own fork/exec of the same command, in KB.  `true` varies by about
# +-10% from run to run (where the loader and stack land), so means over N runs are compared (40: the mean of `true` then moves by about 1%, well inside the 5% drift bound).
ref_mean() { i=0; while [ $i -lt "$2" ]; do /usr/bin/time -o time.out -f %M $1 >/dev/null 2>&1 </dev/null; tail -n 1 time.out; i=$((i + 1)); done |
	awk '{ s += $1; n++ } END { printf "%.1f\n", s / n }'; }
ref_true=$(ref_mean true $N)
ref_big=$(ref_mean "$big" 5)

# lauka peak_rss means (KB) for each command of one invocation.
lk_means() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["commands"]:
    s = [m for m in c["measurements"] if m["name"] == "peak_rss"][0]["samples"]
    print("%.1f" % (sum(s) / len(s) / 1024))' "$1"; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol * b) }'; }

backends="rusage"
"$LAUKA" version | grep -q '^  perf .*available' && backends="$backends perf perf-per-child"
for b in $backends; do
	case $b in
	perf-per-child) env_pc=1; be=perf ;;
	*) env_pc=0; be=$b ;;
	esac
	LAUKA_PERF_PER_CHILD=$env_pc "$LAUKA" --color never --backend "$be" -n $N --json "$b.json" -- true "$big" true true \
		>/dev/null 2>"$b.err" || fail "$b: lauka failed: $(cat "$b.err")"
	set -- $(lk_means "$b.json")
	t1=$1 lbig=$2 t3=$3 t4=$4
	within "$t1" "$ref_true" 0.10 || fail "$b: peak_rss of true is $t1 KB, /usr/bin/time says $ref_true KB"
	within "$lbig" "$ref_big" 0.01 || fail "$b: peak_rss of the 200 MB dd is $lbig KB, /usr/bin/time says $ref_big KB"
	within "$t3" "$t1" 0.05 || fail "$b: the same command reads $t1 KB first and $t3 KB later in one invocation"
	within "$t4" "$t1" 0.05 || fail "$b: the same command reads $t1 KB first and $t4 KB last in one invocation"
	echo "$b: true $t1 / $t3 / $t4 KB (time: $ref_true), dd $lbig KB (time: $ref_big)"
done
exit 0
