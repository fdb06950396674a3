#!/bin/sh
test_description='fp-serve --live: heatmap cells and fold snapshots from stdin, SSE, range selection via fp-range'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

mkdir prof && cp "$EXAMPLES/multiproc.perf.gz" prof/
T=$(printf "\t")

# start_live NAME [options]: fp-serve --live NAME reading in.fifo, which
# the caller holds open on fd 9 (closing it is the end of the stream)
start_live() {
	_n=$1
	shift
	rm -f in.fifo serve.out && mkfifo in.fifo || return 1
	{ fp-serve --dir prof --listen 127.0.0.1:0 --live "$_n" "$@" <in.fifo >serve.out 2>>serve.err & }
	serve_pid=$!
	register_pid $serve_pid
	exec 9>in.fifo
	wait_for 'grep -qs "listening on" serve.out' 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) &&
	URL=http://127.0.0.1:$PORT
}

# a small live stream: geometry, 2 cells in columns 0 and 2, one snapshot
feed_small() {
	printf "G${T}50${T}100\nH${T}0${T}3${T}5\nH${T}2${T}49${T}7\n" >&9 &&
	printf "C${T}begin${T}fold\nF${T}3${T}app;main;work\nF${T}1${T}app;main\nC${T}end${T}fold${T}2${T}4\n" >&9
}

# (a geometry change is announced by a heatmap event alone: the client
# refetches /heatmap/, so cells are sent from the next change on)
test_expect_success 'SSE stream gains heatmap, cells, fold, stats and end events as input arrives' '
	start_live cap &&
	{ curl -sSN --max-time 20 "$URL/live/events?name=cap" >sse 9>&- & } &&
	curl_pid=$! &&
	wait_for "grep -qs \"^event: heatmap\" sse" 100 &&
	printf "G${T}50${T}100\n" >&9 &&
	wait_for "test \$(grep -c \"^event: heatmap\" sse) = 2" 100 &&
	grep "^data: {\"rows\":50,\"start_sec\":100}" sse &&
	printf "H${T}0${T}3${T}5\n" >&9 &&
	wait_for "grep -q \"^event: cells\" sse" 100 &&
	grep "^data: {\"ncols\":1," sse &&
	printf "H${T}2${T}49${T}7\n" >&9 &&
	wait_for "grep -q \"\\\"2\\\":\\[7,\" sse" 100 &&
	printf "C${T}begin${T}fold\nF${T}3${T}app;main;work\nF${T}1${T}app;main\nC${T}end${T}fold${T}2${T}4\n" >&9 &&
	wait_for "grep -q \"^event: fold\" sse" 100 &&
	grep "^data: {\"seq\":1,\"total\":4," sse &&
	printf "I${T}read${T}lines=50${T}samples=9${T}dropped=2\nW${T}read${T}-${T}dropped 2 samples\n" >&9 &&
	wait_for "grep -q \"^event: stats\" sse" 100 &&
	grep "^data: {\"samples\":9,\"dropped\":2,\"warnings\":1}" sse &&
	exec 9>&- &&
	wait_for "grep -q \"^event: end\" sse" 100 &&
	wait $curl_pid &&
	test $(grep -c "^event: heatmap" sse) = 2 &&
	test $(grep -c "^event: fold" sse) = 1
'

test_expect_success 'while live and after the end: listed and browsable like a file' '
	start_live cap &&
	feed_small &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".seq == 1\" body >/dev/null" 100 &&
	test "$(get /profile/)" = 200 &&
	jq -e "any(.[]; .filename == \"cap\" and .live == true)" body &&
	test "$(get "/heatmap/?filename=cap")" = 200 &&
	jq -e ".live == true and .ended == false and .maxvalue == 7 and ([.values[][]] | add) == 12" body &&
	jq -e ".values[0][46] == 5 and .values[2][0] == 7 and .start_sec == 100 and (.columns | length) == 3" body &&
	exec 9>&- &&
	wait_for "get \"/heatmap/?filename=cap\" >/dev/null && jq -e \".ended == true\" body >/dev/null" 100 &&
	test "$(get "/live/flamegraph?name=cap")" = 200 &&
	jq -e ".seq == 1 and .total == 4 and ([.tree | .. | objects | .v] | add) == 4" body &&
	test "$(get "/svg/heatmap?filename=cap")" = 200 && grep -q "<svg" body &&
	kill -0 $serve_pid
'

test_expect_success 'range selection without --control is 409' '
	start_live cap &&
	code=$(post "/live/range?name=cap&start=1&end=2") &&
	test "$code" = 409 && json_error_ok "$code" &&
	code=$(get "/flamegraph/?filename=cap&start=1") &&
	test "$code" = 409 && json_error_ok "$code"
'

test_expect_success 'control lines cannot be injected through filter values' '
	mkfifo ctl2 &&
	start_live cap2 --control ctl2 &&
	code=$(post "/live/range?name=cap2&comm=x%0Aclear") &&
	test "$code" = 400 && json_error_ok "$code"
'

test_expect_success 'a control FIFO nobody reads is a 503, not a hang' '
	mkfifo ctl3 &&
	start_live cap3 --control ctl3 &&
	code=$(post "/live/range?name=cap3&start=1") &&
	test "$code" = 503 && jq -e ".error | test(\"nobody|no reader|cannot open\")" body
'

# samples: one per 100 ms from 10.0 s to 13.9 s, comm a before 12 s, b after
samples() {
	i=0
	while [ $i -lt 40 ]; do
		c=a; [ $i -ge 20 ] && c=b
		printf "S${T}%d${T}1${T}1${T}0${T}1${T}cpu-clock${T}%s${T}u${T}f%d\n" \
			$((10000000000 + i * 100000000)) $c $((i % 3))
		i=$((i + 1))
	done
}

# (polling the selection in force must not make fp-range replay again)
test_expect_success 'a live chain: range selection goes through the fp-range control FIFO' '
	rm -f in.fifo serve.out ctl && mkfifo in.fifo &&
	{ fp-bucket --rows 10 <in.fifo | fp-range --control ctl | tee range.out | fp-fold --interval 100 |
		fp-serve --dir prof --listen 127.0.0.1:0 --live chain --control ctl >serve.out 2>>serve.err & } &&
	register_pid $! &&
	exec 9>in.fifo &&
	wait_for "grep -qs \"listening on\" serve.out" 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) && URL=http://127.0.0.1:$PORT &&
	samples >&9 &&
	wait_for "get \"/heatmap/?filename=chain\" >/dev/null && jq -e \"([.values[][]] | add) == 40\" body >/dev/null" 100 &&
	code=$(post "/live/range?name=chain&start=1&end=2.5") &&
	test "$code" = 200 &&
	jq -e ".matched == true and .total == 15 and .from == \"1\" and .to == \"2.5\"" body &&
	test "$(get "/flamegraph/?filename=chain&start=2&end=4&comm=b")" = 200 &&
	jq -e "([.. | objects | .v] | add) == 20 and (.c | map(.n)) == [\"b\"]" body &&
	: the live heatmap is never filtered, and says so &&
	test "$(get "/heatmap/?filename=chain&comm=b")" = 200 &&
	jq -e ".filtered == false and ([.values[][]] | add) == 40" body &&
	test "$(get "/live/flamegraph?name=chain")" = 200 &&
	jq -e ".total == 20 and .from == \"2\" and .to == \"4\"" body &&
	test "$(get "/flamegraph/?filename=chain")" = 200 &&
	jq -e "([.. | objects | .v] | add) == 40" body &&
	test $(grep -c "^C${T}reset" range.out) = 3 &&
	test "$(get "/flamegraph/?filename=chain")" = 200 &&
	test "$(get "/flamegraph/?filename=chain")" = 200 &&
	jq -e "([.. | objects | .v] | add) == 40" body &&
	test $(grep -c "^C${T}reset" range.out) = 3 &&
	exec 9>&-
'

# The test plays fp-range: it reads what fp-serve writes into ctl and
# answers with the records fp-range would write after applying it.
# range_lines: how many selections of range 1..2 fp-serve has written
range_lines() { awk '/^range 1 2$/ { n++ } END { print n + 0 }' ctl.log; }
answer() { # FROM TO: fp-range applied a selection
	printf "C${T}reset\nC${T}range${T}%s${T}%s\nC${T}filter${T}clear\nC${T}flush\n" "$1" "$2" >&9 &&
	printf "C${T}begin${T}fold\nF${T}1${T}a;f\nC${T}end${T}fold${T}1${T}1\n" >&9
}
# sync_live N: fp-serve has read every line written before (lines are
# read in order; samples= shows in /heatmap/)
sync_live() {
	printf "I${T}read${T}samples=%s\n" "$1" >&9 &&
	wait_for "get \"/heatmap/?filename=cap\" >/dev/null && jq -e \".samples == $1\" body >/dev/null" 100
}
select_1_2() { # waits for fp-serve to see fp-range's answer
	n=$(range_lines) &&
	{ post "/live/range?name=cap&start=1&end=2" >code & } &&
	post_pid=$! &&
	if [ "$1" = sends ]; then
		wait_for "test \$(range_lines) -gt $n" 100 && answer 1 2
	fi &&
	wait $post_pid && test "$(cat code)" = 200 &&
	jq -e ".matched == true and .from == \"1\" and .to == \"2\"" body
}

test_expect_success 'a selection in force is written again once fp-range ended, was restarted or changed' '
	: a FIFO of its own: the fp-range of an earlier test still reopens ctl &&
	mkfifo ctl4 &&
	exec 7<>ctl4 && { cat ctl4 >ctl.log 7>&- & } && register_pid $! &&
	start_live cap --control ctl4 &&
	printf "G${T}10${T}100\n" >&9 &&
	select_1_2 sends && test $(range_lines) = 1 &&
	select_1_2 && test $(range_lines) = 1 &&
	: the runner restarted a stage that died &&
	printf "W${T}flamepipe${T}range${T}stage range killed by signal SIGKILL and was restarted: the records inside it were lost\nC${T}restarted${T}range\n" >&9 &&
	sync_live 1 &&
	select_1_2 sends && test $(range_lines) = 2 &&
	select_1_2 && test $(range_lines) = 2 &&
	: fp-range ended: its final report &&
	printf "I${T}range${T}seen=5${T}passed=1${T}history=5${T}unique_stacks=1${T}history_dropped=0${T}replays=1${T}replayed=1${T}bad=0${T}regex_runs=0\n" >&9 &&
	sync_live 2 &&
	select_1_2 sends && test $(range_lines) = 3 &&
	: someone else selected another range through the same FIFO &&
	answer 3 4 &&
	sync_live 3 &&
	select_1_2 sends && test $(range_lines) = 4 &&
	select_1_2 && test $(range_lines) = 4 &&
	exec 9>&- 7>&-
'

# the runner restarts fp-range (flamepipe ctl restart): the new process
# starts with no selection and no history, so the selection must be written
# to it again: its snapshot is then empty (without that, the old snapshot
# of 15 samples would be served as if still in force)
test_expect_success 'flamepipe ctl restart range: fp-serve writes its selection to the new fp-range' '
	cat >p.pipeline <<-\EOF &&
	bucket fp-bucket --rows 10
	range  fp-range --control ${FIFODIR}/range.ctl
	fold   fp-fold --interval 100
	web    fp-serve --dir prof --listen 127.0.0.1:0 --live chain --control ${FIFODIR}/range.ctl
	EOF
	rm -f in.fifo serve.out && mkfifo in.fifo &&
	{ flamepipe run -q p.pipeline --dir-file dirf <in.fifo >serve.out 2>>serve.err & } &&
	register_pid $! &&
	exec 9>in.fifo &&
	wait_for "grep -qs \"listening on\" serve.out" 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) && URL=http://127.0.0.1:$PORT &&
	samples >&9 &&
	wait_for "get \"/heatmap/?filename=chain\" >/dev/null && jq -e \"([.values[][]] | add) == 40\" body >/dev/null" 100 &&
	test "$(post "/live/range?name=chain&start=1&end=2.5")" = 200 &&
	jq -e ".matched == true and .total == 15" body &&
	flamepipe ctl dirf restart range >ctl.out &&
	grep "^ok: stage .range. restarted" ctl.out &&
	wait_for "post \"/live/range?name=chain&start=1&end=2.5\" >/dev/null && jq -e \".matched == true and .total == 0\" body >/dev/null" 100 &&
	exec 9>&-
'

test_expect_success 'SSE of an unknown capture is a 404 JSON error' '
	start_live cap &&
	code=$(get "/live/events?name=other") &&
	test "$code" = 404 && json_error_ok "$code"
'

test_done
