#!/bin/sh
test_description='fp-serve: filters on /heatmap/ count the matching samples on the unfiltered axis'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# demo-clockloop: column 0 is second 155 (swapper), clockloop's first
# sample is in second 160: its own fp-bucket axis starts 5 columns later
D=demo-clockloop.perf.gz
M=multiproc.perf.gz
TAB=$(printf "\t")
mkdir prof && cp "$EXAMPLES/$D" "$EXAMPLES/$M" prof/ &&
start_server prof || exit 1

# nonzero cells of a /heatmap/ answer in ./body: "col row count" lines
# (row 0 = start of the second; values[c] lists rows top first)
cells_of_body() {
	jq -r ".rows_per_second as \$n | .values | to_entries[] | .key as \$c |
		.value | to_entries[] | select(.value > 0) |
		\"\(\$c) \(\$n - 1 - .key) \(.value)\"" body | sort
}

# nonzero cells of an fp-bucket stream on stdin, moved by $1 columns
cells_of_stream() {
	awk -F "\t" -v shift="$1" '$1 == "H" { c[$2 + shift " " $3] = $4 }
		END { for (k in c) if (c[k] > 0) print k, c[k] }' | sort
}

g_of() { awk -F "\t" '$1 == "G" { g = $3 } END { print g }' "$1"; }

test_expect_success 'an unfiltered heatmap says filtered:false' '
	test "$(get "/heatmap/?filename=$D&rows=50")" = 200 &&
	jq -e ".filtered == false" body &&
	cp body all.json
'

test_expect_success 'comm filter: total = fp-read | fp-range --comm | fp-bucket, filtered:true' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=clockloop")" = 200 &&
	jq -e ".filtered == true" body &&
	fp-read -q "$EXAMPLES/$D" | fp-range --comm clockloop | fp-bucket --rows 50 >stream &&
	sed -n "s/^I${TAB}bucket${TAB}.*counted=\([0-9]*\).*/\1/p" stream >expect &&
	jq "[.values[][]] | add" body >got &&
	test_cmp expect got &&
	jq ".counted" body >got &&
	test_cmp expect got &&
	test "$(cat expect)" -gt 0 &&
	test "$(cat expect)" -lt "$(jq .counted all.json)"
'

test_expect_success 'comm filter keeps the unfiltered axis: start_sec, columns, cells in place' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=clockloop")" = 200 &&
	jq -c "[.start_sec, .columns, .rows, .rows_per_second]" body >got &&
	jq -c "[.start_sec, .columns, .rows, .rows_per_second]" all.json >expect &&
	test_cmp expect got &&
	fp-read -q "$EXAMPLES/$D" | fp-bucket --rows 50 >all.stream &&
	fp-read -q "$EXAMPLES/$D" | fp-range --comm clockloop | fp-bucket --rows 50 >f.stream &&
	shift=$(( $(g_of f.stream) - $(g_of all.stream) )) &&
	test "$shift" = 5 &&
	cells_of_stream $shift <f.stream >expect &&
	cells_of_body >got &&
	test_cmp expect got
'

test_expect_success 'every filter: cells never exceed the unfiltered ones' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=clockloop&include=clock_gettime")" = 200 &&
	jq -e ".filtered == true and .counted > 0" body &&
	jq -s -e "[.[0].values, .[1].values] | transpose | map(transpose[]) |
		all(.[0] <= .[1])" body all.json
'

test_expect_success 'filters partition the samples: comm lists, include + exclude' '
	test "$(get "/heatmap/?filename=$M&rows=25")" = 200 &&
	all=$(jq .counted body) &&
	test "$(get "/heatmap/?filename=$M&rows=25&comm=worker2,mp-hash-parse")" = 200 &&
	a=$(jq .counted body) &&
	test "$(get "/heatmap/?filename=$M&rows=25&pid=6313,6315,71")" = 200 &&
	b=$(jq .counted body) &&
	test $((a + b)) = "$all" && test "$a" -gt 0 && test "$b" -gt 0 &&
	test "$(get "/heatmap/?filename=$M&rows=25&include=compress")" = 200 &&
	i=$(jq .counted body) &&
	test "$(get "/heatmap/?filename=$M&rows=25&exclude=compress")" = 200 &&
	x=$(jq .counted body) &&
	test $((i + x)) = "$all" && test "$i" -gt 0
'

test_expect_success 'pid, tid, cpu, event filters match fp-range on the command line' '
	for q in "pid 6313" "tid 6314" "cpu 1" "event cpu-clock:ppp"; do
		set -- $q &&
		test "$(get "/heatmap/?filename=$M&rows=10&$1=$2")" = 200 &&
		fp-read -q "$EXAMPLES/$M" | fp-range --$1 "$2" | fp-bucket --rows 10 |
			sed -n "s/^I${TAB}bucket${TAB}.*counted=\([0-9]*\).*/\1/p" >expect &&
		jq .counted body >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'a filter nothing matches: all cells 0, same columns' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=nosuchcomm")" = 200 &&
	jq -e ".filtered == true and .counted == 0 and .maxvalue == 0" body &&
	jq -e --slurpfile a all.json ".columns == \$a[0].columns and .start_sec == \$a[0].start_sec" body
'

test_expect_success 'keepidle=1 with a filter counts the idle samples of that comm' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=swapper")" = 200 &&
	jq -e ".idle > 0" body &&
	want=$(jq ".counted + .idle" body) &&
	test "$(get "/heatmap/?filename=$D&rows=50&comm=swapper&keepidle=1")" = 200 &&
	jq -e ".counted == $want and .filtered == true" body
'

test_expect_success 'empty filter values mean no filter (filtered:false)' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=&pid=&include=")" = 200 &&
	jq -e ".filtered == false" body &&
	jq -c ".values" body >got && jq -c ".values" all.json >expect &&
	test_cmp expect got
'

test_expect_success 'the same filtered request again gives the same answer (cached)' '
	test "$(get "/heatmap/?filename=$D&rows=50&comm=clockloop")" = 200 &&
	cp body first.json &&
	test "$(get "/heatmap/?filename=$D&rows=50&comm=clockloop")" = 200 &&
	cmp first.json body
'

test_expect_success '/svg/heatmap applies the filters too' '
	test "$(get "/svg/heatmap?filename=$D&rows=50")" = 200 &&
	mv body all.svg &&
	test "$(get "/svg/heatmap?filename=$D&rows=50&comm=clockloop")" = 200 &&
	grep -q "<svg" body &&
	! cmp -s all.svg body &&
	test "$(get "/svg/heatmap?filename=$D&rows=50&comm=nosuchcomm")" = 200 &&
	! cmp -s all.svg body
'

test_expect_success 'bad filters on /heatmap/ and /svg/heatmap are 4xx JSON errors' '
	for q in "pid=abc" "tid=1.5" "cpu=1,,2" "include=((" "exclude=a%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B" \
		"include=a)(b" "comm=x%0Aclear" "event=a%01b"; do
		code=$(get "/heatmap/?filename=$D&$q") &&
		test "$code" = 400 && json_error_ok "$code" &&
		code=$(get "/svg/heatmap?filename=$D&$q") &&
		test "$code" = 400 && json_error_ok "$code" || { echo "accepted: $q" >&2; return 1; }
	done
'

test_expect_success 'start and end are ignored by /heatmap/ (always the whole capture)' '
	test "$(get "/heatmap/?filename=$D&rows=50&start=3&end=4&comm=clockloop")" = 200 &&
	cmp first.json body
'

test_done
