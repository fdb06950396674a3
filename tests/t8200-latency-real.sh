#!/bin/sh
test_description='fp-latency measures a known 100 ms sleep between two real syscalls (perf and bpftrace)'
. "$(dirname "$0")/test-lib.sh"
# bpftrace 0.17 with -c caches user symbols per program and aborts
# (read_symlink /proc/PID/exe) on a sample of a process that has exited
# before it is printed: with other tests running alongside, most runs.
# Without the cache there is no such step.
export BPFTRACE_CACHE_USER_SYMBOLS=0

# The workload is not under test: the plain build even for the ASan suite
# (the sanitizer runtime makes syscalls of its own, getppid among them).
HELPERS=$TOP/build/tests
[ -x "$HELPERS/sleeper" ] || HELPERS=$TOP/build-asan/tests
ROUNDS=3
SLEEP_MS=100
# Bounds: the sleep is at least 100 ms (the lower bound, with tolerance);
# scheduling on 2 shared CPUs can add a lot (a loaded run saw 232 ms), never
# take away. The upper bound is what the sleeper itself measured from just
# before the first call to just after the second (its TIMES_FILE, one line
# a round, CLOCK_MONOTONIC ns) plus SLACK_NS: perf's clock is not
# CLOCK_MONOTONIC (bpftrace's nsecs is) and may drift from it by ppm.
MIN_NS=90000000
SLACK_NS=1000000
LIMIT=60
PAIR=sleep=syscalls:sys_enter_getppid,syscalls:sys_enter_getpgid

# check_intervals REPORT TSV TIMES: ROUNDS intervals, each at least the
# sleep and at most the sleeper's own measure of its round (TIMES, in
# order), and the report agrees with the TSV rows.
check_intervals() {
	grep -q "^sleep	$ROUNDS	" "$1" &&
	grep -q "^sleep	$ROUNDS	[0-9]*	[0-9]*	[0-9]*	0	0	0	0\$" "$1" &&
	test "$(grep -c "^sleep	" "$2")" = "$ROUNDS" &&
	test "$(wc -l <"$3")" = "$ROUNDS" &&
	awk -F"\t" -v lo=$MIN_NS -v slack=$SLACK_NS "
		NR == FNR { hi[FNR] = \$1 + slack; next }
		FNR > 1 { r = FNR - 1; print \"interval\", \$5, \"ns, at most\", hi[r]
			if (\$5 < lo || \$5 > hi[r]) bad = 1; if (\$4 - \$3 != \$5) bad = 1 }
		END { exit bad }" "$3" "$2"
}

if ! test_have root perf; then
	test_skip 'perf tracepoints' "tagged root, perf: $(_tag_missing root)$(_tag_missing perf)"
elif ! command -v perf >/dev/null 2>&1; then
	test_skip 'perf tracepoints' 'perf is not installed (tools/install-deps.sh)'
elif ! timeout 30 perf record -q --no-bpf-event -e syscalls:sys_enter_getppid -o probe.data -- true >probe.out 2>&1; then
	test_skip 'perf tracepoints' "perf cannot record syscall tracepoints: $(head -n 1 probe.out)"
else
	test_expect_success 'perf: sys_enter_getppid -> sys_enter_getpgid of sleeper is 100 ms, 3 times' '
		timeout -k 5 $LIMIT perf record -q --no-bpf-event -e syscalls:sys_enter_getppid \
			-e syscalls:sys_enter_getpgid -o perf.data -- \
			"$HELPERS/sleeper" $ROUNDS $SLEEP_MS perf.times &&
		perf script -i perf.data >events.txt 2>perf.err &&
		fp-latency --pair $PAIR --tsv rows.tsv events.txt >report &&
		cat report &&
		check_intervals report rows.tsv perf.times
	'

	test_expect_success 'perf script --ns -F comm,pid,tid,... gives the same intervals to the microsecond' '
		perf script -i perf.data --ns -F comm,pid,tid,cpu,time,event,trace >ns.txt 2>perf.err &&
		grep -q "[0-9]\.[0-9]\{9\}: syscalls:" ns.txt &&
		fp-latency --pair $PAIR --tsv ns.tsv ns.txt >ns.report &&
		check_intervals ns.report ns.tsv perf.times &&
		cut -f5 rows.tsv >us && cut -f5 ns.tsv >ns &&
		paste us ns | awk "NR > 1 { d = \$1 - \$2; if (d < -1000 || d > 1000) bad = 1 } END { exit bad }"
	'
fi

BT_PROG='
tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%llu %d %d start\n", nsecs, pid, tid); }
tracepoint:syscalls:sys_enter_getpgid /pid == cpid/ { printf("%llu %d %d end\n", nsecs, pid, tid); }'

# shellcheck disable=SC3045  # dash has ulimit -l; elsewhere it fails quietly
ulimit -l unlimited 2>/dev/null || true
if ! test_have root bpftrace; then
	test_skip 'bpftrace events' "tagged root, bpftrace: $(_tag_missing root)$(_tag_missing bpftrace)"
elif ! command -v bpftrace >/dev/null 2>&1; then
	test_skip 'bpftrace events' 'bpftrace is not installed (tools/install-deps.sh)'
elif ! timeout 30 bpftrace -q -e 'BEGIN { exit(); }' >probe.out 2>&1; then
	test_skip 'bpftrace events' "the kernel refuses BPF: $(grep -v RLIMIT_MEMLOCK probe.out | head -n 1)"
else
	test_expect_success 'bpftrace: event text (nsecs pid tid event) gives 3 intervals of 100 ms' '
		timeout -k 5 $LIMIT bpftrace -q -B none -c "$HELPERS/sleeper $ROUNDS $SLEEP_MS bpftrace.times" \
			-e "$BT_PROG" >events.txt 2>bpftrace.err &&
		fp-latency --pair sleep=start,end --tsv rows.tsv events.txt >report &&
		cat report &&
		check_intervals report rows.tsv bpftrace.times &&
		grep -q " bad_lines=0 " report
	'
fi

test_done
