#!/bin/sh
# brew-formula.sh FORMULA VERSION SHA256: point the formula's url at the release VERSION and set its
# sha256 (make brew-formula passes the checksum of the tag's tarball). Only those two lines change;
# the url keeps its address, with its version (lauka-X.Y.Z.tar.gz, and a /vX.Y.Z/ directory if it
# has one) replaced. The file is rewritten through a temporary file, so it is never half written.
set -eu
f=$1 v=$2 sum=$3
case $sum in
*[!0-9a-f]*|'') echo "error: '$sum' is not a SHA-256 in lower-case hex" >&2; exit 1 ;;
esac
[ ${#sum} -eq 64 ] || { echo "error: '$sum' is not 64 hex digits" >&2; exit 1; }
grep -q '^  url "[^"]*/lauka-[0-9][^"/]*\.tar\.gz"$' "$f" || { echo "error: $f: no url line ending in lauka-VERSION.tar.gz" >&2; exit 1; }
grep -q '^  sha256 "[0-9a-f]*"$' "$f" || { echo "error: $f: no sha256 line" >&2; exit 1; }
sed -e "/^  url \"/s#/v[0-9][^/\"]*/#/v$v/#" \
	-e "/^  url \"/s#/lauka-[0-9][^/\"]*\\.tar\\.gz\"\$#/lauka-$v.tar.gz\"#" \
	-e "s#^  sha256 \"[0-9a-f]*\"\$#  sha256 \"$sum\"#" "$f" > "$f.tmp"
mv "$f.tmp" "$f"
echo "$f: lauka $v, sha256 $sum"
