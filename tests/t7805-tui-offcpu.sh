#!/bin/sh
test_description='fp-tui: E switches to the off-CPU event, its tree and heatmap in time blocked'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf tmux
. "$TOP/tests/lib-perfdata.sh"
. "$TOP/tests/lib-tui.sh"
pd_need_perf
# as t1161: -B (no build-ids: perf 6.1 aborts when sessions write the cache at once)
if ! perf record -q -B -e sched:sched_switch -g --switch-events -o probe-tp.data -- true \
	>probe-tp.err 2>&1; then
	test_skip 'off-CPU in the terminal view' "perf cannot record sched:sched_switch: $(head -n 1 probe-tp.err)"
	test_done
fi
SLEEPER=$TOP/build/tests/offcpu-sleeper

# On-CPU samples and every switch-out: 10 periods of 100 ms, 50 ms blocked
# in offcpu_known_sleep and 50 ms in offcpu_other_sleep
# (tests/helper/offcpu-sleeper.c), its own account of each sleep in truth.
pd_record off.data -B -k CLOCK_MONOTONIC -e cpu-clock -e sched:sched_switch -g --switch-events -- \
	"$SLEEPER" 10 100 50 50 truth || exit 1
blocked_ms=$(awk '{ s += $3 - $2 } END { printf "%.1f\n", s / 1e6 }' truth)
# within A B PCT: |A - B| <= PCT % of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'; }

test_expect_success 'E shows offcpu: the tree in time blocked, the sleeps half each, then back to samples' '
	test_when_finished tui_stop &&
	tui_start &&
	tui_run "flamepipe report off.data --tui; echo exit=\$? >rc" &&
	# the whole capture read (the off-CPU pieces come last)
	tui_wait "off.data  report  .*range all: [0-9]* samples" &&
	tui_has "samples  frame  (cpu-clock)" &&
	tui_keys E && tui_wait "range all: [0-9.]*ms blocked" &&
	tui_has "blocked  frame  (offcpu: time blocked, not samples)" &&
	root=$(tui_root_total) && echo "# root $root, the workload blocked $blocked_ms ms" &&
	within "${root%ms}" "$blocked_ms" 10 &&
	# the two sleeps, each about half of it (a search shows each in the tree)
	for fn in offcpu_known_sleep offcpu_other_sleep; do
		tui_keys / && tui_tmux send-keys -t t -l $fn && tui_keys Enter &&
		tui_wait "\* *[0-9.]*% .* $fn\$" &&
		share=$(tui_screen | awk -v f=$fn "\$1 == \"*\" && \$NF == f { sub(\"%\", \"\", \$2); print \$2; exit }") &&
		echo "# $fn $share %" && within "$share" 50 15 || return 1
	done &&
	# E again: the on-CPU view, in samples
	tui_keys E && tui_wait "range all: [0-9]* samples" &&
	tui_keys q && wait_for "test -s rc" 100 && grep -q "exit=0" rc
'

# heat_cells: the heatmap's drawn cells (NO_COLOR: a glyph each), the
# lines above the axis line less their 7-column labels
heat_cells() {
	tui_screen | awk 'NR > 1 && /^0s / { exit } NR > 1 { s = substr($0, 8); gsub(/[ ^]/, "", s); n += length(s) } END { print n + 0 }'
}

test_expect_success 'E: the heatmap is of time blocked, a cell for each 100 ms the workload slept' '
	test_when_finished tui_stop &&
	tui_start && tui_tmux resize-window -t t -x 80 -y 40 &&
	tui_run "NO_COLOR=1 flamepipe report off.data --tui --rows 10; echo exit=\$? >rc" &&
	tui_wait "off.data  report  .*range all: [0-9]* samples" &&
	on=$(heat_cells) &&
	tui_keys E && tui_wait "range all: [0-9.]*ms blocked" &&
	off=$(heat_cells) && echo "# cells drawn: on-CPU $on, off-CPU $off" &&
	# 1 s blocked in 100 ms cells: about 10 (a second boundary may split one)
	test "$off" -ge 9 && test "$off" -gt "$on" &&
	tui_keys q && wait_for "test -s rc" 100 && grep -q "exit=0" rc
'

test_expect_success 'flamepipe live --off-cpu: E shows the blocked time of the capture' '
	test_when_finished tui_stop &&
	tui_start &&
	tui_run "flamepipe live --off-cpu -F 99 -- $SLEEPER 20 100 50 50 truth.live; echo exit=\$? >rc" &&
	tui_wait "live, ended" 300 &&
	tui_keys E && tui_wait "range all: [0-9.]*ms blocked" &&
	tui_has "offcpu_[a-z]*_sleep" &&
	root=$(tui_root_total) &&
	ms=$(awk "{ s += \$3 - \$2 } END { printf \"%.1f\", s / 1e6 }" truth.live) &&
	echo "# root $root, the workload blocked $ms ms" &&
	within "${root%ms}" "$ms" 10 &&
	tui_keys q && wait_for "test -s rc" 200 && grep -q "exit=0" rc
'

test_done
