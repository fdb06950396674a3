#!/bin/sh
test_description='flamepipe report perf.data: fp-perfdata as the source, the same report as through perf script'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'setup: a capture of a workload' '
	# not system-wide: the two reports must be equal to the byte, and other
	# processes of a loaded machine may differ in a PLT/_init name (the
	# explained differences of t1100)
	pd_record cap.data -g -F 999 -- "$TOP/build/tests/busy" 500 t 2000 &&
	perf script -i cap.data >cap.perf 2>script.err
'

test_expect_success 'report on the perf.data (picked by its magic) equals report on perf script text' '
	flamepipe report cap.data -o bin.out 2>err.bin &&
	flamepipe report cap.perf -o text.out 2>err.text &&
	for f in stacks.folded heatmap.tsv; do
		LC_ALL=C sort "bin.out/$f" >a && LC_ALL=C sort "text.out/$f" >b &&
		test_cmp b a || return 1
	done &&
	test -s bin.out/index.html && test -s bin.out/flame.svg
'

test_expect_success 'the source is a pipeline-file edit: examples/perfdata.pipeline given by hand' '
	flamepipe report cap.data -o swap.out --pipeline "$EXAMPLES/perfdata.pipeline" 2>err.swap &&
	test_cmp bin.out/stacks.folded swap.out/stacks.folded
'

test_done
