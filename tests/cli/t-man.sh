# man page: mandoc -T lint is clean, man -l renders it, and it agrees with 'lauka help' on verbs, options and the environment
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
man_src="$LAUKA_SRCDIR/doc/lauka.1"
[ -f "$man_src" ] || fail "no man page at $man_src"

# The option flags of one verb's help text: "  -n, --runs N   ..." gives -n and --runs.
help_opts() {
	"$LAUKA" help "$1" | awk '/^ +-/ { sub(/^ +/, ""); split($0, p, /  +/); n = split(p[1], t, /[ ,=]+/);
		for (i = 1; i <= n; i++) if (t[i] ~ /^--?[A-Za-z0-9]/) print t[i] }' | sort -u
}
# The same from the man page source: the .It lines of the verb's .Ss section ("Fl n , Fl \-runs Ar N").
man_opts() {
	awk -v verb="$1" '/^\.Sh / { in_cmds = ($2 == "COMMANDS"); sec = ""; next }
		/^\.Ss / { sec = in_cmds ? $2 : ""; next }
		sec == verb && /^\.It / { for (i = 2; i < NF; i++) if ($i == "Fl") { f = $(i + 1); gsub(/\\/, "", f); print "-" f } }' \
		"$man_src" | sort -u
}
problems=""
say() { problems="$problems
$*"; }

# Verbs: the overview's "verbs:" list against the man page's COMMANDS subsections.
help_verbs=$("$LAUKA" help | awk '/^verbs:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }' | sort -u)
man_verbs=$(awk '/^\.Sh / { on = ($2 == "COMMANDS"); next } on && /^\.Ss / { print $2 }' "$man_src" | sort -u)
[ -n "$help_verbs" ] || fail "could not read the verbs from 'lauka help'"
for v in $help_verbs; do
	printf '%s\n' "$man_verbs" | grep -qx "$v" ||
		say "doc/lauka.1 has no '.Ss $v' subsection under COMMANDS, but 'lauka help' lists the verb '$v'"
done
for v in $man_verbs; do
	printf '%s\n' "$help_verbs" | grep -qx "$v" ||
		say "doc/lauka.1 documents a verb '$v' (.Ss $v) that 'lauka help' does not list"
done

# Options, verb by verb.
nchecked=0
for v in $help_verbs; do
	h=$(help_opts "$v"); m=$(man_opts "$v")
	for o in $h; do
		nchecked=$((nchecked + 1))
		flag=${o#-}
		case $flag in -*) flag="\\$flag" ;; esac
		printf '%s\n' "$m" | grep -qx -- "$o" ||
			say "doc/lauka.1, section '$v': missing option $o (it is in 'lauka help $v'); add '.It Fl $flag ...' to its .Bl list"
	done
	for o in $m; do
		printf '%s\n' "$h" | grep -qx -- "$o" ||
			say "'lauka help $v' (src/cmd/help.c): missing option $o (it is in doc/lauka.1, section '$v')"
	done
done
[ "$nchecked" -ge 20 ] || fail "only $nchecked options found in the help texts: the parser is broken"

# Every environment variable the source reads is in ENVIRONMENT (LAUKA_TEST_* are test hooks).
envs=$(find "$LAUKA_SRCDIR"/src -name '*.c' -exec cat {} + | grep -o 'getenv("[A-Z_0-9]*")\|env_or("[A-Z_0-9]*"' | sed 's/.*("\([A-Z_0-9]*\)".*/\1/' | sort -u | grep -v '^LAUKA_TEST_')
man_envs=$(awk '/^\.Sh / { on = ($2 == "ENVIRONMENT"); next } on && /^\.It Ev / { for (i = 3; i <= NF; i++) if ($i != ",") print $i }' "$man_src" | sort -u)
[ -n "$envs" ] || fail "found no getenv() calls in src/"
for e in $envs; do
	printf '%s\n' "$man_envs" | grep -qx "$e" ||
		say "doc/lauka.1, ENVIRONMENT: missing $e (the source reads it with getenv); add '.It Ev $e'"
done

if [ -n "$problems" ]; then
	printf 'lauka help and doc/lauka.1 disagree:%s\n' "$problems" >&2
	exit 1
fi

command -v mandoc >/dev/null 2>&1 || skip "mandoc not installed (Debian package mandoc): lint not run; help and man page agree"
run mandoc -T lint -W warning "$man_src"
expect_rc 0
[ -z "$out$err" ] || fail "mandoc -T lint: $out $err"
run mandoc -T ascii "$man_src"
expect_rc 0
bs=$(printf '\b')
out=$(printf '%s\n' "$out" | sed "s/.$bs//g")
for s in NAME SYNOPSIS DESCRIPTION COMMANDS ENVIRONMENT FILES "EXIT STATUS" EXAMPLES; do
	printf '%s\n' "$out" | grep -q "^$s" || fail "rendered page lacks section $s"
done
if command -v man >/dev/null 2>&1; then
	run env MANWIDTH=80 man -l "$man_src"
	expect_rc 0
	expect_out "lauka calibrate"
fi
