# One writer for every file lauka writes (issue 31 D-1): --plot and the exports refuse a device, a FIFO or a link to one (a plot once renamed a world-writable file over them); "-" is standard output.
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

mkfifo fifo
ln -s /dev/null to-null
ln -s fifo to-fifo
targets="fifo to-null to-fifo"
if [ "$(id -u)" -eq 0 ] && mknod -m 666 dev c 1 3 2>/dev/null; then
	targets="$targets dev"
fi
for t in $targets; do
	before=$(ls -l "$t")
	for opt in --plot --export-json --export-csv --export-markdown; do
		# timeout: a FIFO opened for writing blocks until a reader comes
		run timeout 5 "$LAUKA" --color never --backend rusage $opt "$t" -- true 'sleep 0'
		expect_rc 1
		expect_err "^error: cannot write '$t'.*: it is a \(FIFO\|character device\), not a regular file"
		[ "$(ls -l "$t")" = "$before" ] || fail "$opt $t changed it: $(ls -l "$t")"
	done
done
[ -c /dev/null ] || fail "/dev/null is no longer a device"
[ -z "$(ls -a | grep '\.tmp-')" ] || fail "temporary files left: $(ls -a)"

# /dev/stdout on a pipe is a FIFO: refused, the pipe's link untouched.
out=$("$LAUKA" --color never --backend rusage --plot /dev/stdout -- true 'sleep 0' 2>err.txt | cat)
grep -q "^error: cannot write '/dev/stdout': it is a FIFO" err.txt || fail "/dev/stdout: $(cat err.txt)"

# "-" is standard output: the SVG there, the table on standard error; two outputs on it are refused.
run "$LAUKA" --color never --backend rusage --plot - -- true 'sleep 0'
expect_rc 0
printf '%s\n' "$out" | head -1 | grep -q '^<?xml' || fail "--plot - wrote no SVG on stdout: $out"
expect_err "^Benchmark 1"
run "$LAUKA" --color never --backend rusage --plot - --export-json - -- true 'sleep 0'
expect_rc 1
expect_err "^error: --plot '-' and --export-json '-' are the same file"

# SUDO_UID out of uid_t's range is no invoking user (issue 31 D-14: 9999999999 became uid 1410065407, given the export).
if [ "$(id -u)" -eq 0 ]; then
	run env SUDO_UID=9999999999 SUDO_GID=0 "$LAUKA" --color never --backend rusage --export-json big-uid.json -- true
	expect_rc 0
	[ "$(stat -c %u big-uid.json)" -eq 0 ] || fail "the export was given to uid $(stat -c %u big-uid.json)"
fi

# A regular file and a link to one are replaced as before.
printf 'old\n' > plot.svg; ln -s plot.svg link.svg
run "$LAUKA" --color never --backend rusage --plot link.svg -- true 'sleep 0'
expect_rc 0
[ -L link.svg ] && grep -q '<svg' plot.svg || fail "the link or its file was not kept"
exit 0
