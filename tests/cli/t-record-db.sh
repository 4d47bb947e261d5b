# record: a database it cannot use is reported (never touched), and measuring still works unless --db named it
. "$LAUKA_SRCDIR/tests/cli/lib.sh"

printf 'this is not an SQLite database, just user data%.0s\n' 1 2 3 4 5 6 7 8 > bad.db
cp bad.db bad.orig
LAUKA_DB="$PWD/bad.db" run "$LAUKA" --color never -- true
expect_rc 0
expect_err "^warning: database '.*bad.db' is corrupt"
expect_err 'calibration verdicts are not checked'
expect_out '^wall_time'
run "$LAUKA" --db "$PWD/bad.db" -- true
expect_rc 2
expect_err "^error: cannot load the .* event catalogue: database '.*bad.db' is corrupt"
expect_no_out
cmp -s bad.db bad.orig || fail "the corrupt database was modified"

# No home to keep a database in: measure anyway, and create nothing outside it.
(unset LAUKA_DB XDG_DATA_HOME; HOME="$PWD/no-such-home" "$LAUKA" --color never -- true > out.txt 2> err.txt) ||
	fail "record failed without a home directory: $(cat err.txt)"
grep -q "home directory '.*no-such-home' does not exist" err.txt || fail "no warning: $(cat err.txt)"
[ ! -e no-such-home ] || fail "created the missing home directory"
exit 0
