#!/bin/sh
test_description='fp-render: the samples timeline (range flame graphs in index.html, kind colours)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

# The timeline's script element in index.html (a module names it too).
TL='<script type="application/json" id="fp_timeline">'

DEMO=$TOP/examples/demo-clockloop.perf.gz
MULTI=$TOP/examples/multiproc.perf.gz

# The default chain up to fp-fold --pass-samples, into a stream file.
chain() { # capture [fold args...]
	cap=$1; shift
	fp-read "$cap" | fp-bucket | fp-range | fp-fold --pass-samples "$@"
}

test_expect_success '--range-folded equals the stacks.folded of a --from/--to report' '
	chain "$DEMO" >demo.stream &&
	for r in 6.2:9.82 21.1:21.62 0:5 20:120 7.0:37.98; do
		from=${r%:*} to=${r#*:} &&
		fp-render --outdir o --format folded --range-folded "$r" <demo.stream &&
		flamepipe report -q "$DEMO" --from "$from" --to "$to" -o rep &&
		test_cmp rep/stacks.folded o/range.folded || return 1
	done
'

test_expect_success '--range-folded with open ends is the whole folded table' '
	fp-render --outdir o --range-folded -:- <demo.stream &&
	test_cmp o/stacks.folded o/range.folded &&
	fp-render --outdir o2 --range-folded : <demo.stream &&
	test_cmp o/stacks.folded o2/range.folded
'

test_expect_success 'the same holds with fp-fold --kernel, --tid and --weight period' '
	chain "$MULTI" --kernel --tid --weight period >multi.stream &&
	grep -q "^D	[0-9]*	[^	]*	[^;	]*-[0-9]*/[0-9]*;.*_\[k\]" multi.stream &&
	fp-render --outdir o --range-folded 1:3.5 <multi.stream &&
	flamepipe report -q "$MULTI" --kernel --tid-root --weight period --from 1 --to 3.5 -o rep &&
	test_cmp rep/stacks.folded o/range.folded
'

test_expect_success 'flamepipe report embeds the timeline in index.html (escaped JSON) and no note' '
	flamepipe report -q "$DEMO" -o rep &&
	grep -q "<script type=\"application/json\" id=\"fp_timeline\">{\"rows\":50,\"base_sec\":155," rep/index.html &&
	! grep -q "<script type=\"application/json\" id=\"fp_folded\">" rep/index.html &&
	! grep -q "id=\"timeline_note\"" rep/index.html &&
	page_ok rep/index.html
'

test_expect_success 'a --from/--to report says the page holds only that range' '
	flamepipe report -q "$DEMO" --from 5 --to 30 --comm clockloop -o rng &&
	grep -q "id=\"timeline_note\" class=\"hint\">This page holds only the samples of range \[5, 30) s, filter comm clockloop:" rng/index.html &&
	grep -q "$TL" rng/index.html
'

test_expect_success 'the timeline total is the folded total' '
	total=$(folded_total rep/stacks.folded) &&
	grep -q "{\"rows\":50,\"base_sec\":155,\"total\":$total," rep/index.html
'

test_expect_success 'identical input, byte-identical index.html and flame.svg' '
	fp-render --outdir a <demo.stream && fp-render --outdir b <demo.stream &&
	cmp a/index.html b/index.html && cmp a/flame.svg b/flame.svg
'

# A hand-written stream: kinds from the stacks, no _[k] in the names.
kinds_stream() {
	printf "%%flamepipe\t1\nG\t50\t1\n"
	printf "D\t0\t-ukji\tapp;main;sys_read;Interp::run;inl\n"
	printf "R\t0\t1100000000\t1\t1\t0\t1\t1\tcpu-clock\tapp\n"
	printf "D\t1\t-uu\tapp;main;std::vector::push\n"
	printf "R\t1\t1200000000\t1\t1\t0\t1\t1\tcpu-clock\tapp\n"
	printf "C\tbegin\tfold\nF\t1\tapp;main;sys_read;Interp::run;inl\nF\t1\tapp;main;std::vector::push\nC\tend\tfold\t2\t2\n"
}

# The fill of the frame titled NAME in an SVG flame graph.
fill_of() { # name file
	grep -F "<title>$1 (" "$2" | sed -n "s/.*fill=\"\\([^\"]*\\)\".*/\\1/p" | head -1
}

test_expect_success 'frames get their kind colour without annotations in stacks.folded' '
	kinds_stream >k.stream &&
	fp-render --outdir k <k.stream &&
	printf "app;main;sys_read;Interp::run;inl 1\napp;main;std::vector::push 1\n" >expect &&
	test_cmp expect k/stacks.folded &&
	printf "app;main;sys_read_[k];Interp::run_[j];inl_[i] 1\napp;main;std::vector::push 1\n" >ann.folded &&
	fp-flamegraph ann.folded >ann.svg &&
	for f in main sys_read Interp::run inl std::vector::push; do
		test "$(fill_of "$f" k/flame.svg)" = "$(fill_of "$f" ann.svg)" || return 1
	done &&
	fill_of sys_read k/flame.svg | grep -q "^rgb(2[0-9][0-9],[0-9]*,0)$"
'

test_expect_success 'the page gets the same colours for the same names' '
	c=$(fill_of sys_read k/flame.svg | sed "s/rgb(\\(.*\\))/\\1/") &&
	hex=$(printf "#%02x%02x%02x" $(echo "$c" | tr , " ")) &&
	grep -q "\"colors\":\\[[^]]*\"$hex\"" k/index.html
'

test_expect_success 'C reset forgets the samples kept so far' '
	{ kinds_stream && printf "C\treset\n" &&
	  printf "D\t2\t-u\tapp;late\nR\t2\t1300000000\t1\t1\t0\t1\t1\tcpu-clock\tapp\n"; } >r.stream &&
	fp-render --outdir r --range-folded -:- --format folded <r.stream &&
	echo "app;late 1" >expect &&
	test_cmp expect r/range.folded
'

test_expect_success 'more samples than --timeline-samples: a note and the folded stacks instead' '
	fp-render --outdir s --timeline-samples 10 <demo.stream &&
	grep -q "id=\"timeline_note\" class=\"hint\">The capture has more than 10 samples" s/index.html &&
	grep -q "<script type=\"application/json\" id=\"fp_folded\">" s/index.html &&
	! grep -q "$TL" s/index.html
'

test_expect_success 'a timeline that disagrees with the folded table is not embedded' '
	{ kinds_stream && printf "D\t2\t-u\tapp;extra\nR\t2\t1300000000\t1\t1\t0\t1\t1\tcpu-clock\tapp\n"; } >m.stream &&
	fp-render --outdir m <m.stream &&
	grep -q "does not match the folded table" m/index.html &&
	! grep -q "$TL" m/index.html
'

test_expect_success 'a stream without samples: the page draws the whole capture from its folded stacks' '
	grep -v "^[DR]	" demo.stream >nos.stream &&
	fp-render --outdir n <nos.stream &&
	grep -q "<script type=\"application/json\" id=\"fp_folded\">" n/index.html &&
	! grep -q "$TL" n/index.html && ! grep -q "id=\"timeline_note\"" n/index.html
'

test_expect_success 'a malformed R record is a warning, not an exit' '
	{ kinds_stream && printf "R\tnot-a-time\n"; } >bad.stream &&
	fp-render --outdir b2 <bad.stream 2>err &&
	grep -q "malformed R record skipped" err &&
	grep -q "fp_timeline" b2/index.html
'

test_expect_success 'bad --range-folded, --timeline-max, --timeline-samples are usage errors (exit 100)' '
	{ fp-render --outdir x --range-folded 5 </dev/null 2>err; test $? = 100; } &&
	grep -q "want FROM:TO" err &&
	{ fp-render --outdir x --timeline-max lots </dev/null 2>err; test $? = 100; } &&
	{ fp-render --outdir x --timeline-samples -1 </dev/null 2>err; test $? = 100; }
'

test_done
