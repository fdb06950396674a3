#!/bin/sh
test_description='fp-read parses with as many threads as its cgroup CPU quota allows'
. "$(dirname "$0")/test-lib.sh"
test_tags root

# A cgroup with a quota of one CPU stands in for a container given one
# CPU of a bigger host: fp-read's default is then one parser, not one
# thread per CPU the scheduler would throttle in turns (lib/fp_cpus.h).
# cgroup v1's cpu controller (cpu.cfs_quota_us) or v2's (cpu.max).
V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
G=fp-t0152-$$
if [ -n "$V1" ] && mkdir "$V1/$G" 2>/dev/null; then
	DIR=$V1/$G
	echo 100000 >"$DIR/cpu.cfs_period_us" && echo 100000 >"$DIR/cpu.cfs_quota_us" ||
		skip_all 'a CPU quota' "cannot set cpu.cfs_quota_us in $DIR"
elif [ -n "$V2" ] && grep -qw cpu "$V2/cgroup.subtree_control" 2>/dev/null && mkdir "$V2/$G" 2>/dev/null; then
	DIR=$V2/$G
	echo "100000 100000" >"$DIR/cpu.max" || skip_all 'a CPU quota' "cannot set cpu.max in $DIR"
else
	skip_all 'a CPU quota' 'no cgroup cpu controller to make a group in here'
fi

zcat "$EXAMPLES"/multiproc.perf.gz | grep -v "^#" >one.perf
i=0
while [ $i -lt 40 ]; do cat one.perf; i=$((i + 1)); done >big.perf

# fp-read's threads while a reader holds it after its first bytes
threads_of_held_read() { # [cgroup-dir]
	rm -f held && mkfifo held &&
	if [ -n "${1:-}" ]; then
		( echo 0 >"$1/cgroup.procs" && exec fp-read big.perf >held ) &
	else
		fp-read big.perf >held &
	fi
	_pid=$! &&
	exec 9<held &&
	head -c 1 <&9 >/dev/null &&
	ls "/proc/$_pid/task" | wc -l >tasks &&
	cat <&9 >/dev/null && exec 9<&- &&
	wait $_pid
}

test_expect_success 'in a group with a quota of one CPU: one thread' '
	threads_of_held_read "$DIR" &&
	test "$(cat tasks)" = 1
'

test_expect_success 'outside it, on a host of 2 or more CPUs: a parser per CPU besides the writer' '
	if [ "$(nproc)" -lt 2 ]; then echo "1 CPU here: nothing to compare"; exit 0; fi &&
	threads_of_held_read &&
	test "$(cat tasks)" -ge 3
'

test_expect_success 'the group is removed once its process is gone' '
	wait_for "rmdir $DIR 2>/dev/null" 100
'

test_done
