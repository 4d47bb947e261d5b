# lauka counters: names, --details, --no-headers, database location and options
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

# Names only, one per line, no header; the rusage catalogue is the same everywhere.
run "$LAUKA" counters --backend rusage
expect_rc 0
[ "$(printf '%s\n' "$out" | head -n 1)" = cpu_time ] || fail "first name: $out"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 9 ] || fail "expected 9 names: $out"
printf '%s\n' "$out" | grep -qx wall_time || fail "no wall_time: $out"
[ -f "$LAUKA_DB" ] || fail "database not created at \$LAUKA_DB"

# --details: header, columns as wide as the longest name, incompat, description.
run "$LAUKA" counters --backend rusage --details
expect_rc 0
[ "$(printf '%s\n' "$out" | head -n 1)" = "name            incompat  description" ] || fail "header: $out"
printf '%s\n' "$out" | grep -qx 'wall_time       none      Elapsed wall-clock time from release to exec to exit (monotonic clock)' ||
	fail "wall_time row: $out"
run "$LAUKA" counters --backend rusage -d --no-headers
expect_rc 0
[ "$(printf '%s\n' "$out" | wc -l)" -eq 9 ] || fail "--no-headers kept the header: $out"
printf '%s\n' "$out" | grep -q '^name ' && fail "header printed with --no-headers"

# Listing twice gives the same bytes (stable output), and the default backend works with no options.
run "$LAUKA" counters --backend rusage -d
first=$out
run "$LAUKA" counters --backend rusage -d
[ "$out" = "$first" ] || fail "output not stable"
run "$LAUKA" counters
expect_rc 0
[ -n "$out" ] || fail "lauka counters printed nothing"

# --db wins over $LAUKA_DB; without either, $XDG_DATA_HOME, then ~/.local/share (directories created).
run "$LAUKA" counters --backend rusage --db "$PWD/other/dir/x.db"
expect_rc 0
[ -f other/dir/x.db ] || fail "--db not used"
(unset LAUKA_DB; XDG_DATA_HOME="$PWD/xdg" "$LAUKA" counters --backend rusage >/dev/null) || fail "xdg run failed"
[ -f xdg/lauka/lauka.db ] || fail "\$XDG_DATA_HOME/lauka/lauka.db not created"
mkdir home
(unset LAUKA_DB XDG_DATA_HOME; HOME="$PWD/home" "$LAUKA" counters --backend rusage >/dev/null) || fail "home run failed"
[ -f home/.local/share/lauka/lauka.db ] || fail "~/.local/share/lauka/lauka.db not created"

# Usage errors exit 1 and say why.
run "$LAUKA" counters --bogus
expect_rc 1
expect_err "error: unknown option '--bogus'"
run "$LAUKA" counters --backend nope
expect_rc 1
expect_err "error: unknown backend 'nope'"
run "$LAUKA" counters --pmu nope
expect_rc 1
expect_err "error: no catalogue named 'nope'"
expect_err "tip: catalogues there: .*rusage"
run "$LAUKA" counters --pmu
expect_rc 1
expect_err "needs a value"
run "$LAUKA" counters --help
expect_rc 0
expect_out "--no-headers"
exit 0
