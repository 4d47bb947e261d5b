#!/bin/sh
# Run one command inside an arm64 Linux guest under QEMU whose kernel drives a real PMU
# (QEMU's emulated PMUv3, the kernel's own armv8_pmuv3 driver), with lauka on its PATH.
#
#   sh scripts/pmu-vm.sh [--timeout SECONDS] [--add FILE]... -- COMMAND [ARG]...
#
# COMMAND and its arguments are joined with spaces and run by the guest's shell (busybox sh),
# as ssh does, in /work, where each --add FILE is copied.  Its stdout and stderr are printed
# on ours, apart from the kernel's console (kept in $CACHE/console.log, shown only when the
# guest fails to report), and our exit code is the command's.  The guest has a tmpfs HOME,
# so lauka's database lives for that one boot.
#
# What it needs and where it comes from (`sh scripts/deps.sh pmu` installs the packages):
#   qemu-system-aarch64 (qemu-system-arm), aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu),
#   cpio, the arm64 multiarch -dev libraries lauka links against (libplist-dev:arm64,
#   libsqlite3-dev:arm64, libxml2-dev:arm64, libpfm4-dev:arm64), and apt's arm64 lists.
#   The kernel (linux-image-<current>-cloud-arm64-unsigned:arm64) and busybox-static:arm64
#   are fetched with `apt-get download` into the cache and unpacked there, never installed.
#
# Everything it writes on the host is under build-aarch64/ (the cross build, `make
# cross-aarch64`, built when missing or stale) and its cache, build-aarch64/pmu-vm/
# ($PMU_VM_CACHE overrides it).  A second call reuses the kernel, busybox and libraries.
#
# The machine: QEMU's `virt` board with $PMU_VM_CPU (default cortex-a57; `max`, cortex-a72,
# cortex-a76, cortex-a35 are CPUs libpfm4 has no model for), $PMU_VM_SMP CPUs (default 1: QEMU's
# instruction count is one for the whole machine, so counts are exact only with one) and, with
# $PMU_VM_DTB, that device tree instead of QEMU's own (-dtb; e.g. QEMU's, dumped with
# `-M virt,dumpdtb=FILE`, whose PMU node is made `arm,cortex-a72-pmu`: Linux then names the PMU
# armv8_cortex_a72, as on a Raspberry Pi 4).
#
# Bounds: the guest is killed after --timeout seconds ($PMU_VM_TIMEOUT, default 600:
# boot takes 6-40 s on a loaded 2-core machine, and the guest runs code about 20-50x
# slower than the host); exit 124 then.  Bad input: one `error:` line, exit 1.
#
# The cache must be a directory of this user that no one else may write (the guest's kernel,
# libraries and init come from it); each call's files in it are made with mktemp.
set -eu
me=pmu-vm
top=$(cd "$(dirname "$0")/.." && pwd)
xbuild=$top/build-aarch64
cache=${PMU_VM_CACHE:-$xbuild/pmu-vm}
timeout_s=${PMU_VM_TIMEOUT:-600}
cpu=${PMU_VM_CPU:-cortex-a57}
smp=${PMU_VM_SMP:-1}
dtb=${PMU_VM_DTB:-}

die() { echo "error: $1" >&2; [ -n "${2-}" ] && echo "fix: $2" >&2; exit 1; }

adds=""
nadd=0
while [ $# -gt 0 ]; do
	case $1 in
	--add)
		[ $# -ge 2 ] || die "--add needs a FILE" "sh scripts/pmu-vm.sh --add FILE -- COMMAND"
		[ -f "$2" ] || die "--add $2: no such file" "name an existing regular file"
		nadd=$((nadd + 1))
		eval "add_$nadd=\$2"
		shift 2 ;;
	--timeout)
		[ $# -ge 2 ] || die "--timeout needs SECONDS"
		timeout_s=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1'" "sh scripts/pmu-vm.sh [--timeout SECONDS] [--add FILE]... -- COMMAND [ARG]..." ;;
	esac
done
[ $# -gt 0 ] || die "no COMMAND after --" "sh scripts/pmu-vm.sh [--add FILE]... -- COMMAND [ARG]..."
case $timeout_s in ''|*[!0-9]*) die "timeout '$timeout_s' is not a whole number of seconds" ;; esac
[ "$timeout_s" -gt 0 ] || die "timeout must be at least 1 second"
case $cpu in ''|-*|*[!a-z0-9._-]*) die "PMU_VM_CPU '$cpu' is not a QEMU CPU name" \
	"PMU_VM_CPU=cortex-a72 (qemu-system-aarch64 -M virt -cpu help lists them)" ;; esac
case $smp in ''|*[!0-9]*|0*) die "PMU_VM_SMP '$smp' is not a number of CPUs from 1 to 8" "PMU_VM_SMP=2" ;; esac
[ "$smp" -le 8 ] || die "PMU_VM_SMP '$smp' is not a number of CPUs from 1 to 8" "PMU_VM_SMP=2"
if [ -n "$dtb" ]; then
	[ -f "$dtb" ] || die "PMU_VM_DTB $dtb: no such file" "name a device tree blob (qemu-system-aarch64 -M virt,dumpdtb=FILE)"
	dtb=$(cd "$(dirname "$dtb")" && pwd)/$(basename "$dtb")
fi

for t in qemu-system-aarch64:qemu-system-arm aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
	cpio:cpio apt-get:apt timeout:coreutils base64:coreutils; do
	command -v "${t%%:*}" >/dev/null 2>&1 ||
		die "${t%%:*} not found (Debian package ${t#*:})" "sh scripts/deps.sh pmu"
done

# The cache: ours alone (another user's, or one others may write, could hand the guest their kernel).
mkdir -p "$cache" 2>/dev/null || die "cannot create the cache directory $cache" "PMU_VM_CACHE=DIR, a directory of yours"
[ -d "$cache" ] && [ ! -L "$cache" ] || die "the cache $cache is not a directory" "PMU_VM_CACHE=DIR, a directory of yours"
[ -O "$cache" ] || die "the cache $cache belongs to another user" "PMU_VM_CACHE=DIR, a directory of yours"
case $(ls -ld "$cache" | cut -c 1-10) in
?????w????|????????w?) die "the cache $cache may be written by others ($(ls -ld "$cache" | cut -c 1-10))" \
	"chmod go-w '$cache', or PMU_VM_CACHE=DIR, a directory only you may write" ;;
esac

# The cross build (make decides whether anything is stale; quiet when nothing is).
make -s -C "$top" cross-aarch64 >"$cache/make.log" 2>&1 ||
	die "make cross-aarch64 failed (log: $cache/make.log)" "sh scripts/deps.sh pmu"

# fetch PKG: apt-get download it into $cache/debs and unpack it under $cache/pkg/PKG.
fetch() {
	[ -d "$cache/pkg/$1" ] && return 0
	mkdir -p "$cache/debs"
	(cd "$cache/debs" && apt-get download "$1:arm64" >/dev/null 2>"$cache/apt.log") ||
		die "apt-get download $1:arm64 failed ($(tail -n 1 "$cache/apt.log"))" \
			"sh scripts/deps.sh pmu (adds the arm64 architecture and refreshes apt's lists)"
	rm -rf "$cache/pkg/$1.tmp"; mkdir -p "$cache/pkg"
	dpkg-deb -x "$cache/debs/$1"_*_arm64.deb "$cache/pkg/$1.tmp"
	mv "$cache/pkg/$1.tmp" "$cache/pkg/$1"
}

# The kernel: Debian 12's current cloud kernel (PMU driver and PL011 console built in).
if [ ! -f "$cache/vmlinuz" ]; then
	kver=$(apt-cache depends linux-image-cloud-arm64:arm64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9.]*-[0-9]*\)-cloud-arm64.*/\1/p' | head -n 1)
	[ -n "$kver" ] || die "apt knows no linux-image-cloud-arm64:arm64" \
		"sh scripts/deps.sh pmu (adds the arm64 architecture and refreshes apt's lists)"
	fetch "linux-image-$kver-cloud-arm64-unsigned"
	cp "$cache/pkg/linux-image-$kver-cloud-arm64-unsigned/boot/vmlinuz-$kver-cloud-arm64" "$cache/vmlinuz.tmp"
	mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
fi
fetch busybox-static

# The initramfs: busybox, lauka and its shared libraries, /init, the command, the --add files.
root=$(mktemp -d "$cache/root.XXXXXX") && chmod 755 "$root" || die "mktemp in $cache failed"
initrd=$(mktemp "$cache/initrd.XXXXXX") || die "mktemp in $cache failed"
conslog=$(mktemp "$cache/console.XXXXXX") || die "mktemp in $cache failed"
trap 'rm -rf "$root" "$initrd" "$conslog" "$conslog.txt"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$root/bin" "$root/usr/bin" "$root/lib/aarch64-linux-gnu" "$root/work" "$root/proc" \
	"$root/sys" "$root/dev" "$root/tmp" "$root/root" "$root/etc"
cp "$cache/pkg/busybox-static/bin/busybox" "$root/bin/busybox"
for p in lauka lauka-probe lauka-spawn; do cp "$xbuild/$p" "$root/usr/bin/$p"; done

# Shared libraries: NEEDED entries, followed recursively, from the arm64 multiarch folders.
libs=" "
need_libs() {
	for n in $(aarch64-linux-gnu-readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $libs in *" $n "*) continue ;; esac
		libs="$libs$n "
		f=""
		for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib; do
			[ -e "$d/$n" ] && { f=$d/$n; break; }
		done
		[ -n "$f" ] || die "arm64 library $n not found" "sh scripts/deps.sh pmu"
		cp -L "$f" "$root/lib/aarch64-linux-gnu/$n"
		need_libs "$f"
	done
}
for p in lauka lauka-probe; do need_libs "$xbuild/$p"; done
ld=/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1
[ -e "$ld" ] || ld=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1
cp -L "$ld" "$root/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"

i=1
while [ $i -le $nadd ]; do
	eval "f=\$add_$i"
	cp "$f" "$root/work/$(basename "$f")"
	i=$((i + 1))
done
printf '%s\n' "$*" > "$root/command"
# root, and an unprivileged user for what an ordinary account sees (su lauka -c ...).
printf 'root:x:0:0:root:/root:/bin/sh\nlauka:x:1000:1000:lauka:/home/lauka:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nlauka:x:1000:\n' > "$root/etc/group"
mkdir -p "$root/home"

# /init: mount what lauka reads (/proc, /sys, perf's sysfs), run the command with its output in
# files, then print them base64-encoded between markers on the console (the serial line adds
# \r and the kernel may print at any time; its messages are silenced first), and power off.
cat > "$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs dev /dev
exec 0</dev/console 1>/dev/console 2>&1
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs home /root
mount -t tmpfs home /home
mkdir -p /home/lauka && chown 1000:1000 /home/lauka && chmod 1777 /tmp
export PATH=/usr/bin:/bin HOME=/root LD_LIBRARY_PATH=/lib/aarch64-linux-gnu TMPDIR=/tmp
dmesg -n 1
echo "@@pmu-vm booted@@"
cd /work
sh /command </dev/null >/tmp/stdout 2>/tmp/stderr
rc=$?
echo "@@pmu-vm stdout@@"; base64 /tmp/stdout; echo "@@pmu-vm end@@"
echo "@@pmu-vm stderr@@"; base64 /tmp/stderr; echo "@@pmu-vm end@@"
echo "@@pmu-vm rc=$rc@@"
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0) > "$initrd"

# Boot.  -icount shift=0: one instruction per virtual nanosecond, so the instruction counter is
# exact and the guest's clock follows its instructions.
# Each call has its own console log; the last one is kept as console.log.
rc=0
set -- -M virt -cpu "$cpu" -smp "$smp" -m 1024
[ -z "$dtb" ] || set -- "$@" -dtb "$dtb"
timeout -k 5 "$timeout_s" qemu-system-aarch64 "$@" \
	-icount shift=0 -nographic -no-reboot -net none -monitor none -serial stdio \
	-kernel "$cache/vmlinuz" -initrd "$initrd" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 quiet" </dev/null >"$conslog" 2>&1 || rc=$?
tr -d '\r' <"$conslog" >"$conslog.txt" && mv -f "$conslog.txt" "$cache/console.log"
console=$cache/console.log
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "error: the guest did not finish within $timeout_s s and was killed (console: $console)" >&2
	echo "fix: --timeout SECONDS or PMU_VM_TIMEOUT=SECONDS for a longer command" >&2
	exit 124
fi
grc=$(sed -n 's/^@@pmu-vm rc=\([0-9]*\)@@$/\1/p' "$console" | tail -n 1)
if [ -z "$grc" ]; then
	tail -n 15 "$console" >&2
	echo "error: the guest ended without reporting the command's exit code (qemu exit $rc; console: $console)" >&2
	exit 125
fi
block() { sed -n "/^@@pmu-vm $1@@\$/,/^@@pmu-vm end@@\$/p" "$console" | sed '1d;$d' | base64 -d; }
block stdout
block stderr >&2
if [ "$grc" -ne 0 ]; then
	echo "$me: the command exited with $grc in the guest" >&2
fi
exit "$grc"
