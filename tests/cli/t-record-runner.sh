# record: the command run is exactly the one named (no truncated path), and its stderr tail stays in memory, bounded
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# A path longer than PATH_MAX whose first 4095 bytes name /bin/true: truncation would run true.
long=$(awk 'BEGIN { s = ""; while (length(s) < 4095 - length("/bin/true")) s = s "/"; printf "%s/bin/true-not-there\n", s }')
run "$LAUKA" --color never --backend rusage -- "$long"
expect_rc 126
expect_err 'error: command path is longer than'
[ -z "$out" ] || fail "something ran: $out"

# A failing command's stderr: only the tail is shown, the whole of it never lands in a file.
cat > chatty.sh <<'EOS'
#!/bin/sh
i=0
while [ $i -lt 2000 ]; do echo "line $i of noise that nobody needs to keep on disk" >&2; i=$((i + 1)); done
echo "the last words" >&2
sleep 1
exit 3
EOS
chmod +x chatty.sh
"$LAUKA" --color never --backend rusage -- ./chatty.sh > out.txt 2> err.txt &
pid=$!
sleep 0.5
# Whatever lauka holds open while the command runs: no regular file (the old tmpfile in /tmp was one).
files=$(ls -l /proc/$pid/fd 2>/dev/null | awk '$1 ~ /^l/ { print $NF }' | grep -v -e '^pipe:' -e '^socket:' -e '^anon_inode:' -e '^/dev/' -e "$PWD/out.txt" -e "$PWD/err.txt" -e '\.db' -e '\.db-wal' -e '\.db-shm')
wait $pid
rc=$?
[ -d /proc/self/fd ] && [ -n "$files" ] && fail "lauka holds files open while the command runs: $files"
[ $rc -eq 3 ] || fail "expected exit 3, got $rc: $(cat err.txt)"
grep -q 'the last words' err.txt || fail "the tail of stderr is not shown: $(cat err.txt)"
grep -q 'line 1999 of noise' err.txt || fail "the tail is incomplete: $(tail -n 3 err.txt)"
grep -q 'line 10 of noise' err.txt && fail "more than the tail was shown"
n=$(wc -c < err.txt)
[ "$n" -lt 6000 ] || fail "stderr shown is $n bytes, expected about 4 KB"
exit 0
