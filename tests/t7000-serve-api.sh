#!/bin/sh
test_description='fp-serve: FlameScope routes and extensions on the bundled captures'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
mkdir -p prof/sub prof/.hidden &&
cp "$EXAMPLES/$F" prof/ &&
cp "$EXAMPLES/demo-clockloop.perf.gz" prof/sub/ &&
cp "$EXAMPLES/$F" prof/.hidden/x.perf.gz &&
cp "$EXAMPLES/$F" prof/.dotfile.gz &&
start_server prof || exit 1
# The heatmap of $F with ROWS rows: the API's in ./body, fp-bucket's in ./stream.
heatmap_and_bucket() { # ROWS
	test "$(get "/heatmap/?filename=$F&rows=$1")" = 200 &&
	fp-read -q "$EXAMPLES/$F" | fp-bucket --rows "$1" >stream
}

test_expect_success '/profile/ lists files recursively, sorted, dotfiles hidden' '
	test "$(get /profile/)" = 200 &&
	jq -r ".[].filename" body >got &&
	printf "%s\n" "$F" sub/demo-clockloop.perf.gz >expect &&
	test_cmp expect got &&
	jq -e "all(.[]; .type == \"perf\" and (.size | type) == \"number\")" body
'

test_expect_success '/heatmap/ has FlameScope shape and fp-bucket totals' '
	heatmap_and_bucket 50 &&
	awk -F "\t" "\$1 == \"H\" { c[\$2 \" \" \$3] = \$4 } END { for (k in c) s += c[k]; print s }" stream >expect &&
	jq "[.values[][]] | add" body >got &&
	test_cmp expect got &&
	jq -e "(.rows | length) == 50 and .rows[0] == 980 and .rows[49] == 0" body &&
	jq -e "(.columns | length) == (.values | length) and .columns[0] == 0" body &&
	jq -e ".maxvalue == ([.values[][]] | max)" body
'

test_expect_success '/heatmap/ rows=10: a cell is rows[i] ms of column c' '
	heatmap_and_bucket 10 &&
	awk -F "\t" "\$1 == \"H\" && \$2 == 3 && \$3 == 2 { print \$4 }" stream >expect &&
	jq ".values[3][7]" body >got &&
	test_cmp expect got
'

test_expect_success '/flamegraph/ total of a range equals the folded total' '
	test "$(get "/flamegraph/?filename=$F&start=1.5&end=3.25")" = 200 &&
	fp-read -q "$EXAMPLES/$F" | fp-bucket | fp-range --from 1.5 --to 3.25 |
		fp-fold --plain --all >folded &&
	awk "{ s += \$NF } END { print s }" folded >expect &&
	jq "[.. | objects | .v] | add" body >got &&
	test_cmp expect got &&
	jq -e ".n == \"root\" and .l == \"\" and (.c | length) > 0" body
'

test_expect_success '/flamegraph/ without a range is the whole profile (= heatmap cells)' '
	test "$(get "/heatmap/?filename=$F")" = 200 &&
	jq "[.values[][]] | add" body >expect &&
	test "$(get "/flamegraph/?filename=$F")" = 200 &&
	jq "[.. | objects | .v] | add" body >got &&
	test_cmp expect got
'

test_expect_success '/flamegraph/ with empty start and end is the whole profile too' '
	test "$(get "/flamegraph/?filename=$F&start=&end=&comm=")" = 200 &&
	jq "[.. | objects | .v] | add" body >got &&
	echo 2390 >expect &&
	test_cmp expect got
'

test_expect_success '/flamegraph/ filters: comm keeps one process only' '
	test "$(get "/flamegraph/?filename=$F&comm=mp-crc32")" = 200 &&
	jq -r ".c[].n" body >got &&
	echo mp-crc32 >expect &&
	test_cmp expect got
'

test_expect_success '/flamegraph/ include regex filter' '
	test "$(get "/flamegraph/?filename=$F&include=crc_step")" = 200 &&
	fp-read -q "$EXAMPLES/$F" | fp-bucket | fp-range --include crc_step |
		fp-fold --plain --all | awk "{ s += \$NF } END { print s }" >expect &&
	jq "[.. | objects | .v] | add" body >got &&
	test_cmp expect got
'

test_expect_success '/differential/ has FlameScope shape with delta' '
	test "$(get "/differential/?filename=$F&start=0&end=3&compareFilename=$F&compareStart=3&compareEnd=6")" = 200 &&
	jq -e ".name == \"root\" and .libtype == \"\" and .delta == 0 and (.children | length) > 0" body &&
	jq -e "[.. | objects | select(has(\"name\")) | has(\"delta\") and has(\"value\")] | all" body
'

# "path value delta" for every node with a value, from a differential tree
diff_paths() {
	jq -r 'def walk(p): (p + [.name]) as $q | (if .value > 0 then ($q[1:] | join(";")) + " \(.value) \(.delta)" else empty end), (.children[] | walk($q)); walk([])' "$1" | sort
}

test_expect_success '/differential/ deltas follow value - round(compare * total / compare_total)' '
	test "$(get "/folded?filename=$F&start=0&end=3")" = 200 && mv body a.folded &&
	test "$(get "/folded?filename=$F&start=3&end=6")" = 200 && mv body b.folded &&
	awk "{ k = substr(\$0, 1, length(\$0) - length(\$NF) - 1) }
	     FNR == NR { b[k] = \$NF; tb += \$NF; next } { a[k] = \$NF; ta += \$NF }
	     END { for (k in a) { x = b[k] * ta / tb; print k, a[k], a[k] - int(x + 0.5) } }" \
		b.folded a.folded | sed "s/_\[[kji]\]//g" | sort >expect &&
	test "$(get "/differential/?filename=$F&start=0&end=3&compareFilename=$F&compareStart=3&compareEnd=6")" = 200 &&
	diff_paths body >got &&
	test_cmp expect got
'

test_expect_success '/elided/ keeps only stacks absent from filename, scaled to its total' '
	test "$(get "/folded?filename=$F&start=0&end=3")" = 200 && mv body a.folded &&
	test "$(get "/folded?filename=$F&start=3&end=6")" = 200 && mv body b.folded &&
	awk "{ k = substr(\$0, 1, length(\$0) - length(\$NF) - 1) }
	     FNR == NR { a[k] = 1; n = split(k, f, \";\"); p = f[1]; a[p] = 1
	                 for (i = 2; i <= n; i++) { p = p \";\" f[i]; a[p] = 1 }
	                 ta += \$NF; next }
	     { b[k] = \$NF; tb += \$NF }
	     END { for (k in b) if (!(k in a)) { v = int(b[k] * ta / tb + 0.5); if (v) print k, v } }" \
		a.folded b.folded | sed "s/_\[[kji]\]//g" | sort >expect &&
	test -s expect &&
	test "$(get "/elided/?filename=$F&start=0&end=3&compareFilename=$F&compareStart=3&compareEnd=6")" = 200 &&
	jq -r "def walk(p): (p + [.name]) as \$q | (if .value > 0 then (\$q[1:] | join(\";\")) + \" \\(.value)\" else empty end), (.children[] | walk(\$q)); walk([])" body | sort >got &&
	test_cmp expect got
'

test_expect_success '/differential/ of a range with itself has all deltas 0' '
	test "$(get "/differential/?filename=$F&start=1&end=2&compareFilename=$F&compareStart=1&compareEnd=2")" = 200 &&
	jq -e "[.. | objects | select(has(\"delta\")) | .delta] | all(. == 0)" body
'

test_expect_success '/elided/ of a range with itself has all values 0' '
	test "$(get "/elided/?filename=$F&start=1&end=2&compareFilename=$F&compareStart=1&compareEnd=2")" = 200 &&
	jq -e ".name == \"root\" and ([.. | objects | select(has(\"value\")) | .value] | all(. == 0))" body
'

test_expect_success '/svg/flamegraph is an SVG whose total is the folded total' '
	test "$(get "/svg/flamegraph?filename=$F&start=1.5&end=3.25")" = 200 &&
	head -c 200 body | grep -q "<svg" &&
	fp-read -q "$EXAMPLES/$F" | fp-bucket | fp-range --from 1.5 --to 3.25 |
		fp-fold --plain --all | awk "{ s += \$NF } END { print s }" >total &&
	grep -q "($(sed "s/\(.\)\(...\)$/\1,\2/" total) samples, 100" body
'

test_expect_success '/svg/flamegraph diff=1 and elided=1 give SVGs' '
	test "$(get "/svg/flamegraph?filename=$F&start=0&end=3&compareFilename=$F&compareStart=3&diff=1")" = 200 &&
	grep -q "<svg" body &&
	test "$(get "/svg/flamegraph?filename=$F&start=0&end=3&compareFilename=$F&compareStart=3&elided=1")" = 200 &&
	grep -q "<svg" body
'

test_expect_success '/svg/heatmap is an SVG' '
	test "$(get "/svg/heatmap?filename=$F&rows=25")" = 200 &&
	grep -q "<svg" body
'

test_expect_success '/folded is the plain folded table' '
	test "$(get "/folded?filename=$F&start=1&end=2")" = 200 &&
	fp-read -q "$EXAMPLES/$F" | fp-bucket | fp-range --from 1 --to 2 |
		fp-fold --plain --all >expect &&
	test_cmp expect body
'

test_expect_success 'a file in a subdirectory opens' '
	test "$(get "/heatmap/?filename=sub/demo-clockloop.perf.gz")" = 200 &&
	jq -e ".maxvalue > 0" body
'

test_expect_success 'the web page is served at / and its assets at /ui/' '
	test "$(get /)" = 200 &&
	grep -qi "<html" body &&
	curl -sS -o /dev/null -D hdr "$URL/" &&
	grep -qi "^content-security-policy:" hdr &&
	grep -qi "^x-content-type-options: nosniff" hdr
'

test_expect_success 'an unknown route is a 404 JSON error' '
	code=$(get /nope) && test "$code" = 404 && json_error_ok "$code"
'

test_expect_success 'the second identical request is served from the cache' '
	test "$(get "/heatmap/?filename=$F&rows=99")" = 200 && cp body first &&
	test "$(get "/heatmap/?filename=$F&rows=99")" = 200 &&
	test_cmp first body
'

test_expect_success 'parallel requests (more than run at once) all get the same totals' '
	for r in 10 11 12 13 14 15 16 17 18 19 20 21; do
		{ curl -sS --max-time 30 -o par.$r "$URL/heatmap/?filename=$F&rows=$r" & }
	done &&
	wait &&
	for r in 10 11 12 13 14 15 16 17 18 19 20 21; do
		jq "[.values[][]] | add" par.$r || return 1
	done | sort -u >got &&
	echo 2390 >expect &&
	test_cmp expect got
'

test_expect_success 'SIGTERM stops the server promptly, with nothing on stderr' '
	kill -TERM $serve_pid &&
	wait_for "! kill -0 $serve_pid 2>/dev/null" 50 &&
	! grep -i "sanitizer\|runtime error\|leak" serve.err
'

test_done
