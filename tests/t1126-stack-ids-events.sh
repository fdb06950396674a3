#!/bin/sh
test_description='the stack-id stream with several events: fp-bucket counts and drops P samples by event exactly as their S records (its per-tail verdict cache)'
. "$(dirname "$0")/test-lib.sh"

# S records of two events over three stacks, and the same samples as K/P.
test_expect_success 'setup: the two forms of one stream' '
	awk "BEGIN {
		printf \"%%flamepipe\t1\n\"
		for (i = 0; i < 300; i++) {
			ev = (i % 3 == 0) ? \"instructions\" : \"cycles\"
			st = (i % 5 == 0) ? \"a;b\" : ((i % 2) ? \"a;c\" : \"d\")
			k = (st == \"d\") ? \"u\" : \"uu\"
			printf \"S\t%d\t7\t7\t0\t1\t%s\tapp\t%s\t%s\n\", 1000000000 + i * 1000000, ev, k, st
		}
	}" >plain.s &&
	awk -F "\t" -v OFS="\t" "
		\$1 != \"S\" { print; next }
		{ t = \$7 \"\t\" \$8 \"\t\" \$9 \"\t\" \$10
		  if (!(t in id)) { id[t] = n++; print \"K\", id[t], t }
		  print \"P\", \$2, \$3, \$4, \$5, \$6, id[t] }" plain.s >ids.s &&
	test "$(grep -c "^K" ids.s)" = 6
'

for opt in "" --all-events "--event instructions" "--event cycles,instructions"; do
	test_expect_success "fp-bucket ${opt:-(the first event)}: the same cells, counts and kept samples" '
		fp-bucket $opt <plain.s >plain.out 2>plain.err &&
		fp-bucket $opt <ids.s >ids.out 2>ids.err &&
		grep -v "^[SKP]	" plain.out >want && grep -v "^[SKP]	" ids.out >got &&
		test_cmp want got && test_cmp plain.err ids.err &&
		grep -c "^S	" plain.out >want.n && grep -c "^P	" ids.out >got.n && test_cmp want.n got.n
	'
done

test_expect_success 'a K redefinition with another event: its samples follow the new event' '
	{
		printf "%%flamepipe\t1\n"
		printf "K\t0\tcycles\tapp\tu\tx\n"
		printf "P\t1000000000\t1\t1\t0\t1\t0\n"
		printf "K\t0\tinstructions\tapp\tu\tx\n"
		printf "P\t1000000001\t1\t1\t0\t1\t0\n"
		printf "P\t1000000002\t1\t1\t0\t1\t0\n"
	} >redef.s &&
	fp-bucket <redef.s >out 2>err &&
	grep -q "^I	bucket-event	samples=1	counted=1	event=cycles" out &&
	grep -q "^I	bucket-event	samples=2	counted=0	event=instructions" out &&
	test "$(grep -c "^P	" out)" = 1
'

test_done
