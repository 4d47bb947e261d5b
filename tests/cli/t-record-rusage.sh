# record: rusage measurements are per run (peak_rss is not a running maximum) and selectable with -m
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v dd >/dev/null || skip "dd missing"

# First run touches a 64 MB buffer, later runs 4 KB: min and max peak_rss must differ widely.
# The small runs are compared with the peak_rss lauka reports for `true` (t-crosscheck-rss.sh
# checks that one against /usr/bin/time).
cat > mem.sh <<'EOS'
#!/bin/sh
n=$(cat count 2>/dev/null || echo 0)
echo $((n + 1)) > count
if [ "$n" -eq 0 ]; then bs=64M; else bs=4K; fi
exec dd if=/dev/zero of=/dev/null bs=$bs count=1 status=none
EOS
chmod +x mem.sh
to_kb() { awk -v s="$1" 'BEGIN { m = 1e-3; if (s ~ /KB$/) m = 1; else if (s ~ /MB$/) m = 1e3; else if (s ~ /GB$/) m = 1e6;
	sub(/[KMG]?B$/, "", s); printf "%d\n", s * m }'; }
run "$LAUKA" --color never -n 3 -m peak_rss -- true
base=$(to_kb "$(row_of 1 peak_rss | awk '{print $7}')")
run "$LAUKA" --color never -n 4 -m peak_rss -- ./mem.sh
expect_rc 0
row=$(row_of 1 peak_rss)
min=$(to_kb "$(printf '%s\n' "$row" | awk '{print $5}')")
max=$(to_kb "$(printf '%s\n' "$row" | awk '{print $7}')")
[ "$max" -ge 60000 ] || fail "expected a max peak_rss of about 64 MB, got ${max} KB: $row"
[ "$min" -le $((base + 8000)) ] || fail "min peak_rss ${min} KB carries the first run's peak (baseline ${base} KB): $row"

run "$LAUKA" --color never -m user_time,sys_time,minor_faults,major_faults,voluntary_cs,involuntary_cs -- true
expect_rc 0
for m in wall_time peak_rss user_time sys_time minor_faults major_faults voluntary_cs involuntary_cs; do
	expect_out "^$m "
done
exit 0
