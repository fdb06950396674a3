#!/bin/sh
test_description='the runner gives the source --stack-ids only when every stage reading its samples reads K and P'
. "$(dirname "$0")/test-lib.sh"

# spy/fp-bucket: keeps a copy of what the bucket stage is sent, then runs
# the real fp-bucket (the runner tells a program by its file name).
test_expect_success 'setup: a spy in front of fp-bucket, a capture' '
	mkdir spy &&
	printf "%s\n" "#!/bin/sh" "tee \"\$SPY_OUT\" | exec \"$(command -v fp-bucket)\" \"\$@\"" \
		>spy/fp-bucket &&
	chmod +x spy/fp-bucket &&
	zcat "$EXAMPLES/multiproc.perf.gz" >mp.perf &&
	sed "s|^bucket  *fp-bucket|bucket  $PWD/spy/fp-bucket|" "$EXAMPLES/default.pipeline" >spy.pipeline &&
	grep -q "spy/fp-bucket" spy.pipeline
'

test_expect_success 'the default chain (bucket, range, then fold) gets the stack-id stream' '
	SPY_OUT=$PWD/seen.ids flamepipe report -q --pipeline spy.pipeline mp.perf -o ids.out &&
	grep -q "^K	" seen.ids && grep -q "^P	" seen.ids && ! grep -q "^S	" seen.ids
'

test_expect_success 'FLAMEPIPE_STACK_IDS=0: plain S records' '
	SPY_OUT=$PWD/seen.plain FLAMEPIPE_STACK_IDS=0 \
		flamepipe report -q --pipeline spy.pipeline mp.perf -o plain.out &&
	grep -q "^S	" seen.plain && ! grep -q "^[KP]	" seen.plain
'

test_expect_success 'the report is the same either way' '
	for f in stacks.folded heatmap.tsv heatmap.json flame.svg; do
		test_cmp plain.out/$f ids.out/$f || return 1
	done
'

test_expect_success 'an awk stage before fp-fold: the whole chain gets plain S records' '
	sed "s|^bucket  *fp-bucket|bucket  $PWD/spy/fp-bucket|" "$EXAMPLES/awk-stage.pipeline" >awk.pipeline &&
	SPY_OUT=$PWD/seen.awk flamepipe report -q --pipeline awk.pipeline mp.perf -o awk.out \
		-D DROP_COMM=mp-crc32 &&
	grep -q "^S	" seen.awk && ! grep -q "^[KP]	" seen.awk &&
	! grep -q "^mp-crc32;" awk.out/stacks.folded && test -s awk.out/stacks.folded
'

test_expect_success 'a stage that may be restarted: plain S records (it would lose the K records)' '
	sed "s|^range .*fp-range|range   restart=on-failure fp-range|" spy.pipeline >restart.pipeline &&
	grep -q "restart=on-failure" restart.pipeline &&
	SPY_OUT=$PWD/seen.restart flamepipe report -q --pipeline restart.pipeline mp.perf -o restart.out &&
	grep -q "^S	" seen.restart && ! grep -q "^[KP]	" seen.restart
'

test_expect_success 'no fp-fold after the source: plain S records' '
	printf "%s\n" "read fp-read \${INPUT}" "bucket $PWD/spy/fp-bucket --all-events" \
		"render sh -c \"cat >\$PWD/nofold.out\"" >nofold.pipeline &&
	SPY_OUT=$PWD/seen.nofold flamepipe run nofold.pipeline --input mp.perf --outdir nf 2>err &&
	grep -q "^S	" seen.nofold && ! grep -q "^[KP]	" seen.nofold &&
	grep -q "^S	" nofold.out
'

test_expect_success 'fp-record passes K/P on (the chain after it is negotiated) and records S records' '
	sed "s|^bucket  *fp-bucket|recorder fp-record --output $PWD/rec.fp.gz\nbucket  $PWD/spy/fp-bucket|" \
		"$EXAMPLES/default.pipeline" >rec.pipeline &&
	grep -q "^recorder" rec.pipeline &&
	SPY_OUT=$PWD/seen.rec flamepipe report -q --pipeline rec.pipeline mp.perf -o rec.out &&
	grep -q "^P	" seen.rec && ! grep -q "^S	" seen.rec &&
	fp-read rec.fp.gz | grep "^S	" >rec.s &&
	fp-read mp.perf | grep "^S	" >want.s &&
	test_cmp want.s rec.s &&
	test_cmp ids.out/stacks.folded rec.out/stacks.folded
'

test_done
