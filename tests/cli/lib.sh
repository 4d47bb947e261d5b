# Shared helpers for tests/cli/t-*.sh (sourced).  $LAUKA is the binary under
# test; each test runs in its own empty temporary directory with its own
# LAUKA_DB and HOME.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 2; }

# run CMD...: runs it, capturing stdout in $out, stderr in $err, status in $rc.
run() {
	out_f=$(mktemp); err_f=$(mktemp)
	"$@" >"$out_f" 2>"$err_f"
	rc=$?
	out=$(cat "$out_f"); err=$(cat "$err_f")
	rm -f "$out_f" "$err_f"
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "expected exit $1, got $rc; stderr: $err; stdout: $out"; }
expect_out() { printf '%s\n' "$out" | grep -q -- "$1" || fail "stdout lacks '$1': $out"; }
expect_err() { printf '%s\n' "$err" | grep -q -- "$1" || fail "stderr lacks '$1': $err"; }
expect_no_out() { [ -z "$out" ] || fail "expected no stdout, got: $out"; }
# unwrap < FILE: what lauka wrote on a terminal with each wrapped message joined back into one line
# (on a terminal error/warning/fix/tip wrap at spaces, continuation lines indented), CRs and the
# progress line's drawings (up to the last ESC[K of a line) dropped.
unwrap() { tr -d '\r' | sed 's/.*\x1b\[K//' | awk '/^(error|warning|fix|tip): / { if (held) print m; m = $0; held = 1; next }
	held && /^ +[^ ]/ { sub(/^ +/, " "); m = m $0; next }
	{ if (held) print m; held = 0; print } END { if (held) print m }'; }
# The value column of one measurement row in the Nth benchmark block, as printed (e.g. 231 or 1.2K).
row_of() { printf '%s\n' "$out" | awk -v b="$1" -v m="$2" '/^Benchmark /{n++} n==b && $1==m {print; exit}'; }

# kperf_standin PLIST: the kperf backend on Linux through the stand-in frameworks (the model of XNU),
# PLIST served as the catalogue of the M1 cpu the stand-in reports, as /usr/share/kpep would.
kperf_standin() {
	[ "$(uname -s)" = Linux ] || skip "Linux only"
	standin="$LAUKA_BUILD/libkperf-standin.so"
	[ -f "$standin" ] || skip "stand-in library not built"
	export LAUKA_KPERF_PATH="$standin" LAUKA_KPERFDATA_PATH="$standin" LAUKA_STANDIN_STATE="$PWD/standin.state"
	mkdir kpep
	cp "$1" kpep/chip.plist
	ln -s chip.plist kpep/cpu_100000c_2_1b588bb3.plist
	export KPEP_DB_PATH="$PWD/kpep"
}

# vg_pinned valgrind OPTION... CMD ARG...: runs valgrind as doc/valgrind.md documents lauka starts it,
# written out here rather than taken from lauka: every signal at its default disposition with none
# blocked, stdin and stdout on /dev/null (stderr to vg.err); valgrind.bin when `valgrind` is a
# wrapper script; the environment PATH, HOME and TMPDIR (each when set), PWD, the locale, time-zone
# and hash-seed variables the test has (LANG, LANGUAGE, LC_*, TZ, PYTHONHASHSEED, PERL_HASH_SEED,
# PERL_PERTURB_KEYS), all sorted, and LAUKA_PAD=x... so that the strings of the program's first
# stack (arguments, environment, the program's path) fill a multiple of 4096 bytes.  (A test started
# in the background, as CI scripts may, inherits SIGINT and SIGQUIT ignored; sh then takes another
# path at start-up: 234 Ir fewer here, 158 in CI.  A shell cannot undo it: POSIX keeps signals
# ignored on entry ignored, so python resets them before the exec.)
vg_pinned() { python3 -c 'import os, shutil, signal, sys
for s in range(1, signal.NSIG):
    try:
        signal.signal(s, signal.SIG_DFL)
    except (OSError, ValueError, RuntimeError):
        pass
signal.pthread_sigmask(signal.SIG_SETMASK, [])
# PATH, HOME and TMPDIR come from the shell as arguments ("x" + value when set): a python3 started
# through a shim (pyenv) sees another PATH than the shell that runs the test.
shell = {n: v[1:] for n, v in zip(("PATH", "HOME", "TMPDIR"), sys.argv[1:4]) if v.startswith("x")}
args = sys.argv[4:]
k = 1
while args[k].startswith("-"):
    k += 1
cmd = args[k:]
keep = ("LANG", "LANGUAGE", "TZ", "PYTHONHASHSEED", "PERL_HASH_SEED", "PERL_PERTURB_KEYS")
env = sorted([n + "=" + v for n, v in os.environ.items() if n in keep or (n.startswith("LC_") and len(n) > 3)] +
             [n + "=" + v for n, v in shell.items()] + ["PWD=" + os.getcwd()])
path = shell.get("PATH", "/usr/local/bin:/usr/bin:/bin")
exe = cmd[0] if "/" in cmd[0] else shutil.which(cmd[0], path=path)
total = len(os.fsencode(exe)) + 1 + len("LAUKA_PAD=") + 1
total += sum(len(os.fsencode(s)) + 1 for s in env + cmd)
env.append("LAUKA_PAD=" + "x" * ((4096 - total % 4096) % 4096))
vg = shutil.which("valgrind", path=path)
with open(vg, "rb") as f:
    if f.read(4) != b"\x7fELF" and os.access(vg + ".bin", os.X_OK):
        vg += ".bin"
fd = os.open("/dev/null", os.O_RDWR)
os.dup2(fd, 0)
os.dup2(fd, 1)
os.dup2(os.open("vg.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
os.execve(vg, [vg] + args[1:], dict(e.split("=", 1) for e in env))' "${PATH+x$PATH}" "${HOME+x$HOME}" \
	"${TMPDIR+x$TMPDIR}" "$@" || fail "valgrind failed: $(cat vg.err)"; }
