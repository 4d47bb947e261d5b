# completions: bash (through bash-completion's loader), zsh (compinit in a pty) and fish complete verbs, options, --backend values and -m event lists
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
comp="$LAUKA_SRCDIR/completions"
# The completions run `lauka` from PATH, as a user's shell would.
export PATH="$LAUKA_BUILD:$PATH"
share="$PWD/share"
mkdir -p "$share/bash-completion/completions"
cp "$comp/lauka.bash" "$share/bash-completion/completions/lauka"

# Expected answers come from lauka itself and from the catalogue, not from the scripts.
d1=$("$LAUKA" counters --backend valgrind | grep '^D1' | sed 's/^/Ir,/' | sort)
[ -n "$d1" ] || fail "no D1* events in the valgrind catalogue"
counters_long=$("$LAUKA" help counters | awk '/^ +-/ { sub(/^ +/, ""); split($0, p, /  +/); n = split(p[1], t, /[ ,=]+/);
	for (i = 1; i <= n; i++) if (t[i] ~ /^--[a-z]/) print t[i] }' | sort -u)
backends=$("$LAUKA" version | awk '/^backends:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { on = 0 }' | sort)
# lauka baselines: the sub-verbs its usage line names, then the names of the baselines stored.
subs=$("$LAUKA" help baselines | sed -n 's/^usage: lauka baselines.*\[\(list[^]]*\)\].*/\1/p' | tr ' |' '\n\n' | grep -v '^NAME$' | sed '/^$/d' | sort)
[ "$(printf '%s\n' "$subs" | wc -l)" -eq 3 ] || fail "cannot read the sub-verbs of 'lauka help baselines': $subs"
for b in main pr-7 nightly; do
	"$LAUKA" --backend rusage -n 3 --save-baseline "$b" -- true >/dev/null 2>&1 || fail "could not save baseline $b"
done
names=$("$LAUKA" baselines list | awk 'NR > 1 { print $1 }' | sort)
# -m: the events counters --details does not mark unsupported here (all of them on a machine with
# a PMU); an event only the full list has is still completed when nothing countable matches.
countable=$("$LAUKA" counters --details --no-headers --wide | awk '$3 != "unsupported" { print $1 }' | sort)
uncountable=$("$LAUKA" counters --details --no-headers --wide | awk '$3 == "unsupported" { print $1 }' | sort | head -n 1)
# line|expected matches (one per line, sorted)
cases="lauka c|calibrate
counters
lauka counters --d|--db
--details
lauka --backend va|valgrind
lauka record --backend valgrind -m Ir,D1|$d1
lauka help ca|calibrate
lauka --color a|ansi
auto
lauka --style n|nocolor
none
lauka calibrate --p|--plot
--passes
--pmu
lauka counters --|$counters_long
lauka --backend |$backends
lauka baselines |$subs
lauka baselines show |$names
lauka baselines --db \$LAUKA_DB delete p|pr-7
lauka -m |$countable"
[ -z "$uncountable" ] || cases="$cases
lauka -m $uncountable|$uncountable"

shells=0
check_shell() { # name function
	name=$1 fn=$2
	n=0 i=0
	# a case starts at each line with a '|'; the lines after it until the next one are more expected matches
	total=$(printf '%s\n' "$cases" | grep -c '|')
	while [ "$i" -lt "$total" ]; do
		i=$((i + 1))
		block=$(printf '%s\n' "$cases" | awk -F'|' -v k="$i" 'NF > 1 { n++ } n == k { if (NF > 1) { print $1; print $2 } else print }')
		line=$(printf '%s\n' "$block" | sed -n 1p)
		want=$(printf '%s\n' "$block" | sed 1d | sort -u)
		got=$($fn "$line" | sort -u)
		[ "$got" = "$want" ] || fail "$name: completing '$line' offered
$got
but lauka has
$want"
		n=$((n + 1))
	done
	echo "$name: $n cases"
	shells=$((shells + 1))
}

bash_complete() {
	bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		export XDG_DATA_DIRS="$1"
		read -ra COMP_WORDS <<<"$2"
		case $2 in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
		__load_completion lauka || { echo "bash-completion did not load lauka from $1" >&2; exit 1; }
		fn=$(complete -p lauka | sed "s/.*-F \([^ ]*\).*/\1/")
		$fn lauka; printf "%s\n" "${COMPREPLY[@]}"' bash "$share" "$1"
}
zsh_complete() { zsh -f "$LAUKA_SRCDIR/tests/cli/zsh-complete.zsh" "$comp" "$1"; }
fish_complete() { fish --no-config -c 'set -p fish_complete_path $argv[1]; complete -C $argv[2]' "$comp" "$1" | cut -f1; }

if [ -f /usr/share/bash-completion/bash_completion ] && command -v bash >/dev/null 2>&1; then
	check_shell bash bash_complete
	# bash splits --backend=valgrind at '='
	got=$(bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion; export XDG_DATA_DIRS="$1"; __load_completion lauka
		COMP_WORDS=(lauka --backend = valgrind -m Ir,D1); COMP_CWORD=5; _lauka lauka; printf "%s\n" "${COMPREPLY[@]}"' bash "$share" | sort)
	[ "$got" = "$d1" ] || fail "bash: --backend=valgrind -m Ir,D1 offered: $got"
else
	echo "bash-completion not installed: bash not tested"
fi
if command -v zsh >/dev/null 2>&1 && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
	check_shell zsh zsh_complete
else
	echo "zsh (with zsh/zpty) not installed: zsh not tested"
fi
if command -v fish >/dev/null 2>&1; then
	check_shell fish fish_complete
	got=$(fish_complete 'lauka --backend=valgrind -m Ir,D1' | sort)
	[ "$got" = "$d1" ] || fail "fish: --backend=valgrind -m Ir,D1 offered: $got"
else
	echo "fish not installed: fish not tested"
fi
[ "$shells" -gt 0 ] || skip "none of bash-completion, zsh, fish is installed"
