#!/bin/sh
test_description='fp-render: the stream stage (snapshots, pass-through, files, live rewrites)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

T=$(printf '\t')
snapshot() { # stack count ... -> one C begin/F/C end block
	printf 'C\tbegin\tfold\n'
	while [ $# -ge 2 ]; do printf 'F\t%s\t%s\n' "$2" "$1"; shift 2; done
	printf 'C\tend\tfold\t0\t0\n'
}

test_expect_success 'the last complete snapshot replaces the folded table' '
	{ printf "%%flamepipe\\t1\\nG\\t50\\t7\\nH\\t0\\t3\\t2\\n" &&
	  snapshot "a;b" 1 "a;c" 2 && snapshot "x;y" 5 "x;z" 1; } >two.stream &&
	fp-render --outdir out <two.stream >stdout &&
	printf "x;y 5\\nx;z 1\\n" >expect &&
	test_cmp expect out/stacks.folded &&
	test ! -s stdout
'

test_expect_success 'all default files are written, and nothing else' '
	(cd out && ls -A) >files &&
	printf "%s\\n" flame.svg heatmap.json heatmap.svg heatmap.tsv index.html stacks.folded >expect &&
	test_cmp expect files
'

test_expect_success 'the flame graph root is the folded total' '
	test "$(svg_root_width out/flame.svg)" = 6
'

test_expect_success 'index.html is the page of ui/ on the heatmap and folded stacks, no second page' '
	page_ok out/index.html &&
	grep -q "<script type=\"application/json\" id=\"fp_folded\">" out/index.html &&
	! grep -q "<svg id=\"heatmap\"" out/index.html &&
	! grep -q "<iframe" out/index.html
'

test_expect_success 'input ending inside a snapshot keeps the last complete one, with a warning' '
	{ snapshot "a;b" 3 && printf "C\\tbegin\\tfold\\nF\\t9\\tz\\n"; } | fp-render --outdir cut 2>err &&
	echo "a;b 3" >expect && test_cmp expect cut/stacks.folded &&
	grep -q "input ended inside a folded snapshot" err &&
	grep -q "input ended inside a folded snapshot" cut/index.html
'

test_expect_success 'empty input: every file written, empty but well-formed' '
	fp-render --outdir empty </dev/null &&
	xml_ok empty/flame.svg && xml_ok empty/heatmap.svg && page_ok empty/index.html &&
	grep -q "no samples" empty/flame.svg &&
	test ! -s empty/stacks.folded &&
	printf "second\\trow_start_ms\\tcount\\n" >expect && test_cmp expect empty/heatmap.tsv &&
	grep -q "\"columns\":\[\],.*\"values\":\[\],\"maxvalue\":0" empty/heatmap.json
'

test_expect_success 'F records outside a snapshot add up (hand-written input)' '
	printf "F\\t2\\ta;b\\nF\\t3\\ta;c\\n" | fp-render --outdir loose &&
	printf "a;b 2\\na;c 3\\n" >expect && test_cmp expect loose/stacks.folded
'

test_expect_success 'malformed F records are warned about and skipped' '
	printf "F\\tx\\ta\\nF\\t1\\nF\\t2\\tok\\n" | fp-render --outdir badf 2>err &&
	echo "ok 2" >expect && test_cmp expect badf/stacks.folded &&
	test "$(grep -c "malformed F record" err)" = 2
'

test_expect_success '--passthrough copies every record unchanged, then its I record' '
	{ cat two.stream && printf "S\\t1\\t2\\t3\\t0\\t1\\tev\\tcomm\\tu\\tmain\\n# note\\nZ\\tunknown\\n"; } >pt.stream &&
	fp-render --passthrough --outdir pt <pt.stream >pt.out &&
	head -n "$(wc -l <pt.stream)" pt.out >head && test_cmp pt.stream head &&
	tail -n 1 pt.out >last &&
	printf "I\\trender\\tsnapshots=2\\tdelta_snapshots=0\\tdeltas_skipped=0\\tstacks=2\\ttotal=6\\tbad_records=0\\n" >expect &&
	test_cmp expect last
'

test_expect_success '--passthrough alone (no files) is a pure filter' '
	fp-render --passthrough <two.stream | grep -v "^I${T}render" >f.out &&
	test_cmp two.stream f.out
'

test_expect_success 'W and I records appear on index.html; the latest I per stage' '
	{ printf "W\\tread\\tcap.perf:12\\tbad frame line\\n" &&
	  printf "I\\tfold\\tsamples=1\\nI\\tfold\\tsamples=2\\tstacks=1\\n" && snapshot a 2; } |
		fp-render --outdir wi &&
	grep -q "<li class=\"warn\">read: cap.perf:12: bad frame line</li>" wi/index.html &&
	grep -q "<tr><th>fold</th><td>samples=2 &#160; stacks=1</td></tr>" wi/index.html &&
	! grep -q "samples=1<" wi/index.html &&
	grep -q "<tr><th>render</th>" wi/index.html
'

test_expect_success 'byte-identical files for identical input' '
	fp-render --outdir again <two.stream &&
	for f in flame.svg heatmap.json heatmap.svg heatmap.tsv index.html stacks.folded; do
		cmp out/$f again/$f || return 1
	done
'

test_expect_success 'no temporary files are left behind' '
	test -z "$(ls -A out | grep "^\\.")"
'

test_expect_success '--format picks the outputs; flame-json on request' '
	fp-render --outdir fmt --format folded,flame-json <two.stream &&
	(cd fmt && ls) >files &&
	printf "flame.json\\nstacks.folded\\n" >expect && test_cmp expect files &&
	grep -q "^{\"name\":\"all\",\"value\":6," fmt/flame.json
'

test_expect_success 'index.html without flame-svg is the same page' '
	fp-render --outdir nof --format html <two.stream &&
	page_ok nof/index.html && ! grep -q "<iframe" nof/index.html
'

test_expect_success 'flame graph options are passed to the flame graph' '
	fp-render --outdir opt --title "My CPU" --inverted --width 640 --countname ms \
		--colors blue <two.stream &&
	grep -q ">My CPU</text>" opt/flame.svg &&
	grep -q "<svg version=\"1.1\" width=\"640\"" opt/flame.svg &&
	grep -q "(6 ms, 100%)" opt/flame.svg &&
	ry=$(grep "<title>all " opt/flame.svg | sed "s/.* y=\"\([0-9]*\)\".*/\1/") &&
	xy=$(grep "<title>y " opt/flame.svg | sed "s/.*<rect x=\"[^\"]*\" y=\"\([0-9]*\)\".*/\1/") &&
	test "$ry" -lt "$xy"
'

test_expect_success '--reverse does not change the folded file or a later rewrite' '
	fp-render --outdir rv --reverse <two.stream &&
	test_cmp out/stacks.folded rv/stacks.folded &&
	grep -q "<title>y (5 samples" rv/flame.svg
'

test_expect_success 'a C range record names the range and draws the selection' '
	{ cat two.stream && printf "C\\trange\\t0.5\\t-\\nC\\tfilter\\tpid 1,2\\n"; } |
		fp-render --outdir rg &&
	grep -q "<text id=\"subtitle\" [^>]*>range \[0.5, end) s, filter pid 1,2</text>" rg/flame.svg &&
	grep -q "sel_from: 25, sel_to: 49" rg/heatmap.svg
'

test_expect_success 'C filter records after a C range add up; C filter clear empties the list' '
	{ cat two.stream && printf "C\\trange\\t-\\t2\\nC\\tfilter\\tpid 1\\nC\\tfilter\\tcomm a b\\n"; } |
		fp-render --outdir fl &&
	grep -q ">range \[start, 2) s, filters pid 1; comm a b</text>" fl/flame.svg &&
	{ cat two.stream && printf "C\\trange\\t1\\t2\\nC\\tfilter\\tpid 1\\nC\\trange\\t1\\t3\\nC\\tfilter\\tclear\\n"; } |
		fp-render --outdir fc &&
	grep -q ">range \[1, 3) s</text>" fc/flame.svg
'

test_expect_success 'flamepipe report names its range and filters on the pictures' '
	flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" -o rf --from 5 --comm clockloop --cpu 0,1 &&
	grep -q ">range \[5, end) s, filters cpu 0,1; comm clockloop</text>" rf/flame.svg &&
	grep -q "This page holds only the samples of range \[5, end) s, filters cpu 0,1; comm clockloop:" rf/index.html
'

test_expect_success 'gzip input from a file works like stdin' '
	gzip -c two.stream >two.stream.gz &&
	fp-render --outdir gz two.stream.gz &&
	cmp out/stacks.folded gz/stacks.folded && cmp out/flame.svg gz/flame.svg
'

test_expect_success 'an unsupported stream version: exit 100' '
	printf "%%flamepipe\\t2\\n" | expect_exit 100 fp-render --outdir v 2>err &&
	grep -q "unsupported stream header" err
'

test_expect_success 'usage errors: exit 100 with a message' '
	expect_exit 100 fp-render </dev/null 2>err && grep -q "nothing to do" err &&
	expect_exit 100 fp-render --outdir x --format nosuch </dev/null 2>err &&
	grep -q "unknown output .nosuch." err &&
	expect_exit 100 fp-render --outdir x --interval soon </dev/null 2>err &&
	expect_exit 100 fp-render --outdir x --from 3 </dev/null 2>err &&
	expect_exit 100 fp-render --term-size 80 --term </dev/null 2>err &&
	expect_exit 100 fp-render --outdir x --width 5 </dev/null 2>err &&
	expect_exit 100 fp-render --outdir x a b </dev/null 2>err
'

test_expect_success 'an output dir that cannot be made: exit 111 naming it' '
	: >plainfile &&
	expect_exit 111 fp-render --outdir plainfile/sub </dev/null 2>err &&
	grep -q "plainfile/sub" err
'

# Starts fp-render on a FIFO written through fd 3 (each test is a subshell).
start_live() {
	rm -f in && mkfifo in && : >stdout && : >err &&
	{ fp-render "$@" <in >stdout 2>err & echo $! >pid; } &&
	exec 3>in
}
stop_live() { exec 3>&-; kill "$(cat pid)" 2>/dev/null; }

test_expect_success 'live: with --interval the files follow the stream, atomically' '
	start_live --outdir live --interval 50 && test_when_finished stop_live &&
	{ printf "G\\t10\\t3\\nH\\t0\\t1\\t4\\n" && snapshot "a;b" 4; } >&3 &&
	wait_for "grep -qx \"a;b 4\" live/stacks.folded 2>/dev/null" 100 &&
	grep -qx "0	100	4" live/heatmap.tsv &&
	{ printf "H\\t1\\t1\\t6\\n" && snapshot "a;b" 4 "a;c" 6; } >&3 &&
	wait_for "grep -qx \"a;c 6\" live/stacks.folded" 100 &&
	wait_for "grep -qx \"1	100	6\" live/heatmap.tsv" 100 &&
	xml_ok live/flame.svg && page_ok live/index.html &&
	exec 3>&- &&
	wait "$(cat pid)" &&
	test -z "$(ls -A live | grep "^\\.")"
'

test_expect_success 'live: nothing is rewritten while nothing changes' '
	start_live --outdir quiet --interval 20 && test_when_finished stop_live &&
	snapshot "a;b" 4 >&3 &&
	wait_for "test -s quiet/index.html" 100 &&
	ls --full-time quiet/index.html >before && sleep 0.2 &&
	ls --full-time quiet/index.html >after &&
	test_cmp before after
'

test_expect_success 'live: SIGTERM writes the final files and exits 0' '
	start_live --passthrough --outdir term --interval 100000 && test_when_finished stop_live &&
	snapshot "q;r" 7 >&3 &&
	wait_for "grep -q \"^C	end	fold\" stdout" 100 &&
	kill -TERM "$(cat pid)" &&
	wait "$(cat pid)" &&
	echo "q;r 7" >expect && test_cmp expect term/stacks.folded
'

test_expect_success 'flamepipe report prints samples and stacks from stacks.folded' '
	flamepipe report --no-progress --keep-idle "$EXAMPLES/demo-clockloop.perf.gz" -o rep 2>err &&
	n=$(folded_total rep/stacks.folded) && s=$(wc -l <rep/stacks.folded) &&
	grep -q "$n samples in $s stacks" err &&
	test "$(svg_root_width rep/flame.svg)" = "$n"
'

test_done
