#!/bin/sh
# Turn one data file into a C array definition, so catalogue data (schema,
# event lists, expectations) ships inside the binary: catalog/foo.tsv becomes
#   static const char foo_tsv[] = { 0x..., 0 };
# Portable: od is in every POSIX system, no xxd needed.
set -eu
f=$1
name=$(basename "$f" | tr -c 'A-Za-z0-9\n' '_')
printf '/* generated from %s by scripts/embed.sh; do not edit */\n' "$f"
printf 'static const char %s[] = {\n' "$name"
od -An -v -tx1 "$f" | sed -e 's/ *$//' -e 's/^ *//' -e '/^$/d' -e 's/ /, 0x/g' -e 's/^/0x/' -e 's/$/,/'
printf '0 };\n'
