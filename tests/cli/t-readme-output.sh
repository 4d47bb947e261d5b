# README.md's shown outputs against what lauka prints now (their shape: numbers aside): lauka version, the valgrind comparison and the valgrind gate, run as shown; a README line that lauka no longer prints, or a line of lauka's the README leaves out without '...', fails
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed (the README's examples use it)"
# One python for the whole test: it reads the README's blocks, runs the chosen ones (the two
# valgrind ones at the same time) and compares.  Each output line becomes its shape: numbers (with
# their sign, unit suffix and decimals) become N, runs of spaces one, the build path build/, git
# hashes H; lauka version's lines their first words.  The README's lines must appear in lauka's output in order; "..." in the README stands
# for any lines; elsewhere a line of lauka's the README does not show is a difference too.
python3 - "$LAUKA_SRCDIR/README.md" "$LAUKA_BUILD" <<'EOP' || fail "README.md differs from lauka's output (above)"
import os, re, subprocess, sys
readme, build = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
blocks = re.findall(r"^```\n(.*?)^```", text, re.S | re.M)
# command (as the README writes it) -> the lines shown after it
shown = {}
for b in blocks:
    lines, cur, cmd = b.split("\n"), None, None
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("$ "):
            cmd = l[2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            cmd = re.sub(r"\s+#.*$", "", cmd)
            shown[cmd] = []
        elif cmd is not None:
            shown[cmd].append(l)
        i += 1
wanted = [c for c in shown if c.startswith("build/lauka version") or
          (c.startswith("build/lauka --backend valgrind") and "--explain" not in c)]
assert len(wanted) >= 3, ("the README's examples were not found", list(shown))
def shape(l):
    l = l.replace(build + "/", "build/").replace("'" + build + "/", "'build/")
    l = re.sub(r"\([0-9a-f]{7,}\)", "(H)", l)
    l = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?(%|[KMG]B|[KMG]|ms|us|ns|s)?", "N", l)
    l = re.sub(r"N(\s*…\s*N)", r"N…N", l)
    return re.sub(r"\s+", " ", l).strip()
env = dict(os.environ, COLUMNS="", NO_COLOR="1")
procs = {}
for c in wanted:
    argv = ["sh", "-c", "cd \"$0\" && exec " + c + " 2>&1", os.path.dirname(build)]
    procs[c] = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, text=True)
bad = 0
for c in wanted:
    out = procs[c].communicate()[0]
    real = [shape(l) for l in out.split("\n")]
    real = [l for l in real if l]
    want = [shape(l) for l in shown[c]]
    want = [l for l in want if l]
    if c.startswith("build/lauka version"):
        # which backends work, and why not, is this machine's: the lines' labels only (their
        # first words), and only where the same backends are built in
        names = lambda ls: sorted(l.split()[0] for l in ls if l.startswith("  "))
        if names(out.split("\n")) != names(shown[c]):
            print("skipping the version block: other backends here (%s)" % names(real))
            continue
        real = [l.split()[0] for l in real]
        want = [l.split()[0] for l in want]
    k, skip = 0, False
    for w in want:
        if w == "...":
            skip = True
            continue
        j = k
        while j < len(real) and real[j] != w and skip:
            j += 1
        if j >= len(real) or real[j] != w:
            print("README: $ %s\n  shows:   %s\n  lauka:   %s" % (c, w, real[k] if k < len(real) else "(no more lines)"))
            bad += 1
            break
        k, skip = j + 1, False
    else:
        if k < len(real) and not skip:
            print("README: $ %s\n  ends, lauka goes on: %s" % (c, real[k]))
            bad += 1
sys.exit(1 if bad else 0)
EOP
exit 0
