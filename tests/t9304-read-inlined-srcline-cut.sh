#!/bin/sh
test_description='fp-read/fp-fold: inlined frames, --srcline, a cut file (issue 14 #7)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
. "$TOP/tests/lib-read.sh"

# `perf script -F +srcline --inline` of a real --call-graph dwarf capture
# (tmp program x.c, gcc -O2 -g; perf 6.1): an inlined frame has no dso and
# its srcline line carries the "(inlined)" marker.
printf '%s\n' \
	'x 13389  2450.318095:    1001001 cpu-clock:ppp: ' \
	'	            1183 inner+0x23' \
	'  x.c:3 (inlined)' \
	'	            1183 outer+0x23 (/tmp/e7/x)' \
	'  x.c:4' \
	'	            1049 main+0x9 (/tmp/e7/x)' \
	'  x.c:5' \
	'	           27304 __libc_start_main_impl+0x84' \
	'  libc-start.c:360 (inlined)' \
	'	            1090 _start+0x20 (/tmp/e7/x)' \
	'  ??:0' '' >srcline.perf
# the same sample without srcline: perf puts "(inlined)" in the dso place
printf '%s\n' \
	'x 13389  2450.318095:    1001001 cpu-clock:ppp: ' \
	'	            1183 inner+0x23 (inlined)' \
	'	            1183 outer+0x23 (/tmp/e7/x)' \
	'	            1049 main+0x9 (/tmp/e7/x)' '' >inline.perf

test_expect_success 'the (inlined) marker on the srcline line makes the frame kind i, not x' '
	fp-read srcline.perf >out &&
	grep -q "^S	2450318095000	13389	13389	-1	1001001	cpu-clock:ppp	x	uiuui	_start;__libc_start_main_impl;main;outer;inner\$" out
'

test_expect_success 'fp-read --srcline: each frame gets :file:line (stackcollapse --srcline)' '
	fp-read --srcline srcline.perf >out &&
	grep -q "	uiuui	_start:??:0;__libc_start_main_impl:libc-start.c:360;main:x.c:5;outer:x.c:4;inner:x.c:3\$" out &&
	fp-fold --plain <out >f &&
	echo "x;_start:??:0;__libc_start_main_impl:libc-start.c:360;main:x.c:5;outer:x.c:4;inner:x.c:3 1" >expect &&
	test_cmp expect f
'

test_expect_success 'fp-fold --all writes _[i] for inlined frames (dso place or srcline marker)' '
	fp-read inline.perf | fp-fold --all --plain >a &&
	echo "x;main;outer;inner_[i] 1" >expect && test_cmp expect a &&
	fp-read srcline.perf | fp-fold --all --plain >b &&
	echo "x;_start;__libc_start_main_impl_[i];main;outer;inner_[i] 1" >expect && test_cmp expect b &&
	fp-read inline.perf | fp-fold --plain >c &&
	echo "x;main;outer;inner 1" >expect && test_cmp expect c
'

test_expect_success 'fp-fold --all --pass-samples: the page timeline has the same names' '
	fp-read inline.perf | fp-bucket | fp-fold --all --pass-samples >s &&
	fp-render --outdir o <s &&
	grep -q "\"inner_\[i\]\"" o/index.html && grep -q "^x;main;outer;inner_\[i\] 1\$" o/stacks.folded
'

test_expect_success 'fp-serve /flamegraph/: libtype inlined' '
	mkdir prof && cp inline.perf prof/ && start_server prof &&
	test "$(get "/flamegraph/?filename=inline.perf")" = 200 &&
	jq -e "[.. | objects | select(.n? == \"inner\")] | .[0].l == \"inlined\"" body
'

# A file cut in the middle of a frame line (no final LF): perf ends each
# sample with a blank line, so the partial line is not a frame to invent.
test_expect_success 'a file cut inside a frame line: W and stderr name file:line, no invented frame' '
	printf "app 7/7 [000] 1.000000: 1 cpu-clock: \n\t1000 leaf+0x1 (/bin/app)\n\t2000 mai" >cut.perf &&
	fp-read cut.perf >out 2>err &&
	grep -q "^S	1000000000	7	7	0	1	cpu-clock	app	u	leaf\$" out &&
	read_warned cut.perf:3 "the input ends in the middle of a frame line (file cut?): the partial frame is dropped, its sample kept" &&
	grep -q "skipped_lines=1" out
'

test_expect_success 'a file cut after a whole frame line: kept, but warned about' '
	printf "app 7/7 [000] 1.000000: 1 cpu-clock: \n\t1000 leaf+0x1 (/bin/app)\n\t2000 main+0x1 (/bin/app)" >cut2.perf &&
	fp-read cut2.perf >out 2>err &&
	grep -q "	uu	main;leaf\$" out &&
	grep -q "cut2.perf:3: the input ends without a final newline inside a sample" err
'

test_done
