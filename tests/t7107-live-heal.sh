#!/bin/sh
test_description='flamepipe live heals: a killed or restarted stage comes back, the capture goes on, the summary is exact'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf slow
. "$TOP/tests/lib-live.sh"
. "$TOP/tests/lib-serve.sh"
need_perf_sampling 'live heal'

# pid of stage NAME of the running session (its FIFO dir in dirf)
stage_pid() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	state=running	pid=\([0-9]*\).*/\1/p"; }
stage_starts() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*	starts=\([0-9]*\).*/\1/p"; }

# The summary line's numbers: read, lost in the chain, recorded, report.
summary_numbers() { # ERR
	l=$(grep "stopped after" "$1") &&
	echo "$l" | sed -n "s/.*stopped after [0-9.]* s: \(at least \)\{0,1\}\([0-9]*\) samples read.*/read=\2/p" &&
	echo "$l" | sed -n "s/.*, \([0-9]*\) lost in the chain.*/lost=\1/p" &&
	echo "$l" | sed -n "s/.*; \([0-9]*\) samples in [0-9]* stacks.*/report=\1/p" &&
	echo "$l" | sed -n "s/.*recording [^ ]*: all of it (\([0-9]*\) samples.*/recorded=\1/p"
}

# The summary is exact: recorded = read - lost; the recording holds what
# the summary says; the report is the recording less its idle samples.
summary_is_exact() { # ERR DIR
	eval "$(summary_numbers "$1")" &&
	echo "read=$read lost=${lost:-0} recorded=$recorded report=$report" &&
	test "$recorded" = $((read - ${lost:-0})) &&
	fp-read -q "$2/recording.fp.gz" | fp-bucket >b &&
	test "$(sed -n "s/^I	bucket	samples=\([0-9]*\)	.*/\1/p" b)" = "$recorded" &&
	test "$(sed -n "s/^I	bucket	.*	counted=\([0-9]*\)	.*/\1/p" b)" = "$report" &&
	test "$(folded_sum "$2/stacks.folded")" = "$report"
}
folded_sum() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

test_expect_success 'kill -9 of each stage after the source in turn: the capture goes on, every stage comes back, the page keeps answering' '
	# -D NO_RANGE= keeps fp-range (left out without --pid or --container)
	flamepipe live -F 499 -a -g --duration 20 --http 127.0.0.1:0 --exit-at-end --no-term \
		--dir-file dirf -o heal -D NO_RANGE= >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "grep -qs \"^fp-serve: listening on\" out.txt && test -s heal/recording.fp.gz" 300 &&
	URL=$(sed -n "s|^fp-serve: listening on \(http://[^ ]*\)/$|\1|p" out.txt) &&
	for s in recorder bucket range fold render web; do
		p=$(stage_pid $s) && test -n "$p" && kill -9 "$p" &&
		wait_for "test \"\$(stage_starts $s)\" = 2 && test -n \"\$(stage_pid $s)\"" 300 ||
		{ echo "stage $s did not come back"; flamepipe ctl dirf status; return 1; }
	done &&
	kill -0 $fp &&
	pgrep -P $fp -x perf >/dev/null &&
	wait_for "test \"\$(get \"/heatmap/?filename=live\")\" = 200" 100 &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	for s in recorder bucket range fold render web; do
		grep -q "stage .$s. (fp-[a-z]*) killed by signal SIGKILL" err || return 1
	done &&
	grep -q "rebuilt from the recording" err &&
	report_complete heal &&
	summary_is_exact err heal
'

test_expect_success 'ctl restart and ctl replace of the recorder mid-capture: the recording keeps everything, exact summary' '
	rm -rf rr dirf &&
	flamepipe live -F 499 -a -g --duration 10 --no-term --dir-file dirf -o rr >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "test -s rr/recording.fp.gz" 300 &&
	flamepipe ctl dirf restart recorder >ctl1 &&
	wait_for "test \$(fp-read --index rr/recording.fp.gz | grep -vc \"^#\") -ge 4" 300 &&
	flamepipe ctl dirf replace recorder fp-record --level 1 --output rr/recording.fp.gz \
		--stats "$(cat dirf)/record.stats" >ctl2 &&
	grep -q "^ok" ctl1 && grep -q "^ok" ctl2 &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	fp-read --index rr/recording.fp.gz | awk "!/^#/ { if (\$6 != n++) exit 1 }" &&
	summary_is_exact err rr
'

# Recording members (batches) written so far.
batches() { fp-read --index "$1" | grep -vc "^#"; }

test_expect_success 'a view killed 6 times fast is given up: capture, recording and the web page go on' '
	rm -rf vw dirf &&
	flamepipe live -F 499 -a -g --duration 600 --http 127.0.0.1:0 --exit-at-end --no-term \
		--dir-file dirf -o vw >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "grep -qs \"^fp-serve: listening on\" out.txt && test -s vw/recording.fp.gz" 300 &&
	URL=$(sed -n "s|^fp-serve: listening on \(http://[^ ]*\)/$|\1|p" out.txt) &&
	for n in 1 2 3 4 5 6; do
		p=$(stage_pid render) && test -n "$p" && kill -9 "$p" &&
		wait_for "test \"\$(stage_starts render)\" = $((n + 1)) && test -n \"\$(stage_pid render)\"" 300 ||
		{ echo "render did not come back after kill $n"; flamepipe ctl dirf status; return 1; }
	done &&
	grep -q "stage .render. (fp-render): giving up after 6 fast failures in a row; the rest of the pipeline runs on" err &&
	flamepipe ctl dirf status | grep -q "^stage	name=render	state=running	.*command=sh -c exec cat$" &&
	b=$(batches vw/recording.fp.gz) &&
	wait_for "test \$(batches vw/recording.fp.gz) -ge $((b + 2))" 300 &&
	pgrep -P $fp -x perf >/dev/null &&
	test "$(get "/heatmap/?filename=live")" = 200 &&
	kill -INT $fp &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	grep -q "stopped after .*; view render (fp-render) given up after 6 fast failures in a row (capture and recording went on without it)" err &&
	grep -q "rebuilt from the recording" err &&
	report_complete vw &&
	summary_is_exact err vw
'

# perf record -a and fp-perfdata are one unit (unit=source): either dying
# restarts both (perf's stream cannot be joined mid-way), the gap counted.
test_expect_success 'kill -9 of fp-perfdata, then of perf: the source restarts as a unit, the capture goes on, exact summary' '
	rm -rf src dirf &&
	flamepipe live -F 499 -a -g --duration 600 --no-term --dir-file dirf -o src >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "test -s src/recording.fp.gz && test -s dirf" 300 &&
	p=$(stage_pid read) && test -n "$p" && kill -9 "$p" &&
	wait_for "test \"\$(stage_starts record)\" = 2 && test -n \"\$(stage_pid read)\"" 300 &&
	p=$(stage_pid record) && test -n "$p" && kill -9 "$p" &&
	wait_for "test \"\$(stage_starts record)\" = 3 && test \"\$(stage_starts read)\" = 3 && test -n \"\$(stage_pid read)\"" 300 &&
	b=$(batches src/recording.fp.gz) &&
	wait_for "test \$(batches src/recording.fp.gz) -ge $((b + 2))" 300 &&
	kill -INT $fp &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	grep -q "stage .read. (fp-perfdata) killed by signal SIGKILL: restarting its unit .source. (stages record to read)" err &&
	grep -q "stage .record. (perf) killed by signal SIGKILL: restarting its unit .source." err &&
	grep -q "stopped after .*; the source (perf and its reader) was restarted 2 times: no capture for [0-9.]* s" err &&
	report_complete src &&
	summary_is_exact err src
'

# A COMMAND is not run twice: its source is not restarted. What is
# promised: the capture ends at once, the summary says why, and nothing
# read before is lost.
test_expect_success 'a COMMAND capture: kill -9 of fp-perfdata ends it, exit 2, the summary says why' '
	rm -rf cmd dirf &&
	flamepipe live -F 499 -g --no-term --dir-file dirf -o cmd -- "$TOP/build/tests/busy" 60000 times >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "test -s cmd/recording.fp.gz && test -s dirf" 300 &&
	p=$(stage_pid read) && test -n "$p" && kill -9 "$p" &&
	{ wait $fp; rc=$?; } &&
	test $rc = 2 &&
	grep -q "stage .read. (fp-perfdata) killed by signal SIGKILL" err &&
	grep -q "stopped after .*(incomplete: the source stage .read. failed and the source of a COMMAND is not restarted (it would run the COMMAND again)" err &&
	test $(fp-read -q cmd/recording.fp.gz | fp-bucket | sed -n "s/^I	bucket	samples=\([0-9]*\)	.*/\1/p") -gt 0 &&
	summary_is_exact err cmd
'

test_expect_success 'SIGKILL of the runner takes perf, its workload and the workload'"'"'s children with it' '
	a=7781$$ b=7782$$	# the shell and ASan runs of this test run at once
	rm -rf orph &&
	flamepipe live -F 99 --no-term -o orph -- sh -c "sleep $a & sleep $b; wait" >out.txt 2>err &
	fp=$! &&
	wait_for "pgrep -f \"^sleep $b\\\$\"" 300 &&
	kill -9 $fp &&
	wait_for "! pgrep -f \"^sleep ($a|$b)\\\$\" && ! pgrep -f \"^perf record.*sleep $a \"" 100 ||
	{ pgrep -af "sleep 778"; kill $(pgrep -f "^sleep ($a|$b)\$") 2>/dev/null; false; }
'

test_done
