#!/bin/sh
test_description='fp-render: index.html is ui/'"'"'s page on the embedded timeline (owners, time order)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

MULTI=$TOP/examples/multiproc.perf.gz

# The timeline JSON of a report page.
timeline() { # index.html
	awk '/type="application\/json" id="fp_timeline">/ { on = 1; sub(/.*type="application\/json" id="fp_timeline">/, "") }
		on { if (sub(/<\/script>.*/, "")) { print; exit } print }' "$1"
}
# "pid count" per owner pid from the cells (entries: stack, owner, count).
pid_counts() { # timeline.json
	jq -r '. as $t | [range(0; $t.cells | length)] | reduce .[] as $i ({i: 0, out: {}};
		if $i != .i then . else
			($t.cells[$i + 2]) as $k |
			reduce range(0; $k) as $j (.; ($t.cells[$i + 3 + 3 * $j + 1]) as $o |
				.out[($t.owners[5 * $o] | tostring)] += $t.cells[$i + 3 + 3 * $j + 2]) |
			.i = $i + 3 + 3 * $k end) | .out | to_entries[] | "\(.key) \(.value)"' "$1" | sort -n
}

# An S record at TIME ns of EVENT (comm app, one frame).
e() { printf "S\t%s\t1\t1\t0\t1\t%s\tapp\tu\tmain\n" "$1" "$2"; }

test_expect_success 'flamepipe report writes ui/index.html with every ui/ module, no second page' '
	flamepipe report -q "$MULTI" -o rep &&
	page_ok rep/index.html &&
	for f in "$TOP"/ui/*.js; do
		case $f in */reportboot.js) continue ;; esac
		grep -q "data-fp-module=\"$(basename "$f")\"" rep/index.html || { echo "missing $f"; return 1; }
	done &&
	! grep -q "<iframe" rep/index.html
'

test_expect_success 'the page fetches nothing: no http(s) address and no server file' '
	! grep -q "src=\"http" rep/index.html &&
	! grep -q "/ui/app\.\(js\|css\)" rep/index.html
'

test_expect_success 'timeline owners: per pid, the cells count what perf script has for that pid' '
	timeline rep/index.html >tl.json &&
	jq -e ".owners | length % 5 == 0" tl.json &&
	pid_counts tl.json >got &&
	fp-read "$MULTI" | awk -F "\t" "\$1 == \"S\" { n[\$3]++ } END { for (p in n) print p, n[p] }" |
		sort -n >want &&
	test_cmp want got
'

test_expect_success 'timeline total = stacks.folded total; labels name the comms and the event' '
	jq -e ".total == ([.cells as \$c | foreach range(0; \$c | length) as \$i (
		{next: 0, sum: 0};
		if \$i == .next then .sum += ([range(0; \$c[\$i + 2])] | map(\$c[\$i + 5 + 3 * .]) | add) |
			.next = \$i + 3 + 3 * \$c[\$i + 2] else . end; .sum)] | max)" tl.json &&
	awk "{ t += \$NF } END { print t }" rep/stacks.folded >want &&
	jq .total tl.json >got && test_cmp want got &&
	jq -e "(.labels | index(\"cpu-clock:ppp\")) != null and (.labels | index(\"mp-crc32\")) != null" tl.json &&
	jq -e ".kinds | length == (\$names | length)" --argjson names "$(jq .names tl.json)" tl.json
'

test_expect_success 'a cell lists its entries in the order their first sample came' '
	s() { printf "S\t%s\t1\t1\t0\t1\tcpu-clock\tapp\tuu\tmain;%s\n" "$1" "$2"; } &&
	{ s 5000000000 zeta; s 5001000000 alpha; s 5002000000 zeta; } >order.S &&
	fp-bucket <order.S | fp-fold --pass-samples | fp-render --outdir order &&
	timeline order/index.html >order.json &&
	jq -c ".cells" order.json >got &&
	jq -r "[.stacks[] | map(\$n[.]) | join(\";\")] | .[]" --argjson n "$(jq .names order.json)" order.json >stacks &&
	zeta=$(grep -n zeta stacks | cut -d: -f1) && alpha=$(grep -n alpha stacks | cut -d: -f1) &&
	echo "[0,0,2,$((zeta - 1)),0,2,$((alpha - 1)),0,1]" >want &&
	test_cmp want got
'

test_expect_success 'no timeline (--timeline-max 0): the page says what it cannot draw' '
	fp-read "$MULTI" | fp-bucket | fp-range | fp-fold --pass-samples >multi.stream &&
	fp-render --outdir none --timeline-max 0 <multi.stream &&
	page_ok none/index.html &&
	! grep -q "<script type=\"application/json\" id=\"fp_timeline\">" none/index.html &&
	grep -q "no flame graph of a range or of filters" none/index.html &&
	fp-render --outdir some <multi.stream &&
	grep -q "<script type=\"application/json\" id=\"fp_timeline\">" some/index.html
'

test_expect_success 'a report of a range and filter: the timeline says what it holds (selected)' '
	flamepipe report -q "$MULTI" --from 2 --to 3 --comm mp-crc32 -o ranged &&
	timeline ranged/index.html | jq -r .selected >got &&
	echo "range [2, 3) s, filter comm mp-crc32" >want && test_cmp want got &&
	timeline rep/index.html | jq -e ".selected == \"\""
'

test_expect_success 'capture_events follow the capture'"'"'s event order (C events), not the first sample'"'"'s' '
	{ printf "C\tevents\tcpu-clock\tpage-faults\n"; e 1000000000 page-faults; e 1100000000 cpu-clock; } >ord.S &&
	fp-bucket --all-events <ord.S | fp-fold --pass-samples --all-events | fp-render --outdir ord 2>/dev/null &&
	timeline ord/index.html | jq -c "[.capture_events[].name]" >got &&
	echo "[\"cpu-clock\",\"page-faults\"]" >want && test_cmp want got
'

test_expect_success 'capture_events: every event fp-bucket saw, with its samples and whether it was kept' '
	{ e 1000000000 cpu-clock; e 1100000000 page-faults; e 1200000000 cpu-clock; } >two.S &&
	fp-bucket <two.S | fp-fold --pass-samples | fp-render --outdir two 2>/dev/null &&
	timeline two/index.html >two.json &&
	jq -c ".capture_events" two.json >got &&
	echo "[{\"name\":\"cpu-clock\",\"samples\":2,\"counted\":1},{\"name\":\"page-faults\",\"samples\":1,\"counted\":0}]" >want &&
	test_cmp want got &&
	fp-bucket --all-events <two.S | fp-fold --pass-samples --all-events | fp-render --outdir all 2>/dev/null &&
	timeline all/index.html | jq -e "[.capture_events[].counted] == [1, 1] and .total == 3"
'

test_done
