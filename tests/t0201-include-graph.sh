#!/bin/sh
test_description='the folders include one another only downwards, as docs/ARCHITECTURE.md draws them'
. "$(dirname "$0")/test-lib.sh"

# What each folder may include, besides itself (docs/ARCHITECTURE.md,
# "The tree"). A shared folder sees only the folders below it; a program's
# folder sees the shared ones; no program's folder sees another's; render/
# (the offline report) sees nothing of web/ (the server): the page both
# use is ui/.
cat >allowed <<'EOF'
lib
recording	lib
fifo	lib recording
fold	lib fifo
perf/script	lib fifo
perf/data	lib fifo perf/script
ui
render	lib recording fifo fold ui gen
stages	lib recording fifo fold perf/script perf/data render gen
runner	lib recording fifo fold render gen
web	lib recording fifo fold render ui gen
EOF

# The folder a file belongs to in the table: a stage's own folder counts
# as stages/.
folder_of() { # path relative to TOP
	case $1 in
	stages/*) echo stages ;;
	perf/*) echo "${1%/*}" ;;
	*) echo "${1%%/*}" ;;
	esac
}

# Every `#include "x.h"` edge as "from-folder to-folder file: x.h": x.h is
# looked up as the compiler does, first beside the including file, then in
# the Makefile's -I list (SHARED_DIRS, then the generated files).
include_edges() {
	dirs=$(sed -n 's/^SHARED_DIRS := //p' "$TOP/Makefile")
	(cd "$TOP" && find lib recording fifo fold perf render ui stages runner web \
		-name '*.[ch]' 2>/dev/null | LC_ALL=C sort) | while read -r f; do
		from=$(folder_of "$f")
		sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$TOP/$f" |
		while read -r h; do
			to=
			if [ -f "$TOP/$(dirname "$f")/$h" ]; then
				to=$(folder_of "$(realpath -m --relative-to="$TOP" "$TOP/$(dirname "$f")/$h")")
			else
				for d in $dirs; do
					[ -f "$TOP/$d/$h" ] && { to=$d; break; }
				done
				case $h in *_js.inc|*.pb-c.h) to=${to:-gen} ;; esac
			fi
			echo "$from ${to:-unknown} $f: $h"
		done
	done
}

# The edges the table does not allow.
bad_edges() {
	awk -F'\t' 'NR == FNR { ok[$1] = " " $2 " "; next }
		$1 == $2 { next }
		!($1 in ok) || index(ok[$1], " " $2 " ") == 0 { print }' \
		allowed FS=' ' -
}

test_expect_success 'the check finds an include against the table (it can fail)' '
	printf "%s\n" "lib fifo lib/x.c: fp_record.h" "runner web runner/y.c: http.h" \
		"fifo perf/data fifo/z.c: pd_read.h" "fifo lib fifo/ok.c: fp_error.h" >edges &&
	bad_edges <edges >found &&
	test "$(wc -l <found)" = 3 && ! grep -q ok.c found
'

test_expect_success 'every folder includes only the folders the table allows' '
	include_edges >edges &&
	test -s edges &&
	bad_edges <edges >found &&
	if test -s found; then cat found; false; fi
'

test_expect_success 'the shared protocol folder includes no perf.data, render or stage header' '
	include_edges | grep "^fifo " | grep -v "^fifo \(lib\|recording\|fifo\) " >found || true
	if test -s found; then cat found; false; fi
'

test_expect_success 'the shared folders name no stage of the chain (the runner owns the roles)' '
	(cd "$TOP" && grep -rnE "\"fp-(bucket|range|fold|render|record|serve)\"" \
		--include="*.[ch]" lib recording fifo fold perf) >found || true
	if test -s found; then cat found; false; fi
'

test_expect_success 'every folder of the tree has its sentence in docs/ARCHITECTURE.md' '
	for d in lib recording fifo fold perf/script perf/data render stages runner web tests examples; do
		grep -q "^| \`$d/\` |" "$TOP/docs/ARCHITECTURE.md" || { echo "no row for $d/"; return 1; }
	done
'

test_done
