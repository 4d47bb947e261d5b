# lauka counters --import of malformed plists, and corrupt or newer databases: clear errors, nothing touched
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
fixtures="$LAUKA_SRCDIR/tests/fixtures/kpep"

run "$LAUKA" counters --import "$fixtures/tiny.plist"
expect_rc 0
snapshot=$(cksum <"$LAUKA_DB")
untouched() { [ "$(cksum <"$LAUKA_DB")" = "$snapshot" ] || fail "$1 changed the database"; }

# Each malformed file: exit 2, one error naming the file and the key, the database as it was.
while IFS='|' read -r file message; do
	run "$LAUKA" counters --import "$fixtures/$file"
	expect_rc 2
	expect_err "^error: $fixtures/$file: $message"
	expect_err "^tip: nothing was imported; the database is unchanged$"
	[ "$(printf '%s\n' "$err" | grep -c '^error:')" -eq 1 ] || fail "more than one error line: $err"
	untouched "$file"
done <<'LIST'
bad-not-plist.plist|not a plist
bad-root-array.plist|the root is an array, expected a dictionary
bad-version2.plist|key 'version' is 2.x; only version 1.x
bad-no-events.plist|key 'system.cpu.events' has no events
bad-number-string.plist|key 'system.cpu.events.PLAIN_A.number' is a string, expected an integer
bad-number-wide.plist|key 'system.cpu.events.PLAIN_B.number' is 0x10000, wider than the 16 bits
bad-mask-zero.plist|key 'system.cpu.events.RESTRICTED_A.counters_mask' is 0
bad-alias-nowhere.plist|key 'system.cpu.aliases.Branches' points to 'INST_BRANCH', which is not an event
LIST

# A directory with one bad file imports nothing at all.
mkdir dir
cp "$fixtures/bad-version2.plist" dir/z.plist
sed 's/<string>tiny<\/string>/<string>other<\/string>/' "$fixtures/tiny.plist" >dir/a.plist
run "$LAUKA" counters --import dir
expect_rc 2
expect_err "dir/z.plist: key 'version'"
untouched "a directory with a bad file"

# A truncated binary plist, and 50 MB of junk.
command -v plistutil >/dev/null || skip "plistutil not installed (Debian: libplist-utils)"
if plistutil -h 2>&1 | grep -q -- '--format'; then plistutil -i "$fixtures/tiny.plist" -o tiny.bplist -f bin
else plistutil -i "$fixtures/tiny.plist" -o tiny.bplist; fi
size=$(wc -c <tiny.bplist)
head -c $((size / 2)) tiny.bplist >truncated.bplist
run "$LAUKA" counters --import truncated.bplist
expect_rc 2
expect_err "truncated.bplist: not a plist"
untouched "a truncated binary plist"
head -c 52428800 /dev/urandom >junk.plist
run "$LAUKA" counters --import junk.plist
expect_rc 2
expect_err "junk.plist: too large for a kpep plist"
untouched "50 MB of junk"
rm -f junk.plist

# A corrupt database is reported with a fix and never overwritten.
head -c 8192 /dev/urandom >corrupt.db
sum=$(cksum <corrupt.db)
run "$LAUKA" counters --backend rusage --db "$PWD/corrupt.db"
expect_rc 2
expect_err "^error: database '$PWD/corrupt.db' is corrupt$"
expect_err "^fix: "
[ "$(cksum <corrupt.db)" = "$sum" ] || fail "corrupt database was modified"
[ ! -e corrupt.db-wal ] || fail "a WAL file was created beside the corrupt database"
run "$LAUKA" counters --import "$fixtures/tiny.plist" --db "$PWD/corrupt.db"
expect_rc 2
expect_err "is corrupt"
[ "$(cksum <corrupt.db)" = "$sum" ] || fail "corrupt database was modified by an import"

# A database from a newer lauka (PRAGMA user_version lives at byte 60 of the header).
cp "$LAUKA_DB" newer.db
printf '\000\000\000\143' | dd of=newer.db bs=1 seek=60 conv=notrunc 2>/dev/null
sum=$(cksum <newer.db)
run "$LAUKA" counters --backend rusage --db "$PWD/newer.db"
expect_rc 2
expect_err "^error: database '$PWD/newer.db' was written by a newer lauka (schema 99"
expect_err "^fix: "
[ "$(cksum <newer.db)" = "$sum" ] || fail "newer database was modified"
exit 0
