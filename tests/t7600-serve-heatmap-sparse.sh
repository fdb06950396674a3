#!/bin/sh
test_description='fp-serve: render'"'"'s sparse heatmap (issue 14 #5): a stray sample, a 99,900 s gap, a cut axis'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# A perf script sample of COMM at SECONDS (one frame).
sample() { # COMM SECONDS
	printf '%s  7 [000] %s:    1000000 cpu-clock:ppp: \n\t            1000 main+0x1 (/bin/%s)\n\n' "$1" "$2" "$1"
}

# one stray sample at 1 s, then 1,000 samples from 100,002 s on (more than
# a whole axis of 100,000 columns after the stray one)
mkdir prof &&
{
	sample stray 1.000000
	i=0
	while [ $i -lt 1000 ]; do
		sample app "$((100002 + i / 100)).$(printf %06d $((i % 100 * 10000)))"
		i=$((i + 1))
	done
} >prof/stray.perf &&
{ sample app 5.500000; sample app 99905.500000; } >prof/gap.perf &&
start_server prof || exit 1

# the samples of the /flamegraph/ tree in ./body (v: self counts)
flame_total() { jq "[.. | objects | .v] | add" body; }

test_expect_success 'a stray early sample: the heatmap total equals the flame graph total (not 422)' '
	test "$(get "/heatmap/?filename=stray.perf&rows=50")" = 200 &&
	jq "[.values[][]] | add" body >heat &&
	jq ".counted" body >counted &&
	echo 1001 >expect && test_cmp expect heat && test_cmp expect counted &&
	test "$(get "/flamegraph/?filename=stray.perf")" = 200 &&
	flame_total >got && test_cmp expect got
'

test_expect_success 'a stray early sample: a filtered heatmap is drawn on the same cut axis' '
	test "$(get "/heatmap/?filename=stray.perf&rows=50")" = 200 &&
	jq -c ".columns" body >all_cols &&
	test "$(get "/heatmap/?filename=stray.perf&rows=50&comm=app")" = 200 &&
	jq -c ".columns" body >app_cols &&
	test_cmp all_cols app_cols &&
	test "$(jq "[.values[][]] | add" body)" = 1000 &&
	test "$(jq ".values[0] | add" body)" = 0
'

test_expect_success 'two samples 99,900 s apart at 1000 rows: quick, small answer, bounded memory' '
	start=$(date +%s) &&
	test "$(get "/heatmap/?filename=gap.perf&rows=1000")" = 200 &&
	end=$(date +%s) &&
	echo "answered in $((end - start)) s, $(wc -c <body) bytes, fp-serve $(grep VmHWM /proc/$serve_pid/status)" &&
	test $((end - start)) -lt 20 &&
	test "$(wc -c <body)" -lt 100000 &&
	hwm=$(awk "/VmHWM/ { print \$2 }" /proc/$serve_pid/status) &&
	limit=200000 && { [ -z "${FP_ASAN:-}" ] || limit=800000; } &&
	test "$hwm" -lt $limit &&
	test "$(jq "[.values[][]] | add" body)" = 2
'

test_expect_success 'a cut axis is said: columns lists the real seconds, cut the empty ones left out' '
	test "$(get "/heatmap/?filename=gap.perf&rows=1000")" = 200 &&
	jq -c "[.columns, .cut, (.values | length)]" body >got &&
	echo "[[0,99900],99899,2]" >expect && test_cmp expect got &&
	test "$(get "/heatmap/?filename=stray.perf&rows=50")" = 200 &&
	jq -c "[.columns[0:3], .cut, (.columns | length) == (.values | length)]" body >got &&
	echo "[[0,100001,100002],100000,true]" >expect && test_cmp expect got
'

test_expect_success 'a whole axis says no cut (the FlameScope shape is unchanged)' '
	test "$(get "/heatmap/?filename=gap.perf&rows=10")" = 200 &&
	jq -e "has(\"cut\") | not" body &&
	jq -e "(.columns | length) == 99901 and .columns[99900] == 99900" body
'

test_expect_success 'a range on the far side of the cut counts its samples' '
	test "$(get "/flamegraph/?filename=stray.perf&start=100001&end=100002")" = 200 &&
	test "$(flame_total)" = 100
'

test_done
