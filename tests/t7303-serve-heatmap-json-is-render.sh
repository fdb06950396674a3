#!/bin/sh
test_description='fp-serve /heatmap/ is render'"'"'s heatmap JSON: fp-render'"'"'s heatmap.json byte for byte, then fp-serve'"'"'s keys; a filtered one on the unfiltered axis'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# One writer (render/heatmap.c, fp_heatmap_json_keys) makes both: if the
# number format, the key order or the axis of either ever drifts, the
# bytes differ here.
D=demo-clockloop.perf.gz
M=multiproc.perf.gz

# A perf script sample of COMM at SECONDS (one frame).
sample() { # COMM SECONDS
	printf '%s  7 [000] %s:    1000000 cpu-clock:ppp: \n\t            1000 main+0x1 (/bin/%s)\n\n' "$1" "$2" "$1"
}

mkdir prof && cp "$EXAMPLES/$D" "$EXAMPLES/$M" prof/ &&
{
	# one stray sample, then 300 from 100,003 s on: the axis is cut
	sample stray 1.000000
	i=0
	while [ $i -lt 300 ]; do
		sample "app$((i % 2))" "$((100003 + i / 100)).$(printf %06d $((i % 100 * 10000)))"
		i=$((i + 1))
	done
} >prof/cut.perf &&
start_server prof || exit 1

# heatmap.json of `flamepipe report FILE ARGS` (in ./rep), without its
# closing "}\n", into ./core; /heatmap/?QUERY's body into ./body
report_and_serve() { # FILE QUERY [report args]
	_f=$1 _q=$2
	shift 2
	rm -rf rep && flamepipe report -q "prof/$_f" -o rep "$@" &&
	_n=$(wc -c <rep/heatmap.json) &&
	test "$(tail -c 2 rep/heatmap.json)" = "}" &&
	head -c $((_n - 2)) rep/heatmap.json >core &&
	test "$(get "/heatmap/?filename=$_f$_q")" = 200
}

# ./body begins with ./core, byte for byte, and goes on with fp-serve's keys
body_extends_core() {
	_n=$(wc -c <core) &&
	head -c "$_n" body | cmp - core &&
	tail -c +$((_n + 1)) body | head -c 18 >rest &&
	printf ',"rows_per_second"' >expect_rest &&
	cmp expect_rest rest
}

test_expect_success 'the bytes of heatmap.json begin /heatmap/ (50 rows)' '
	report_and_serve "$M" "" &&
	body_extends_core
'

test_expect_success 'the same with 49 rows: row starts with 3 decimals, truncated' '
	report_and_serve "$D" "&rows=49" --rows 49 &&
	body_extends_core &&
	grep -q "\"rows\":\[979.591,959.183," body
'

test_expect_success 'the same with idle samples kept (keepidle=1, --keep-idle)' '
	report_and_serve "$D" "&keepidle=1" --keep-idle &&
	body_extends_core &&
	jq -e ".counted == .samples" body
'

test_expect_success 'the same on a cut axis: columns, base_sec and cut are render'"'"'s' '
	report_and_serve cut.perf "" &&
	body_extends_core &&
	jq -c "[.base_sec, .cut, (.columns | length)]" body >got &&
	echo "[1,100001,4]" >expect &&
	test_cmp expect got
'

# the bytes of ./body up to "values": columns and rows
axis_bytes() { sed "s/,\"values\":.*//" body; }

test_expect_success 'a filtered /heatmap/: the unfiltered columns and rows to the byte, base_sec, cut' '
	test "$(get "/heatmap/?filename=cut.perf")" = 200 &&
	axis_bytes >all.axis && jq -c "[.base_sec, .cut, .start_sec]" body >all.keys &&
	test "$(get "/heatmap/?filename=cut.perf&comm=app1")" = 200 &&
	axis_bytes >f.axis && jq -c "[.base_sec, .cut, .start_sec]" body >f.keys &&
	test_cmp all.axis f.axis && test_cmp all.keys f.keys &&
	jq -e ".filtered == true and .counted == 150" body
'

test_expect_success 'a filtered /heatmap/ counts what the filtered flame graph holds' '
	for q in "comm=clockloop" "comm=swapper" "include=clock_gettime" "pid=0"; do
		test "$(get "/heatmap/?filename=$D&$q")" = 200 &&
		axis_bytes >f.axis &&
		jq "[.values[][]] | add // 0" body >heat &&
		test "$(get "/heatmap/?filename=$D")" = 200 && axis_bytes >all.axis &&
		test_cmp all.axis f.axis &&
		test "$(get "/flamegraph/?filename=$D&$q")" = 200 &&
		tree_total >flame &&
		test_cmp flame heat || return 1
	done
'

test_expect_success 'a filtered /svg/heatmap is drawn on the unfiltered axis: as many columns' '
	test "$(get "/svg/heatmap?filename=cut.perf")" = 200 &&
	grep -o "cols: [0-9]*" body >all.cols &&
	test "$(get "/svg/heatmap?filename=cut.perf&comm=app1")" = 200 &&
	grep -o "cols: [0-9]*" body >f.cols &&
	test_cmp all.cols f.cols &&
	echo "cols: 4" >expect && test_cmp expect f.cols
'

test_expect_success 'the live capture'"'"'s /heatmap/ begins with fp-render'"'"'s heatmap.json of the same stream' '
	fp-read -q "prof/$M" | fp-bucket --rows 25 --cells-only >live.stream &&
	fp-render --outdir live <live.stream &&
	_n=$(wc -c <live/heatmap.json) &&
	head -c $((_n - 2)) live/heatmap.json >core &&
	rm -f serve.out &&
	{ fp-serve --dir prof --listen 127.0.0.1:0 --live cap <live.stream >serve.out 2>>serve.err & } &&
	register_pid $! &&
	wait_for "grep -qs \"listening on\" serve.out" 100 &&
	URL=http://127.0.0.1:$(sed -n "1s|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p" serve.out) &&
	wait_for "get \"/heatmap/?filename=cap\" >/dev/null && jq -e \".ended == true\" body >/dev/null" 100 &&
	body_extends_core &&
	jq -e ".live == true and .rows_per_second == 25" body
'

test_done
