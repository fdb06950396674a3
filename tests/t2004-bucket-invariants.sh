#!/bin/sh
test_description='fp-bucket: heatmap totals agree with the samples (real captures)'
. "$(dirname "$0")/test-lib.sh"

# final_cells: "column row count" of the last value of every cell, after
# the last G (a consumer drops its cells on G).
final_cells() { awk -F '\t' '$1 == "G" { delete c } $1 == "H" { c[$2 " " $3] = $4 } END { for (k in c) print k, c[k] }'; }
sum_counts() { awk '{ n += $3 } END { print n + 0 }'; }
# per_second FILE: "column count" from S records, in whole seconds since the
# earliest one, computed from the decimal text (no arithmetic on ns).
per_second() {
	awk -F '\t' '$1 == "S" { s = substr($2, 1, length($2) - 9) + 0; n[s]++; if (min == "" || s < min) min = s }
		END { for (s in n) print s - min, n[s] }' "$1" | sort -n
}

for capture in demo-clockloop multiproc multiproc-nocallgraph; do
test_expect_success "$capture: sum of final H counts == S passed, and == S read with --keep-idle" '
	fp-read "$EXAMPLES/'$capture'.perf.gz" >in &&
	fp-bucket <in >out &&
	grep -c "^S" out >passed &&
	final_cells <out | sum_counts >sum && test_cmp passed sum &&
	fp-bucket --keep-idle <in >out.all &&
	grep -c "^S" in >read &&
	final_cells <out.all | sum_counts >sum && test_cmp read sum &&
	echo "read $(cat read), passed $(cat passed)"
'

test_expect_success "$capture: per-second counts equal an independent awk count" '
	per_second in >expect &&
	final_cells <out.all | awk "{ n[\$1] += \$3 } END { for (c in n) print c, n[c] }" | sort -n >got &&
	test_cmp expect got
'
done

test_expect_success 'shuffled input gives the same final heatmap as sorted input' '
	fp-read "$EXAMPLES/multiproc.perf.gz" | grep "^S" >in &&
	fp-bucket --rows 99 <in | final_cells | sort >expect &&
	awk "BEGIN { srand(7) } { print rand() \"\t\" \$0 }" in | sort -n | cut -f 2- >shuffled &&
	! cmp -s in shuffled &&
	fp-bucket --rows 99 <shuffled | final_cells | sort >got &&
	test_cmp expect got
'

test_done
