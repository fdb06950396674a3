#!/bin/sh
test_description='flamepipe run/report end to end through real FIFOs: same results as a shell pipeline, samples conserved, an awk stage'
. "$(dirname "$0")/test-lib.sh"

# Every runner call is bounded: a hang fails the test instead of the suite.
T=20
CAPTURES="demo-clockloop multiproc multiproc-nocallgraph"

heat_total() { awk -F '\t' 'NR > 1 { s += $3 } END { print s + 0 }' "$1"; }
fold_total() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

for c in $CAPTURES; do
	test_expect_success "$c: report and run equal the stages in a shell pipeline" '
		cap=$EXAMPLES/$c.perf.gz &&
		fp-read "$cap" | fp-bucket --keep-idle | fp-range | fp-fold | fp-render --outdir sh.$c &&
		timeout $T flamepipe report "$cap" -o rep.$c --keep-idle -q &&
		timeout $T flamepipe run -q --input "$cap" --outdir run.$c -A BUCKET_ARGS=--keep-idle &&
		for f in heatmap.tsv stacks.folded; do
			test_cmp sh.$c/$f rep.$c/$f && test_cmp sh.$c/$f run.$c/$f || exit 1
		done
	'

	test_expect_success "$c: samples read = heatmap total (--keep-idle) = folded total = awk count" '
		cap=$EXAMPLES/$c.perf.gz &&
		want=$(awk_count_samples "$cap") &&
		read=$(fp-read "$cap" | awk -F "\t" "\$1 == \"I\" && \$2 == \"read\" { sub(\"samples=\", \"\", \$4); print \$4 }") &&
		echo "awk=$want read=$read heat=$(heat_total rep.$c/heatmap.tsv) fold=$(fold_total rep.$c/stacks.folded)" &&
		test "$want" -gt 0 &&
		test "$read" = "$want" &&
		test "$(heat_total rep.$c/heatmap.tsv)" = "$want" &&
		test "$(fold_total rep.$c/stacks.folded)" = "$want" &&
		test "$(fold_total run.$c/stacks.folded)" = "$want"
	'
done

test_expect_success 'the report summary line counts the samples' '
	timeout $T flamepipe report "$EXAMPLES/multiproc.perf.gz" -o sum --keep-idle 2>err &&
	grep "report: .*multiproc.perf.gz: 2390 samples in [0-9]* stacks" err
'

test_expect_success 'run reads stdin when no --input is given (INPUT=-)' '
	timeout $T flamepipe run -q --outdir stdin.d -A BUCKET_ARGS=--keep-idle \
		<"$EXAMPLES/multiproc.perf.gz" &&
	test_cmp sh.multiproc/stacks.folded stdin.d/stacks.folded &&
	test_cmp sh.multiproc/heatmap.tsv stdin.d/heatmap.tsv
'

test_expect_success 'the private FIFO dir is gone after a successful run' '
	TMPDIR=$TRASH/tmp && export TMPDIR && mkdir -p "$TMPDIR" &&
	timeout $T flamepipe run --input "$EXAMPLES/multiproc.perf.gz" --outdir gone.d 2>err &&
	dir=$(sed -n "s/^flamepipe: fifo dir //p" err) &&
	case $dir in "$TMPDIR"/flamepipe.*) ;; *) echo "dir: $dir"; exit 1 ;; esac &&
	test ! -e "$dir" && test -z "$(ls "$TMPDIR")"
'

# The shipped example, as is: an awk stage between range and fold.
test_expect_success 'awk-stage.pipeline drops the samples of one comm, recompiling nothing' '
	cap=$EXAMPLES/multiproc.perf.gz &&
	timeout $T flamepipe report "$cap" -o awk.d --keep-idle -q \
		--pipeline "$EXAMPLES/awk-stage.pipeline" -D DROP_COMM=mp-crc32 &&
	all=$(fold_total sh.multiproc/stacks.folded) &&
	crc=$(grep "^mp-crc32;" sh.multiproc/stacks.folded | fold_total /dev/stdin) &&
	test "$crc" -gt 0 &&
	! grep "^mp-crc32;" awk.d/stacks.folded &&
	test "$(fold_total awk.d/stacks.folded)" = $((all - crc)) &&
	grep -v "^mp-crc32;" sh.multiproc/stacks.folded >expect &&
	test_cmp expect awk.d/stacks.folded &&
	# the awk stage sits after the bucketer: the heatmap keeps every sample
	test_cmp sh.multiproc/heatmap.tsv awk.d/heatmap.tsv
'

test_expect_success 'the awk stage reports its own count in-band (I drop record)' '
	sed "s/^render .*/render  cat/" "$EXAMPLES/awk-stage.pipeline" >awk-cat.pipeline &&
	timeout $T flamepipe run -q awk-cat.pipeline --input "$EXAMPLES/multiproc.perf.gz" \
		-D DROP_COMM=mp-crc32 >stream &&
	grep "^I	drop	comm=mp-crc32	dropped=597\$" stream &&
	grep "^C	end	fold	[0-9]*	1793\$" stream
'

test_expect_success 'a shell stage works the same (sh -c, tags every comm)' '
	cat >tag.pipeline <<-\EOP &&
	read   fp-read ${INPUT}
	tag    sh -c "exec sed \"s/^\\(S\\(	[^	]*\\)\\{6\\}\\)	/\\1	tag-/\""
	fold   fp-fold
	sink   cat
	EOP
	timeout $T flamepipe run -q tag.pipeline --input "$EXAMPLES/multiproc.perf.gz" >tagged &&
	grep "^F	" tagged | cut -f3 | cut -d";" -f1 | sort -u >comms &&
	test -s comms && ! grep -v "^tag-" comms &&
	grep "^C	end	fold	[0-9]*	2390\$" tagged
'
test_done
