#!/bin/sh
# The directories `make install` creates, and only those, are what `make uninstall` removes.
#
#   install-dirs.sh make   LIST DESTDIR DIR...   create each DIR under DESTDIR; every directory
#                                                that did not exist before (DIR or a parent of it,
#                                                below DESTDIR) is added to LIST, deepest first
#   install-dirs.sh remove LIST DESTDIR          remove the directories LIST names, deepest first,
#                                                each only when it is empty, then LIST itself
#
# LIST holds paths without DESTDIR, one per line, and lives inside the installed tree, so a second
# install keeps what the first one created (directories it finds are not its own) and uninstalling
# with the same DESTDIR finds it. A directory that holds anything else (another program's file) is
# left where it is: nothing the user owns is removed.
set -eu
mode=$1 list=$2 destdir=$3
shift 3

case $mode in
make)
	new=
	for dir in "$@"; do
		d=$dir
		while [ -n "$d" ] && [ "$d" != / ] && [ ! -d "$destdir$d" ]; do
			new="$new$d
"
			d=$(dirname "$d")
		done
		mkdir -p "$destdir$dir"
	done
	old=
	[ -f "$destdir$list" ] && old=$(cat "$destdir$list")
	# Deepest first: longer paths before their parents; duplicates once.
	printf '%s\n%s' "$old" "$new" | awk 'NF' | awk '!seen[$0]++' |
		awk '{ print gsub("/", "/") "\t" $0 }' | sort -rn -k1,1 -s | cut -f2- > "$destdir$list.tmp"
	mv "$destdir$list.tmp" "$destdir$list"
	;;
remove)
	[ -f "$destdir$list" ] || exit 0
	dirs=$(cat "$destdir$list")
	rm -f "$destdir$list"
	printf '%s\n' "$dirs" | while IFS= read -r d; do
		[ -n "$d" ] || continue
		rmdir "$destdir$d" 2>/dev/null || true
	done
	;;
*)
	echo "usage: install-dirs.sh make|remove LIST DESTDIR [DIR...]" >&2
	exit 1
	;;
esac
