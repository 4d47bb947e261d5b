#!/bin/sh
# relpath.sh FROM TO: the relative path from directory FROM to directory TO,
# both absolute (as the Makefile's BINDIR and LIBEXECDIR are).  Used to
# build the path an installed lauka follows from its own directory to its
# probe program.  Pure string work: neither path needs to exist (DESTDIR
# staging, a PREFIX not made yet).  Prints "." when they are the same.
set -eu
norm() { # squeeze //, drop /./ and a trailing /
	printf '%s\n' "$1" | sed -e 's://*:/:g' -e 's:/\./:/:g' -e 's:/\.$::' -e 's:\(.\)/$:\1:'
}
from=$(norm "$1"); to=$(norm "$2")
for d in "$from" "$to"; do
	case "$d" in
	*/../*|*/..|../*|..) ;;
	/*) continue ;;
	esac
	echo "error: install directories (PREFIX, BINDIR, LIBEXECDIR) must be absolute paths without '..': '$d'" >&2
	exit 1
done
# The common ancestor: shorten FROM until TO starts with it.
common=$from up=""
while :; do
	case "$to/" in "$common"/*|"$common/"*) break ;; esac
	[ "$common" = / ] && break
	common=$(dirname "$common")
	up="../$up"
done
case "$common" in /) rest=${to#/} ;; *) rest=${to#"$common"}; rest=${rest#/} ;; esac
out="$up$rest"
out=${out%/}
printf '%s\n' "${out:-.}"
