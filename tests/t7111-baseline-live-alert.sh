#!/bin/sh
test_description='flamepipe live --baseline --alert: a real workload that switches functions gets one alert line within 2 s'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-baseline.sh"
. "$TOP/tests/lib-perfdata.sh"
test_tags perf
need_perf_sampling 'live alert'

# The workload spins 4 s in $OLD, then 4 s in $NEW; perf samples it at
# 199 Hz. The delay is wall clock: from the switch (the workload's own
# mark) to the moment the alert line is on flamepipe's stderr, measured
# every 20 ms; the test prints it (a "# the alert line came ..." line).

test_expect_success 'baseline = the first 2 s of this capture: one alert within 2 s of the switch' '
	bl_live_alert --baseline-from 0 --baseline-to 2 --alert 20 &&
	cat err &&
	test "$(grep -c "alert:" err)" = 1 &&
	grep -q "alert: function $NEW grew" err &&
	delay=$(bl_delay) && echo "$delay" >delay.range &&
	echo "$delay" | awk "{ exit !(\$1 > 0 && \$1 <= 2) }"
'
[ -s delay.range ] && say "# the alert line came $(cat delay.range) s after the switch (baseline: a range)"

test_expect_success 'baseline = an earlier capture file: one alert within 2 s of the switch' '
	pd_record_opts "" before.data -B --no-bpf-event -g -F 199 -- "$SWITCH" 2 0 /dev/null &&
	bl_live_alert --baseline before.data --alert 20 &&
	cat err &&
	test "$(grep -c "alert:" err)" = 1 &&
	grep -q "alert: function $NEW grew" err &&
	delay=$(bl_delay) && echo "$delay" >delay.file &&
	echo "$delay" | awk "{ exit !(\$1 > 0 && \$1 <= 2) }"
'
[ -s delay.file ] && say "# the alert line came $(cat delay.file) s after the switch (baseline: a file)"

test_expect_success 'the old function never alerts, and the end summary shows the change' '
	! grep -q "alert: function $OLD" err &&
	bl_row grew "$NEW" err >row && test -s row
'

test_expect_success 'with -o DIR too: the alert, and the report is whole (fp-fold passes samples)' '
	bl_live_alert --baseline-from 0 --baseline-to 2 --alert 20 -o rep &&
	test "$(grep -c "alert:" err)" = 1 &&
	for f in index.html flame.svg heatmap.json stacks.folded recording.fp.gz; do
		test -s "rep/$f" || { echo "no rep/$f"; return 1; }
	done &&
	grep -q "$NEW" rep/stacks.folded
'
if command -v script >/dev/null 2>&1; then
	test_expect_success 'on a terminal: the alert line is there, no heatmap drawn over it' '
		script -qfec "flamepipe live -g -F 199 --baseline-from 0 --baseline-to 2 --alert 20 \
			-- $SWITCH 3 3 /dev/null" /dev/null >tty.out 2>&1 &&
		test "$(grep -c "alert: function $NEW grew" tty.out)" = 1 &&
		! grep -q "flamepipe heatmap" tty.out
	'
else
	test_skip 'on a terminal' 'needs script (util-linux) for a pseudo-terminal'
fi
test_done
