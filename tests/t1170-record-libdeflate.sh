#!/bin/sh
test_description='fp-record compresses with libdeflate: zcat and older readers read new recordings, new readers read old ones'
. "$(dirname "$0")/test-lib.sh"
# A recording fp-record wrote with zlib (level 1, before libdeflate) from
# examples/multiproc.perf.gz: what older sessions left on disk.
OLD=$DATA/record/zlib-level1.fp.gz

fp-read -q "$EXAMPLES/multiproc.perf.gz" >src.S || exit 1
grep "^S" src.S >src.samples

test_expect_success 'a new recording is plain gzip: gzip -t passes, zcat gives every member whole' '
	rm -f new.gz && fp-record --level 1 --output new.gz <src.S >/dev/null &&
	gzip -t new.gz &&
	zcat new.gz | grep "^S" | cmp - src.samples &&
	test "$(zcat new.gz | grep -c "^%flamepipe")" = "$(fp-read --index new.gz | grep -vc "^#")"
'

test_expect_success 'each member inflates on its own with zlib (an older reader hops member by member)' '
	rm -f new.gz && fp-record --output new.gz <src.S >/dev/null &&
	fp-read --index new.gz | grep -v "^#" >index &&
	test "$(wc -l <index)" -gt 1 &&
	while read off len rest; do
		dd if=new.gz bs=1 skip="$off" count="$len" 2>/dev/null | gzip -dc >member || return 1
		test "$(head -n 1 member)" = "%flamepipe	1" || return 1
		cat member
	done <index | grep "^S" | cmp - src.samples
'

test_expect_success 'a recording written with zlib before still reads whole, by range and in a report' '
	fp-read "$OLD" >old.out 2>err &&
	grep "^S" old.out | cmp - src.samples &&
	test ! -s err &&
	awk -F "\t" "\$2 >= 340000000000 && \$2 < 341500000000" src.samples >expect &&
	test -s expect &&
	fp-read --time 340,341.5 "$OLD" | grep "^S" | cmp - expect &&
	flamepipe report -q "$OLD" -o old &&
	flamepipe report -q "$EXAMPLES/multiproc.perf.gz" -o src &&
	test_cmp src/stacks.folded old/stacks.folded
'

test_expect_success 'the new recording has the old one'"'"'s batches (spans, counts) and is no bigger' '
	rm -f new.gz && fp-record --level 1 --output new.gz <src.S >/dev/null &&
	fp-read --index "$OLD" | grep -v "^#" | cut -d" " -f3- >old.index &&
	fp-read --index new.gz | grep -v "^#" | cut -d" " -f3- >new.index &&
	test_cmp old.index new.index &&
	test "$(wc -c <new.gz)" -le "$(wc -c <"$OLD")"
'

test_expect_success 'every level 1..9 writes a recording that reads back exactly' '
	for l in 1 2 3 4 5 6 7 8 9; do
		fp-record --level $l --output l$l.gz <src.S >/dev/null &&
		fp-read l$l.gz | grep "^S" | cmp - src.samples || return 1
	done
'

test_done
