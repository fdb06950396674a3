#!/bin/sh
test_description='fp-fold --delta-snapshots: deltas carry the changed stacks; fp-render and fp-serve --live apply them to the table a full snapshot would give'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
T=$(printf "\t")

# three parts of a capture with a C flush after the first two: fp-fold
# writes a snapshot at each flush and one at the end
fp-read -q "$EXAMPLES/multiproc.perf.gz" | grep "^S" >all.S || exit 1
head -n 800 all.S >p1.S && sed -n 801,1600p all.S >p2.S && tail -n +1601 all.S >p3.S
{ cat p1.S && echo "C${T}flush" && cat p2.S && echo "C${T}flush" && cat p3.S; } >in.stream

# the table after each complete snapshot: "N<TAB>stack<TAB>count" lines, a
# full snapshot replacing the table, a delta setting the counts it names
tables() {
	awk -F "\t" '
	$1 == "C" && $2 == "begin" { what = $3; if (what == "fold") delete t; next }
	$1 == "F" && what != "" { t[$3] = $2; next }
	$1 == "C" && $2 == "end" { n++; for (k in t) if (t[k] > 0) print n "\t" k "\t" t[k]; what = "" }
	' "$1" | LC_ALL=C sort
}

test_expect_success 'the first snapshot is full, the flush snapshots after it deltas, the last full' '
	fp-fold --delta-snapshots <in.stream >delta.out &&
	grep "^C${T}begin" delta.out | cut -f3 | tr "\n" " " >kinds &&
	test "$(cat kinds)" = "fold fold-delta fold "
'

test_expect_success 'the deltas applied give every table the full snapshots give' '
	fp-fold <in.stream >full.out &&
	test "$(grep -c "^C${T}begin${T}fold$" full.out)" = 3 &&
	tables full.out >full.tables && tables delta.out >delta.tables &&
	test "$(cut -f1 full.tables | sort -u | wc -l)" = 3 &&
	test_cmp full.tables delta.tables
'

test_expect_success 'a delta names exactly the stacks counted since the last snapshot, with their new counts' '
	fp-fold --plain <p2.S | sed "s/ [0-9]*\$//" | LC_ALL=C sort >p2.stacks &&
	sed -n "/^C${T}begin${T}fold-delta/,/^C${T}end${T}fold-delta/p" delta.out | grep "^F" >delta.F &&
	cut -f3 delta.F >delta.stacks &&
	test_cmp p2.stacks delta.stacks &&
	awk -F "\t" "\$1 == \"C\" && \$2 == \"begin\" { n++ } n == 2 && \$1 == \"F\"" full.out >full2.F &&
	grep -F -x -f delta.F full2.F >common.F &&
	test_cmp delta.F common.F &&
	test "$(wc -l <full2.F)" -gt "$(wc -l <delta.F)" &&
	grep "^C${T}end${T}fold-delta" delta.out | cut -f4,5 >end &&
	test "$(cat end)" = "$(grep "^C${T}end${T}fold" full.out | sed -n 2p | cut -f4,5)"
'

test_expect_success 'after C reset the next snapshot is full again (and holds only what came after)' '
	{ cat p1.S && echo "C${T}flush" && echo "C${T}reset" && cat p2.S && echo "C${T}flush" && cat p3.S; } |
		fp-fold --delta-snapshots >reset.out &&
	grep "^C${T}begin" reset.out | cut -f3 | tr "\n" " " >kinds &&
	test "$(cat kinds)" = "fold fold fold " &&
	fp-fold <p2.S | sed -n "/^C${T}begin/,/^C${T}end/p" | grep "^F" >p2.F &&
	sed -n "/^C${T}reset/,\$p" reset.out | sed -n "/^C${T}begin/,/^C${T}end/p" | sed -n "1,/^C${T}end/p" |
		grep "^F" >got.F &&
	test_cmp p2.F got.F
'

test_expect_success 'every 20th snapshot is full all the same (a late reader is whole again)' '
	{ i=0; while [ $i -lt 25 ]; do
		sed -n "$((i * 50 + 1)),$((i * 50 + 50))p" all.S && echo "C${T}flush"; i=$((i + 1))
	done; } | fp-fold --delta-snapshots | grep "^C${T}begin" | cut -f3 >kinds25 &&
	test "$(sed -n 1p kinds25)" = fold &&
	test "$(sed -n 2,20p kinds25 | sort -u)" = fold-delta &&
	test "$(sed -n 21p kinds25)" = fold &&
	test "$(sed -n 22,25p kinds25 | sort -u)" = fold-delta &&
	test "$(sed -n 26p kinds25)" = fold
'

test_expect_success 'fp-render applies the deltas: stacks.folded is the table a full snapshot gives' '
	sed -n "1,/^C${T}end${T}fold-delta/p" delta.out >cut.stream &&
	fp-render --outdir r <cut.stream 2>err &&
	{ cat p1.S p2.S; } | fp-fold --plain | LC_ALL=C sort >want &&
	LC_ALL=C sort r/stacks.folded >got &&
	test_cmp want got &&
	test ! -s err &&
	grep -q "delta_snapshots=1" r/index.html
'

test_expect_success 'fp-render warns when a delta does not add up to its end record (a record lost)' '
	awk -v T="$T" "/^C\tbegin\tfold-delta/ { d = 1 } d && /^F/ && !done { done = 1; next } { print }" \
		cut.stream >lost.stream &&
	test "$(wc -l <lost.stream)" = "$(( $(wc -l <cut.stream) - 1 ))" &&
	fp-render --outdir l <lost.stream 2>err &&
	grep -q "delta snapshot.*does not add up" err &&
	grep -q "does not add up" l/index.html
'

test_expect_success 'fp-render started mid-stream skips deltas until a full snapshot, quietly' '
	awk "/^C\tbegin\tfold-delta/ { d = 1 } d" delta.out >late.stream &&
	test "$(grep "^C${T}begin" late.stream | cut -f3 | tr "\n" " ")" = "fold-delta fold " &&
	fp-render --passthrough <late.stream >late.out 2>err &&
	test ! -s err &&
	grep -q "^I${T}render${T}.*${T}deltas_skipped=1${T}" late.out &&
	fp-render --outdir late <late.stream 2>err &&
	test ! -s err &&
	fp-fold --plain <all.S | LC_ALL=C sort >want.all &&
	LC_ALL=C sort late/stacks.folded >got.late &&
	test_cmp want.all got.late
'

test_expect_success 'fp-serve --live applies the deltas to its live flame graph' '
	mkdir prof &&
	rm -f in.fifo serve.out && mkfifo in.fifo &&
	{ fp-serve --dir prof --listen 127.0.0.1:0 --live cap <in.fifo >serve.out 2>serve.err & } &&
	register_pid $! &&
	exec 9>in.fifo &&
	wait_for "grep -qs \"listening on\" serve.out" 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) && URL=http://127.0.0.1:$PORT &&
	cat cut.stream >&9 &&
	total=$(wc -l <p1.S) && total=$(( total + $(wc -l <p2.S) )) &&
	wait_for "get \"/live/flamegraph?name=cap\" >/dev/null && jq -e \".seq == 2\" body >/dev/null" 100 &&
	jq -e ".total == $total and ([.tree | .. | objects | .v] | add) == $total" body &&
	test "$(get "/flamegraph/?filename=cap")" = 200 &&
	exec 9>&-
'

test_done
