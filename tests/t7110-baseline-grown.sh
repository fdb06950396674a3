#!/bin/sh
test_description='fp-baseline: a capture whose second half adds a hot function shows it grown against the first half'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-baseline.sh"
test_tags perf

# A real capture: 3 s in $OLD, then 3 s in $NEW. The first 2 s of the
# heatmap axis (which starts at the first sample's second) are all $OLD.
capture() {
	perf record --no-bpf-event --no-buildid-cache -g -F 499 -o cap.data -- "$SWITCH" 3 3 mark \
		2>record.err >/dev/null &&
	perf script -i cap.data >cap.perf 2>script.err && test -s cap.perf
}
need_capture 'real capture' capture

test_expect_success 'baseline = the first 2 s of the stream: the new function grew, the old shrank' '
	bl_chain --from 0 --to 2 --top 5 2>err &&
	cat err && bl_grew err
'

test_expect_success 'baseline = a range of an earlier capture (perf.data): the same' '
	bl_chain --baseline cap.data --to 2 --top 5 2>err &&
	bl_grew err
'

test_expect_success 'baseline = perf script text of it, and a recording of it: the same' '
	bl_chain --baseline cap.perf --to 2 2>err && bl_grew err &&
	fp-perfdata -q cap.data | fp-record --output rec.fp.gz >/dev/null &&
	bl_chain --baseline rec.fp.gz --to 2 2>err && bl_grew err
'

test_expect_success 'baseline = a folded file (stack count lines): the same' '
	fp-perfdata -q cap.data | fp-bucket | fp-range --history 0 --to 2 |
		fp-fold --plain --all-events >first.folded &&
	grep -q "$OLD [0-9]*\$" first.folded &&
	bl_chain --baseline first.folded 2>err && bl_grew err
'

test_expect_success 'a range of the capture with no samples: exit 1, nothing to compare against' '
	{ bl_chain --baseline cap.data --from 100 --to 200 2>err; test $? = 1; } &&
	grep "cap.data: no samples in that range: nothing to compare against" err
'

test_expect_success 'shares, not counts: the baseline twice as long gives the same points' '
	awk "{ \$NF = \$NF * 2; print }" first.folded >double.folded &&
	bl_chain --baseline first.folded 2>a && bl_chain --baseline double.folded 2>b &&
	bl_row grew "$NEW" a >ra && bl_row grew "$NEW" b >rb && test_cmp ra rb
'

test_expect_success '--alert: one line, once, naming the function and its shares' '
	bl_chain --from 0 --to 2 --alert 20 --top 0 2>err &&
	cat err &&
	test "$(grep -c "alert:" err)" = 1 &&
	grep -q "^fp-baseline: alert: function $NEW grew +[0-9.]* points: [0-9.]*% of the last 1.0 s, 0.0% of the baseline (at [0-9.]* s)\$" err
'

test_expect_success '--by stack: the alert names the whole stack' '
	bl_chain --from 0 --to 2 --alert 20 --by stack --top 0 2>err &&
	test "$(grep -c "alert:" err)" = 1 &&
	grep -q "alert: stack switch-phases;.*;$NEW grew" err
'

test_expect_success 'a stage of a pipeline file (flamepipe run): the alert and the report' '
	cat >base.pipeline <<-\EOF &&
	read     fp-perfdata ${INPUT}
	bucket   fp-bucket
	fold     fp-fold --pass-samples --all-events
	baseline fp-baseline --from 0 --to 2 --alert 20
	render   fp-render --outdir ${OUTDIR}
	EOF
	flamepipe run -q base.pipeline --input cap.data --outdir rep 2>err &&
	test "$(grep -c "alert: function $NEW grew" err)" = 1 &&
	bl_grew err &&
	grep -q "$NEW" rep/stacks.folded
'

# thin STEPS PER_STEP: a stream whose steps of 250 ms each hold PER_STEP
# samples, one in four of a function the baseline never had.
thin() {
	awk -v steps="$1" -v per="$2" 'BEGIN {
		printf "G\t50\t100\nD\t0\t-uu\tw;main;old\nD\t1\t-uu\tw;main;new\n"
		for (s = 0; s < steps; s++)
			for (i = 0; i < per; i++)
				printf "R\t%d\t%.0f\t1\t1\t0\t1\t1\tcpu-clock\tw\n", i % 4 == 0,
					100e9 + s * 250e6 + i * 1000
	}'
}

test_expect_success 'a window of fewer samples than --min-samples is not compared: no alert' '
	printf "w;main;old 1000\n" >old.folded &&
	thin 8 4 | fp-baseline --baseline old.folded --alert 20 --top 0 >out 2>err &&
	cat err && ! grep -q "alert:" err &&
	grep -q "no window held 50 samples (--min-samples): no alert was possible" err &&
	grep -q "evaluations=0	thin_windows=[1-9]" out
'

test_expect_success 'the same windows with --min-samples 4: the new function alerts' '
	thin 8 4 | fp-baseline --baseline old.folded --alert 20 --top 0 --min-samples 4 \
		>/dev/null 2>err &&
	test "$(grep -c "alert: function new grew +25.0 points" err)" = 1
'

test_expect_success 'full windows (60 samples a step): compared, and the 25 % alerts' '
	thin 8 60 | fp-baseline --baseline old.folded --alert 20 --top 0 >/dev/null 2>err &&
	test "$(grep -c "alert: function new grew" err)" = 1
'

# The first sample of $NEW on the heatmap axis (seconds): the switch.
switch_at() { # STREAM (fp-fold --pass-samples output)
	awk -F "	" -v new="$NEW" '
		$1 == "G" && base == "" { base = $3 }
		$1 == "D" && $4 ~ (";" new "$") { id[$2] = 1 }
		$1 == "R" && ($2 in id) { printf "%.3f\n", $3 / 1e9 - base; exit }' "$1"
}

test_expect_success 'the alert comes within 2 s of the switch, on the capture own clock' '
	bl_chain --from 0 --to 2 --alert 20 --top 0 2>err &&
	at=$(sed -n "s/.*(at \([0-9.]*\) s)\$/\1/p" err) &&
	fp-perfdata -q cap.data | fp-bucket | fp-fold --pass-samples >stream &&
	switch=$(switch_at stream) &&
	delay=$(echo "$at $switch" | awk "{ printf \"%.2f\", \$1 - \$2 }") &&
	echo "switch at $switch s, alert at $at s (window end): $delay s after" &&
	echo "$delay" | awk "{ exit !(\$1 >= 0 && \$1 <= 2) }"
'
test_done
