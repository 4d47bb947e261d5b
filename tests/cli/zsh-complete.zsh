#!/usr/bin/env zsh
# zsh-complete.zsh FPATH_DIR LINE: run zsh's real completion system on LINE
# followed by TAB (an interactive zsh in a pseudo-terminal, compinit with
# FPATH_DIR first in $fpath) and print every match offered, one per line,
# with the part compset moved into $IPREFIX in front (so "Ir,D1" gives
# "Ir,D1mr").  Used by t-completions.sh.
emulate -L zsh
zmodload zsh/zpty || exit 3
dir=$1 line=$2
log=$(mktemp) || exit 3
# Wait (up to 20 s) until the terminal has printed a line matching the pattern.
await() {
	local chunk i
	for i in {1..200}; do
		while zpty -r -t z chunk 2>/dev/null; do
			[[ $chunk == $~1 ]] && return 0
		done
		sleep 0.1
	done
	print -u2 "zsh-complete.zsh: timed out waiting for $1"
	return 1
}
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "compadd() { local -a __m; builtin compadd -O __m \"\$@\"; (( \$#__m )) && print -rl -- \"\${IPREFIX}\"\${^__m} >> ${(q)log}; builtin compadd \"\$@\"; }"
zpty -w z "print RE''ADY"
await '*READY*' || exit 3
zpty -w -n z "$line"$'\t'
# Let the completion finish before typing on (zle may drop a completion when keys are pending):
# wait (up to 20 s) for the first match to be logged, then a moment for the rest.
for i in {1..200}; do
	[[ -s $log ]] && break
	sleep 0.1
done
sleep 0.3
# Then clear the line and print a marker; its echo reads DO''NE, its output DONE.
zpty -w -n z $'\C-u'"print DO''NE"$'\n'
await '*DONE*' || exit 3
zpty -d z
sort -u $log
rm -f $log
