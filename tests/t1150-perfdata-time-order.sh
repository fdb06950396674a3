#!/bin/sh
test_description='fp-perfdata delivers the samples of a system-wide capture in time order, in the order perf script prints them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# perf writes each CPU's buffer in turn, so the file holds the samples of
# a round CPU by CPU; both readers sort each round by time (perf's
# FINISHED_ROUND ordering), the earlier written first on equal times.

test_expect_success 'every sample is not earlier than the one before it' '
	pd_record_system sys.data 600 1500 &&
	fp-perfdata sys.data >s &&
	grep -q "	late_events=0	" s &&
	awk -F "\t" "\$1 == \"S\" { n++; if (\$2 < last) bad++; last = \$2 }
		END { print n + 0, bad + 0 }" s >order &&
	read n bad <order && echo "samples $n, out of order $bad" &&
	test "$n" -gt 500 && test "$bad" -eq 0
'

test_expect_success 'the order is perf script'"'"'s, to the nanosecond and thread' '
	perf script -i sys.data -F tid,time --ns 2>script.err |
		awk "{ sub(\":\", \"\", \$2); split(\$2, t, \".\"); print \$1, t[1] t[2] }" >perf.seq &&
	awk -F "\t" "\$1 == \"S\" { print \$4, \$2 }" s >ours.seq &&
	test -s perf.seq &&
	# perf 6.1 may stop early on a newer kernel (docs/fp-perfdata.md):
	# the part it printed is compared
	head -n "$(wc -l <perf.seq)" ours.seq >ours.head &&
	cmp perf.seq ours.head
'

test_done
