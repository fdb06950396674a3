#!/bin/sh
test_description='the default event is perf report'"'"'s first (the first -e, perf.data attribute order), not the first sample'"'"'s'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
. "$TOP/tests/lib-events.sh"
test_tags perf

# Two events, recorded so that the first sample is of the SECOND event:
# every page fault is a sample (period 1: the exec faults come at once),
# cpu-clock only every 10 ms. perf report lists cpu-clock first (-e order).
CPU=cpu-clock/period=10000000/ PF=page-faults/period=1/
capture() {
	perf record --no-bpf-event -e "$CPU" -e "$PF" -o two.data -- \
		sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; seq 1 400000 | sort -r >/dev/null' \
		2>record.err >/dev/null &&
	perf script -i two.data >two.perf 2>script.err &&
	perf script -i two.data --header >two-header.perf 2>>script.err &&
	perf report -i two.data --stdio >report.txt 2>report.err
}
need_capture 'two-event capture' capture

# Independent counts from perf script's text: samples per event (the word
# after "TIME: PERIOD" without its colon), and the event of the first sample.
count_events two.perf
count_comm() { # COMM EVENT: samples of EVENT by COMM (a filtered chain names the event)
	awk -v c="$1" -v e="$2:" '/^[^\t#]/ && NF && $1 == c { for (i = 1; i < NF; i++) if ($(i + 2) == e && $i ~ /^[0-9]+\.[0-9]+:$/) { n++; break } }
		END { print n + 0 }' two.perf
}
FIRST_SAMPLE=$(awk '/^[^\t#]/ && NF { for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { e = $(i + 2); sub(/:$/, "", e); print e; exit } }' two.perf)
# perf report's first event: its first "of event 'NAME'" line
PERF_FIRST=$(sed -n "s/^# Samples: .* of event '\\(.*\\)'\$/\\1/p" report.txt | head -n 1)

test_expect_success 'the capture: perf report lists cpu-clock first, the first sample is a page fault, sort has cpu-clock samples' '
	cat events.awk && echo "first sample: $FIRST_SAMPLE, perf report first: $PERF_FIRST" &&
	test "$PERF_FIRST" = "$CPU" &&
	test "$FIRST_SAMPLE" = "$PF" &&
	test "$(count_of "$CPU")" -gt 0 && test "$(count_of "$PF")" -gt 0 &&
	test "$(count_comm sort "$CPU")" -gt 0
'

test_expect_success 'fp-perfdata names the events in attribute order before the first sample' '
	fp-perfdata -q two.data >out &&
	printf "C\tevents\t%s\t%s\n" "$CPU" "$PF" >want &&
	grep -v "^[%I]" out | sed -n "1p" >got &&
	test_cmp want got
'

test_expect_success 'perf.data: fp-bucket counts perf report'"'"'s first event, listed first' '
	fp-perfdata -q two.data | fp-bucket 2>err >out &&
	grep -q "^I	bucket	.*	counted=$(count_of "$CPU")	" out &&
	grep "^I	bucket-event	" out | sed -n 1p | grep -q "	samples=$(count_of "$CPU")	counted=1	event=$CPU\$" &&
	grep -q "counting events of type $CPU only" err
'

test_expect_success 'perf script --header text: fp-read passes the order on, fp-bucket counts the same event' '
	fp-read -q two-header.perf >out &&
	grep -v "^[%I]" out | sed -n "1p" >got &&
	printf "C\tevents\t%s\t%s\n" "$CPU" "$PF" >want &&
	test_cmp want got &&
	fp-read -q two-header.perf | fp-bucket 2>/dev/null | grep -q "^I	bucket	.*	counted=$(count_of "$CPU")	"
'

test_expect_success 'fp-fold alone folds perf report'"'"'s first event too' '
	fp-perfdata -q two.data | fp-fold --plain 2>/dev/null >folded &&
	test "$(folded_total folded)" = "$(count_of "$CPU")"
'

test_expect_success 'report of the perf.data: heatmap total = folded total = the count of the first -e' '
	flamepipe report two.data -o rep -q 2>/dev/null &&
	test "$(heat_total rep/heatmap.json)" = "$(count_of "$CPU")" &&
	test "$(folded_total rep/stacks.folded)" = "$(count_of "$CPU")"
'

mkdir prof && cp two.data prof/ && start_server prof || exit 1

test_expect_success 'API of the perf.data: the first listed event is counted by the heatmap, the flame graph and a comm-filtered one' '
	test "$(get "/heatmap/?filename=two.data")" = 200 &&
	jq -r ".events[0].name" body >first && echo "$CPU" >want && test_cmp want first &&
	jq -e --arg f "$CPU" "[.events[] | select(.counted) | .name] == [\$f]" body &&
	test "$(heat_total body)" = "$(count_of "$CPU")" &&
	test "$(get "/flamegraph/?filename=two.data")" = 200 &&
	test "$(tree_total)" = "$(count_of "$CPU")" &&
	test "$(get "/flamegraph/?filename=two.data&comm=sort")" = 200 &&
	test "$(tree_total)" = "$(count_comm sort "$CPU")"
'

test_expect_success 'plain perf script text says no order: the first event seen is counted (stackcollapse-perf.pl)' '
	fp-read -q two.perf | fp-bucket 2>/dev/null >out &&
	grep -q "^I	bucket	.*	counted=$(count_of "$PF")	" out
'

test_done
