#!/bin/sh
# tools/mkman.sh: one man page from the docs (the Makefile's `man` target).
#
#	tools/mkman.sh PROG DOC SECTION VERSION USAGE_FILE >PROG.1
#
# The page is the doc (or, SECTION not "-", its `## SECTION...` part, for a doc that covers
# several programs) turned into roff by go-md2man (Debian go-md2man):
# NAME from the doc's heading ("# fp-bucket: the heatmap" -> "fp-bucket -
# the heatmap"), SYNOPSIS from USAGE_FILE (the program's own --help), then
# the doc's sections (## -> .SH, ### -> .SS) without its "README snippet".
# Headings inside ``` fences are text, not sections. Exit 1 if the doc or
# the section is missing, so a program cannot go without a page.
set -eu
prog=$1 doc=$2 section=$3 version=$4 usage=$5
[ "$section" != - ] || section=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$doc" ] || { echo "mkman.sh: $prog: no doc $doc" >&2; exit 1; }
[ -s "$usage" ] || { echo "mkman.sh: $prog: no usage text in $usage" >&2; exit 1; }

# the body: the whole doc without its title, or one ## section (its
# heading dropped), without "README snippet" sections
body=$(awk -v sec="$section" '
	/^```/ { fence = !fence }
	!fence && /^# / { if (!sec) { title = substr($0, 3); next } }
	!fence && /^## / {
		h = substr($0, 4)
		if (sec) {
			if (in_sec) exit
			if (index(h, sec) == 1) { in_sec = 1; title = h; next }
		}
		skip = (h == "README snippet")
	}
	sec && !in_sec { next }
	!skip { print }
	END { if (sec && !in_sec) exit 3; print title > "/dev/stderr" }
' "$doc" 2>"$tmp/title") || { rc=$?
	echo "mkman.sh: $prog: no section '$section' in $doc" >&2; exit "$rc"; }
title=$(cat "$tmp/title")
summary=$(printf '%s' "${title#*: }" | tr -d '`')

{
	printf '%% %s 1 "" "flamepipe %s" "flamepipe manual"\n\n' "$(echo "$prog" | tr a-z A-Z)" "$version"
	printf '# NAME\n%s \\- %s\n\n# SYNOPSIS\n```\n' "$prog" "$summary"
	sed 's/^usage: //' "$usage"
	printf '```\n\n# DESCRIPTION\n'
	printf '%s\n' "$body" | sed 's/^### /## /; s/^## /# /'
	printf '\n# SEE ALSO\nflamepipe(1); the docs/ directory and README.md of flamepipe.\n'
} >"$tmp/page.md"
printf "'\\\\\" t\n"		# tables: man runs tbl
# text lines that start with . or ' (a "..." in an example) would be roff
# requests: \& in front keeps them text; go-md2man's own requests stay
go-md2man -in "$tmp/page.md" |
	sed -E "/^\.(nh|TH|SH|SS|PP|RS|RE|nf|fi|TS|TE|IP|TP|br|sp|in|ti|LP|HP|B|I)( |\$)/! s/^([.'])/\\\\\&\1/"
