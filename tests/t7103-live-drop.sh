#!/bin/sh
test_description='fp-read --live: a stalled chain makes it drop and count whole samples, never block the source'
. "$(dirname "$0")/test-lib.sh"
SPIN=$TOP/build/tests/live-spin
CAPTURE=$EXAMPLES/demo-clockloop.perf.gz
COPIES=3

# The source writes COPIES captures, then touches src.done. The consumer
# does not read until src.done exists (or 10 s have passed: then it writes
# `timeout`): the source can only finish if fp-read never blocks on it.
stalled_run() { # fp-read options
	rm -f src.done timeout &&
	{ i=0; while [ $i -lt $COPIES ]; do zcat "$CAPTURE"; i=$((i + 1)); done; touch src.done; } |
	fp-read "$@" 2>err |
	{ n=0; while [ ! -e src.done ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	  [ -e src.done ] || touch timeout; cat >out; }
}
stat_of() { # KEY: from the last full I read record
	grep "^I	read	lines=" out | tail -n 1 | tr "\t" "\n" | sed -n "s/^$1=//p"
}

test_expect_success 'stalled consumer: the source finishes, samples are dropped and counted' '
	stalled_run --live &&
	test ! -e timeout &&
	total=$(( $(awk_count_samples "$CAPTURE") * COPIES )) &&
	written=$(grep -c "^S	" out) &&
	dropped=$(stat_of dropped) &&
	test "$dropped" -gt 0 &&
	test "$(stat_of samples)" = "$written" &&
	test $((written + dropped)) = $total
'

test_expect_success 'the drops are reported in-band (W and I records) and on stderr' '
	stalled_run --live &&
	grep "^W	read	-	dropped [0-9]* samples" out &&
	grep "^I	read	dropped=[1-9]" out &&
	grep "fp-read: warning: stdin: dropped [0-9]* samples" err
'

test_expect_success 'only whole samples are dropped: every S record is complete' '
	stalled_run --live &&
	grep "^S	" out | awk -F "\t" "NF != 10 || length(\$9) != split(\$10, f, \";\") && \$10 != \"\" { bad++ } END { exit bad > 0 }"
'

test_expect_success '--live-buffer: a smaller allowance drops more' '
	stalled_run --live --live-buffer 65536 &&
	small=$(stat_of dropped) &&
	stalled_run --live &&
	test "$small" -gt "$(stat_of dropped)"
'

test_expect_success 'without --live the reader waits instead: nothing dropped' '
	{ zcat "$CAPTURE"; } | fp-read 2>err | { sleep 0.5; cat >out; } &&
	test "$(grep -c "^S	" out)" = "$(awk_count_samples "$CAPTURE")" &&
	! grep "^W" out &&
	! grep -q dropped= out
'

test_expect_success '--live-buffer: bad values are usage errors' '
	test_expect_code() { "$@"; test $? = 100; } &&
	test_expect_code fp-read --live-buffer 10 </dev/null &&
	test_expect_code fp-read --live-buffer 99999999 </dev/null &&
	test_expect_code fp-read --live-buffer 1k </dev/null
'

# The real thing: perf at 2999 Hz with both CPUs busy, and a stage after
# fp-read that reads nothing until told. perf record and perf script must
# finish their 2 s capture while the chain is stalled.
if ! test_have root perf; then
	test_skip 'live capture with a stalled stage' "tagged root, perf: $(_tag_missing root)$(_tag_missing perf)"; test_done
fi
if ! perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'live capture with a stalled stage' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi

start_stalled_live() { # extra live args

	sed "/^read /a stall sh -c '\''until [ -e \"\$0\" ]; do sleep 0.1; done; exec cat'\'' $TRASH/go" \
		"$EXAMPLES/live.pipeline" >stall.pipeline &&
	grep -q "^stall " stall.pipeline &&
	rm -f go || return 1
	flamepipe live --pipeline stall.pipeline -F 2999 -g --duration 2 -o rep \
		-A READ_ARGS=--live-buffer=65536 "$@" >out.txt 2>err &
	fp=$!
}
perf_running() { ps -o args= --ppid $fp | grep -q "^perf "; }
# Two workloads run through the whole capture (more samples than the
# stalled chain takes); once perf has finished, the stalled stage goes on.
capture_then_release() {
	wait_for perf_running 100 &&
	{ "$SPIN" 3000 >/dev/null & } &&
	{ "$SPIN" 3000 >/dev/null & } &&
	wait_for "! perf_running" 150 &&
	touch go
}

test_expect_success 'live with a stalled stage: perf finishes, fp-read drops, the report shows the count' '
	start_stalled_live &&
	test_when_finished "touch go; kill $fp 2>/dev/null" &&
	capture_then_release &&
	wait $fp &&
	grep "fp-read: warning: stdin: dropped [0-9]* samples" err &&
	grep -q "dropped [0-9]* samples" rep/index.html &&
	grep -q "dropped=[1-9]" rep/index.html
'

test_expect_success 'live with a stalled stage: the summary line gives the dropped samples and their %' '
	grep "^flamepipe: live: stopped after [0-9.]* s: [0-9]* samples read, [1-9][0-9]* dropped ([0-9.]*%)" err &&
	# the % is of the samples fp-read was given
	sed -n "s/.*: \([0-9]*\) samples read, \([0-9]*\) dropped (\([0-9.]*\)%).*/\1 \2 \3/p" err >counts &&
	read kept dropped pct <counts &&
	awk -v k=$kept -v d=$dropped -v p=$pct "BEGIN { x = 100 * d / (k + d); exit !(x - p < 0.1 && p - x < 0.1) }"
'

test_expect_success 'live --http with a stalled stage: the web view reports the drop count' '
	start_stalled_live --http 127.0.0.1:0 --keep-serving &&
	test_when_finished "touch go; kill $fp 2>/dev/null" &&
	capture_then_release &&
	url=$(sed -n "s/.*listening on \(http:[^ ]*\)/\1/p" out.txt) &&
	{ test -n "$url" || { cat out.txt err; false; }; } &&
	wait_for "curl -sf \"\${url}heatmap/?filename=live\" | grep -q \"\\\"dropped\\\":[1-9]\"" 100 &&
	# the chain has drained: only the web server is left (--keep-serving)
	wait_for "test \"\$(ps -o comm= --ppid $fp | grep -v fp-watchdog)\" = fp-serve" 300 &&
	kill -INT $fp &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; }
'

test_done
