#!/bin/sh
test_description='bench/pdreplay LOOPS (the live whole cost steady state): every pass counts every sample, times keep rising'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

LOOPS=3
RATE=100000	# samples/s: the test needs no pacing, only the passes

test_expect_success 'setup: pdreplay built, one recording in pipe format' '
	cc -O2 -Wall -Wextra -o pdreplay "$TOP/bench/pdreplay.c" &&
	pd_record_pipe -g -F 999 -- "$BUSY" 300 t 6000 &&
	fp-perfdata pipe.data | grep "^S	" >one.s &&
	test "$(wc -l <one.s)" -gt 100
'

test_expect_success 'one pass replays the file as it is' '
	./pdreplay $RATE 1 pipe.data >replay1.data 2>replay1.err &&
	cmp pipe.data replay1.data &&
	grep -q "^samples=$(wc -l <one.s) " replay1.err
'

test_expect_success 'LOOPS passes: LOOPS times the samples, the same stacks, LOOPS times each count' '
	./pdreplay $RATE 1 pipe.data $LOOPS 2>replay.err | fp-perfdata --live >loop.s 2>loop.err &&
	test "$(grep -c "^S	" loop.s)" -eq $(( LOOPS * $(wc -l <one.s) )) &&
	pd_folded one.s | awk -F "\t" -v k=$LOOPS "{ print \$1 \"\t\" \$2 * k }" >want.fold &&
	pd_folded loop.s >got.fold &&
	test_cmp want.fold got.fold
'

# the samples perf wrote out of time order (beyond its rounds: fp-perfdata
# delivers them late, as perf does) in a file
backward() { awk -F "\t" "\$1 == \"S\" { if (\$2 < p) bad++; p = \$2 } END { print bad + 0 }" "$1"; }

test_expect_success 'LOOPS passes: sample times go back only where the capture'"'"'s own do (each pass after the one before)' '
	test "$(backward loop.s)" -le $(( LOOPS * $(backward one.s) )) &&
	first=$(awk -F "\t" "\$1 == \"S\" { print \$2; exit }" one.s) &&
	last=$(awk -F "\t" "\$1 == \"S\" { t = \$2 } END { print t }" one.s) &&
	lastloop=$(awk -F "\t" "\$1 == \"S\" { t = \$2 } END { print t }" loop.s) &&
	test "$lastloop" -gt $(( last + (LOOPS - 1) * (last - first) ))
'

test_expect_success 'LOOPS must be a positive number' '
	rc=0 && ./pdreplay $RATE 1 pipe.data 0 </dev/null >/dev/null 2>err || rc=$? &&
	test "$rc" -eq 2 && grep -q usage err
'

test_done
