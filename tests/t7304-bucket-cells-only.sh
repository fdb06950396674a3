#!/bin/sh
test_description='fp-bucket --cells-only (fp-serve'"'"'s /heatmap/ chains): the same heatmap and statistics, no sample passed on'
. "$(dirname "$0")/test-lib.sh"

# The heatmap a stream says: its G and I records and the last count of
# every cell ("col row count"), sorted (H records are coalesced when the
# input goes idle, so their batching depends on timing; the cells do not).
heatmap_of() { # FILE
	awk -F "\t" '$1 == "H" { c[$2 " " $3] = $4 } $1 == "G" || $1 == "I" { print }
		END { for (k in c) print k, c[k] }' "$1" | sort
}

test_expect_success 'setup: the demo capture as S records and as the stack-id stream' '
	fp-read -q "$EXAMPLES/demo-clockloop.perf.gz" >plain.s &&
	fp-read -q --stack-ids "$EXAMPLES/demo-clockloop.perf.gz" >ids.s &&
	grep -q "^K	" ids.s && grep -q "^P	" ids.s
'

for args in "" "--keep-idle" "--all-events --rows 49"; do
	test_expect_success "fp-bucket ${args:-(no options)} --cells-only: its heatmap and records, without the samples" '
		fp-bucket $args <plain.s >all.out &&
		fp-bucket $args --cells-only <plain.s >cells.out &&
		grep -q "^S	" all.out &&
		! grep -q "^[SPK]	" cells.out &&
		heatmap_of all.out >want && heatmap_of cells.out >got &&
		test_cmp want got &&
		grep -v "^[SHPK]	" all.out >want && grep -v "^H	" cells.out >got &&
		test_cmp want got
	'
done

test_expect_success 'the stack-id stream: no K or P passed on, the same cells as from S records' '
	fp-bucket --cells-only <ids.s >ids.out &&
	! grep -q "^[SPK]	" ids.out &&
	fp-bucket --cells-only <plain.s >plain.out &&
	awk -F "\t" "\$1 == \"H\" || \$1 == \"G\"" ids.out | heatmap_of /dev/stdin >got &&
	awk -F "\t" "\$1 == \"H\" || \$1 == \"G\"" plain.out | heatmap_of /dev/stdin >want &&
	test_cmp want got
'

test_expect_success '--help names the option' '
	fp-bucket --help 2>&1 | grep -q -- "--cells-only"
'

test_done
