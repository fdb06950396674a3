#!/bin/sh
test_description='the runner gives fp-fold --snapshot-ids only when it passes samples (D records) and every stage after it reads E records; anything else after fp-fold gets F text'
. "$(dirname "$0")/test-lib.sh"
T=$(printf "\t")

# spy/fp-render: keeps a copy of what the render stage is sent, then runs
# the real fp-render (the runner tells a program by its file name);
# spy/fp-serve stands for fp-serve the same way (it only keeps the copy:
# the negotiation looks at the name, the test at what it was sent).
test_expect_success 'setup: spies named fp-render and fp-serve, a pipeline of the default chain' '
	mkdir spy &&
	printf "%s\n" "#!/bin/sh" "tee \"\$SPY_OUT\" | exec \"$(command -v fp-render)\" \"\$@\"" \
		>spy/fp-render &&
	printf "%s\n" "#!/bin/sh" "cat >\"\$SPY_OUT\"" >spy/fp-serve &&
	chmod +x spy/fp-render spy/fp-serve &&
	zcat "$EXAMPLES/multiproc.perf.gz" >mp.perf &&
	printf "%s\n" "read fp-read \${INPUT}" "bucket fp-bucket --rows 50" \
		"fold fp-fold --pass-samples --all-events" \
		"render $PWD/spy/fp-render --outdir \${OUTDIR}" >spy.pipeline
'

test_expect_success 'fp-fold --pass-samples then fp-render: E records, and the report of F records' '
	SPY_OUT=$PWD/seen.ids flamepipe report -q --pipeline spy.pipeline mp.perf -o ids.out &&
	grep -q "^E${T}" seen.ids && ! grep -q "^F${T}" seen.ids &&
	SPY_OUT=$PWD/seen.text FLAMEPIPE_SNAPSHOT_IDS=0 flamepipe report -q --pipeline spy.pipeline \
		mp.perf -o text.out &&
	grep -q "^F${T}" seen.text && ! grep -q "^E${T}" seen.text &&
	test "$(grep -c "^E${T}" seen.ids)" = "$(grep -c "^F${T}" seen.text)" &&
	diff -r text.out ids.out
'

test_expect_success 'a stage of another program after fp-fold (grep): F records' '
	sed "s|^render |pass grep -v \"^#\"\\nrender |" spy.pipeline >grep.pipeline &&
	grep -q "^pass grep" grep.pipeline &&
	SPY_OUT=$PWD/seen.grep flamepipe report -q --pipeline grep.pipeline mp.perf -o grep.out &&
	grep -q "^F${T}" seen.grep && ! grep -q "^E${T}" seen.grep &&
	diff -r text.out grep.out
'

test_expect_success 'fp-baseline before fp-render (it passes snapshots on): E records, the same report' '
	sed "s|^render |baseline fp-baseline --from 0 --to 1 --top 0 --pass-samples\nrender |" \
		spy.pipeline >baseline.pipeline &&
	grep -q "^baseline fp-baseline" baseline.pipeline &&
	SPY_OUT=$PWD/seen.baseline flamepipe report -q --pipeline baseline.pipeline mp.perf \
		-o baseline.out &&
	grep -q "^E${T}" seen.baseline && ! grep -q "^F${T}" seen.baseline &&
	for f in stacks.folded flame.svg heatmap.tsv; do
		test_cmp text.out/$f baseline.out/$f || return 1
	done
'

test_expect_success 'a stage that passes snapshots on (fp-range) before fp-render: E records' '
	sed "s|^render |range fp-range\\nrender |" spy.pipeline >range.pipeline &&
	SPY_OUT=$PWD/seen.range flamepipe report -q --pipeline range.pipeline mp.perf -o range.out &&
	grep -q "^E${T}" seen.range && ! grep -q "^F${T}" seen.range &&
	for f in stacks.folded flame.svg heatmap.tsv; do
		test_cmp text.out/$f range.out/$f || return 1
	done
'

test_expect_success 'fp-render or fp-fold that may be restarted: F records (a new reader lacks the D records)' '
	sed "s|^render |render restart=on-failure |" spy.pipeline >restart.pipeline &&
	SPY_OUT=$PWD/seen.restart flamepipe report -q --pipeline restart.pipeline mp.perf -o r.out &&
	grep -q "^F${T}" seen.restart && ! grep -q "^E${T}" seen.restart &&
	sed "s|^fold |fold restart=on-failure |" spy.pipeline >restart2.pipeline &&
	SPY_OUT=$PWD/seen.restart2 flamepipe report -q --pipeline restart2.pipeline mp.perf -o r2.out &&
	grep -q "^F${T}" seen.restart2 && ! grep -q "^E${T}" seen.restart2
'

test_expect_success 'fp-fold without --pass-samples (no D records): F records' '
	sed "s|--pass-samples ||" spy.pipeline >nopass.pipeline &&
	! grep -q pass-samples nopass.pipeline &&
	SPY_OUT=$PWD/seen.nopass flamepipe report -q --pipeline nopass.pipeline mp.perf -o np.out &&
	grep -q "^F${T}" seen.nopass && ! grep -q "^[ED]${T}" seen.nopass
'

test_expect_success 'the snapshots leave the pipeline (fp-render --passthrough last): F records' '
	printf "%s\n" "read fp-read \${INPUT}" "fold fp-fold --pass-samples" \
		"render $PWD/spy/fp-render --passthrough" >pt.pipeline &&
	SPY_OUT=$PWD/seen.pt flamepipe run -q pt.pipeline --input mp.perf >pt.stdout &&
	grep -q "^F${T}" pt.stdout && ! grep -q "^E${T}" pt.stdout
'

test_expect_success 'fp-serve after fp-fold (it reads F records only): F records' '
	printf "%s\n" "read fp-read \${INPUT}" "fold fp-fold --pass-samples" \
		"serve $PWD/spy/fp-serve --live x" >serve.pipeline &&
	SPY_OUT=$PWD/seen.serve flamepipe run -q serve.pipeline --input mp.perf &&
	grep -q "^F${T}" seen.serve && ! grep -q "^E${T}" seen.serve
'

test_expect_success 'flamepipe report with its default pipeline: the same files with and without' '
	flamepipe report -q mp.perf -o default.ids &&
	FLAMEPIPE_SNAPSHOT_IDS=0 flamepipe report -q mp.perf -o default.text &&
	diff -r default.text default.ids
'

test_done
