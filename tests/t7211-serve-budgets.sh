#!/bin/sh
test_description='fp-serve budgets: a gzip bomb ends at its inflate budget with a JSON error while other users are served as usual; CPU, time and output budgets; one user never holds every chain slot'
. "$(dirname "$0")/test-lib.sh"
test_tags root slow
. "$TOP/tests/lib-serve.sh"

command -v setpriv >/dev/null 2>&1 || { test_skip "$test_name" 'setpriv not installed'; test_done; }

# The bomb: a few real samples, then 100 gzip members of 100 MB of zeros
# each: 10 MB on disk that inflate to 10 GB (never written out whole).
F=demo-clockloop.perf.gz
mkdir prof nb && chmod 777 nb && cp "$EXAMPLES/$F" prof/ &&
zcat "$EXAMPLES/$F" | head -n 50 | gzip >bomb.gz &&
head -c 100M /dev/zero | gzip -9 >zeros.gz &&
i=0 && while [ $i -lt 100 ]; do cat zeros.gz; i=$((i + 1)); done >>bomb.gz &&
rm zeros.gz &&
head -c 150000 /dev/urandom >a.bin && head -c 100000 /dev/urandom >b.bin &&
head -c 90000 /dev/urandom >c.bin && head -c 300000 /dev/urandom >big.bin || exit 1

# as_nobody CMD...: another local user (another flow of the fair queue)
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# nq OUT N: N range queries on the demo capture, none the same (no cache
# hit), one after another; "status seconds" lines into OUT
nq() {
	: >"$1"
	_k=0
	while [ $_k -lt "$2" ]; do
		curl -sS --max-time 60 -o /dev/null -w '%{http_code} %{time_total}\n' \
			"$URL/flamegraph/?filename=$F&start=$((_k % 90)).$_k$3&end=$((_k % 90 + 20))" >>"$1"
		_k=$((_k + 1))
	done
}
# fresh DIR [options]: the previous test's server stopped, a new one started
fresh() {
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS"
	rm -rf prof/uploads
	start_server "$@"
}
max_of() { awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$1"; }
all_200() { test "$(grep -c "^200 " "$1")" = "$2"; }
upload_bomb() { # NAME: uploads bomb.gz as NAME
	test "$(post "/upload?filename=$1" --data-binary @bomb.gz)" = 201
}

test_expect_success 'a 10 GB-inflating gzip upload: 413 JSON within its inflate budget, again at once; 20 queries of another user as fast as without it' '
	fresh prof --max-inflate 256M &&
	upload_bomb bomb.perf.gz &&
	nq alone 20 1 && all_200 alone 20 &&
	t0=$(max_of alone) &&
	for j in 1 2 3 4; do
		as_nobody curl -sS --max-time 120 -o nb/bomb.$j -w "%{http_code} %{time_total}\n" \
			"$URL/heatmap/?filename=uploads/bomb.perf.gz" >nb/bomb.$j.st &
	done &&
	nq attacked 20 2 &&
	wait_for "test \"\$(cat nb/bomb.*.st | wc -l)\" = 4" 600 &&
	cat nb/bomb.*.st &&
	all_200 attacked 20 &&
	t1=$(max_of attacked) &&
	echo "slowest normal query: $t0 s alone, $t1 s with the bomb" &&
	awk -v a="$t0" -v b="$t1" "BEGIN { exit !(b <= 3 * a + 1) }" &&
	test "$(grep -c "^413 " nb/bomb.1.st nb/bomb.2.st nb/bomb.3.st nb/bomb.4.st | grep -c ":1$")" = 4 &&
	awk "{ if (\$2 > 20) exit 1 }" nb/bomb.*.st &&
	jq -e ".error | test(\"inflates to more than the budget of 268435456 bytes .--max-inflate.\")" nb/bomb.1 &&
	# refused again at once: the failed index is remembered for that file
	t=$(curl -sS -o body -w "%{time_total}" "$URL/flamegraph/?filename=uploads/bomb.perf.gz&start=1&end=2") &&
	jq -e ".error | test(\"--max-inflate\")" body &&
	awk -v t="$t" "BEGIN { exit !(t < 2) }"
'

test_expect_success 'over its CPU budget a request is killed: 503 JSON naming --max-cpu' '
	fresh prof --max-inflate 0 --max-cpu 1 --max-time 100 &&
	upload_bomb cpu.perf.gz &&
	t=$(curl -sS --max-time 100 -o body -w "%{http_code} %{time_total}" \
		"$URL/heatmap/?filename=uploads/cpu.perf.gz") &&
	echo "$t" &&
	test "${t% *}" = 503 && jq -e ".error | test(\"CPU budget of 1.000 s .--max-cpu.\")" body &&
	awk -v t="${t#* }" "BEGIN { exit !(t < 20) }"
'

test_expect_success 'over its time budget a request is killed: 503 JSON naming --max-time' '
	fresh prof --max-inflate 0 --max-cpu 0 --max-time 2 &&
	upload_bomb slow.perf.gz &&
	t=$(curl -sS --max-time 100 -o body -w "%{http_code} %{time_total}" \
		"$URL/heatmap/?filename=uploads/slow.perf.gz") &&
	echo "$t" &&
	test "${t% *}" = 503 && jq -e ".error | test(\"time budget of 2 s .--max-time.\")" body &&
	awk -v t="${t#* }" "BEGIN { exit !(t < 6) }"
'

test_expect_success 'an answer over the output budget: 413 JSON naming --max-output' '
	fresh prof --max-output 1000 &&
	test "$(get "/folded?filename=$F")" = 413 &&
	jq -e ".error | test(\"output budget of 1000 bytes .--max-output.\")" body &&
	test "$(get "/flamegraph/?filename=$F&comm=nosuchcomm")" = 200
'

# Each heavy chain inflates 10 GB: 9.4 s for three at once on two cores of
# a fast host, so 5 s of wall time (not 20) ends every one of them.
test_expect_success 'fair queue: five heavy chains of one user hold at most 3 of the 4 slots; another user is answered meanwhile' '
	fresh prof --max-inflate 0 --max-cpu 0 --max-time 5 &&
	nq alone 3 3 && t0=$(max_of alone) &&
	for j in 1 2 3 4 5; do upload_bomb heavy$j.perf.gz || return 1; done &&
	for j in 1 2 3 4 5; do
		as_nobody curl -sS --max-time 120 -o nb/heavy.$j -w "%{http_code} %{time_total}
" \
			"$URL/heatmap/?filename=uploads/heavy$j.perf.gz" >nb/heavy.$j.st &
	done &&
	wait_for "test \$(pgrep -c -P $serve_pid -x fp-read) -ge 3" 300 &&
	test "$(pgrep -c -P $serve_pid -x fp-read)" = 3 &&
	nq attacked 3 4 &&
	all_200 attacked 3 &&
	t1=$(max_of attacked) &&
	echo "normal query: $t0 s alone, $t1 s while 5 heavy chains of nobody run or wait" &&
	# answered while the heavy ones still ran: it did not wait for them
	test "$(cat nb/heavy.*.st | wc -l)" = 0 &&
	wait_for "test \"\$(cat nb/heavy.*.st | wc -l)\" = 5" 600 &&
	test "$(grep -c "^503 " nb/heavy.1.st nb/heavy.2.st nb/heavy.3.st nb/heavy.4.st nb/heavy.5.st | grep -c ":1$")" = 5
'

test_expect_success 'upload quota: refused with 507 JSON when full, nothing stored' '
	fresh prof --upload-quota 200k &&
	test "$(post "/upload?filename=a.perf" --data-binary @a.bin)" = 201 &&
	test "$(post "/upload?filename=b.perf" --data-binary @b.bin)" = 507 &&
	jq -e ".error | test(\"upload quota of 204800 bytes .--upload-quota. is full\")" body &&
	test "$(ls prof/uploads)" = a.perf &&
	test "$(post "/upload?filename=c.perf" -F "file=@b.bin")" = 507 &&
	test "$(ls -A prof/uploads)" = a.perf
'

test_expect_success 'upload quota with --upload-evict: the oldest uploads go, an upload over the whole quota is refused' '
	fresh prof --upload-quota 200k --upload-evict &&
	test "$(post "/upload?filename=a.perf" --data-binary @a.bin)" = 201 &&
	touch -d "1 hour ago" prof/uploads/a.perf &&
	test "$(post "/upload?filename=c.perf" --data-binary @c.bin)" = 201 &&
	test "$(post "/upload?filename=b.perf" --data-binary @b.bin)" = 201 &&
	test "$(ls prof/uploads | tr "\n" " ")" = "b.perf c.perf " &&
	test "$(post "/upload?filename=big.perf" --data-binary @big.bin)" = 507 &&
	test "$(ls prof/uploads | tr "\n" " ")" = "b.perf c.perf "
'

test_done
