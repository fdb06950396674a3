#!/bin/sh
test_description='the profile list shows captures only, recognised by content, with their format and size'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# A directory as users have them: captures under any name, and the files
# that were lying around (notes, scripts, a binary, an empty file), and a
# perf.data (pipe format: fp-perfdata reads it), and a report directory
# (its heatmap.json is JSON, but no Chrome profile).
mkdir mix mix/sub &&
cp "$EXAMPLES/demo-clockloop.perf.gz" mix/ &&
zcat "$EXAMPLES/multiproc.perf.gz" >mix/sub/capture.txt &&
cp "$TOP/README.md" mix/README.md &&
printf "#!/bin/sh\nperf record -g -- ./app\n" >mix/record.sh &&
cp /bin/true mix/true.perf &&
: >mix/empty.perf &&
printf "not a capture\n" | gzip >mix/notes.gz &&
cp "$TOP/tests/fuzz/corpus/fuzz-perfdata/pipe-busy.data" mix/perf.data &&
printf "%s\n" "# ========" "# captured on    : Tue Dec  1 08:00:00 2026" "# ========" "#" \
	"sh 12 100.000001: 1 cpu-clock:" "	ffffffff81000000 f ([kernel.kallsyms])" "" >mix/with-header.perf &&
printf "%s\n" "{\"nodes\":[],\"startTime\":0,\"endTime\":0,\"samples\":[],\"timeDeltas\":[]}" >mix/app.cpuprofile &&
flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" -o mix/rep &&
test -s mix/rep/heatmap.json &&
start_server mix || exit 1

test_expect_success 'only the captures are listed, sorted, with format and size' '
	test "$(get /profile/)" = 200 &&
	jq -r ".[] | \"\(.filename) \(.type) \(.format) \(.size)\"" body >got &&
	{
		echo "app.cpuprofile chrome chrome $(wc -c <mix/app.cpuprofile)" &&
		echo "demo-clockloop.perf.gz perf perf script, gzip $(wc -c <mix/demo-clockloop.perf.gz)" &&
		echo "perf.data perf perf.data $(wc -c <mix/perf.data)" &&
		echo "sub/capture.txt perf perf script $(wc -c <mix/sub/capture.txt)" &&
		echo "with-header.perf perf perf script $(wc -c <mix/with-header.perf)"
	} >expect &&
	test_cmp expect got
'

test_expect_success 'a hidden file can still be asked for by name (and is refused as a capture)' '
	code=$(get "/heatmap/?filename=README.md") &&
	test "$code" = 422 && json_error_ok "$code"
'

test_expect_success 'every listed capture opens' '
	for f in demo-clockloop.perf.gz sub/capture.txt with-header.perf perf.data; do
		test "$(get "/heatmap/?filename=$f")" = 200 || return 1
	done
'

test_done
