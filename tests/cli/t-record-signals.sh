# record: the command gets every signal at its default and none blocked, whatever lauka inherited (trap '' QUIT PIPE)
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# A shell that ignores SIGQUIT and SIGPIPE passes that on to what it starts; lauka must not.
# sh -c 'kill -QUIT $$' dies of SIGQUIT (exit 131) only when SIGQUIT is at its default.
run sh -c "trap '' QUIT PIPE; exec \"\$LAUKA\" --color never --backend rusage -- \"sh -c 'kill -QUIT \\\$\\\$'\""
[ "$rc" -eq 131 ] || fail "with SIGQUIT ignored in lauka's parent the command did not die of SIGQUIT (exit $rc): $err"
run sh -c "trap '' PIPE; exec \"\$LAUKA\" --color never --backend rusage -- \"sh -c 'kill -PIPE \\\$\\\$'\""
[ "$rc" -eq 141 ] || fail "with SIGPIPE ignored in lauka's parent the command did not die of SIGPIPE (exit $rc): $err"

# Exact counts: gzip installs its handlers only for signals that are not ignored, so valgrind's
# instruction count of gzip changes when it inherits ignored signals.
command -v valgrind >/dev/null || skip "valgrind is not installed (the dispositions above were checked)"
command -v gzip >/dev/null || skip "gzip is not installed"
seq 1 2000 > data.txt
ir() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(*[m["samples"] for m in d["commands"][0]["measurements"] if m["name"]=="Ir"][0])' "$1"; }
"$LAUKA" --color never --backend valgrind -m Ir -n 3 --json plain.json -- 'gzip -c data.txt' >/dev/null 2>err1.txt ||
	fail "valgrind run failed: $(cat err1.txt)"
sh -c "trap '' QUIT PIPE; exec \"\$LAUKA\" --color never --backend valgrind -m Ir -n 3 --json trapped.json -- 'gzip -c data.txt'" \
	>/dev/null 2>err2.txt || fail "valgrind run under trap failed: $(cat err2.txt)"
a=$(ir plain.json); b=$(ir trapped.json)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "Ir of gzip differs under trap '' QUIT PIPE: '$a' vs '$b'"
echo "Ir of gzip: $a (plain) = $b (trapped)"
exit 0
