#!/bin/sh
# Benchmark of baselines in git notes (issue 31 D-6): a repository with N
# notes (2,000 by default, a year of CI saves), each one baseline line;
# `lauka baselines --git` (every note) and `record --git --baseline` for a
# runner class that has none (the walk reads every note of the history).
#   scripts/bench-notes.sh [path/to/lauka ...]    (each binary side by side)
# Every time is one whole lauka process; 6b9f58a took 28.5 s and 29.5 s
# here (one git process per note), one cat-file --batch takes 0.1-0.3 s.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$here/build/lauka"
bins=""
for l in "$@"; do
	case $l in /*) ;; *) l=$PWD/$l ;; esac
	[ -x "$l" ] || { echo "error: '$l' not built; run make first" >&2; exit 1; }
	bins="$bins $l"
done
set -- $bins
n=${NOTES:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b LAUKA_DB="$tmp/db"
cd "$tmp" && git init -q r && cd r && git commit -q --allow-empty -m a
"$1" record --backend rusage -n 3 --git --runner-class c0 --save-baseline main -- true >/dev/null 2>&1
python3 - "$n" <<'PY' | git fast-import --quiet
import subprocess, sys
n = int(sys.argv[1])
good = subprocess.run(["git", "notes", "--ref=lauka", "show", "HEAD"], capture_output=True, text=True).stdout.splitlines()[0]
notes = subprocess.run(["git", "rev-parse", "refs/notes/lauka"], capture_output=True, text=True).stdout.strip()
for i in range(n):
    print("commit refs/heads/many\nmark :%d\ncommitter b <b@b> %d +0000\ndata 1\nx" % (i + 1, 1000 + i))
    if i:
        print("from :%d" % i)
print("commit refs/notes/lauka\ncommitter b <b@b> 5000 +0000\ndata 5\nmany\nfrom %s" % notes)
for i in range(n):
    line = good.replace('"runner_class":"c0"', '"runner_class":"r%d"' % i)
    print("N inline :%d\ndata %d\n%s\n" % (i + 1, len(line.encode()) + 1, line))
PY
git checkout -q many
secs() { python3 -c 'import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.2f" % (time.monotonic() - t))' "$@"; }
printf '%-40s %10s %10s\n' "lauka ($n notes)" "list s" "walk s"
for l in "$@"; do
	printf '%-40s %10s %10s\n' "$l" "$(secs "$l" baselines --git)" \
		"$(secs "$l" record --backend rusage -n 3 --git --runner-class none --baseline main -- true)"
done
