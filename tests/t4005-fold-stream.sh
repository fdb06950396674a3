#!/bin/sh
test_description='fp-fold in a stream: pass-through, snapshots, flush, reset, order'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

# stream.in: header, comment, G/H/W/I, an unknown record, a blank line,
# C range, flush, reset, filter; stream.expect written by hand.
test_expect_success 'non-S records pass in order; flush and EOF write snapshots; reset clears' '
	fp-fold <"$D/stream.in" >out &&
	test_cmp "$D/stream.expect" out
'

test_expect_success 'the snapshot comes before the flush it answers' '
	grep -n "" out | grep -E "C	(end	fold|flush)" >got &&
	printf "%s\n" "14:C	end	fold	2	3" "16:C	flush" "21:C	end	fold	1	1" >expect &&
	test_cmp expect got
'

test_expect_success 'F lines are sorted bytewise (LC_ALL=C), as stackcollapse sorts' '
	fp-fold --plain "$D/sort.S" >out &&
	test_cmp "$D/sort.folded" out &&
	LC_ALL=C sort out | cmp - out
'

test_expect_success 'snapshot F lines equal the --plain file' '
	fp-fold "$D/sort.S" | awk -F "\t" "\$1 == \"F\" { print \$3 \" \" \$2 }" >out &&
	test_cmp "$D/sort.folded" out
'

test_expect_success '--plain drops every record that is not S' '
	fp-fold --plain <"$D/stream.in" >out &&
	printf "%s\n" "app;main;c 1" >expect &&
	test_cmp expect out
'

test_expect_success 'an empty input gives an empty snapshot' '
	fp-fold </dev/null >out &&
	printf "%s\n" "C	begin	fold" "C	end	fold	0	0" \
		"I	fold	samples=0	stacks=0	total=0	dropped_event=0	bad_samples=0	resets=0" >expect &&
	test_cmp expect out
'

test_expect_success 'a last line without LF is folded' '
	printf "S\t1\t1\t1\t0\t1\tcpu-clock\tx\tu\tf" | fp-fold --plain >out &&
	echo "x;f 1" >expect &&
	test_cmp expect out
'

test_expect_success 'CRLF input: the CR is not part of the leaf frame' '
	printf "S\t1\t1\t1\t0\t1\tcpu-clock\tx\tu\tf\r\n" | fp-fold --plain >out &&
	echo "x;f 1" >expect &&
	test_cmp expect out
'

test_expect_success 'gzip input is read' '
	gzip -c "$D/sort.S" >in.gz &&
	fp-fold --plain in.gz >out &&
	test_cmp "$D/sort.folded" out
'

test_expect_success 'an unsupported stream version is refused (exit 100)' '
	printf "%%flamepipe\t2\n" >in &&
	{ fp-fold <in >out 2>err; test $? = 100; } &&
	grep -q "unsupported stream header" err
'

test_done
