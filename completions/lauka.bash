# bash completion for lauka.  Installed as
# $(DATADIR)/bash-completion/completions/lauka (bash-completion loads it on
# first use of `lauka`), or source it.
#
# Verbs, options, --backend values and event names are asked from lauka
# itself (`lauka help`, `lauka help VERB`, `lauka version`, `lauka counters
# --backend B`), so the completion follows the binary it completes.

_lauka_verbs() {
	"$1" help 2>/dev/null | awk '/^verbs:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

_lauka_options() { # lauka verb
	"$1" help "$2" 2>/dev/null | awk '/^ +-/ { sub(/^ +/, ""); split($0, p, /  +/); n = split(p[1], t, /[ ,=]+/);
		for (i = 1; i <= n; i++) if (t[i] ~ /^--?[A-Za-z0-9]/) print t[i] }'
}

_lauka_backends() {
	"$1" version 2>/dev/null | awk '/^backends:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { on = 0 }'
}

# The events `lauka counters --details` does not mark unsupported here (a VM without a PMU counts 10
# of 62), or with "all" every one.
_lauka_events() { # lauka backend-or-empty [all]
	local b=()	# not ${2:+--backend "$2"}: the caller's IFS may be a newline
	[ -n "$2" ] && b=(--backend "$2")
	"$1" counters "${b[@]}" --details --no-headers --wide 2>/dev/null |
		awk -v all="${3:-}" 'all != "" || $3 != "unsupported" { print $1 }'
}

# The names `lauka baselines list` shows (with --git: those in git notes).
_lauka_baselines() { # lauka [--git]
	"$1" baselines ${2:+"$2"} list 2>/dev/null | awk 'NR == 1 && $1 == "name" { on = 1; next } on { print $1 }'
}

_lauka() {
	local cur prev lauka=${COMP_WORDS[0]} verb=record backend="" i w
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: bash splits the word at '=' (COMP_WORDBREAKS)
	if [ "$cur" = "=" ]; then
		cur=""
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	case ${COMP_WORDS[1]} in
	-*|"") ;;
	*) [ "$COMP_CWORD" -gt 1 ] && verb=${COMP_WORDS[1]} ;;
	esac
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--) # after --: the commands to measure
			COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
			return ;;
		--backend=*) backend=${w#--backend=} ;;
		--backend) [ "${COMP_WORDS[i + 1]}" = "=" ] && backend=${COMP_WORDS[i + 2]} || backend=${COMP_WORDS[i + 1]} ;;
		esac
	done
	case $prev in
	--backend)
		COMPREPLY=($(compgen -W "$(_lauka_backends "$lauka")" -- "$cur"))
		return ;;
	-m|--measurements|--check)
		# a comma-separated list: complete the last name, keep the ones before it
		local head="" part=$cur
		case $cur in *,*) head=${cur%,*},; part=${cur##*,} ;; esac
		local IFS=$'\n'
		# the events countable here; the others only when none of those matches
		COMPREPLY=($(compgen -W "$(_lauka_events "$lauka" "$backend")" -- "$part"))
		[ ${#COMPREPLY[@]} -gt 0 ] || COMPREPLY=($(compgen -W "$(_lauka_events "$lauka" "$backend" all)" -- "$part"))
		for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=$head${COMPREPLY[i]}; done
		compopt -o nospace 2>/dev/null
		return ;;
	--color)
		COMPREPLY=($(compgen -W "auto never ansi" -- "$cur"))
		return ;;
	--style)
		COMPREPLY=($(compgen -W "full basic nocolor color none" -- "$cur"))
		return ;;
	--gate-inconclusive)
		COMPREPLY=($(compgen -W "pass fail" -- "$cur"))
		return ;;
	--db|--json|--plot|--import|--export-json|--export-csv|--export-markdown)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return ;;
	-n|--runs|-r|--warmup|-w|-D|--parameter-step-size|--pmu|--ok-exit-codes|--seed|--runner-class|--save-baseline|--baseline|--gate|--command-name|--min-runs|--max-runs|--jobs|--collect)
		return ;;
	esac
	if [ "$COMP_CWORD" -eq 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W "$(_lauka_options "$lauka" record) --version" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$(_lauka_verbs "$lauka")" -- "$cur")) ;;
		esac
		return
	fi
	if [ "$verb" = help ]; then
		[ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$(_lauka_verbs "$lauka")" -- "$cur"))
		return
	fi
	if [ "$verb" = baselines ] && [ "${cur#-}" = "$cur" ]; then
		local sub="" git=""
		for ((i = 2; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			list|show|delete) [ -z "$sub" ] && sub=${COMP_WORDS[i]} ;;
			--git) git=--git ;;
			esac
		done
		case $sub in
		"") COMPREPLY=($(compgen -W "list show delete" -- "$cur")) ;;
		show|delete) [ "$prev" = "$sub" ] && COMPREPLY=($(compgen -W "$(_lauka_baselines "$lauka" "$git")" -- "$cur")) ;;
		esac
		return
	fi
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(_lauka_options "$lauka" "$verb") $([ "$verb" = record ] && echo --)" -- "$cur")) ;;
	esac
}
complete -F _lauka lauka
