#!/bin/sh
test_description='fp-serve --live: heatmap cells and fold snapshots from stdin, SSE, range and filter queries from the recording'
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
	grep "^data: {\"seq\":1,\"total\":4}" sse &&
	printf "I${T}read${T}lines=50${T}samples=9${T}dropped=2\nW${T}read${T}-${T}dropped 2 samples\n" >&9 &&
	wait_for "grep -q \"^event: stats\" sse" 100 &&
	grep "^data: {\"samples\":9,\"dropped\":2,\"lost\":0,\"warnings\":1}" sse &&
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

test_expect_success 'a range without --recording is 409; the whole profile is the chain'"'"'s snapshot' '
	start_live cap &&
	feed_small &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".seq == 1\" body >/dev/null" 100 &&
	code=$(get "/flamegraph/?filename=cap&start=1") &&
	test "$code" = 409 && json_error_ok "$code" &&
	jq -e ".error | test(\"no recording\")" body &&
	test "$(get "/flamegraph/?filename=cap")" = 200 &&
	jq -e "([.. | objects | .v] | add) == 4" body &&
	code=$(post "/live/range?name=cap&start=1&end=2") &&
	test "$code" = 404 && json_error_ok "$code"
'

# snapshot N C: fold snapshot of 200 stacks, f0..f199, each counted C times
snapshot() {
	printf "C${T}begin${T}fold\n" &&
	awk -v c="$2" "BEGIN { for (i = 0; i < 200; i++) printf \"F\t%d\tapp;main;f%d\n\", c, i }" &&
	printf "C${T}end${T}fold${T}200${T}%d\n" $((200 * $2))
}

test_expect_success 'viewers of one snapshot share its tree, gzip or not; a new snapshot and the end replace it' '
	start_live cap &&
	printf "G${T}50${T}100\nH${T}0${T}3${T}5\n" >&9 &&
	snapshot 1 1 >&9 &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".seq == 1\" body >/dev/null" 100 &&
	pids= &&
	for i in 1 2 3 4 5 6; do
		curl -sS --max-time 20 -o view.$i "$URL/live/flamegraph?name=cap" &
		pids="$pids $!"
	done &&
	curl -sS --max-time 20 --compressed -D gz.head -o view.gz "$URL/live/flamegraph?name=cap" &&
	wait $pids &&
	for i in 2 3 4 5 6 gz; do cmp view.1 view.$i || return 1; done &&
	grep -qi "^content-encoding: gzip" gz.head &&
	jq -e ".seq == 1 and .total == 200 and .ended == false and ([.tree | .. | objects | .v] | add) == 200" view.1 &&
	snapshot 2 3 >&9 &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".seq == 2\" body >/dev/null" 100 &&
	jq -e ".total == 600 and ([.tree | .. | objects | .v] | add) == 600 and .ended == false" body &&
	curl -sS --max-time 20 --compressed -o view.gz2 "$URL/live/flamegraph?name=cap" &&
	cmp body view.gz2 &&
	exec 9>&- &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".ended == true\" body >/dev/null" 100 &&
	jq -e ".seq == 2 and ([.tree | .. | objects | .v] | add) == 600" body
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

# start_chain: fp-record | fp-bucket | fp-range | fp-fold | fp-serve --live
# chain --recording rec.gz, reading in.fifo (held open on fd 9);
# fp-record's --flush-interval MS (default 100)
start_chain() {
	rm -f in.fifo serve.out rec.gz && mkfifo in.fifo || return 1
	{ fp-record --output rec.gz --flush-interval "${1:-100}" <in.fifo | fp-bucket --rows 10 |
		fp-range --history 0 | fp-fold --interval 100 |
		fp-serve --dir prof --listen 127.0.0.1:0 --live chain --recording rec.gz \
		>serve.out 2>>serve.err & } &&
	register_pid $! &&
	exec 9>in.fifo &&
	wait_for "grep -qs \"listening on\" serve.out" 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) && URL=http://127.0.0.1:$PORT
}
total() { jq "[.. | objects | .v] | add // 0" "${1:-body}"; }

test_expect_success 'a live chain: each range or filter query is answered from the recording' '
	start_chain &&
	samples >&9 &&
	wait_for "get \"/heatmap/?filename=chain\" >/dev/null && jq -e \"([.values[][]] | add) == 40\" body >/dev/null" 100 &&
	wait_for "test \$(fp-read -q rec.gz | grep -c ^S) = 40" 100 &&
	test "$(get "/flamegraph/?filename=chain&start=1&end=2.5")" = 200 &&
	test "$(total)" = 15 &&
	test "$(get "/flamegraph/?filename=chain&start=2&end=4&comm=b")" = 200 &&
	test "$(total)" = 20 && jq -e "(.c | map(.n)) == [\"b\"]" body &&
	: no query changed the chain: its snapshot is the whole capture &&
	test "$(get "/live/flamegraph?name=chain")" = 200 &&
	jq -e ".total == 40" body &&
	test "$(get "/flamegraph/?filename=chain")" = 200 && test "$(total)" = 40 &&
	: the heatmap of a running capture is not filtered, and says so &&
	test "$(get "/heatmap/?filename=chain&comm=b")" = 200 &&
	jq -e ".filtered == false and ([.values[][]] | add) == 40" body &&
	test "$(get "/differential/?filename=chain&start=0&end=2&compareFilename=chain&compareStart=2&compareEnd=4")" = 200 &&
	jq -e ".children | map(.name) == [\"a\"]" body &&
	exec 9>&-
'

test_expect_success 'a range the heatmap shows is answered whole before fp-record has written it' '
	start_chain 2000 &&
	samples >&9 &&
	wait_for "get \"/heatmap/?filename=chain\" >/dev/null && jq -e \"([.values[][]] | add) == 40\" body >/dev/null" 100 &&
	held=$(fp-read -q rec.gz 2>/dev/null | grep -c ^S) &&
	echo "# the recording held $held of the 40 samples when the heatmap showed them" &&
	test "$(get "/flamegraph/?filename=chain&start=1&end=2.5")" = 200 &&
	test "$(total)" = 15 &&
	test "$(get "/flamegraph/?filename=chain&start=2&end=4&comm=b")" = 200 &&
	test "$(total)" = 20 &&
	exec 9>&-
'

test_expect_success 'two viewers query different ranges at the same time and each gets its own' '
	start_chain &&
	samples >&9 &&
	wait_for "test \$(fp-read -q rec.gz 2>/dev/null | grep -c ^S) = 40" 100 &&
	pids= &&
	for i in 1 2 3 4 5; do
		curl -sS --max-time 20 -o a$i "$URL/flamegraph/?filename=chain&start=0&end=1" &
		pids="$pids $!"
		curl -sS --max-time 20 -o b$i "$URL/flamegraph/?filename=chain&start=1.5&end=4&comm=b" &
		pids="$pids $!"
	done &&
	for p in $pids; do wait $p || exit 1; done &&
	for i in 1 2 3 4 5; do
		test "$(total a$i)" = 10 && test "$(total b$i)" = 20 || exit 1
	done &&
	test "$(get "/live/flamegraph?name=chain")" = 200 && jq -e ".total == 40" body &&
	exec 9>&-
'

test_expect_success 'after the end: range totals equal flamepipe report of the recording, filtered heatmap too' '
	start_chain &&
	samples >&9 &&
	exec 9>&- &&
	wait_for "get \"/heatmap/?filename=chain\" >/dev/null && jq -e \".ended == true\" body >/dev/null" 100 &&
	flamepipe report -q rec.gz --from 1.2 --to 3.3 -o rep &&
	test "$(get "/flamegraph/?filename=chain&start=1.2&end=3.3")" = 200 &&
	test "$(total)" = "$(awk "{ s += \$NF } END { print s }" rep/stacks.folded)" &&
	test "$(get "/heatmap/?filename=chain&comm=b")" = 200 &&
	jq -e ".filtered == true and .counted == 20 and .live == true and .start_sec == 10" body &&
	test "$(get "/pprof/?filename=chain&start=1&end=2")" = 200 &&
	test "$(get "/heatmap/?filename=chain")" = 200 &&
	jq -e ".recording.retention_dropped == 0" body
'

test_expect_success 'a trimmed recording is listed as a profile and its heatmap says what retention dropped' '
	fp-read -q "$EXAMPLES/demo-clockloop.perf.gz" | fp-record --output prof/trim.fp.gz --keep 20 >/dev/null &&
	start_server prof &&
	test "$(get /profile/)" = 200 &&
	jq -e "any(.[]; .filename == \"trim.fp.gz\" and .format == \"flamepipe recording\")" body &&
	test "$(get "/heatmap/?filename=trim.fp.gz")" = 200 &&
	jq -e ".recording.retention_dropped > 5000 and .recording.dropped_seconds > 90 and .start_sec == 255" body &&
	test "$(get "/heatmap/?filename=multiproc.perf.gz")" = 200 &&
	jq -e "has(\"recording\") | not" body
'

test_expect_success 'SSE of an unknown capture is a 404 JSON error' '
	start_live cap &&
	code=$(get "/live/events?name=other") &&
	test "$code" = 404 && json_error_ok "$code"
'

test_done
