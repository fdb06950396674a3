#!/bin/sh
test_description='off-CPU: blocked time from sched_switch, in the heatmap cells and the range flame graph'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
# -B: no build-ids (perf 6.1 aborts in util/build-id.c when sessions
# write its build-id cache at once; fp-perfdata reads the files anyway)
if ! perf record -q -B -e sched:sched_switch -g --switch-events -o probe-tp.data -- true \
	>probe-tp.err 2>&1; then
	test_skip 'off-CPU captures' "perf cannot record sched:sched_switch: $(head -n 1 probe-tp.err)"
	test_done
fi
SLEEPER=$TOP/build/tests/offcpu-sleeper

# 20 periods of 100 ms on one thread: 50 ms blocked in offcpu_known_sleep,
# 50 ms in offcpu_other_sleep (tests/helper/offcpu-sleeper.c; no running
# part, so a loaded machine that runs it late shifts both sleeps alike).
# perf's clock is CLOCK_MONOTONIC (-k), the workload's: its own account of
# each sleep (truth: name start end, ns) is the independent measure,
# however late a loaded machine ran it again. 100 ms cells (--rows 10),
# so each full cell holds one period.
PERIODS=20
pd_record off.data -B -k CLOCK_MONOTONIC -e sched:sched_switch -g --switch-events -- \
	"$SLEEPER" $PERIODS 100 50 50 truth || exit 1
fp-perfdata -q --off-cpu-rows 10 off.data >stream

# sleeps_in DEADLINE FROM TO [NAME]: ns of the workload's sleeps (of NAME)
# within [FROM, TO); DEADLINE 1 ends each at its deadline (the file's 4th
# column) when that came before its return.
sleeps_in() {
	awk -v d="$1" -v f="$2" -v t="$3" -v n="${4:-}" '
		n == "" || $1 == n { e = d && $4 < $3 ? $4 : $3
			a = $2 > f ? $2 : f; b = e < t ? e : t; if (b > a) s += b - a }
		END { printf "%.0f\n", s }' truth
}
# truth_in FROM TO [NAME]: the sleeps as the workload saw them
truth_in() { sleeps_in 0 "$@"; }
# blocked_in FROM TO [NAME]: the sleeps ended at their deadlines. Woken
# there, the thread is off-CPU until it runs again, but the kernel may
# switch it in and then run it 10-15 ms before the syscall returns (seen
# on a loaded VM: a switch-in at the deadline, a preempting switch-out 15
# ms later, then the clock read): that time is on-CPU, in the workload's
# own account of the sleep and rightly not in the off-CPU time.
blocked_in() { sleeps_in 1 "$@"; }
# within A B PCT: |A - B| <= PCT % of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'; }
# bracketed A LO HI PCT: LO - PCT % <= A <= HI + PCT %
bracketed() { awk -v a="$1" -v lo="$2" -v hi="$3" -v p="$4" 'BEGIN { exit !(hi > 0 && a * 100 >= lo * (100 - p) && a * 100 <= hi * (100 + p)) }'; }

test_expect_success 'the sched_switch samples become offcpu samples, named in C events' '
	grep "^C	events" stream && grep -q "^C	events	offcpu\$" stream &&
	test "$(awk -F "\t" "\$1 == \"S\" && \$7 != \"offcpu\"" stream | wc -l)" = 0 &&
	test "$(grep -c "^S" stream)" -ge $((PERIODS * 2))
'

test_expect_success 'each blocked interval is one off-CPU interval; none is left unpaired' '
	grep "^I	read	" stream | tr "\t" "\n" >info &&
	grep -qx "offcpu_unpaired=0" info && grep -qx "offcpu_bad=0" info &&
	n=$(sed -n "s/^offcpu_intervals=//p" info) && grep "^offcpu_" info &&
	blocked=$(awk "\$3 - \$2 > 1000000 { n++ } END { print n + 0 }" truth) &&
	echo "# $n intervals; the workload blocked more than 1 ms $blocked times" &&
	test "$n" -ge "$blocked" && test "$n" -le $((PERIODS * 2 + 4))
'

test_expect_success 'no piece of an interval spans a heatmap cell (100 ms at --off-cpu-rows 10)' '
	awk -F "\t" "\$1 == \"S\" && int(\$2 / 1e8) != int((\$2 + \$6 - 1) / 1e8) { bad++ } END { exit bad > 0 }" stream
'

test_expect_success 'every full cell of the off-CPU heatmap holds the blocked time within 10 %' '
	fp-bucket --rows 10 --event offcpu <stream >bucket &&
	base=$(awk -F "\t" "\$1 == \"G\" { print \$3 }" bucket | tail -n 1) &&
	first=$(awk "NR == 1 { print \$2 }" truth) && last=$(awk "END { print \$3 }" truth) &&
	awk -F "\t" "\$1 == \"H\"" bucket | sort -k2,2n -k3,3n -u >cells &&
	: >checked &&
	while IFS="	" read -r tag col row count; do
		from=$(( (base + col) * 1000000000 + row * 100000000 )) && to=$((from + 100000000)) &&
		test "$from" -gt "$first" && test "$to" -lt "$last" || continue
		want=$(truth_in $from $to) && blocked=$(blocked_in $from $to) &&
		echo "cell $col.$row: $count ns, the workload saw $want, $blocked until its deadlines" >>checked &&
		bracketed "$count" "$blocked" "$want" 10 || { cat checked; exit 1; }
	done <cells &&
	test "$(wc -l <checked)" -ge $((PERIODS - 4))
'

test_expect_success 'the known function'"'"'s blocked time per cell: what the workload saw (10 %), 50 ms on average' '
	awk -F "\t" "\$1 == \"S\" && \$10 ~ /;offcpu_known_sleep;/ { c = int(\$2 / 1e8); s[c] += \$6 }
		END { for (c in s) print c, s[c] }" stream | sort -n >known-cells &&
	sed "1d;\$d" known-cells >inner &&
	test "$(wc -l <inner)" -ge $((PERIODS - 4)) &&
	while read -r c ns; do
		from=$((c * 100000000)) && to=$((from + 100000000)) &&
		want=$(truth_in $from $to known) && blocked=$(blocked_in $from $to known) &&
		bracketed "$ns" "$blocked" "$want" 10 ||
		{ echo "cell $c: $ns ns, the workload saw $want, $blocked until its deadlines"; exit 1; }
	done <inner &&
	mean=$(awk "{ s += \$2 } END { printf \"%.0f\", s / NR }" inner) &&
	echo "# mean blocked in offcpu_known_sleep per 100 ms cell: $mean ns" &&
	within "$mean" 50000000 10
'

test_expect_success 'the range flame graph has the known function with the share of the blocked time the workload saw' '
	base=$(awk -F "\t" "\$1 == \"G\" { print \$3 }" bucket | tail -n 1) &&
	fp-range --from 0.5 --to 1.5 <stream | fp-fold --all-events >fold &&
	awk -F "\t" "\$1 == \"F\"" fold >f &&
	known=$(awk -F "\t" "\$3 ~ /;offcpu_known_sleep;/ { s += \$2 } END { printf \"%.0f\", s }" f) &&
	total=$(awk -F "\t" "{ s += \$2 } END { printf \"%.0f\", s }" f) &&
	from=$(( base * 1000000000 + 500000000 )) && to=$((from + 1000000000)) &&
	want_known=$(truth_in $from $to known) && want_total=$(truth_in $from $to) &&
	echo "# range: known $known of $total ns; the workload: $want_known of $want_total" &&
	within "$known" "$want_known" 10 && within "$total" "$want_total" 10 &&
	within "$((known * 1000 / total))" "$((want_known * 1000 / want_total))" 10 &&
	# by design half; a loaded machine that wakes the thread late shortens the
	# other sleep (its deadline is absolute), so the expected share is the
	# workload'"'"'s own, and half only roughly
	test "$((known * 100 / total))" -ge 40 && test "$((known * 100 / total))" -le 70
'

test_expect_success 'fp-fold weighs offcpu by its time without --weight period' '
	fp-fold <stream | awk -F "\t" "\$1 == \"C\" && \$2 == \"end\" { print \$5 }" >total &&
	grep -q "^offcpu_ns=$(cat total)\$" info
'

test_expect_success '--off-cpu off writes the tracepoint samples as they are' '
	fp-perfdata -q --off-cpu off off.data >raw &&
	grep -q "^C	events	sched:sched_switch\$" raw &&
	test "$(awk -F "\t" "\$1 == \"S\" && \$7 == \"offcpu\"" raw | wc -l)" = 0
'

test_expect_success 'a per-task capture without --switch-events says its blocked threads were not paired' '
	pd_record noswitch.data -B -e sched:sched_switch -g -- "$SLEEPER" 3 100 50 25 &&
	fp-perfdata noswitch.data >ns 2>ns.err &&
	grep -q "switch-in" ns.err &&
	grep "^I	read	" ns | tr "\t" "\n" | grep -q "^offcpu_unpaired=[1-9]"
'

# a thread woken by another of its process: the wakeup is recorded (the
# waker is a recorded task), with the waker's stack. Both wakeup
# tracepoints are recorded: sched_waking is the one to pair (it fires in
# the waker; sched_wakeup, from an idle CPU's IPI, is often missing).
pd_record wake.data -B -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \
	-g --switch-events -- "$TOP/build/tests/offcpu-waker" 10 30 || exit 1
fp-perfdata -q wake.data >wake
wait_ns=$(awk -F "\t" '$1 == "S" && $7 == "offcpu" && $10 ~ /;offcpu_wait_token;/ { s += $6 }
	END { printf "%.0f", s }' wake)
woken=$(grep "^I	read	" wake | tr "\t" "\n" | sed -n "s/^offcpu_woken=//p")

# The same pairing done independently on perf script's text: a blocked
# switch-out opens an interval, the first sched_waking of its tid after
# it ends it, else its switch-in does. Prints: intervals ended by a
# waking; ns blocked in offcpu_wait_token; ns of all intervals ended by
# a waking; of those ended from offcpu_wake_peer; how many of those.
perf script -i wake.data --ns --show-switch-events -F tid,time,event,trace,ip,sym 2>/dev/null |
awk '
function t(s) { sub(":$", "", s); split(s, a, "."); return a[1] * 1e9 + a[2] }
# a callchain line starts with a TAB; an event line may start with the
# spaces that right-align a short tid
/^\t/ {
	if (cur_out && $NF == "offcpu_wait_token") token[cur_out] = 1
	if (cur_wake && $NF == "offcpu_wake_peer") peer[cur_wake] = 1
	next
}
{ cur_out = cur_wake = 0; tid = $1; now = t($2) }
$3 == "sched:sched_switch:" {
	for (i = 4; i <= NF; i++) if ($i ~ /^prev_state=/) st = substr($i, 12)
	if (st !~ /^[RXZ]/) { open[tid] = now; woke[tid] = token[tid] = peer[tid] = 0; cur_out = tid }
	next
}
$3 == "sched:sched_waking:" {
	for (i = 4; i <= NF; i++) if ($i ~ /^pid=/) p = substr($i, 5)
	if (open[p] && !woke[p]) { woke[p] = now; cur_wake = p }
	next
}
$3 == "PERF_RECORD_SWITCH" && $4 == "IN" && open[tid] {
	end = woke[tid] ? woke[tid] : now
	if (token[tid]) ns += end - open[tid]
	if (woke[tid]) { n++; wns += end - open[tid] }
	if (peer[tid]) { pn++; pns += end - open[tid] }
	open[tid] = 0
}
END { printf "%d %.0f %.0f %.0f %d\n", n, ns, wns, pns, pn }' >wake.ref
read -r ref_woken ref_ns ref_woke_ns ref_peer_ns ref_peer <wake.ref

test_expect_success 'each blocked read ends at the sched_waking of it, as perf script pairs them' '
	echo "# woken: $woken (perf script: $ref_woken); in offcpu_wait_token: $wait_ns ns ($ref_ns); woken by the peer: $ref_peer of 10" &&
	test "$woken" = "$ref_woken" && test "${ref_peer:-0}" -ge 1 &&
	within "$wait_ns" "$ref_ns" 0.1
'

test_expect_success 'both wakeup tracepoints recorded: sched_waking is paired, sched_wakeup not written' '
	test "$(awk -F "\t" "\$1 == \"S\" && \$7 ~ /sched/" wake | wc -l)" = 0 &&
	grep -q "^C	events	offcpu	wakeup\$" wake
'

test_expect_success 'the wakeup samples have the waker'"'"'s stack and the time it ended' '
	woke_ns=$(awk -F "\t" "\$1 == \"S\" && \$7 == \"wakeup\" { s += \$6 } END { printf \"%.0f\", s }" wake) &&
	peer_ns=$(awk -F "\t" "\$1 == \"S\" && \$7 == \"wakeup\" && \$10 ~ /;offcpu_wake_peer;/ { s += \$6 }
		END { printf \"%.0f\", s }" wake) &&
	echo "# wakeup ns: $woke_ns ($ref_woke_ns), from offcpu_wake_peer: $peer_ns ($ref_peer_ns)" &&
	within "$woke_ns" "$ref_woke_ns" 0.1 && within "$peer_ns" "$ref_peer_ns" 0.1
'

test_expect_success 'a system-wide capture: switch-ins from next_pid, the sleeps end at their timer wakeups' '
	pd_record_opts "" sys.data -a -B -m 1024 -k CLOCK_MONOTONIC --switch-events -e sched:sched_switch \
		-e sched:sched_waking -g -- \
		"$SLEEPER" 5 100 50 50 systruth &&
	fp-perfdata -q sys.data >sys &&
	grep "^I	read	" sys | tr "\t" "\n" >sysinfo &&
	awk -F = "\$1 == \"offcpu_woken\" { exit !(\$2 > 0) }" sysinfo &&
	got=$(awk -F "\t" "\$1 == \"S\" && \$7 == \"offcpu\" && \$10 ~ /;offcpu_known_sleep;/ { s += \$6 }
		END { printf \"%.0f\", s }" sys) &&
	saw=$(awk "\$1 == \"known\" && \$4 > \$2 { s += \$4 - \$2 } END { printf \"%.0f\", s }" systruth) &&
	echo "# system-wide: $got ns in offcpu_known_sleep, blocked until its deadlines $saw" &&
	grep -E "^(offcpu_|lost_)" sysinfo | sed "s/^/# /" &&
	lost=$(awk -F = "\$1 == \"lost_events\" { print \$2 }" sysinfo) &&
	if test "$lost" -gt 0
	then
		# a loaded machine: perf dropped events (wakeups, switch-ins), so
		# intervals end late; the figure cannot be checked, the warning can
		echo "# perf lost $lost events: the blocked time is not compared" &&
		grep -q "^W	.*	perf lost [0-9]* events here" sys
	else
		within "$got" "$saw" 10
	fi
'

test_expect_success 'flamepipe report of an off-CPU-only capture: its flame graph is blocked time' '
	flamepipe report off.data -o rep --rows 10 2>rep.err &&
	awk "{ s += \$NF } END { printf \"%.0f\\n\", s }" rep/stacks.folded >rep.total &&
	fp-perfdata -q --off-cpu-rows 10 off.data | grep "^I	read	" | tr "\t" "\n" |
		sed -n "s/^offcpu_ns=//p" >want.total &&
	test_cmp want.total rep.total &&
	grep -q ";offcpu_known_sleep;" rep/stacks.folded
'

# on-CPU and off-CPU in one capture, as flamepipe live --off-cpu records it
pd_record both.data -B -k CLOCK_MONOTONIC -e cpu-clock/period=1000000,name=cpu-clock/ \
	-e sched:sched_switch -g --switch-events -- "$SLEEPER" 10 100 50 25 || exit 1

test_expect_success 'a report of both: the report counts cpu-clock, its page holds offcpu for the views' '
	flamepipe report both.data -o both 2>both.err &&
	fp-perfdata -q both.data | awk -F "\t" "\$1 == \"S\" && \$7 == \"cpu-clock\"" | wc -l >on.n &&
	awk "{ s += \$NF } END { print s }" both/stacks.folded >folded.n &&
	test_cmp on.n folded.n &&
	sed -n "s|.*<script type=\"application/json\" id=\"fp_timeline\">\(.*\)</script>.*|\1|p" \
		both/index.html >tl.json &&
	jq -e "[.labels[] | select(. == \"offcpu\")] | length == 1" tl.json >/dev/null &&
	jq -e ".capture_events[0].name == \"cpu-clock\" and .capture_events[1].name == \"offcpu\"" tl.json >/dev/null
'

test_expect_success 'a report of both: no warning that offcpu samples were dropped' '
	! grep -q "dropping offcpu" both.err
'

test_done
