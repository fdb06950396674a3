#!/bin/sh
test_description='fp-perfdata: JIT code named by a /tmp/perf-PID.map file'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
if [ "$(uname -m)" != x86_64 ]; then
	test_skip 'JIT capture' 'the JIT helper writes x86-64 code'
	test_done
fi

test_expect_success 'JIT map: same samples, seconds and stacks' '
	pd_record jit.data -g -F 999 -- "$TOP/build/tests/pd-jit" 600 pid &&
	pid=$(cat pid) && test_when_finished "rm -f /tmp/perf-$pid.map" &&
	test -s "/tmp/perf-$pid.map" &&
	pd_compare jit.data &&
	fp-perfdata jit.data >s &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"pd-jit\" { print substr(\$9, length(\$9)), \$10 }" s >leaves &&
	grep -Eq "^j (.*;)?pd_jit_named_loop\$" leaves &&
	grep -Eq "^j (.*;)?\\[perf-$pid.map\\]\$" leaves
'

test_done
