# record: rusage measurements are per run (peak_rss is not a running maximum) and selectable with -m
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v dd >/dev/null || skip "dd missing"

# First run touches a 64 MB buffer, later runs 4 KB: min and max peak_rss must differ widely.
cat > mem.sh <<'EOS'
#!/bin/sh
n=$(cat count 2>/dev/null || echo 0)
echo $((n + 1)) > count
if [ "$n" -eq 0 ]; then bs=64M; else bs=4K; fi
exec dd if=/dev/zero of=/dev/null bs=$bs count=1 status=none
EOS
chmod +x mem.sh
run "$LAUKA" --color never -n 4 -m peak_rss -- ./mem.sh
expect_rc 0
row=$(row_of 1 peak_rss)
min=$(printf '%s\n' "$row" | awk '{print $5}')
max=$(printf '%s\n' "$row" | awk '{print $7}')
case "$min" in *KB|*[0-9]MB) ;; *) fail "unexpected min peak_rss '$min' in: $row" ;; esac
case "$max" in 6[0-9].*MB|6[0-9]MB|7[0-9]MB) ;; *) fail "expected a ~64 MB max peak_rss, got '$max' in: $row" ;; esac
case "$min" in [0-9].*MB|[0-9]MB|*KB) ;; *) fail "min peak_rss carries the first run's peak: $row" ;; esac

run "$LAUKA" --color never -m user_time,sys_time,minor_faults,major_faults,voluntary_cs,involuntary_cs -- true
expect_rc 0
for m in wall_time peak_rss user_time sys_time minor_faults major_faults voluntary_cs involuntary_cs; do
	expect_out "^$m "
done
exit 0
