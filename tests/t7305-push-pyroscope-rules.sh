#!/bin/sh
test_description='push: what Grafana Pyroscope'"'"'s server does with flamepipe'"'"'s requests (line and depth limits, service and metric, CPU time, ingestion window, credentials, 408), against the strict receiver, and compared with @pyroscope/nodejs'
. "$(dirname "$0")/test-lib.sh"
test_tags slow
. "$TOP/tests/lib-render.sh"
. "$TOP/tests/lib-push.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz
MARKER='[flamepipe: frames elided]'

fp-read "$DEMO" >demo.stream
NS=$(grep -c "^S	" demo.stream)
PERIOD=20408163		# -F 49 on cpu-clock: every period is 1e9 / 49 ns

# deep.stream: 5 samples of a 15000-frame recursion (some 210 KiB folded),
# then 100 ordinary samples; all cpu-clock at 100 Hz
awk 'BEGIN {
	printf "%%flamepipe\t1\n"
	k = ""; s = "main"
	for (i = 0; i < 15000; i++) { k = k "u"; s = s ";recurse_level" }
	for (i = 0; i < 5; i++)
		printf "S\t%d\t7\t7\t0\t10000000\tcpu-clock\tdeep\tu%su\t%s;leaf_work\n", 1e9 + i * 1e7, k, s
	for (i = 0; i < 100; i++)
		printf "S\t%d\t7\t7\t0\t10000000\tcpu-clock\tdeep\tuu\tmain;work_%d\n", 2e9 + i * 1e7, i % 4
}' >deep.stream

test_expect_success 'the receiver drops silently what Pyroscope drops: after a line over 64 KiB, nothing, and still 200' '
	receiver rlog || return 1
	{ fp-fold --plain <deep.stream | grep recurse_level; fp-fold --plain <deep.stream | grep -v recurse_level; } >raw.folded &&
	test "$(head -c 70000 raw.folded | wc -l)" = 0 &&
	curl -s -o /dev/null -w "%{http_code}\n" --data-binary @raw.folded \
		"$URL/ingest?name=deep.cpu&sampleRate=100&format=folded" >code &&
	stop_receiver && cat code &&
	test "$(cat code)" = 200 &&
	test "$(logq rlog "L[0].samples + \" \" + L[0].lines_dropped")" = "0 5"
'

test_expect_success 'a 210 KiB stack arrives cut to the marker, under 64 KiB and 1000 frames, every sample counted' '
	receiver log1 --save . || return 1
	fp-push "$URL" --once --app deep <deep.stream >out 2>err && stop_receiver && cat err &&
	test "$(logq log1 "[L[0].status, L[0].errors.length, L[0].lines_dropped, L[0].samples, L[0].depth_cut].join(\" \")")" = "200 0 0 105 0" &&
	test "$(logq log1 "L[0].max_line <= 65536 && L[0].max_depth <= 1000")" = true &&
	test "$(logq log1 "L[0].cpu_ns")" = $((105 * 10000000)) &&
	grep -F "$MARKER" 1.body >cut &&
	test "$(wc -l <cut)" = 1 &&
	grep -q "^deep;main;recurse_level;.*;\[flamepipe: frames elided\];recurse_level;.*;recurse_level;leaf_work 5\$" cut &&
	test "$(pushstat truncated)" = 5 &&
	grep -q "^W	push	.*5 sample(s) so far had a stack deeper than 1000 frames" out
'

test_expect_success 'pprof: the same stack cut the same way, 1000 frames at most, nothing for the server to cut' '
	have_pprof_format || { echo "pprof-format not installed: skipped"; return 0; }
	receiver log2 || return 1
	fp-push "$URL" --once --app deep --format pprof <deep.stream >out 2>err && stop_receiver &&
	test "$(logq log2 "[L[0].status, L[0].errors.length, L[0].samples, L[0].depth_cut, L[0].max_depth].join(\" \")")" = "200 0 105 0 1000" &&
	test "$(logq log2 "L[0].cpu_ns")" = $((105 * 10000000))
'

test_expect_success '--max-depth: a smaller depth keeps the root frames, the marker and the leaf' '
	receiver log3 --save . || return 1
	fp-push "$URL" --once --app deep --max-depth 20 <deep.stream >out 2>err && stop_receiver &&
	line=$(grep -F "$MARKER" 1.body) &&
	test "$(echo "${line% *}" | tr ";" "\n" | wc -l)" = 20 &&	# the comm root is one
	test "$(echo "${line% *}" | tr ";" "\n" | sed -n "10p;20p" | tr "\n" " ")" = "$MARKER leaf_work "
'

test_expect_success 'folded and pprof of one capture: one service, metric process_cpu, equal CPU nanoseconds' '
	have_pprof_format || { echo "pprof-format not installed: skipped"; return 0; }
	receiver log4 || return 1
	fp-push "$URL" --once --app shop --label env=prod <demo.stream >/dev/null 2>err &&
	fp-push "$URL" --once --app shop --label env=prod --format pprof <demo.stream >/dev/null 2>>err &&
	stop_receiver && cat err &&
	test "$(logq log4 "L.map((r) => r.status + \" \" + r.parser).join(\",\")")" = "200 groups,200 pprof" &&
	cpu="L.map((r) => r.series.filter((s) => s.type.startsWith(\"process_cpu:cpu:nanoseconds\")))" &&
	test "$(logq log4 "$cpu.map((s) => s.length).join(\" \")")" = "1 1" &&
	test "$(logq log4 "$cpu.map((s) => JSON.stringify(s[0].labels)).join(\"\n\")" | sort -u)" = \
		"{\"__name__\":\"process_cpu\",\"pyroscope_spy\":\"flamepipe\",\"env\":\"prod\",\"service_name\":\"shop\"}" &&
	test "$(logq log4 "L.map((r) => r.cpu_ns).join(\" \")")" = "$((NS * PERIOD)) $((NS * PERIOD))"
'

# cycles.stream: a hardware event sampled at -F 99 (its periods are counts)
awk 'BEGIN { printf "%%flamepipe\t1\n"
	for (i = 0; i < 300; i++)
		printf "S\t%d\t7\t7\t%d\t%d\tcycles\tapp\tuu\tmain;work_%d\n", 1e9 + i * 1e7, i % 2, 2000000 + i, i % 3 }' >cycles.stream

test_expect_success 'a non-clock event at -F 99: process_cpu, each sample 1e9/99 ns, folded and pprof equal' '
	have_pprof_format || { echo "pprof-format not installed: skipped"; return 0; }
	receiver log5 || return 1
	fp-push "$URL" --once --sample-rate 99 <cycles.stream >/dev/null 2>err &&
	fp-push "$URL" --once --sample-rate 99 --format pprof <cycles.stream >/dev/null 2>>err &&
	stop_receiver && cat err &&
	test "$(logq log5 "L.map((r) => r.status + \" \" + r.rate + \" \" + r.series.map((s) => s.labels.__name__).join()).join(\",\")")" = \
		"200 99 process_cpu,200 99 process_cpu,process_cpu" &&
	test "$(logq log5 "L.map((r) => r.cpu_ns).join(\" \")")" = "$((300 * (1000000000 / 99))) $((300 * (1000000000 / 99)))"
'

test_expect_success 'a non-clock event without a frequency is not sent: its CPU time would be wrong' '
	receiver log6 || return 1
	expect_exit 111 fp-push "$URL" --once <cycles.stream >out 2>err && stop_receiver && cat err &&
	test ! -s log6 &&
	grep -q "cycles samples: perf.s sampling frequency is not known (give --sample-rate HZ" err &&
	test "$(pushstat failed) $(pushstat samples_dropped)" = "1 300"
'

test_expect_success 'flamepipe push sends the capture'"'"'s own -F (the perf script header), not samples per second' '
	receiver log7 || return 1
	cp "$DEMO" demo.perf.gz &&
	zcat "$DEMO" | sed "s/cpu-clock:ppp/cycles/; s/sample_freq } = 49,/sample_freq } = 97,/" >cycles.perf &&
	grep -q "^# event : name = cycles, .* sample_freq } = 97, .* freq = 1" cycles.perf &&
	flamepipe push "$URL" demo.perf.gz cycles.perf --app demo 2>err && stop_receiver && cat err &&
	test "$(logq log7 "L.map((r) => r.rate + \" \" + r.status + \" \" + r.samples).join(\",\")")" = "49 200 $NS,97 200 $NS" &&
	test "$(logq log7 "L[1].cpu_ns")" = $((NS * (1000000000 / 97)))
'

test_expect_success 'flamepipe push of a perf.data: -F from its attributes (page-faults, not a clock, at -F 73)' '
	{ command -v perf >/dev/null 2>&1 &&
	  perf record -q -e page-faults -F 73 -o pf.data -- sh -c "ls -R /usr/lib >/dev/null" 2>perf.err; } ||
		{ echo "perf cannot record here: skipped"; cat perf.err; return 0; }
	n=$(fp-perfdata -q pf.data | grep -c "^S	") && test "$n" -gt 0 &&
	receiver log15 || return 1
	flamepipe push "$URL" pf.data --app pd 2>err && stop_receiver && cat err &&
	test "$(logq log15 "L[0].status + \" \" + L[0].rate + \" \" + L[0].samples")" = "200 73 $n"
'

test_expect_success 'a 3-hour-old capture: refused before sending, the window named; --restamp sends it as of now' '
	receiver log8 || return 1
	cp "$DEMO" old.perf.gz && touch -d "@$(( $(date +%s) - 3 * 3600 ))" old.perf.gz &&
	expect_exit 111 flamepipe push "$URL" old.perf.gz 2>err && cat err &&
	test ! -s log8 &&
	grep -q "ago: Pyroscope refuses profiles older than its ingestion window (validation.reject-older-than, 1 h by default" err &&
	grep -q "not delivered" err &&
	flamepipe push "$URL" old.perf.gz --restamp 2>err2 && stop_receiver &&
	now=$(date +%s) &&
	test "$(logq log8 "L.length + \" \" + L[0].status + \" \" + L[0].stored")" = "1 200 true" &&
	test $(( now - $(logq log8 "L[0].until") )) -le 60
'

test_expect_success 'the receiver refuses an old profile as Pyroscope does (folded 400, pprof 422)' '
	have_pprof_format || { echo "pprof-format not installed: skipped"; return 0; }
	receiver log9 || return 1
	old=$(( $(date +%s) - 3 * 3600 )) &&
	expect_exit 111 fp-push "$URL" --once --until $old --max-age 0 --retries 0 <demo.stream >/dev/null 2>err &&
	expect_exit 111 fp-push "$URL" --once --until $old --max-age 0 --retries 0 --format pprof <demo.stream >/dev/null 2>>err &&
	stop_receiver &&
	test "$(logq log9 "L.map((r) => r.status).join(\" \")")" = "400 422" &&
	grep -q "outside of ingestion window" log9 &&
	grep -q "answered 400: profile not accepted (not retried)" err
'

SECRET=tok-$$-s3cr3t
printf "%s\n" "$SECRET" >token && chmod 600 token
printf "%s\n" "pyro:pa55-$$" >basic && chmod 600 basic

test_expect_success 'bearer token and tenant: headers present, the token never in any process'"'"'s argv' '
	receiver log10 --require-token-file token --multitenant || return 1
	{ printf "%%flamepipe\t1\n"; i=0; while [ $i -lt 40 ]; do
		printf "S\t%d\t7\t7\t0\t10000000\tcpu-clock\tapp\tuu\tmain;w\n" $((1000000000 + i * 50000000))
		i=$((i + 1)); sleep 0.05; done; } |
	fp-push "$URL" --interval 0.5 --auth-token-file token --tenant team-a >out 2>err &
	pid=$! &&
	wait_for "test -s log10" 100 &&
	tr "\0" " " </proc/$pid/cmdline | grep -q -- "--auth-token-file token --tenant team-a" &&
	! cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" " " | grep -qFf token &&	# (not in grep'"'"'s argv either)
	wait $pid && stop_receiver &&
	test "$(logq log10 "L.filter((r) => r.status !== 200 || r.auth !== \"Bearer $SECRET\" || r.tenant !== \"team-a\").length")" = 0 &&
	test "$(logq log10 "L.reduce((a, r) => a + r.samples, 0)")" = 40
'

test_expect_success 'basic auth from a file; no or a wrong token is a final 401' '
	receiver log11 --require-basic-file basic || return 1
	flamepipe push "$URL" demo.perf.gz --basic-auth-file basic 2>err &&
	expect_exit 111 flamepipe push "$URL" demo.perf.gz --auth-token-file token --retries 2 2>err2 &&
	stop_receiver &&
	test "$(logq log11 "L.map((r) => r.status).join(\" \")")" = "200 401" &&
	grep -q "answered 401" err2
'

test_expect_success 'credentials in the URL, a token file others may write, an empty one: refused before sending' '
	expect_exit 100 fp-push "http://u:p@127.0.0.1:1" </dev/null 2>err && grep -q "URL: has credentials" err &&
	printf "x\n" >open && chmod 666 open &&
	expect_exit 100 fp-push http://127.0.0.1:1 --auth-token-file open </dev/null 2>err && grep -q "writable by every user" err &&
	: >empty && expect_exit 100 fp-push http://127.0.0.1:1 --auth-token-file empty </dev/null 2>err &&
	expect_exit 100 fp-push http://127.0.0.1:1 --tenant "a b" </dev/null 2>err
'

test_expect_success '408 then 200: sent again, one profile stored' '
	receiver log12 --answers 408 || return 1
	fp-push "$URL" --once <demo.stream >out 2>err && stop_receiver &&
	test "$(logq log12 "L.map((r) => r.status + \" \" + r.stored).join(\",\")")" = "408 false,200 true" &&
	test "$(logq log12 "new Set(L.map((r) => r.sha)).size")" = 1 &&
	test "$(pushstat sent) $(pushstat retries) $(pushstat failed)" = "1 1 0"
'

test_expect_success 'pprof sample labels: none by default (one series); --sample-labels cpu splits by CPU' '
	have_pprof_format || { echo "pprof-format not installed: skipped"; return 0; }
	receiver log13 || return 1
	fp-push "$URL" --once --format pprof --sample-rate 99 <cycles.stream >/dev/null 2>err &&
	fp-push "$URL" --once --format pprof --sample-rate 99 --sample-labels cpu <cycles.stream >/dev/null 2>>err &&
	stop_receiver &&
	test "$(logq log13 "L.map((r) => r.series.filter((s) => s.type.startsWith(\"process_cpu:cpu\")).map((s) => s.labels.cpu).sort().join(\"/\")).join(\" \")")" = " 0/1" &&
	expect_exit 100 fp-push http://127.0.0.1:1 --sample-labels cpu </dev/null 2>err && grep -q "only --format pprof" err
'

test_expect_success 'flamepipe'"'"'s pprof request = @pyroscope/nodejs'"'"'s for the same profile' '
	have_pprof_format && have_pyroscope_nodejs || { echo "tests/pyroscope/node_modules missing: skipped"; return 0; }
	receiver log14 --save . || return 1
	until=$(date +%s) &&
	fp-push "$URL" --once --until $until --format pprof --app shop --auth-token-file token --tenant team-a \
		<demo.stream >/dev/null 2>err &&
	from=$(logq log14 "L[0].from") &&
	node "$NODEJS_PUSH" "$URL" 1.body shop "$from" "$until" 49 token team-a &&
	stop_receiver && cat log14 &&
	same="[\"method\", \"path\", \"name\", \"from\", \"until\", \"rate\", \"format\", \"content_type\", \"auth\", \"tenant\", \"status\", \"app\", \"time_ns\", \"pprof_types\", \"pprof_period\", \"samples\", \"cpu_ns\"]" &&
	test "$(logq log14 "$same.filter((k) => JSON.stringify(L[0][k]) !== JSON.stringify(L[1][k])).join(\" \")")" = "" &&
	test "$(logq log14 "L.map((r) => r.series.map((s) => { const l = { ...s.labels }; delete l.pyroscope_spy; return JSON.stringify(l) + s.type + s.total; }).join()).reduce((a, b) => a === b)")" = true &&
	test "$(logq log14 "L.map((r) => r.spy).join(\" \")")" = "flamepipe nodespy"
'

test_done
