#!/bin/sh
test_description='fp-chrome: Chrome/V8 CPU profiles (.cpuprofile from node --cpu-prof, trace events) as a source'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
. "$TOP/tests/lib-render.sh"

if ! command -v node >/dev/null 2>&1; then
	test_skip 'chrome input' 'node is not installed'
	test_done
fi
folded_total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
tsv_total() { awk -F "	" 'NR > 1 { t += $3 } END { print t + 0 }' "$1"; }
# node: a field of a .cpuprofile
js() { node -e "const p = JSON.parse(require('fs').readFileSync('$1', 'utf8')); console.log($2)"; }

cat >work.js <<'EOF_JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function spin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += fib(18); return x; }
spin(700);
setTimeout(() => spin(600), 400);
EOF_JS

test_expect_success 'node --cpu-prof records a .cpuprofile here' '
	node --cpu-prof --cpu-prof-dir=prof --cpu-prof-interval 500 work.js &&
	mv prof/CPU.*.cpuprofile . && cp CPU.*.cpuprofile node.cpuprofile &&
	n=$(js node.cpuprofile p.samples.length) && echo "samples=$n" && test "$n" -gt 200
'

test_expect_success 'fp-chrome emits one S record per sample, in time order, with the profile'"'"'s own times' '
	fp-chrome node.cpuprofile >s &&
	head -n 1 s | grep -qx "%flamepipe	1" &&
	test "$(grep -c "^S	" s)" = "$(js node.cpuprofile p.samples.length)" &&
	first=$(js node.cpuprofile "(p.startTime + p.timeDeltas[0]) * 1000") &&
	test "$(grep -m1 "^S	" s | cut -f 2)" = "$first" &&
	awk -F "	" "\$1 == \"S\" { if (\$2 < last) bad = 1; last = \$2 } END { exit bad }" s &&
	grep -q "^I	chrome	samples=$(js node.cpuprofile p.samples.length)	profiles=1	" s
'

test_expect_success 'pid and tid come from node'"'"'s file name, the frames from the call frames' '
	f=$(ls CPU.*.cpuprofile) && fp-chrome "$f" >s2 &&
	pid=$(echo "$f" | cut -d. -f 4) && tid=$(echo "$f" | cut -d. -f 5) &&
	grep "^S	" s2 | cut -f 3,4 | sort -u >ids && printf "%s	%s\n" "$pid" "$tid" >want &&
	test_cmp want ids &&
	grep -q "	j*	.*;fib file://$TRASH/work.js:1;fib " s2 &&
	grep -q "	u	\\[program\\]\$" s2
'

test_expect_success 'report on the .cpuprofile: heatmap and flame graph totals = the profile'"'"'s sample count' '
	flamepipe report -q node.cpuprofile -o r &&
	n=$(js node.cpuprofile p.samples.length) &&
	echo "samples=$n folded=$(folded_total r/stacks.folded) heatmap=$(tsv_total r/heatmap.tsv)" &&
	test "$(folded_total r/stacks.folded)" = "$n" &&
	test "$(tsv_total r/heatmap.tsv)" = "$n" &&
	grep -q "^v8;.*;spin file://$TRASH/work.js:2;fib file://$TRASH/work.js:1" r/stacks.folded
'

test_expect_success 'the heatmap spans the profile: its seconds, the busy ones counted' '
	secs=$(js node.cpuprofile "Math.floor(p.endTime / 1e6) - Math.floor(p.startTime / 1e6) + 1") &&
	cols=$(awk -F "	" "NR > 1 { c[\$1] = 1 } END { print length(c) }" r/heatmap.tsv) &&
	echo "profile seconds=$secs heatmap columns=$cols" &&
	test "$cols" -ge "$((secs - 1))" && test "$cols" -le "$((secs + 1))"
'

# The range is taken where the profile has samples (from its first to its
# third quarter, in tenths of a second from the heatmap's first second): on a
# loaded machine node may start sampling late in that second.
test_expect_success 'a range (--from/--to) holds exactly the samples of those times' '
	node -e "
		const p = JSON.parse(require(\"fs\").readFileSync(\"node.cpuprofile\", \"utf8\"));
		let t = p.startTime; const base = Math.floor((p.startTime + p.timeDeltas[0]) / 1e6) * 1e6;
		const ts = p.timeDeltas.map((d) => (t += d) - base);
		const from = Math.floor(ts[Math.floor(ts.length / 4)] / 1e5) / 10;
		const to = Math.max(Math.ceil(ts[Math.floor(ts.length * 3 / 4)] / 1e5) / 10, from + 0.1);
		const n = ts.filter((x) => x >= from * 1e6 && x < to * 1e6).length;
		console.log(from.toFixed(1), to.toFixed(1), n)" >range &&
	read from to want <range &&
	flamepipe report -q node.cpuprofile --from "$from" --to "$to" -o rr &&
	echo "from=$from to=$to" &&
	echo "want=$want got=$(folded_total rr/stacks.folded)" &&
	test "$(folded_total rr/stacks.folded)" = "$want" && test "$want" -gt 0
'

test_expect_success 'a gzip'"'"'ed .cpuprofile is recognised through the gzip' '
	gzip -c node.cpuprofile >node.cpuprofile.gz &&
	flamepipe report -q node.cpuprofile.gz -o rz &&
	test_cmp r/stacks.folded rz/stacks.folded
'

cat >trace.json <<'EOF_T'
{"traceEvents":[
{"name":"thread_name","ph":"M","pid":10,"tid":11,"args":{"name":"CrRendererMain"}},
{"name":"Profile","ph":"P","pid":10,"tid":11,"id":"0x1","ts":5,"args":{"data":{"startTime":3000000}}},
{"name":"ProfileChunk","ph":"P","pid":10,"tid":11,"id":"0x1","ts":6,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
          {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"https://x/app.js","lineNumber":9}},
          {"id":3,"parent":2,"callFrame":{"functionName":"","url":"https://x/app.js","lineNumber":19}}],
 "samples":[2,3,3]},"timeDeltas":[100,200000,300000]}}},
{"name":"ProfileChunk","ph":"P","pid":10,"tid":11,"id":"0x1","ts":7,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":4,"parent":3,"callFrame":{"functionName":"leaf;x","url":"https://x/app.js","lineNumber":29}},
          {"id":5,"parent":1,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1}}],
 "samples":[4,5]},"timeDeltas":[600000,10]}}},
{"name":"Profile","ph":"P","pid":20,"tid":21,"id":"0x1","ts":5,"args":{"data":{"startTime":3100000}}},
{"name":"ProfileChunk","ph":"P","pid":20,"tid":21,"id":"0x1","ts":6,"args":{"data":{"cpuProfile":{
 "nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
          {"id":7,"parent":1,"callFrame":{"functionName":"worker","url":"https://x/w.js","lineNumber":0}}],
 "samples":[7,7]},"timeDeltas":[1,1]}}}
]}
EOF_T

test_expect_success 'trace events: a profile per (pid, id), nodes across chunks, thread names, time order' '
	fp-chrome trace.json | grep "^S	" | cut -f 2-4,8- >got &&
	printf "%s\n" \
	  "3000100000	10	11	CrRendererMain	j	main https://x/app.js:10" \
	  "3100001000	20	21	v8	j	worker https://x/w.js:1" \
	  "3100002000	20	21	v8	j	worker https://x/w.js:1" \
	  "3200100000	10	11	CrRendererMain	jj	main https://x/app.js:10;[anonymous] https://x/app.js:20" \
	  "3500100000	10	11	CrRendererMain	jj	main https://x/app.js:10;[anonymous] https://x/app.js:20" \
	  "4100100000	10	11	CrRendererMain	jjj	main https://x/app.js:10;[anonymous] https://x/app.js:20;leaf:x https://x/app.js:30" \
	  "4100110000	10	11	CrRendererMain	u	[garbage collector]" >want &&
	test_cmp want got
'

test_expect_success 'report accepts the trace by content (the name says nothing)' '
	cp trace.json capture.data &&
	flamepipe report -q capture.data -o rt &&
	test "$(folded_total rt/stacks.folded)" = 7
'

test_expect_success 'bad input: a clear error naming the file and what was expected, exit 1' '
	printf "{\"nodes\": [1, 2" >broken.json &&
	expect_exit 1 fp-chrome broken.json 2>err && grep -q "^fp-chrome: broken.json:1:[0-9]*: not JSON: " err &&
	echo "{\"a\": 1}" >other.json &&
	expect_exit 1 fp-chrome other.json 2>err && grep -q "expected a .cpuprofile" err &&
	echo "{\"nodes\":[{\"id\":1,\"callFrame\":{}}],\"samples\":[9],\"timeDeltas\":[1],\"startTime\":0}" >miss.json &&
	expect_exit 1 fp-chrome miss.json 2>err && grep -q "a sample names a node id that does not exist" err &&
	echo "{\"nodes\":[{\"id\":1,\"parent\":2,\"callFrame\":{}},{\"id\":2,\"parent\":1,\"callFrame\":{}}],\"samples\":[1],\"timeDeltas\":[1],\"startTime\":0}" >cycle.json &&
	expect_exit 1 fp-chrome cycle.json 2>err && grep -q "cycle" err &&
	echo "[]" >empty.json &&
	expect_exit 1 fp-chrome empty.json 2>err && grep -q "no \"Profile\"" err
'

test_expect_success 'input past --max-mb is refused, not read into memory' '
	head -c 2200000 /dev/zero | tr "\\0" " " >big.json && echo "{}" >>big.json &&
	expect_exit 1 fp-chrome --max-mb 2 big.json 2>err &&
	grep -q "big.json: larger than 2 MB (--max-mb)" err
'

mkdir -p served && cp node.cpuprofile served/ && cp "$EXAMPLES/multiproc.perf.gz" served/
start_server served || exit 1

test_expect_success 'fp-serve lists the profile as chrome, and its heatmap and flame graph count every sample' '
	test "$(get /profile/)" = 200 &&
	jq -r ".[] | .filename + \" \" + .type" body >types &&
	printf "multiproc.perf.gz perf\nnode.cpuprofile chrome\n" >want && test_cmp want types &&
	n=$(js node.cpuprofile p.samples.length) &&
	test "$(get "/heatmap/?filename=node.cpuprofile&rows=50")" = 200 &&
	test "$(jq "[.values[][]] | add" body)" = "$n" &&
	test "$(get "/folded?filename=node.cpuprofile")" = 200 &&
	test "$(folded_total body)" = "$n"
'

test_done
