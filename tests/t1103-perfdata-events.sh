#!/bin/sh
test_description='fp-perfdata: two events in one capture, each with its name'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'two events: same samples, seconds and stacks' '
	pd_record ev.data -g -e cpu-clock -e task-clock -F 999 -- "$TOP/build/tests/busy" 500 t 2000 &&
	pd_compare ev.data
'

test_expect_success 'both event names, as perf script prints them' '
	fp-perfdata ev.data | awk -F "\t" "\$1 == \"S\" { print \$7 }" | sort | uniq -c >got &&
	perf script -i ev.data -F event 2>/dev/null | sed "s/: *\$//; s/^ *//" | sort | uniq -c >want &&
	cat got && test_cmp want got &&
	test "$(wc -l <got)" = 2
'

test_done
