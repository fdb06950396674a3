#!/bin/sh
test_description='fp-latency: keys (pid, tid, field), input formats (perf script, event text), input errors'
. "$(dirname "$0")/test-lib.sh"

# tracepoints.perf: perf script lines in the shapes perf prints them: the
# default (`comm tid [cpu] secs.us: event: fields`), pid/tid, --ns and a
# period column.
TP=$DATA/latency/tracepoints.perf

test_expect_success '--key pid pairs a start and an end on two threads of one process' '
	printf "%s\n" "100 10 11 s" "250 10 12 e" >in &&
	fp-latency --key pid --pair p=s,e in >out &&
	grep -qx "p	1	150	150	150	0	0	0	0" out &&
	fp-latency --pair p=s,e in >tid &&
	grep -qx "p	0	-	-	-	1	0	0	1" tid
'

test_expect_success 'a field key pairs a parent event with its child (fork child_pid -> execve@pid)' '
	printf "%s\n" "100 10 10 fork child_pid=20" "400 20 20 execve" "900 20 20 exit" >in &&
	fp-latency --pair exec=fork@field:child_pid,execve@pid,exit@tid --tsv rows.tsv in >out &&
	grep -qx "exec	1	300	300	300	0	0	0	0" out &&
	printf "%s\n" "pair	key	start_ns	end_ns	latency_ns" "exec	20	100	400	300" >expect &&
	test_cmp expect rows.tsv
'

test_expect_success 'perf script text: event names with their subsystem, pid/tid or tid alone, us or ns, a period' '
	fp-latency --format perf --pair sleep=syscalls:sys_enter_getppid,syscalls:sys_enter_getpgid \
		--pair exec=sched:sched_process_fork@field:child_pid,syscalls:sys_enter_execve@pid "$TP" >out &&
	grep -q "^# fp-latency final: lines=4 events=4 bad_lines=0 " out &&
	grep -qx "sleep	1	101781000	101781000	101781000	0	0	0	0" out &&
	grep -qx "exec	1	99999900	99999900	99999900	0	0	0	0" out &&
	fp-latency --pair sleep=syscalls:sys_enter_getppid,syscalls:sys_enter_getpgid \
		--pair exec=sched:sched_process_fork@field:child_pid,syscalls:sys_enter_execve@pid "$TP" >auto &&
	test_cmp out auto
'

test_expect_success '--format events takes perf lines for bad lines, with warnings naming file and line' '
	fp-latency --format events --pair p=a,b "$TP" >out 2>err &&
	grep -q " bad_lines=4 " out &&
	grep -q "^fp-latency: warning: .*tracepoints.perf:1: not an event line (<nsecs> <pid> <tid> <event> \[fields\])" err
'

test_expect_success 'an event without its key field is counted missing_key and warned about' '
	printf "%s\n" "1 1 1 fork" "2 1 1 fork child_pid=5" >in &&
	fp-latency --pair p=fork@field:child_pid,x in >out 2>err &&
	grep -q " missing_key=1 " out &&
	grep -q "^fp-latency: warning: in:1: event without its key: .1 1 1 fork." err
'

test_expect_success 'warnings stop after 10, the count goes on' '
	awk "BEGIN { for (i = 0; i < 50; i++) print \"junk\", i }" >in &&
	fp-latency --format events --pair p=a,b in >out 2>err &&
	grep -q " bad_lines=50 " out &&
	test $(grep -c "not an event line" err) = 10 &&
	grep -q "in:11: more problems: only counted from now on" err
'

test_expect_success 'a flamepipe stream is refused (exit 100) with a pointer to the docs' '
	printf "%%flamepipe\t1\nS\t1\t1\t1\t0\t1\tev\tc\t\t\n" >in &&
	test_must_fail fp-latency --pair p=a,b in 2>err &&
	fp-latency --pair p=a,b in 2>/dev/null; test $? = 100 &&
	grep -q "this is a flamepipe stream; fp-latency reads perf script or event text" err
'

test_expect_success 'usage errors exit 100 and say what is wrong' '
	fp-latency in 2>err; test $? = 100 && grep -q "at least one --pair" err &&
	fp-latency --pair p=a in 2>err; test $? = 100 && grep -q "expected NAME=START,END" err &&
	fp-latency --pair "p=a@foo,b" in 2>err; test $? = 100 && grep -q "bad key .foo." err &&
	fp-latency --pair "p q=a,b" in 2>err; test $? = 100 && grep -q "a pair name is letters" err &&
	fp-latency --key bogus --pair p=a,b in 2>err; test $? = 100 && grep -q "expected pid, tid or field:NAME" err &&
	fp-latency --format xml --pair p=a,b in 2>err; test $? = 100 && grep -q "expected auto, perf or events" err
'

test_done
