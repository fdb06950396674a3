#!/bin/sh
test_description='flamepipe live --off-cpu: on-CPU and off-CPU time in the recording and the live views'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-perfdata.sh"
. "$TOP/tests/lib-serve.sh"
need_perf_sampling 'live off-CPU'
# -B: no build-ids (perf 6.1 aborts in util/build-id.c when sessions
# write its build-id cache at once)
if ! perf record -q -B -e sched:sched_switch -g --switch-events -o probe-tp.data -- true \
	>probe-tp.err 2>&1; then
	test_skip 'live off-CPU' "perf cannot record sched:sched_switch: $(head -n 1 probe-tp.err)"
	test_done
fi
SLEEPER=$TOP/build/tests/offcpu-sleeper

test_expect_success '--off-cpu needs the perf source' '
	{ flamepipe live --off-cpu --source bpftrace --duration 1 -o x 2>err; test $? = 100; } &&
	grep -q "off-cpu: needs --source perf" err
'

# 15 periods of 100 ms: 50 ms blocked in offcpu_known_sleep, 25 ms in
# offcpu_other_sleep, 25 ms spinning (tests/helper/offcpu-sleeper.c); the
# view stays up after the capture (--keep-serving) to be asked. perf's
# clock is CLOCK_MONOTONIC, the workload's: its own account of its sleeps
# (truth) is the independent measure, however late a loaded machine ran it.
flamepipe live --off-cpu -g -F 199 --perf-arg -B --perf-arg -k --perf-arg CLOCK_MONOTONIC \
	--http 127.0.0.1:0 --keep-serving -o rec -- \
	"$SLEEPER" 15 100 50 25 truth >out 2>err &
live=$!
register_pid $live
wait_for 'grep -qs "listening on" out' 200 || { cat err; exit 1; }
URL=$(sed -n 's|.*listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' out)
ended() { get "/heatmap/?filename=live" >/dev/null && test "$(jq .ended body)" = true; }
wait_for ended 300 || { cat err; exit 1; }
# the independent sums: the recording's samples
fp-read -q rec/recording.fp.gz >stream
OFF_NS=$(awk -F '\t' '$1 == "S" && $7 == "offcpu" { s += $6 } END { printf "%.0f", s }' stream)
KNOWN_NS=$(awk -F '\t' '$1 == "S" && $7 == "offcpu" && $10 ~ /;offcpu_known_sleep;/ { s += $6 }
	END { printf "%.0f", s }' stream)
ON=$(awk -F '\t' '$1 == "S" && $7 == "cpu-clock"' stream | wc -l)
echo "# recording: $ON cpu-clock samples, $OFF_NS ns off-CPU ($KNOWN_NS in offcpu_known_sleep)"

test_expect_success 'the recording holds on-CPU samples and off-CPU time, cpu-clock first' '
	grep -q "^C	events	cpu-clock	offcpu" stream &&
	test "$ON" -gt 10 &&
	within() { awk -v a="$1" -v b="$2" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 10 <= b) }"; } &&
	saw=$(awk "{ s += \$3 - \$2 } END { printf \"%.0f\", s }" truth) &&
	saw_known=$(awk "\$1 == \"known\" { s += \$3 - \$2 } END { printf \"%.0f\", s }" truth) &&
	echo "# the workload saw $saw ns blocked, $saw_known in offcpu_known_sleep" &&
	within "$OFF_NS" "$saw" && within "$KNOWN_NS" "$saw_known"
'

test_expect_success 'the live heatmap counts cpu-clock by default, and lists offcpu in its picker' '
	test "$(get "/heatmap/?filename=live")" = 200 &&
	test "$(jq .counted body)" = "$ON" &&
	jq -r ".event_names[]" body >events && grep -qx offcpu events && grep -qx cpu-clock events
'

test_expect_success 'the offcpu event'"'"'s heatmap counts blocked nanoseconds' '
	test "$(get "/heatmap/?filename=live&event=offcpu")" = 200 &&
	test "$(jq .counted body)" = "$OFF_NS"
'

test_expect_success 'the offcpu flame graph weighs stacks by blocked time, the known function by its own' '
	test "$(get "/flamegraph/?filename=live&event=offcpu")" = 200 &&
	test "$(tree_total)" = "$OFF_NS" &&
	jq -n --stream "[inputs | select(length == 2 and .[0][-1] == \"n\" and .[1] == \"offcpu_known_sleep\")] | length" body >n &&
	test "$(cat n)" -ge 1 &&
	jq "[.. | objects | select(.n? == \"offcpu_known_sleep\") | .. | objects | .v? // 0] | add" body >kv &&
	test "$(cat kv)" = "$KNOWN_NS"
'

end_live $live
test_done
