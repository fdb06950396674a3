#!/bin/sh
test_description='fp-serve indexes a served capture on its first open (its recording form in --cache-dir): same answers, a range reads only its seconds, a changed file is indexed again, --cache-size drops the least recently used'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# 120 s at 100 samples/s (12,000 samples from perf time 1000 s), and a
# line fp-read cannot parse (one warning) after the 6,000th sample.
mkdir prof &&
sh "$TOP/tests/mk-long-capture.sh" 120 100 300 >whole.perf &&
awk 'NR == 30001 { print "this is not perf script" } { print }' whole.perf >prof/cap.perf &&
rm whole.perf &&
cp prof/cap.perf prof/copy.perf &&
# two events, the second one's sample first in [4, 9)
printf "%s\n" "a 1 [000] 1.000000: 1 cpu-clock: " "	1 f (/x)" "" \
	"b 1 [000] 5.500000: 1 page-faults: " "	1 g (/x)" "" \
	"a 1 [000] 6.000000: 1 cpu-clock: " "	1 h (/x)" "" >prof/two.perf || exit 1

fresh() { # start_server's options: the previous test's server stopped first
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS"
	start_server prof "$@"
}
samples_of() { fp-read -q "$1" | grep "^S" | sort; }

test_expect_success 'the first open converts the capture once into an index in --cache-dir; it holds the capture'"'"'s samples' '
	fresh --cache-dir cache &&
	test "$(get "/heatmap/?filename=cap.perf")" = 200 &&
	test "$(ls cache | grep -c "\.fpr\$")" = 1 &&
	test "$(stat -c %a cache)" = 700 &&
	samples_of prof/cap.perf >want &&
	samples_of cache/*.fpr >got &&
	test "$(wc -l <want)" = 12000 &&
	test_cmp want got
'

test_expect_success 'answers from the index: the heatmap counts the reader'"'"'s samples and warnings, a range its samples' '
	fresh --cache-dir cache &&
	test "$(get "/heatmap/?filename=cap.perf")" = 200 &&
	jq -e ".samples == 12000 and .counted == 12000 and .warnings == 1 and (has(\"recording\") | not)" body &&
	# the samples of [1010, 1020.5) s (perf time; the axis starts at 1000)
	in_range() { awk -v c="$1" "/^long/ && \$4 + 0 >= 1010 && \$4 + 0 < 1020.5 && (c == \"\" || \$1 == c) { n++ } END { print n }" prof/cap.perf; }
	test "$(get "/flamegraph/?filename=cap.perf&start=10&end=20.5")" = 200 &&
	test "$(tree_total)" = "$(in_range "")" && test "$(tree_total)" = 1050 &&
	test "$(get "/flamegraph/?filename=cap.perf&start=10&end=20.5&comm=long1")" = 200 &&
	test "$(tree_total)" = "$(in_range long1)" &&
	test "$(get "/folded?filename=cap.perf&start=119.99")" = 200 &&
	test "$(awk "{ n += \$NF } END { print n }" body)" = 1
'

test_expect_success 'a range of the index counts the capture'"'"'s first event, not the range'"'"'s first' '
	fresh --cache-dir cache4 &&
	test "$(get "/folded?filename=two.perf&start=4&end=9")" = 200 &&
	test "$(cat body)" = "a;h 1" &&
	test "$(get "/folded?filename=two.perf&start=4&end=9&event=page-faults")" = 200 &&
	test "$(cat body)" = "b;g 1"
'

# What fp-serve answered for a range before it had indexes: the chain over
# the file itself (docs/fp-serve.md), fp-range cutting the range on fp-bucket's axis.
file_chain() { # FILE FROM TO BUCKET_OPTS FOLD_OPTS
	fp-read -q "$1" | fp-bucket $4 | fp-range --history 0 ${2:+--from $2} ${3:+--to $3} |
		fp-fold --plain --all $5
}
test_expect_success 'a range without filters, folded by fp-serve from the index, is byte for byte the file chain'"'"'s' '
	cp "$EXAMPLES/multiproc.perf.gz" prof/ &&
	fresh --cache-dir cache6 &&
	for f in cap.perf multiproc.perf.gz two.perf; do
		for r in "3 10.5" "0.25 -" "- 4.999" "1.5 2.25" "100.5 117.25" "5 9"; do
			from=${r% *}; to=${r#* }; [ "$from" != - ] || from=; [ "$to" != - ] || to=
			q="filename=$f${from:+&start=$from}${to:+&end=$to}"
			test "$(get "/folded?$q")" = 200 && cp body got &&
			file_chain "prof/$f" "$from" "$to" "" "--all-events" >want &&
			test_cmp want got &&
			test "$(get "/folded?$q&keepidle=1")" = 200 && cp body got &&
			file_chain "prof/$f" "$from" "$to" "--keep-idle" "--all-events" >want &&
			test_cmp want got &&
			test "$(get "/folded?$q&allevents=1")" = 200 && cp body got &&
			file_chain "prof/$f" "$from" "$to" "--all-events" "--event-root" >want &&
			test_cmp want got || return 1
		done
	done
'

# Ranges that overlap, each asked twice: from the second time on, whole
# members come from the tables rangefold.c keeps with the index (one per
# member and mode), the edges from their samples.
test_expect_success 'asked again, ranges answered from the members'"'"' kept tables are byte for byte the file chain'"'"'s' '
	fresh --cache-dir cache7 &&
	for pass in 1 2; do
		for f in cap.perf two.perf; do
			for r in "5 9" "1.5 2.25" "3 10.5" "- 4.999" "0.25 -" "4 8"; do
				from=${r% *}; to=${r#* }; [ "$from" != - ] || from=; [ "$to" != - ] || to=
				q="filename=$f${from:+&start=$from}${to:+&end=$to}"
				for extra in "" "&keepidle=1" "&allevents=1"; do
					test "$(get "/folded?$q$extra")" = 200 && cp body got &&
					case $extra in
					"") file_chain "prof/$f" "$from" "$to" "" "--all-events" ;;
					*keepidle*) file_chain "prof/$f" "$from" "$to" "--keep-idle" "--all-events" ;;
					*) file_chain "prof/$f" "$from" "$to" "--all-events" "--event-root" ;;
					esac >want &&
					test_cmp want got || { echo "pass $pass $f $r $extra"; return 1; }
				done
			done
		done
	done
'

test_expect_success 'eight first opens at once build one index' '
	fresh --cache-dir cache2 &&
	for i in 1 2 3 4 5 6 7 8; do
		curl -sS -o /dev/null -w "%{http_code}\n" "$URL/flamegraph/?filename=copy.perf&start=$i&end=$((i + 5))" >st.$i &
	done &&
	wait_for "test \"\$(cat st.* | wc -l)\" = 8" 600 &&
	test "$(cat st.* | sort -u)" = 200 &&
	test "$(ls cache2 | grep -c "\.fpr\$")" = 1
'

# Damage the index member of second 100: a query that read it would fail or
# miss its samples; a range elsewhere must not notice (it reads only its
# members). The restarted server adopts the index in --cache-dir as it is.
test_expect_success 'a range reads only its seconds of the index; a restarted server keeps the index' '
	fresh --cache-dir cache &&
	test "$(get "/flamegraph/?filename=cap.perf&start=30&end=45")" = 200 && cp body before.near &&
	test "$(get "/flamegraph/?filename=cap.perf&start=95&end=105")" = 200 && cp body before.far &&
	ix=$(ls cache/*.fpr) && ino=$(stat -c %i "$ix") &&
	off=$(fp-read --index "$ix" | awk "!/^#/ && \$3 >= 1100e9 && n++ == 0 { print \$1 + 100 }") &&
	test -n "$off" &&
	printf XXXXXXXXXXXXXXXX | dd of="$ix" bs=1 seek="$off" conv=notrunc 2>/dev/null &&
	fresh --cache-dir cache &&
	test "$(get "/flamegraph/?filename=cap.perf&start=30&end=45")" = 200 &&
	cmp body before.near &&
	test "$(stat -c %i cache/*.fpr)" = "$ino" &&
	code=$(get "/flamegraph/?filename=cap.perf&start=95&end=105") &&
	echo "the damaged seconds: $code" &&
	! cmp -s body before.far
'

test_expect_success 'a changed capture is indexed again (the old index removed); its answers are the new content'"'"'s' '
	fresh --cache-dir cache5 &&
	test "$(get "/heatmap/?filename=cap.perf")" = 200 && jq -e ".samples == 12000" body &&
	old=$(ls cache5/*.fpr) &&
	head -n 30000 prof/cap.perf >short.perf && cat short.perf >prof/cap.perf &&
	test "$(get "/heatmap/?filename=cap.perf")" = 200 &&
	jq -e ".samples == 6000 and .warnings == 0" body &&
	test "$(ls cache5 | grep -c "\.fpr\$")" = 1 &&
	test ! -e "$old"
'

test_expect_success '--cache-size: the least recently used indexes go first, the one just built stays' '
	rm -rf cache3 && mkdir p3 &&
	for n in a b c; do sh "$TOP/tests/mk-long-capture.sh" 60 100 300 >p3/$n.perf || return 1; done &&
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS" &&
	start_server p3 --cache-dir cache3 &&
	test "$(get "/heatmap/?filename=a.perf")" = 200 &&
	size=$(stat -c %s cache3/*.fpr) &&
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS" &&
	rm -rf cache3 &&
	start_server p3 --cache-dir cache3 --cache-size $((size * 5 / 2)) &&
	test "$(get "/heatmap/?filename=a.perf")" = 200 &&
	test "$(get "/heatmap/?filename=b.perf")" = 200 &&
	test "$(get "/flamegraph/?filename=a.perf&start=1&end=2")" = 200 &&
	test "$(get "/heatmap/?filename=c.perf")" = 200 &&
	test "$(ls cache3 | grep -c "\.fpr\$")" = 2 &&
	test "$(du -cb cache3/*.fpr | tail -n 1 | cut -f1)" -le $((size * 5 / 2)) &&
	ino_a=$(stat -c %i p3/a.perf) && ino_b=$(stat -c %i p3/b.perf) &&
	ls cache3 | grep -q -- "-$(printf %x $ino_a)-" &&
	! ls cache3 | grep -q -- "-$(printf %x $ino_b)-"
'

test_expect_success 'without --cache-dir: a private directory in TMPDIR, removed at exit' '
	mkdir tmp &&
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS" &&
	TMPDIR=$PWD/tmp start_server prof &&
	test "$(get "/heatmap/?filename=cap.perf")" = 200 &&
	d=$(ls -d tmp/fp-serve-index-*) && test "$(stat -c %a "$d")" = 700 &&
	test "$(ls "$d" | grep -c "\.fpr\$")" = 1 &&
	kill $serve_pid &&
	wait_for "! kill -0 $serve_pid 2>/dev/null" 100 &&
	test -z "$(ls tmp)"
'

test_done
