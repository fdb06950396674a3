#!/bin/sh
test_description='man pages: one per program, made from docs/ at build time, valid roff, installed by make install'
. "$(dirname "$0")/test-lib.sh"

if ! command -v go-md2man >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
	test_skip 'man pages' 'go-md2man or groff is not installed (make deps)'
	test_done
fi
# roff warnings about layout only (long lines, wide tables) are not errors
real_warnings() { grep -v "can't break line\|cannot adjust line\|table wider than line width\|^warning: file .*around line" "$@"; }

test_expect_success 'make man writes a page for every program in bin/' '
	make -s -C "$TOP" man MANDIR="$TRASH/man" >make.out 2>&1 || { cat make.out; false; } &&
	(cd "$FP_BIN" && ls flamepipe fp-*) | LC_ALL=C sort >progs &&
	(cd man && ls) | sed "s/\\.1\$//" | LC_ALL=C sort >pages &&
	test_cmp progs pages
'

test_expect_success 'every page is valid roff: groff reports no error' '
	for f in man/*.1; do
		groff -k -t -man -Tutf8 -ww -z "$f" 2>w || return 1
		real_warnings w >real || :
		test ! -s real || { echo "$f:"; cat real; return 1; }
	done
'

test_expect_success 'NAME is "prog - summary" and SYNOPSIS is the program'"'"'s own usage' '
	for p in $(cat progs); do
		MANWIDTH=200 man -l "man/$p.1" 2>/dev/null >page.txt &&
		grep -A1 "^NAME" page.txt | grep -q "^ *$p - [^ ]" || { echo "$p: NAME"; return 1; }
		use=$("$FP_BIN/$p" --help 2>&1 | head -n 1 | sed "s/^usage: //" | tr -s " ") &&
		tr -s " " <page.txt | grep -qF -- "$use" || { echo "$p: SYNOPSIS lacks: $use"; return 1; }
	done
'

test_expect_success 'the text comes from the docs (a sentence of docs/fp-push.md is in fp-push.1)' '
	MANWIDTH=2000 man -l man/fp-push.1 2>/dev/null | tr -s " " >push.txt &&
	grep -q "No Pyroscope server ran while this was written or tested" push.txt &&
	MANWIDTH=2000 man -l man/fp-bucket.1 2>/dev/null | tr -s " " >bucket.txt &&
	grep -q "subsecond-offset heatmap" bucket.txt && ! grep -q "fp-range: time range" bucket.txt
'

test_expect_success 'make install puts them in PREFIX/share/man/man1, where man finds them' '
	make -s -C "$TOP" install DESTDIR="$TRASH/inst" PREFIX=/usr MANDIR="$TRASH/man" >inst.out 2>&1 ||
		{ cat inst.out; false; } &&
	test -f inst/usr/share/man/man1/fp-push.1 && test -f inst/usr/share/man/man1/flamepipe.1 &&
	MANWIDTH=80 man -M "$TRASH/inst/usr/share/man" fp-chrome 2>/dev/null | grep -q "^NAME"
'

test_expect_success 'a program whose doc section is missing gets no page: mkman.sh fails' '
	echo "usage: fp-x" >u &&
	! sh "$TOP/tools/mkman.sh" fp-x "$TOP/docs/fp-range.md" nosuch 0 u >x.1 2>err &&
	grep -q "no section .nosuch. in" err
'

test_done
