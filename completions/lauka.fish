# fish completion for lauka.  Installed as
# $(DATADIR)/fish/vendor_completions.d/lauka.fish.
#
# Verbs, options, --backend values and event names are asked from lauka
# itself (`lauka help`, `lauka help VERB`, `lauka version`, `lauka counters
# --backend B`), so the completion follows the binary it completes.

# The lauka being completed (as typed: a path, or found in PATH).
function __lauka_run
    set -l t (commandline -opc)
    command $t[1] $argv 2>/dev/null
end

function __lauka_verbs
    __lauka_run help | awk '/^verbs:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
end

# The verb on the command line; record when there is none.
function __lauka_verb
    set -l t (commandline -opc)
    if test (count $t) -ge 2; and not string match -q -- '-*' $t[2]
        echo $t[2]
    else
        echo record
    end
end

function __lauka_at_verb
    set -l t (commandline -opc)
    test (count $t) -eq 1
end

function __lauka_after_dashdash
    contains -- -- (commandline -opc)
end

# True when the previous token is one of the arguments (an option taking a value).
function __lauka_prev_is
    set -l t (commandline -opc)
    contains -- $t[-1] $argv
end

function __lauka_options
    set -l v (__lauka_verb)
    __lauka_run help $v | awk '/^ +-/ { sub(/^ +/, ""); split($0, p, /  +/); n = split(p[1], t, /[ ,=]+/);
        for (i = 1; i <= n; i++) if (t[i] ~ /^--?[A-Za-z0-9]/) print t[i] }'
    test "$v" = record; and echo --
end

function __lauka_backends
    __lauka_run version | awk '/^backends:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { on = 0 }'
end

# Event names for -m/--check: of the backend named on the line, and after
# the names already typed in a comma-separated list.
function __lauka_events
    set -l t (commandline -opc)
    set -l backend
    for i in (seq (count $t))
        switch $t[$i]
            case '--backend=*'
                set backend (string replace -- '--backend=' '' $t[$i])
            case --backend
                set -l j (math $i + 1)
                test $j -le (count $t); and set backend $t[$j]
        end
    end
    set -l cur (commandline -ct)
    set -l head ''
    if string match -q -- '*,*' $cur
        set head (string replace -r -- '[^,]*$' '' $cur)
    end
    set -l b
    test -n "$backend"; and set b --backend $backend
    # the events `counters --details` does not mark unsupported here; the others only when none
    # of those matches what is typed
    set -l rows (__lauka_run counters $b --details --no-headers --wide)
    set -l evs (printf '%s\n' $rows | awk '$3 != "unsupported" { print $1 }')
    set -l part (string replace -r -- '^.*,' '' $cur)
    if test (count (string match -i -- "$part*" $evs)) -eq 0
        set evs (printf '%s\n' $rows | awk '{ print $1 }')
    end
    printf '%s\n' $evs | string replace -r -- '^' "$head"
end

# lauka baselines: its sub-verb, then for show and delete the names stored (--git: in git notes).
function __lauka_baselines_sub
    set -l t (commandline -opc)
    test (count $t) -ge 2; and test "$t[2]" = baselines; or return 1
    string match -q -- '-*' (commandline -ct); and return 1
    for w in $t[3..-1]
        contains -- $w list show delete; and return 1
    end
    return 0
end

function __lauka_baselines_name
    set -l t (commandline -opc)
    test (count $t) -ge 3; and test "$t[2]" = baselines; and contains -- $t[-1] show delete; or return 1
    for w in $t[3..-2]
        contains -- $w list show delete; and return 1
    end
    return 0
end

function __lauka_baseline_names
    set -l git
    contains -- --git (commandline -opc); and set git --git
    __lauka_run baselines $git list | awk 'NR == 1 && $1 == "name" { on = 1; next } on { print $1 }'
end

complete -c lauka -f
complete -c lauka -n __lauka_at_verb -a '(__lauka_verbs)'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_verb | string match -q help; and test (count (commandline -opc)) -eq 2' -a '(__lauka_verbs)'
complete -c lauka -n 'not __lauka_after_dashdash; and not __lauka_prev_is --backend -m --measurements --check --color --db --json --plot --import --export-json --export-csv --export-markdown -n --runs -r --warmup -w -D --parameter-step-size --style --pmu --ok-exit-codes --seed --runner-class --save-baseline --baseline --gate --command-name --min-runs --max-runs --jobs --gate-inconclusive --collect; and string match -q -- "-*" (commandline -ct)' -a '(__lauka_options)'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is --backend' -x -a '(__lauka_backends)'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is -m --measurements --check' -x -a '(__lauka_events)'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is --color' -x -a 'auto never ansi'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is --style' -x -a 'full basic nocolor color none'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is --gate-inconclusive' -x -a 'pass fail'
complete -c lauka -n 'not __lauka_after_dashdash; and __lauka_prev_is --db --json --plot --import --export-json --export-csv --export-markdown' -F -r
complete -c lauka -n __lauka_after_dashdash -F -a '(__fish_complete_command)'
complete -c lauka -n __lauka_baselines_sub -x -a 'list show delete'
complete -c lauka -n __lauka_baselines_name -x -a '(__lauka_baseline_names)'
