#!/bin/sh
test_description='examples/latency/run.sh measures fork -> execve and fork -> listen of a small server, as documented'
. "$(dirname "$0")/test-lib.sh"
test_tags root bpftrace

RUNS=3
INIT_MS=50		# the server "initialises" this long before listen(2)
LIMIT=60

command -v ${CC:-cc} >/dev/null 2>&1 || skip_all 'latency example' 'no C compiler for examples/latency/server.c'
need_bpftrace 'latency example'

test_expect_success 'run.sh -n 3 -i 50 -o DIR writes events, TSV and report' '
	timeout -k 5 $LIMIT "$EXAMPLES/latency/run.sh" -n $RUNS -i $INIT_MS -o out >stdout 2>stderr &&
	test -s out/events.txt && test -s out/latency.tsv && test -s out/report.txt &&
	test_cmp out/report.txt stdout &&
	! grep -q RLIMIT_MEMLOCK stderr
'

test_expect_success 'every server run gives one exec and one listen interval, none unmatched' '
	grep -q "^# fp-latency final: .* bad_lines=0 .* missing_key=0 .* lost_events=0\$" out/report.txt &&
	grep -q "^exec	$RUNS	[0-9]*	[0-9]*	[0-9]*	0	0	0	0\$" out/report.txt &&
	grep -q "^listen	$RUNS	[0-9]*	[0-9]*	[0-9]*	0	0	0	0\$" out/report.txt &&
	test $(grep -c "^exec	" out/latency.tsv) = $RUNS &&
	test $(grep -c "^listen	" out/latency.tsv) = $RUNS &&
	test $(grep -c " fork child_pid=" out/events.txt) = $RUNS
'

test_expect_success 'listen comes at least INIT_MS after the fork, and after execve' '
	awk -F"\t" -v init=$((INIT_MS * 1000000)) "
		\$1 == \"exec\" { exec[\$2] = \$5 }
		\$1 == \"listen\" { listen[\$2] = \$5; if (\$5 < init) { print \"listen too early:\", \$0; bad = 1 } }
		END { for (k in listen) if (!(k in exec) || exec[k] >= listen[k]) { print \"key\", k; bad = 1 }; exit bad }" out/latency.tsv &&
	grep -q "^@listen_ns:" out/report.txt && grep -q "^@exec_ns:" out/report.txt
'

test_done
