#!/bin/sh
test_description='fp-serve /threads/ (processes and threads, heaviest first) and /flamechart/ (samples in time order)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

M=multiproc.perf.gz
mkdir prof && cp "$EXAMPLES/$M" prof/ && start_server prof || exit 1

# independent count: perf script header lines by pid (the word before
# "[cpu]"), heaviest first; multiproc has no idle samples
zcat "$EXAMPLES/$M" | awk '/^[^ \t#]/ { for (i = 2; i < NF; i++) if ($(i + 1) ~ /^\[[0-9]+\]$/) { n[$i]++; break } }
	END { for (p in n) print n[p], p }' | sort -k1,1nr -k2,2n >by-pid

test_expect_success 'processes: the samples of each pid, heaviest first, summing to the heatmap total' '
	test "$(get "/threads/?filename=$M")" = 200 &&
	jq -r ".processes[] | \"\(.samples) \(.pid)\"" body >got &&
	test_cmp by-pid got &&
	total=$(jq .total body) &&
	test "$(get "/heatmap/?filename=$M")" = 200 &&
	test "$(jq .counted body)" = "$total"
'

test_expect_success 'threads: every sample once, with comm names' '
	test "$(get "/threads/?filename=$M")" = 200 &&
	test "$(jq "[.threads[].samples] | add" body)" = "$(jq .total body)" &&
	jq -e "[.threads[].comm] | index(\"worker2\") != null" body
'

test_expect_success 'a filter narrows the lists (comm=worker2: one process)' '
	test "$(get "/threads/?filename=$M&comm=worker2")" = 200 &&
	test "$(jq ".processes | length" body)" = 1 &&
	test "$(jq -r ".processes[0].comm" body)" = worker2 &&
	test "$(jq .total body)" = "$(awk "\$2 == 6314 { print \$1 }" by-pid)"
'

test_expect_success 'a bad filter is a 400 JSON error' '
	code=$(get "/threads/?filename=$M&pid=abc") &&
	test "$code" = 400 && json_error_ok "$code"
'

# total of a /flamegraph/ tree in ./body (jq's streaming parser: deep trees)
tree_total() {
	jq -n --stream "[inputs | select(length == 2 and .[0][-1] == \"v\") | .[1]] | add // 0" body
}

test_expect_success '/flamechart/: every sample of the range once, runs in time order' '
	test "$(get "/flamechart/?filename=$M&start=2&end=3")" = 200 &&
	n=$(jq .total body) &&
	test "$(jq "[.runs[].n] | add" body)" = "$n" &&
	jq -e "[.runs[].t] as \$t | [range(1; \$t | length) | select(\$t[.] < \$t[. - 1])] | length == 0" body &&
	jq -e ".runs | length > 10" body &&
	test "$(get "/flamegraph/?filename=$M&start=2&end=3")" = 200 &&
	test "$(tree_total)" = "$n"
'

test_expect_success '/flamechart/ with a filter: only those samples; a bad filter is a 400' '
	test "$(get "/flamechart/?filename=$M&start=2&end=3&comm=worker2")" = 200 &&
	jq -e "[.runs[].stack | startswith(\"worker2;\")] | all" body &&
	code=$(get "/flamechart/?filename=$M&include=%28") &&
	test "$code" = 400 && json_error_ok "$code"
'

test_done
