#!/bin/sh
test_description='fp-perfdata: a capture without callchains has the sampled ip as its one frame'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'no callchain: same samples, seconds and frames' '
	# the workload alone: what is under test is the one-frame layout, and a
	# system-wide capture of a loaded machine (the ASan suite alongside) adds
	# PLT/_init naming differences of other processes (t1100 covers -a)
	pd_record flat.data -F 999 -- "$TOP/build/tests/busy" 500 t 2000 &&
	pd_compare flat.data
'

test_expect_success 'every sample has exactly one frame' '
	fp-perfdata flat.data | awk -F "\t" "\$1 == \"S\" && length(\$9) != 1 { bad++ } END { exit bad > 0 }"
'

test_done
