#!/bin/sh
test_description='fp-fold timed snapshots on a live stream, not in a batch run'
. "$(dirname "$0")/test-lib.sh"

sample() { # comm frame
	printf "S\t1\t1\t1\t0\t1\tcpu-clock\t%s\tu\t%s\n" "$1" "$2"
}
snapshots() { grep -c "^C	end	fold" out; }

test_expect_success 'a batch run over a file writes only the final snapshot' '
	awk "BEGIN { for (i = 0; i < 200000; i++) printf \"S\t%d\t1\t1\t0\t1\tcpu-clock\tapp\tuu\tmain;f%d\n\", i, i % 500 }" >big.S &&
	fp-fold --interval 1 big.S >out &&
	test "$(snapshots)" = 1
'

# Starts fp-fold on a FIFO written through fd 3 (each test is a subshell,
# so each one starts its own).
start_live() {
	# out is emptied here: the background redirection happens later, and
	# a wait_for must not see the previous test's snapshot
	rm -f in && mkfifo in && : >out &&
	{ fp-fold --interval 50 "$@" <in >out 2>err & echo $! >pid; } &&
	exec 3>in
}
# Reaps fp-fold: killed, it still writes its final snapshot, which must
# reach this test's out before the next test empties out and starts its own.
stop_live() { exec 3>&-; kill "$(cat pid)" 2>/dev/null; wait "$(cat pid)" 2>/dev/null; }

test_expect_success 'live: a snapshot follows new samples within the interval' '
	start_live && test_when_finished stop_live &&
	sample app f >&3 &&
	wait_for "grep -q \"^C	end	fold	1	1\" out" 50 &&
	sample app g >&3 && sample app g >&3 &&
	wait_for "grep -q \"^C	end	fold	2	3\" out" 50 &&
	grep -qx "F	2	app;g" out
'

test_expect_success 'live: no new snapshot while nothing changes' '
	start_live && test_when_finished stop_live &&
	sample app f >&3 &&
	wait_for "grep -q \"^C	end	fold	1	1\" out" 50 &&
	sleep 0.3 &&
	test "$(snapshots)" = 1
'

# fp-fold's CPU seconds so far (utime + stime of /proc/PID/stat)
cpu_of() { awk -v hz="$(getconf CLK_TCK)" "{ printf \"%.2f\", (\$14 + \$15) / hz }" "/proc/$1/stat"; }

test_expect_success 'live: snapshots of a large table are spaced to a twentieth of a core, and still come' '
	awk "BEGIN { for (i = 0; i < 40000; i++) { printf \"S\t%d\t1\t1\t0\t1\tcpu-clock\tapp\tuuuuuuuuuuuuuuuuuuuuuuuu\t\", i;
		for (f = 0; f < 24; f++) printf \"%sframe_%d_of_stack_%d\", f ? \";\" : \"\", f, i; print \"\" } }" >table.S &&
	start_live && test_when_finished stop_live &&
	cat table.S >&3 &&
	wait_for "grep -q \"^C	end	fold	40000	40000\" out" 600 &&
	before=$(cpu_of "$(cat pid)") && t0=$(date +%s.%N) &&
	i=0 && while [ $i -lt 40 ]; do sample app f >&3; sleep 0.1; i=$((i + 1)); done &&
	wait_for "grep -q \"^C	end	fold	40001	40040\" out" 600 &&
	after=$(cpu_of "$(cat pid)") && t1=$(date +%s.%N) &&
	n=$(snapshots) &&
	echo "# $((n - 1)) snapshots in the trickle, fp-fold CPU $before -> $after s over $t0 .. $t1" &&
	test "$n" -ge 3 &&
	awk -v b="$before" -v a="$after" -v t0="$t0" -v t1="$t1" "BEGIN { exit !(a - b <= 0.10 * (t1 - t0)) }"
'

test_expect_success 'live: a reset is published as an empty snapshot' '
	start_live && test_when_finished stop_live &&
	sample app f >&3 &&
	wait_for "grep -q \"^C	end	fold	1	1\" out" 50 &&
	printf "C\treset\n" >&3 &&
	wait_for "grep -q \"^C	end	fold	0	0\" out" 50 &&
	grep -A1 "^C	reset" out | tail -n 1 | grep -qx "C	begin	fold"
'

test_expect_success 'live: end of input writes the final snapshot and exits 0' '
	start_live && test_when_finished stop_live &&
	sample app f >&3 &&
	wait_for "grep -q \"^C	end	fold	1	1\" out" 50 &&
	sample app h >&3 &&
	exec 3>&- &&
	{ wait $(cat pid); test $? = 0; } &&
	tail -n 4 out >got &&
	printf "%s\n" "F	1	app;f" "F	1	app;h" "C	end	fold	2	2" \
		"I	fold	samples=2	stacks=2	total=2	dropped_event=0	bad_samples=0	resets=0" >expect &&
	test_cmp expect got
'

test_expect_success 'SIGTERM ends the input: final snapshot, exit 0' '
	start_live && test_when_finished stop_live &&
	sample app x >&3 &&
	wait_for "grep -q \"^C	end	fold	1	1\" out" 50 &&
	kill -TERM $(cat pid) &&
	{ wait $(cat pid); test $? = 0; } &&
	test "$(snapshots)" = 2 &&
	tail -n 3 out | head -n 1 | grep -qx "F	1	app;x"
'

test_done
