#!/bin/sh
test_description='fp-push: profiles to /ingest, checked by a local receiver that answers as Pyroscope'"'"'s server does'
. "$(dirname "$0")/test-lib.sh"
test_tags slow
. "$TOP/tests/lib-render.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz
. "$TOP/tests/lib-push.sh"
# a live-looking stream: N samples, one every 50 ms
trickle() {
	printf "%%flamepipe\t1\n"
	i=0
	while [ $i -lt "$1" ]; do
		printf "S\t%d\t7\t7\t0\t10000000\tcpu-clock\tapp\tuu\tmain;work_%d\n" $((1000000000 + i * 50000000)) $((i % 3))
		i=$((i + 1)); sleep 0.05
	done
}

fp-read "$DEMO" >demo.stream
NS=$(grep -c "^S	" demo.stream)

NOW=$(date +%s)

test_expect_success '--once: one request, every parameter as documented, the body = the folded samples' '
	receiver log1 || return 1
	fp-push "$URL" --once --until $NOW --app myapp.cpu --label env=test --label host=h-1 \
		<demo.stream >out 2>err &&
	stop_receiver && cat log1 &&
	cmp demo.stream out >/dev/null || { grep -v "^I	push" out | cmp - demo.stream; } &&
	test "$(wc -l <log1)" = 1 &&
	test "$(logq log1 "L[0].errors.length")" = 0 &&
	test "$(logq log1 "L[0].name + \" \" + L[0].app + \" \" + JSON.stringify(L[0].labels)")" = "myapp.cpu{env=test,host=h-1} myapp {\"env\":\"test\",\"host\":\"h-1\"}" &&
	test "$(logq log1 "L[0].until")" = $NOW &&
	span=$(awk -F "	" "\$1 == \"S\" { if (!f) f = \$2; l = \$2 } END { print int((l - f) / 1e9) }" demo.stream) &&
	test "$(logq log1 "L[0].from")" = $((NOW - span)) &&
	test "$(logq log1 "L[0].rate + \" \" + L[0].spy + \" \" + L[0].format")" = "49 flamepipe folded" &&
	test "$(logq log1 "L[0].samples")" = "$NS"
'

test_expect_success 'the folded body is exactly fp-fold'"'"'s table of the samples' '
	receiver log2 --save . || return 1
	fp-push "$URL" --once <demo.stream >/dev/null 2>err && stop_receiver &&
	LC_ALL=C sort 1.body >got &&
	fp-fold --plain <demo.stream | LC_ALL=C sort >want &&
	test_cmp want got
'

test_expect_success '--format pprof: a gzip profile that go tool pprof reads, with every sample' '
	command -v go >/dev/null 2>&1 || { echo "no go: skipped"; return 0; }
	receiver log3 --save . || return 1
	fp-push "$URL" --once --format pprof <demo.stream >/dev/null 2>err && stop_receiver &&
	test "$(logq log3 "L[0].errors.length + \" \" + L[0].format")" = "0 pprof" &&
	go tool pprof -sample_index=samples -top 1.body >top 2>perr &&
	grep -q "Total samples = $NS *\$" top
'

test_expect_success 'live: one profile per interval, in order, never overlapping, the samples counted once in all' '
	receiver log4 || return 1
	trickle 60 | fp-push "$URL" --interval 1 >out 2>err && stop_receiver && cat log4 &&
	n=$(wc -l <log4) && test "$n" -ge 2 &&
	test "$(logq log4 "L.filter((r) => r.errors.length).length")" = 0 &&
	test "$(logq log4 "L.reduce((a, r) => a + r.samples, 0)")" = 60 &&
	test "$(logq log4 "L.every((r, i) => i === 0 || r.from >= L[i - 1].until)")" = true &&
	test "$(logq log4 "L.slice(0, -1).every((r) => r.until - r.from >= 1 && r.until - r.from <= 2)")" = true &&
	test "$(grep -c "^S	" out)" = 60 &&
	tail -n 1 out | grep -q "^I	push	profiles=$n	sent=$n	retries=0	failed=0	dropped=0	samples_sent=60	samples_dropped=0	truncated=0\$"
'

test_expect_success 'a refusing server (503) gets the same profile again until it takes it' '
	receiver log5 --refuse 2 || return 1
	fp-push "$URL" --once --retries 3 <demo.stream >out 2>err && stop_receiver && cat log5 &&
	test "$(wc -l <log5)" = 3 &&
	test "$(logq log5 "L.map((r) => r.status).join(\" \")")" = "503 503 200" &&
	test "$(logq log5 "new Set(L.map((r) => r.sha + r.from + r.until)).size")" = 1 &&
	tail -n 1 out | grep -q "	sent=1	retries=2	failed=0	"
'

test_expect_success 'a 400 answer is final: not retried, counted as failed, --once exits 111' '
	receiver log6 --status 400 || return 1
	expect_exit 111 fp-push "$URL" --once --retries 3 <demo.stream >out 2>err && stop_receiver &&
	test "$(wc -l <log6)" = 1 &&
	grep -q "answered 400" err &&
	tail -n 1 out | grep -q "	sent=0	retries=0	failed=1	dropped=0	samples_sent=0	samples_dropped=$NS	truncated=0\$"
'

stat() { pushstat "$@"; }

test_expect_success 'server down (refused): retried, counted as failed, every sample accounted, a W record' '
	receiver log7 || return 1
	port=$(cat port) && stop_receiver &&	# nothing listens there now
	trickle 40 | fp-push "http://127.0.0.1:$port" --interval 0.5 --retries 1 --drain 1 >out 2>err &&
	grep "^I	push" out | tail -n 1 &&
	test "$(grep -c "^S	" out)" = 40 &&
	test "$(stat sent)" = 0 && test "$(stat failed)" = "$(stat profiles)" &&
	test "$(stat retries)" = "$(stat profiles)" &&
	test "$(stat samples_dropped)" = 40 &&
	grep -q "^W	push	.*not delivered to http://127.0.0.1:$port" out
'

test_expect_success 'server away (no answer): the stream is never held, the queue stays bounded, drops counted' '
	receiver log8 --hang || return 1
	# from the end of its input, fp-push ends within its own budgets
	# (--timeout 2, --drain 1; slack for a loaded machine): one that
	# held the stream on each send would still owe seconds of them
	{ trickle 60; date +%s.%N >eof; } |
		fp-push "$URL" --interval 0.3 --queue 2 --retries 0 --timeout 2 --drain 1 >out 2>err &&
	after_eof=$(echo "$(date +%s.%N) $(cat eof)" | awk "{ printf \"%d\", \$1 - \$2 }") &&
	echo "ended ${after_eof}s after its input" && stop_receiver &&
	grep "^I	push" out | tail -n 1 &&
	test "$(grep -c "^S	" out)" = 60 &&
	test "$after_eof" -le 7 &&
	test "$(stat sent)" = 0 && test "$(stat dropped)" -gt 0 &&
	test $(( $(stat dropped) + $(stat failed) )) = "$(stat profiles)" &&
	test "$(stat samples_dropped)" = 60 &&
	test "$(wc -l <log8)" -le $(( $(stat failed) + 1 ))
'

test_expect_success 'flamepipe push FILE...: one profile per capture (perf and Chrome), until = the file'"'"'s mtime' '
	printf "%s\n" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[2]}," \
	  "{\"id\":2,\"callFrame\":{\"functionName\":\"main\",\"url\":\"file:///a.js\",\"lineNumber\":0}}]," \
	  "\"startTime\":1000000,\"samples\":[2,2,2],\"timeDeltas\":[10,1000,1000]}" >p.cpuprofile &&
	cp "$DEMO" demo.perf.gz && touch -d @$((NOW - 200)) demo.perf.gz && touch -d @$((NOW - 100)) p.cpuprofile &&
	receiver log9 || return 1
	flamepipe push "$URL" demo.perf.gz p.cpuprofile --app web.cpu --label region=eu-1 2>err &&
	stop_receiver && cat log9 &&
	test "$(logq log9 "L.map((r) => [r.app, r.labels.region, r.until, r.samples, r.errors.length].join(\" \")).join(\"|\")")" = \
		"web eu-1 $((NOW - 200)) $NS 0|web eu-1 $((NOW - 100)) 3 0" &&
	grep -q "demo.perf.gz: delivered" err && grep -q "p.cpuprofile: delivered" err
'

test_expect_success 'flamepipe push exits non-zero when a capture was not delivered' '
	receiver log10 --status 400 || return 1
	expect_exit 111 flamepipe push "$URL" demo.perf.gz 2>err && stop_receiver &&
	grep -q "not delivered" err
'

test_expect_success 'flamepipe live --push: a profile per interval while the capture runs, every sample read pushed' '
	test_have root perf || { echo "needs root and perf: skipped"; return 0; }
	receiver log11 || return 1
	flamepipe live -F 199 -g --duration 3.5 -o lv --no-term --push "$URL" --app live.cpu \
		--label host=t-1 --push-interval 1 >live.out 2>live.err &&
	stop_receiver && cat log11 && tail -n 1 live.err &&
	n=$(wc -l <log11) && test "$n" -ge 2 &&
	test "$(logq log11 "L.filter((r) => r.errors.length || r.app !== \"live\" || r.rate !== 199 || r.labels.host !== \"t-1\").length")" = 0 &&
	test "$(logq log11 "L.every((r, i) => i === 0 || r.from >= L[i - 1].until)")" = true &&
	read=$(sed -n "s/.*: \([0-9]*\) samples read,.*/\1/p" live.err) &&
	test "$(logq log11 "L.reduce((a, r) => a + r.samples, 0)")" = "$read" && test "$read" -gt 0
'

test_expect_success 'labels and names outside the contract are refused before anything is sent' '
	expect_exit 100 fp-push http://127.0.0.1:1 --label "a b=c" </dev/null 2>err && grep -q "KEY is" err &&
	expect_exit 100 fp-push http://127.0.0.1:1 --label "k=v,x" </dev/null 2>err &&
	expect_exit 100 fp-push http://127.0.0.1:1 --label "k=" </dev/null 2>err &&
	expect_exit 100 fp-push http://127.0.0.1:1 --app "my app" </dev/null 2>err &&
	expect_exit 100 fp-push ftp://127.0.0.1:1 </dev/null 2>err && grep -q "URL: want http" err
'

test_done
