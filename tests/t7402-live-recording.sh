#!/bin/sh
test_description='flamepipe live: the recording, per-viewer ranges that never reach the final report, an honest summary'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
test_tags root perf slow

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'live recording' 'perf is not installed'; test_done
fi
if ! perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'live recording' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi

# a CPU burner for the capture to see (killed by its pid)
start_burner() { sh -c 'while :; do :; done' & burner=$!; register_pid $burner; }
folded_total() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
# (/folded is the same selection as /flamegraph/, as text: stacks can be
# deeper than jq parses)
heat_total() { jq "[.values[][]] | add // 0" "$1"; }

test_expect_success 'ranges viewers select during the capture change neither the chain nor the final report' '
	start_burner &&
	flamepipe live -F 199 -g --http 127.0.0.1:0 --keep-serving --duration 5 -o out >serve.out 2>err &
	fp=$!
	register_pid $fp &&
	wait_for "grep -qs \"listening on\" serve.out" 200 &&
	URL=$(sed -n "s|.*listening on \(http://[^ ]*\)/\$|\1|p" serve.out) &&
	wait_for "get \"/heatmap/?filename=live\" >/dev/null && jq -e \"(.values | length) >= 3\" body >/dev/null" 200 &&
	: three viewers, each with a range and a filter of their own &&
	for i in 1 2 3 4 5 6; do
		get "/flamegraph/?filename=live&start=0&end=1" >/dev/null &&
		get "/flamegraph/?filename=live&start=1.5&end=2.5&comm=sh" >/dev/null &&
		get "/flamegraph/?filename=live&start=2&exclude=sh" >/dev/null || exit 1
		sleep 0.2
	done &&
	wait_for "get \"/heatmap/?filename=live\" >/dev/null && jq -e \".ended == true\" body >/dev/null" 300 &&
	cp body live.heat &&
	wait_for "test -s out/stacks.folded && test -s out/heatmap.json" 100 &&
	total=$(folded_total out/stacks.folded) && test "$total" -gt 0 &&
	test "$(heat_total out/heatmap.json)" = "$total" &&
	test "$(heat_total live.heat)" = "$total" &&
	flamepipe report -q out/recording.fp.gz -o again &&
	test "$(folded_total again/stacks.folded)" = "$total" &&
	: after the end, each range equals flamepipe report of the recording &&
	for r in "0 1" "1.5 2.5" "1 4"; do
		set -- $r
		flamepipe report -q out/recording.fp.gz --from $1 --to $2 -o r &&
		test "$(get "/folded?filename=live&start=$1&end=$2")" = 200 &&
		test "$(folded_total body)" = "$(folded_total r/stacks.folded)" &&
		test "$(get "/flamegraph/?filename=live&start=$1&end=$2")" = 200 || exit 1
	done &&
	end_live $fp &&
	grep -q "^flamepipe: live: stopped after [0-9.]* s: [0-9]* samples read, [0-9]* dropped ([0-9.]*%), [0-9]* lost by perf, [0-9]* idle; $total samples in [0-9]* stacks -> out/; recording out/recording.fp.gz: all of it" err
'

test_expect_success 'the summary counts add up: read = the report total + idle, and the recording holds them all' '
	flamepipe live -F 99 -g --duration 2 -o out2 >/dev/null 2>err2 &&
	line=$(grep "^flamepipe: live: stopped after" err2) &&
	read=$(echo "$line" | sed -n "s/.*: \([0-9]*\) samples read.*/\1/p") &&
	idle=$(echo "$line" | sed -n "s/.* \([0-9]*\) idle;.*/\1/p") &&
	test "$(folded_total out2/stacks.folded)" = $((read - idle)) &&
	test "$(fp-read -q out2/recording.fp.gz | grep -c "^S")" = "$read"
'

test_expect_success 'a session killed with SIGKILL leaves a recording readable up to its last batch' '
	start_burner &&
	flamepipe live -F 199 -g -o out3 --no-term >/dev/null 2>err3 &
	fp=$!
	register_pid $fp &&
	wait_for "test \$(fp-read --index out3/recording.fp.gz 2>/dev/null | grep -vc \"^#\") -ge 2" 200 &&
	kids=$(pgrep -P $fp) &&
	kill -9 $fp $kids && sleep 0.2 &&
	n=$(fp-read --index out3/recording.fp.gz | awk "!/^#/ { n += \$5 } END { print n }") &&
	test "$n" -gt 0 &&
	fp-read out3/recording.fp.gz >back 2>/dev/null &&
	test "$(grep -c "^S" back)" = "$n" &&
	flamepipe report -q out3/recording.fp.gz -o rep3 && test -s rep3/stacks.folded
'

test_expect_success 'retention: --keep bounds the recording; summary and report say which window was kept' '
	flamepipe live -F 99 -g --duration 5 --keep 2 -o out4 >/dev/null 2>err4 &&
	grep -q "recording out4/recording.fp.gz keeps the newest [0-9.]* s ([0-9]* of [0-9]* samples, [0-9.]* MB; the oldest [0-9.]* s dropped by retention)" err4 &&
	fp-read --index out4/recording.fp.gz | grep -v "^#" >ix &&
	: 2 s and the oldest batch kept, plus a little for samples perf delivers late &&
	test $(( $(tail -n 1 ix | cut -d" " -f4) - $(head -n 1 ix | cut -d" " -f3) )) -le 3500000000 &&
	flamepipe report -q out4/recording.fp.gz -o rep4 &&
	grep -q "retention: the recording keeps" rep4/index.html
'

test_done
