#!/bin/sh
test_description='one event at a time: heatmap, flame graph, report and API count the same samples of a two-event capture'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
. "$TOP/tests/lib-events.sh"
test_tags perf
BUSY=$TOP/build/tests/busy-phases

# A real capture with two events: page-faults (sort touching fresh memory)
# and, after an idle second, cpu-clock (the spinning second): the second
# event has samples in seconds where the first has none, so a heatmap on
# the first event's axis would lose them.
capture() {
	perf record --no-bpf-event -e cpu-clock -e page-faults -g -F 999 -o two.data -- \
		sh -c "seq 1 200000 | sort -r >/dev/null; '$BUSY' 01 2>/dev/null" \
		2>record.err >/dev/null &&
	perf script -i two.data >two.perf 2>script.err &&
	test -s two.perf
}
need_capture 'two-event capture' capture

# The independent count, from perf script's event lines (idle samples
# cannot occur: no -a).
count_events two.perf
FIRST=$(sed -n "1s/ .*//p" events.awk)

test_expect_success 'the capture has both events, each with samples' '
	cat events.awk &&
	test "$(wc -l <events.awk)" = 2 &&
	test "$(count_of cpu-clock)" -gt 50 && test "$(count_of page-faults)" -gt 0
'

test_expect_success 'fp-bucket counts the first event only by default, and says so' '
	fp-read -q two.perf | fp-bucket 2>err >out &&
	grep -q "^I	bucket	.*	counted=$(count_of "$FIRST")	" out &&
	grep -q "counting events of type $FIRST only" err &&
	grep -c "^S	" out >n && test "$(cat n)" = "$(count_of "$FIRST")"
'

test_expect_success 'fp-bucket lists every event with its samples, the counted one marked' '
	fp-read -q two.perf | fp-bucket --event page-faults 2>/dev/null | grep "^I	bucket-event	" >ev &&
	grep -q "	samples=$(count_of page-faults)	counted=1	event=page-faults\$" ev &&
	grep -q "	samples=$(count_of cpu-clock)	counted=0	event=cpu-clock\$" ev
'

test_expect_success 'fp-bucket --all-events counts both; --event and --all-events exclude each other' '
	fp-read -q two.perf | fp-bucket --all-events >out &&
	all=$(( $(count_of cpu-clock) + $(count_of page-faults) )) &&
	grep -q "^I	bucket	.*	counted=$all	" out &&
	{ fp-bucket --event x --all-events </dev/null 2>err; test $? = 100; } &&
	grep -q "exclude each other" err
'

for ev in cpu-clock page-faults; do
	test_expect_success "report --event $ev: heatmap total = folded total = awk count" "
		flamepipe report two.perf -o rep-$ev -q --event $ev 2>/dev/null &&
		test \"\$(heat_total rep-$ev/heatmap.json)\" = $(count_of $ev) &&
		test \"\$(folded_total rep-$ev/stacks.folded)\" = $(count_of $ev)
	"
done

test_expect_success 'report without --event: both views hold the first event' '
	flamepipe report two.perf -o rep -q 2>/dev/null &&
	test "$(heat_total rep/heatmap.json)" = "$(count_of "$FIRST")" &&
	test "$(folded_total rep/stacks.folded)" = "$(count_of "$FIRST")"
'

mkdir prof && cp two.perf prof/ && start_server prof || exit 1

# the root's children of the /flamegraph/ tree in ./body (jq's streaming
# parser: a real capture's tree can be deeper than jq's limit)
tree_roots() {
	jq -n -r --stream "inputs | select(length == 2 and (.[0] | length) == 3 and
		.[0][0] == \"c\" and .[0][2] == \"n\") | .[1]" body
}

for ev in cpu-clock page-faults; do
	test_expect_success "API event=$ev: /heatmap/ total = /flamegraph/ total = awk count" "
		code=\$(get \"/heatmap/?filename=two.perf&event=$ev\") &&
		echo \"heatmap status \$code total \$(heat_total body)\" && test \"\$code\" = 200 &&
		test \"\$(heat_total body)\" = $(count_of $ev) &&
		test \"\$(jq .counted body)\" = $(count_of $ev) &&
		test \"\$(get \"/flamegraph/?filename=two.perf&event=$ev\")\" = 200 &&
		echo \"flame graph total \$(tree_total)\" &&
		test \"\$(tree_total)\" = $(count_of $ev)
	"
done

test_expect_success 'API without event: heatmap, flame graph and a time range hold the first event' '
	test "$(get "/heatmap/?filename=two.perf")" = 200 &&
	test "$(heat_total body)" = "$(count_of "$FIRST")" &&
	jq -e --arg f "$FIRST" "[.events[] | select(.counted) | .name] == [\$f]" body &&
	test "$(get "/flamegraph/?filename=two.perf")" = 200 &&
	test "$(tree_total)" = "$(count_of "$FIRST")" &&
	test "$(get "/flamegraph/?filename=two.perf&start=0")" = 200 &&
	test "$(tree_total)" = "$(count_of "$FIRST")"
'

test_expect_success 'API: the heatmap lists both events with their awk counts' '
	test "$(get "/heatmap/?filename=two.perf&event=page-faults")" = 200 &&
	jq -r ".events[] | \"\(.name) \(.samples)\"" body | sort >got &&
	sort events.awk >expect &&
	test_cmp expect got
'

test_expect_success 'API: a comm filter without event keeps the first event in the heatmap too' '
	test "$(get "/heatmap/?filename=two.perf&comm=sort")" = 200 &&
	h=$(heat_total body) &&
	test "$(get "/flamegraph/?filename=two.perf&comm=sort")" = 200 &&
	test "$(tree_total)" = "$h"
'

test_expect_success 'API allevents=1: both events counted, each event a root frame' '
	all=$(( $(count_of cpu-clock) + $(count_of page-faults) )) &&
	test "$(get "/heatmap/?filename=two.perf&allevents=1")" = 200 &&
	test "$(heat_total body)" = "$all" && jq -e ".all_events" body &&
	test "$(get "/flamegraph/?filename=two.perf&allevents=1")" = 200 &&
	test "$(tree_total)" = "$all" &&
	tree_roots | sort >roots &&
	printf "%s\n" cpu-clock page-faults >expect && test_cmp expect roots
'

test_expect_success 'API: allevents with event, or a bad allevents value, is a 400' '
	code=$(get "/heatmap/?filename=two.perf&allevents=1&event=cpu-clock") &&
	test "$code" = 400 && json_error_ok "$code" &&
	code=$(get "/flamegraph/?filename=two.perf&allevents=yes") &&
	test "$code" = 400 && json_error_ok "$code"
'

test_done
