#!/bin/sh
# Install what lauka needs, and say what is installed.  Used by `make check`
# and `make demo`; a plain `make` never installs anything.
#
#   scripts/deps.sh build   libraries to build lauka
#   scripts/deps.sh check   + check, valgrind, plistutil, perf, hyperfine, qemu,
#                             the aarch64 cross compiler, mandoc, zsh, fish,
#                             bash-completion, python3, strace, GNU time, rsvg-convert,
#                             ruby (tests skip what is absent)
#   scripts/deps.sh demo    build + valgrind
#   scripts/deps.sh macos   build + npm, which fetches zig for make check-macos (.ci/run)
#   scripts/deps.sh fuzz    build + clang and its libFuzzer runtime (make fuzz; CI)
#   scripts/deps.sh pmu     build + what make check-pmu needs: qemu-system-aarch64, the
#                             aarch64 cross compiler, cpio and the arm64 multiarch -dev
#                             libraries (adds dpkg's arm64 architecture; scripts/pmu-vm.sh
#                             fetches the guest kernel and busybox itself)
#
# Debian/Ubuntu: apt-get, as root or through sudo, its output shown as it goes.  macOS: Homebrew.
# Nothing missing: one line says so ("deps: all present ...").
set -eu
what=${1:-build}

have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have() { command -v "$1" >/dev/null 2>&1; }

missing=""
need_pkg() { # debian-package test...
	pkg=$1; shift
	if ! "$@"; then missing="$missing $pkg"; fi
}

case "$(uname -s)" in
Darwin)
	brew_missing=""
	# Homebrew's formula is pkgconf (pkg-config is an alias of it)
	for f in pkgconf libplist sqlite libxml2 check; do
		brew list --versions "$f" >/dev/null 2>&1 || brew_missing="$brew_missing $f"
	done
	if [ -n "$brew_missing" ]; then
		echo "deps: installing with Homebrew, to build lauka and run its tests:$brew_missing"
		brew install $brew_missing
	fi
	exit 0 ;;
esac

need_pkg pkg-config have pkg-config
need_pkg make have make
need_pkg gcc have cc
# gcc only recommends the C library headers
need_pkg libc6-dev test -f /usr/include/stdio.h
need_pkg libplist-dev have_pc libplist-2.0
need_pkg libsqlite3-dev have_pc sqlite3
need_pkg libxml2-dev have_pc libxml-2.0
# libpfm4: the vendor event tables (no pkg-config file; Fedora/RHEL: libpfm-devel)
need_pkg libpfm4-dev test -f /usr/include/perfmon/pfmlib_perf_event.h
case "$what" in
check)
	need_pkg check have_pc check
	need_pkg libplist-utils have plistutil
	need_pkg valgrind have valgrind
	need_pkg linux-perf have perf
	need_pkg hyperfine have hyperfine
	need_pkg qemu-user have qemu-aarch64
	need_pkg gcc-aarch64-linux-gnu have aarch64-linux-gnu-gcc
	# only recommended by the cross compiler, and --no-install-recommends skips it
	need_pkg libc6-dev-arm64-cross test -f /usr/aarch64-linux-gnu/include/stdio.h
	need_pkg binutils have objdump
	need_pkg procps have pgrep
	# man page lint, completion tests in each shell, SVG checks
	need_pkg mandoc have mandoc
	need_pkg man-db have man
	need_pkg bash-completion test -f /usr/share/bash-completion/bash_completion
	need_pkg zsh have zsh
	need_pkg fish have fish
	need_pkg python3 have python3
	need_pkg strace have strace
	need_pkg git have git
	# /usr/bin/time -f %M: the peak_rss cross-check's reference
	need_pkg time test -x /usr/bin/time
	# the plots are rendered once to show they are valid SVG; the formula is syntax-checked
	need_pkg librsvg2-bin have rsvg-convert
	need_pkg ruby have ruby
	;;
fuzz)
	need_pkg clang have clang
	# the libFuzzer runtime is in the compiler-rt package, not in clang itself
	need_pkg libclang-rt-dev sh -c 'ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1' ;;
demo)
	need_pkg valgrind have valgrind ;;
macos)
	need_pkg npm have npm ;;
pmu)
	need_pkg qemu-system-arm have qemu-system-aarch64
	need_pkg gcc-aarch64-linux-gnu have aarch64-linux-gnu-gcc
	need_pkg libc6-dev-arm64-cross test -f /usr/aarch64-linux-gnu/include/stdio.h
	need_pkg cpio have cpio
	need_pkg device-tree-compiler have dtc
	a=/usr/lib/aarch64-linux-gnu
	need_pkg libplist-dev:arm64 test -f $a/pkgconfig/libplist-2.0.pc
	need_pkg libsqlite3-dev:arm64 test -f $a/pkgconfig/sqlite3.pc
	need_pkg libxml2-dev:arm64 test -f $a/pkgconfig/libxml-2.0.pc
	need_pkg libpfm4-dev:arm64 test -f $a/libpfm.so ;;
esac

if [ -z "$missing" ]; then
	echo "deps: all present for scripts/deps.sh $what"
	exit 0
fi

# What each package is for, said before anything is installed (issue 30).
why() {
	case $1 in
	pkg-config|make|gcc|libc6-dev) echo "to build lauka" ;;
	libplist-dev|libsqlite3-dev|libxml2-dev) echo "a library lauka links (kpep plists, its database, xctrace exports)" ;;
	libpfm4-dev) echo "the vendor event tables (lauka counters)" ;;
	check) echo "the unit tests' framework" ;;
	libplist-utils) echo "plistutil: binary plists for the import tests" ;;
	valgrind) echo "the valgrind backend and its tests" ;;
	linux-perf) echo "perf stat, the perf backend's cross-check" ;;
	hyperfine) echo "the wall-time cross-check, its JSON export format" ;;
	qemu-user) echo "runs the aarch64 probe in the probe tests" ;;
	gcc-aarch64-linux-gnu|libc6-dev-arm64-cross) echo "builds the aarch64 probe" ;;
	binutils) echo "objdump: the probes' instruction checks" ;;
	npm) echo "fetches zig for make check-macos" ;;
	procps) echo "pgrep: the tests' process checks" ;;
	mandoc|man-db) echo "man page lint and rendering" ;;
	bash-completion) echo "the bash completion tests" ;;
	zsh|fish) echo "the $1 completion tests" ;;
	python3) echo "the tests' independent parsers and stand-ins" ;;
	strace) echo "where the perf backend opens counters (outside the timed window)" ;;
	git) echo "the git-notes baseline tests, make dist" ;;
	time) echo "/usr/bin/time, the peak_rss cross-check" ;;
	librsvg2-bin) echo "rsvg-convert: the plots render as valid SVG" ;;
	ruby) echo "the Homebrew formula's check" ;;
	clang|libclang-rt-dev) echo "make fuzz (libFuzzer)" ;;
	*) echo "scripts/deps.sh $what" ;;
	esac
}
echo "deps: scripts/deps.sh $what installs these Debian packages, missing here:"
for p in $missing; do printf '  %-24s %s\n' "$p" "$(why "$p")"; done
[ "$what" != check ] || echo "deps: (make test-all runs the tests without installing anything; a test skips what is absent)"
if ! have apt-get; then
	echo "deps: missing:$missing; install them with your package manager" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	if have sudo; then sudo=sudo; else
		echo "deps: missing:$missing; run as root: apt-get install$missing" >&2
		exit 1
	fi
fi
echo "deps: installing $(echo $missing | wc -w | tr -d ' ') packages with apt-get (its output follows) ..."
export DEBIAN_FRONTEND=noninteractive
# The guest's libraries, kernel and busybox are arm64 packages: dpkg must know that architecture.
if [ "$what" = pmu ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$sudo dpkg --add-architecture arm64
fi
# A fresh machine has no package lists yet; refresh them once.
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends $missing
echo "deps: done: installed$missing"
