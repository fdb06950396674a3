#!/bin/sh
test_description='speedscope export (speedscope.json): valid against speedscope'"'"'s schema, per thread, in time order, weights'
. "$(dirname "$0")/test-lib.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz
CHECK=$TOP/tests/browser/speedscope-check.mjs

if ! command -v node >/dev/null 2>&1 ||
   [ ! -f "$TOP/tests/browser/node_modules/speedscope/dist/release/file-format-schema.json" ] ||
   [ ! -d "$TOP/tests/browser/node_modules/ajv" ]; then
	test_skip 'speedscope export' 'node or tests/browser/node_modules (speedscope, ajv) missing: run tools/install-deps.sh'
	test_done
fi
chain() { fp-read "$1" | fp-bucket | fp-range | fp-fold --pass-samples; }
# The S records fp-fold folds (one event: all of them); fp-render gets them
# as R records naming D-defined stacks.
samples() { fp-read "$1" | fp-bucket | fp-range; }

test_expect_success 'report --format speedscope: valid against the schema of the speedscope package' '
	flamepipe report -q "$DEMO" -o r --format all &&
	test -s r/speedscope.json &&
	node "$CHECK" r/speedscope.json >out && test "$(cat out)" = valid
'

test_expect_success 'its stacks and weights, per comm, are exactly stacks.folded' '
	node "$CHECK" r/speedscope.json folded >ss.folded &&
	test_cmp r/stacks.folded ss.folded
'

test_expect_success 'one sampled profile per thread, with that thread'"'"'s sample count' '
	samples "$DEMO" >s &&
	awk -F "	" "\$1 == \"S\" { n[\$8 \" \" \$3 \"/\" \$4]++ } END { for (k in n) print k \"	\" n[k] }" s |
		LC_ALL=C sort >want &&
	node "$CHECK" r/speedscope.json threads >threads &&
	grep -v "^active	" threads | cut -f 1,2 | LC_ALL=C sort >got &&
	test_cmp want got &&
	! grep -v "^active	" threads | grep -qv "	1	none\$"
'

test_expect_success 'speedscope opens the thread with the most samples' '
	busiest=$(grep -v "^active	" threads | sort -t "	" -k 2,2n | tail -n 1 | cut -f 1) &&
	active=$(awk -F "	" "\$1 == \"active\" { print \$2 }" threads) &&
	test "$(grep -v "^active	" threads | sed -n "$((active + 1))p" | cut -f 1)" = "$busiest"
'

test_expect_success 'samples are in time order within a thread, whatever order they came in' '
	printf "%s\n" "%flamepipe	1" \
	  "S	3000	7	7	0	10	cpu-clock	app	uu	main;third" \
	  "S	1000	7	7	0	10	cpu-clock	app	uu	main;first" \
	  "S	1500	7	8	1	20	cpu-clock	app	uu	main;other" \
	  "S	2000	7	7	0	10	cpu-clock	app	uu	main;second" \
	  "S	2000	7	7	0	10	cpu-clock	app	uu	main;second_same_time" >in.stream &&
	fp-render --outdir o --format speedscope <in.stream &&
	node "$CHECK" o/speedscope.json sequence >seq &&
	printf "app 7/7	main;first	1\napp 7/7	main;second	1\napp 7/7	main;second_same_time	1\napp 7/7	main;third	1\napp 7/8	main;other	1\n" >want &&
	test_cmp want seq
'

test_expect_success 'with fp-fold --weight period the weights are the periods, in nanoseconds for a clock event' '
	fp-fold --pass-samples --weight period in.stream >p.stream &&
	fp-render --outdir p --format speedscope <p.stream &&
	node "$CHECK" p/speedscope.json threads >pt &&
	grep -q "^app 7/7	4	40	1	nanoseconds\$" pt &&
	grep -q "^app 7/8	1	20	1	nanoseconds\$" pt
'

test_expect_success 'past --timeline-samples no partial speedscope.json is written, and the page says so' '
	chain "$DEMO" >demo.stream &&
	fp-render --outdir big --format speedscope,html,folded --timeline-samples 100 <demo.stream 2>err &&
	test ! -e big/speedscope.json && test -s big/stacks.folded &&
	grep -q "speedscope.json not written: more than 100 samples" err &&
	grep -q "speedscope.json not written" big/index.html
'

test_expect_success 'a hostile frame name stays one JSON string (escaped), the file stays valid' '
	flamepipe report -q "$DATA/xss.perf" -o x --format speedscope,folded &&
	node "$CHECK" x/speedscope.json >out && test "$(cat out)" = valid &&
	! grep -q "<script>" x/speedscope.json &&
	node "$CHECK" x/speedscope.json folded >x.folded && test_cmp x/stacks.folded x.folded
'

test_done
