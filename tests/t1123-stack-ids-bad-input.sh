#!/bin/sh
test_description='the stack-id stream, bad and restarted: undefined ids, ids that skip ahead, malformed K/P records are dropped and counted; a restarted source defines its ids again'
. "$(dirname "$0")/test-lib.sh"

k() { printf 'K\t%s\tcpu-clock\tapp\t%s\t%s\n' "$1" "$2" "$3"; }
p() { printf 'P\t%s\t1\t1\t0\t1\t%s\n' "$1" "$2"; }

start_range() {
	rm -f in.fifo out err ctl && mkfifo in.fifo || return 1
	fp-range --control ctl <in.fifo >out 2>err &
	pid=$!
	exec 9>in.fifo
	wait_for "test -p ctl" 50
}

test_expect_success 'setup: a stream with every kind of bad K and P record' '
	{
		printf "%%flamepipe\t1\n"
		k 0 uu "main;work"
		p 1000000000 0
		p 1000000001 7			# no K for id 7
		k 5 u "skips"			# ids are 0, 1, 2, ...
		printf "K\t1\tcpu-clock\tapp\tuu\tone\n"	# kinds: 2 for 1 frame
		printf "P\t1000000002\t1\t1\t0\t1\n"		# no id field
		printf "P\tx\t1\t1\t0\t1\t0\n"			# time not decimal
		printf "P\t1000000003\t1\t1\t0\t1\t0\n"
	} >bad.s
'

for stage in fp-bucket fp-range fp-fold; do
	test_expect_success "$stage: the two good samples counted, five bad records warned about, no crash" '
		$stage <bad.s >out.$stage 2>err.$stage &&
		test "$(grep -c "^W	" out.$stage)" = 5 &&
		test "$(wc -l <err.$stage)" = 5 &&
		grep -q "no K record defined" err.$stage &&
		grep -q "skips ahead" err.$stage &&
		grep -q "malformed K or P record" err.$stage
	'
done

test_expect_success 'the counts: bucket bad=5, range bad=5, fold bad_samples=5, two samples each' '
	grep -q "^I	bucket	samples=2	counted=2	.*	bad=5" out.fp-bucket &&
	grep -q "^I	range	seen=2	passed=2	.*	bad=5" out.fp-range &&
	grep -q "^I	fold	samples=2	stacks=1	total=2	dropped_event=0	bad_samples=5" out.fp-fold &&
	grep -qx "F	2	app;main;work" out.fp-fold
'

test_expect_success 'a restarted source numbers from 0 again: the new definition counts' '
	{
		printf "%%flamepipe\t1\n"
		k 0 u "old"; p 1000000000 0
		k 0 u "new"; p 1000000001 0; p 1000000002 0
	} >restart.s &&
	fp-bucket <restart.s | fp-range | fp-fold >out 2>err &&
	grep -qx "F	1	app;old" out && grep -qx "F	2	app;new" out && ! test -s err
'

test_expect_success 'fp-range numbers the tails itself: the K records of its ids go out dense, before use' '
	{
		printf "%%flamepipe\t1\n"
		k 0 u "a"; k 1 u "b"; k 2 u "c"
		p 1000000000 2; p 2000000000 1; p 3000000000 0; p 3500000000 2
	} >three.s &&
	fp-range --from 2 <three.s >ranged &&
	grep "^[KP]	" ranged >got &&
	printf "%s\n" "K	0	cpu-clock	app	u	c" "K	1	cpu-clock	app	u	b" "K	2	cpu-clock	app	u	a" \
		"P	3000000000	1	1	0	1	2" "P	3500000000	1	1	0	1	0" >expect &&
	test_cmp expect got &&
	fp-fold <ranged | grep "^F" >folded &&
	printf "%s\n" "F	1	app;a" "F	1	app;c" >expect && test_cmp expect folded
'

test_expect_success 'a replay after a range change re-sends P records of defined ids: fold counts each once' '
	start_range &&
	cat three.s >&9 &&
	wait_for "test \$(grep -c \"^P\" out) = 4" 100 &&
	echo "range 0 1.8" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 100 &&
	exec 9>&- && wait $pid &&
	awk "/^C	reset/ { r = 1 } r" out >replayed &&
	grep "^P	" replayed | cut -f 2 >times &&
	printf "%s\n" 1000000000 2000000000 >expect && test_cmp expect times &&
	fp-fold <out | awk "/^C	begin	fold/ { s = \"\" } /^F/ { s = s \$0 \"\\n\" } END { printf \"%s\", s }" >folded &&
	printf "%s\n" "F	1	app;b" "F	1	app;c" >expect && test_cmp expect folded
'

test_done
