# --git: baselines in git notes; two clones of one bare remote stand for two CI runners (one saves and pushes, the other fetches, commits and compares); runner classes; NAME@REV; notes of two classes merge with cat_sort_uniq; baselines --git list/show/delete; lauka never pushes or fetches
. "$LAUKA_SRCDIR/tests/cli/lib.sh"
command -v git >/dev/null 2>&1 || skip "git not installed"
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
P="$LAUKA_BUILD/lauka-probe"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
G="--git --backend valgrind -m Ir --color never"
R=$PWD

git init -q --bare remote.git
git clone -q remote.git a 2>/dev/null
git clone -q remote.git b 2>/dev/null
cd "$R/a" && echo 1 > f && git add f && git commit -q -m one && git push -q origin HEAD:main 2>/dev/null || fail "push"
base=$(git rev-parse HEAD)

# Runner A (main): the first run saves and compares at once: nothing to compare with yet, exit 0.
run "$LAUKA" record $G --runner-class ci --save-baseline main --baseline main -- "$P alu 1000"
expect_rc 0; expect_err "saved baseline 'main' in the git note of ${base%????????????????????????????}"
expect_err "nothing was compared"
# One JSON line in HEAD's note, under refs/notes/lauka; nothing went to the remote.
[ "$(git notes --ref=lauka show HEAD | wc -l)" -eq 1 ] || fail "expected one line: $(git notes --ref=lauka show HEAD)"
git notes --ref=lauka show HEAD | python3 -c 'import json, sys
b = json.loads(sys.stdin.readline())
assert b["name"] == "main" and b["runner_class"] == "ci" and b["backend"] == "valgrind", b
assert b["measurements"][-1] == "Ir" and len(b["commands"]) == 1 and b["commands"][0]["runs"] == 1, b
assert len(b["commands"][0]["samples"][-1]) == 1, b' || fail "the note is not the baseline"
git ls-remote ../remote.git | grep -q notes && fail "lauka pushed the notes"
# HEAD's own note is not compared with: the nearest first-parent ancestor is.
run "$LAUKA" record $G --runner-class ci --baseline main -- "$P alu 1000"
expect_rc 1; expect_err "no baseline 'main' in the notes of HEAD's first-parent ancestors"
git push -q origin refs/notes/lauka 2>/dev/null || fail "git push of the notes"

# Runner B (a pull request): fetch the notes, commit a change, compare.
cd "$R/b" && git pull -q origin main 2>/dev/null && git fetch -q origin refs/notes/lauka:refs/notes/lauka || fail "fetch"
echo 2 > f && git commit -q -am two
run "$LAUKA" record $G --runner-class ci --baseline main --gate Ir=1% -- "$P alu 1000"
expect_rc 0; expect_out "against baseline 'main' of $(echo $base | cut -c1-12)"; expect_out "+0.00%"
run "$LAUKA" record $G --runner-class ci --baseline main --gate Ir=1% --export-json r.json -- "$P alu 3000"
expect_rc 3; expect_out "FAIL"
# NAME@REV: exactly that commit's note; one without it is an error.
run "$LAUKA" record $G --runner-class ci --baseline "main@$base" -- "$P alu 1000"
expect_rc 0
run "$LAUKA" record $G --runner-class ci --baseline main@HEAD -- "$P alu 1000"
expect_rc 1; expect_err "no baseline 'main' in the notes of HEAD"
# Another runner class: an error naming this class and the ones there are, never a comparison.
run "$LAUKA" record $G --runner-class arm --baseline main -- "$P alu 1000"
expect_rc 1; expect_err "no baseline 'main' for runner class 'arm'"; expect_err "it exists for 'ci'"
run "$LAUKA" record $G --baseline main --any-runner -- "$P alu 1000"
expect_rc 1; expect_err "--any-runner does not apply with --git"

# Two runner classes save on one commit, each on its own runner, and push: the second push is
# refused, and the notes merge with cat_sort_uniq without conflict.
cd "$R/a" && run "$LAUKA" record $G --runner-class ci-b --save-baseline main -- "$P alu 1000"
expect_rc 0
cd "$R/b" && git checkout -q "$base" 2>/dev/null
# (no identity configured: lauka's note commit still works)
run env -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL \
	"$LAUKA" record $G --runner-class ci-c --save-baseline main -- "$P alu 1000"
expect_rc 0
cd "$R/a" && git push -q origin refs/notes/lauka 2>/dev/null || fail "push a"
cd "$R/b" && git push -q origin refs/notes/lauka 2>/dev/null && fail "b's push should be refused (notes diverged)"
git fetch -q origin refs/notes/lauka:refs/notes/lauka-origin && git notes --ref=lauka merge -q -s cat_sort_uniq refs/notes/lauka-origin ||
	fail "cat_sort_uniq merge failed"
git push -q origin refs/notes/lauka 2>/dev/null || fail "push of the merged notes"
[ "$(git notes --ref=lauka show "$base" | wc -l)" -eq 3 ] || fail "expected 3 lines: $(git notes --ref=lauka show "$base")"
git notes --ref=lauka show "$base" | sort -c || fail "the merged note is not sorted"
git checkout -q - 2>/dev/null; git checkout -q main 2>/dev/null || git checkout -q -B main origin/main
echo 3 > f && git commit -q -am three
for class in ci ci-b ci-c; do
	run "$LAUKA" record $G --runner-class $class --baseline main -- "$P alu 1000"
	expect_rc 0
done

# lauka baselines --git: list (commit column, every class), show, delete.
run "$LAUKA" baselines --git
expect_rc 0
for class in ci ci-b ci-c; do printf '%s\n' "$out" | grep -q "^$(echo $base | cut -c1-12) .* main .* $class " || fail "list lacks $class: $out"; done
run "$LAUKA" baselines --git show "main@$base"
expect_rc 0; expect_out "runner class   ci-b"; expect_out "note of        $base"
run "$LAUKA" baselines --git show nope
expect_rc 1; expect_err "no baseline 'nope'"
# Three classes have 'main' there: one runner does not delete the others' unless told (issue 30.3).
run "$LAUKA" baselines --git delete "main@$base"
expect_rc 1; expect_err "is there for several runner classes: nothing was deleted"; expect_err "^fix: .*--all-classes"
run "$LAUKA" baselines --git show "main@$base"
expect_rc 0; expect_out "^3 runner classes have baseline 'main' in the note of .*: 'ci', 'ci-b', 'ci-c'$"
run "$LAUKA" baselines --git show --runner-class ci-c "main@$base"
expect_rc 0; expect_out "runner class   ci-c"; printf '%s\n' "$out" | grep -q "runner class   ci$" && fail "show --runner-class ci-c showed ci"
run "$LAUKA" baselines --git list --runner-class ci-b
expect_rc 0; [ "$(printf '%s\n' "$out" | grep -c ' main ')" -eq 1 ] || fail "list --runner-class ci-b: $out"
run "$LAUKA" baselines --git delete --runner-class ci-c "main@$base"
expect_rc 0; expect_err "deleted baseline 'main'.*(1 runner class)"
run "$LAUKA" baselines --git show --runner-class ci-c "main@$base"
expect_rc 1
run "$LAUKA" baselines --git delete --all-classes "main@$base"
expect_rc 0; expect_err "deleted baseline 'main'.*(2 runner classes)"
git notes --ref=lauka show "$base" >/dev/null 2>&1 && fail "the emptied note was kept"
run "$LAUKA" baselines --git delete "main@$base"
expect_rc 1

# Outside a repository: a usage error that says so.
mkdir "$R/plain" && cd "$R/plain"
run env GIT_CEILING_DIRECTORIES="$R" "$LAUKA" record $G --save-baseline main -- "$P alu 10"
expect_rc 1; expect_err "needs a git repository"
exit 0
