#!/bin/sh
test_description='fp-bucket: columns and rows in integer arithmetic'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"
D=$DATA/bucket

# rows.S: a first sample on a whole second, .199999999 / .200000000 (the
# FlameScope float bug: .2 * 50 must be row 10), .019999999 / .020000000,
# .999999999 and a last sample on a whole second two columns later.
test_expect_success 'row boundaries, first and last sample on whole seconds (golden)' '
	test_golden "$D/rows.expect" fp-bucket <"$D/rows.S"
'

test_expect_success 'G comes before the first sample and names rows and base second' '
	s 82657955000 | fp-bucket --rows 49 >out &&
	printf "G\t49\t82\n" >expect &&
	head -n 1 out >got && test_cmp expect got
'

test_expect_success 'a sample at .2 s is row 9 of 49, row 19 of 99, row 200 of 1000, row 0 of 1' '
	for r in 49 99 1000 1; do
		s 82200000000 | fp-bucket --rows $r | cells || exit 1
	done >out &&
	printf "%s\n" "0 9 1" "0 19 1" "0 200 1" "0 0 1" >expect &&
	test_cmp expect out
'

# The first nanosecond of slice k is ceil(k * 1e9 / rows); it must land in
# row k and the nanosecond before it in row k - 1, for every k.
for rows in 49 50 99 100 7; do
test_expect_success "every slice boundary lands in its own row ($rows rows)" '
	awk -v rows='$rows' "BEGIN { for (k = 1; k < rows; k++) {
		b = int((k * 1000000000 + rows - 1) / rows);
		printf \"%.0f %d\\n\", 5000000000 + b, k; printf \"%.0f %d\\n\", 5000000000 + b - 1, k - 1 } }" >want &&
	while read t row; do s $t; done <want >in &&
	fp-bucket --rows '$rows' <in | cells >got &&
	awk "{ c[\$2]++ } END { for (r in c) print 0, r, c[r] }" want | sort -n -k1,1 -k2,2 >expect &&
	test_cmp expect got
'
done

test_expect_success 'columns count whole seconds from floor(first sample)' '
	{ s 82999999999; s 83000000000; s 90500000000; } | fp-bucket | cells >out &&
	printf "%s\n" "0 49 1" "1 0 1" "8 25 1" >expect &&
	test_cmp expect out
'

test_expect_success 'the largest time the protocol allows is counted without overflow' '
	{ s 1000000000; s 18446744073709551615; } | fp-bucket --rows 1000 | cells >out &&
	printf "%s\n" "0 0 1" "18446744072 709 1" >expect &&
	test_cmp expect out
'

test_expect_success '--rows outside 1..1000 and stray arguments are usage errors (exit 100)' '
	{ fp-bucket --rows 0 </dev/null 2>err; test $? = 100; } &&
	grep -q "rows" err &&
	{ fp-bucket --rows 1001 </dev/null 2>err; test $? = 100; } &&
	{ fp-bucket --rows x </dev/null 2>err; test $? = 100; } &&
	{ fp-bucket extra </dev/null 2>err; test $? = 100; } &&
	{ fp-bucket --nope </dev/null 2>err; test $? = 100; }
'

test_done
