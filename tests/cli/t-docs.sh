# the documentation: README.md stays under 16 KB, and every relative link in README.md, HACKING.md, src/README.md and doc/*.md resolves, anchors included
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
src=$LAUKA_SRCDIR
command -v python3 >/dev/null 2>&1 || skip "python3 not installed (scripts/deps.sh check installs it)"

size=$(wc -c < "$src/README.md")
[ "$size" -le 16384 ] || fail "README.md is $size bytes; keep it under 16 KB (16384) and move the rest to doc/"

# Links as Markdown writes them, [text](target), outside code; a target with a scheme (https:, mailto:)
# is not checked (no network here). Anchors are GitHub's heading ids: lower case, punctuation but '-'
# and '_' dropped, spaces to '-', a repeated heading gets -1, -2, ...
cat > check-links.py <<'PY'
import os, re, sys, glob
src = sys.argv[1]
files = [os.path.join(src, f) for f in ("README.md", "HACKING.md", "src/README.md")] + sorted(glob.glob(os.path.join(src, "doc", "*.md")))
def strip_code(text):
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "``", line))
    return out
def anchors(path):
    ids, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence:
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        ids.add(slug if n == 0 else "%s-%d" % (slug, n))
    return ids
bad = []
for f in files:
    if not os.path.exists(f):
        bad.append("%s: missing" % os.path.relpath(f, src))
        continue
    for no, line in enumerate(strip_code(open(f, encoding="utf-8").read()), 1):
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            where = "%s:%d: %s" % (os.path.relpath(f, src), no, target)
            if not os.path.exists(dest):
                bad.append(where + " (no such file)")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append(where + " (no such heading)")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
run python3 check-links.py "$src"
expect_rc 0

# The checker itself, on a small tree: a good link, a missing file, a missing heading, a link in code.
mkdir -p t/doc
printf '# Top\n\n## A heading: with `code`\n\n## A heading: with `code`\n' > t/doc/g.md
cat > t/README.md <<'MD'
[ok](doc/g.md#a-heading-with-code) [dup](doc/g.md#a-heading-with-code-1) [self](#readme) [web](https://example.org/x)
[gone](doc/none.md) [nohead](doc/g.md#nowhere)
`[in code](doc/none2.md)`
```
[in a fence](doc/none3.md)
```
# readme
MD
: > t/HACKING.md; mkdir -p t/src; : > t/src/README.md
run python3 check-links.py t
expect_rc 1
[ "$out" = "README.md:2: doc/none.md (no such file)
README.md:2: doc/g.md#nowhere (no such heading)" ] || fail "link checker found: $out"
