#!/bin/sh
test_description='the runner gives fp-fold --delta-snapshots only when every stage after it reads them'
. "$(dirname "$0")/test-lib.sh"
T=$(printf "\t")

# spy/fp-render: keeps a copy of what the render stage is sent, then runs
# the real fp-render (the runner tells a program by its file name). The
# source pauses twice, so fp-fold's timer writes snapshots while it runs:
# after each half of the input it waits (at most 20 s) until the spy has
# seen one more snapshot end, rather than sleeping a time that a loaded
# machine may not honour.
test_expect_success 'setup: a spy in front of fp-render, a source that pauses' '
	mkdir spy &&
	printf "%s\n" "#!/bin/sh" "tee \"\$SPY_OUT\" | exec \"$(command -v fp-render)\" \"\$@\"" \
		>spy/fp-render &&
	chmod +x spy/fp-render &&
	fp-read -q "$EXAMPLES/multiproc.perf.gz" >mp.S &&
	head -n 1000 mp.S >a.S && tail -n +1001 mp.S >b.S &&
	cat >waits.sh <<-\EOS &&
	# ends_seen STARTS N: wait until the spy has seen N snapshot ends since
	# its STARTS-th start (its "# spy started" lines; 0: since its file
	# began). No count yet while the spy has not made its file: 0.
	ends_seen() {
		i=0
		while n=$(awk -v k="$1" "/^# spy started/ { s++ } s >= k && /^C\tend\tfold/ { n++ } END { print n + 0 }" "$SPY_OUT" 2>/dev/null)
			[ "${n:-0}" -lt "$2" ] && [ $i -lt 400 ]; do
			sleep 0.05; i=$((i + 1))
		done
	}
	# file_seen F: wait until F exists
	file_seen() { i=0; while ! test -e "$1" && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; }
	EOS
	cat >source.sh <<-\EOS &&
	. ./waits.sh
	cat a.S; ends_seen 0 1; cat b.S; ends_seen 0 2
	EOS
	printf "%s\n" "read sh source.sh" "fold fp-fold --interval 100" \
		"render $PWD/spy/fp-render --outdir \${OUTDIR}" >spy.pipeline
'

test_expect_success 'fp-fold then fp-render: delta snapshots, and the same report as with full ones' '
	SPY_OUT=$PWD/seen.delta flamepipe run spy.pipeline --outdir delta.out &&
	grep -q "^C${T}begin${T}fold-delta$" seen.delta &&
	SPY_OUT=$PWD/seen.full FLAMEPIPE_DELTA_SNAPSHOTS=0 flamepipe run spy.pipeline --outdir full.out &&
	grep -q "^C${T}begin${T}fold$" seen.full && ! grep -q "fold-delta" seen.full &&
	for f in stacks.folded heatmap.tsv flame.svg; do
		test_cmp full.out/$f delta.out/$f || return 1
	done
'

# awk that passes each line on as it comes (the source waits for the
# snapshots to reach the spy): mawk reads a pipe a buffer at a time
# unless -W interactive; other awks read what there is, fflush writes it.
if awk -W version 2>&1 | grep -q mawk; then AWK_PASS="awk -W interactive 1"
else AWK_PASS="awk \"{ print; fflush() }\""; fi
test_expect_success 'a stage of another program after fp-fold (awk): full snapshots only' '
	printf "%s\n" "read sh source.sh" "fold fp-fold --interval 100" "pass $AWK_PASS" \
		"render $PWD/spy/fp-render --outdir \${OUTDIR}" >awk.pipeline &&
	SPY_OUT=$PWD/seen.awk flamepipe run awk.pipeline --outdir awk.out &&
	grep -q "^C${T}begin${T}fold$" seen.awk && ! grep -q "fold-delta" seen.awk
'

# The render stage's pid (flamepipe ctl status) and how often it started.
render_field() { # DIRFILE FIELD
	flamepipe ctl "$1" status | awk -F "	" -v want="$2=" '
		$1 == "stage" && $2 == "name=render" {
			for (i = 3; i <= NF; i++) if (index($i, want) == 1) print substr($i, length(want) + 1)
		}'
}

test_expect_success 'a reader that may be restarted: deltas all the same' '
	sed "s|^render |render restart=on-failure |" spy.pipeline >restart.pipeline &&
	SPY_OUT=$PWD/seen.restart flamepipe run restart.pipeline --outdir restart.out &&
	grep -q "^C${T}begin${T}fold-delta$" seen.restart &&
	test_cmp full.out/stacks.folded restart.out/stacks.folded
'

test_expect_success 'killed and restarted, the reader gets a full snapshot before any delta' '
	printf "%s\n" "#!/bin/sh" "echo \"# spy started\" >>\"\$SPY_OUT\"" \
		"tee -a \"\$SPY_OUT\" | exec \"$(command -v fp-render)\" \"\$@\"" >spy/fp-render &&
	cat >source2.sh <<-\EOS &&
	. ./waits.sh
	cat a.S; file_seen restarted; ends_seen 2 1; cat b.S; ends_seen 2 2
	EOS
	printf "%s\n" "read sh source2.sh" "fold fp-fold --interval 100" \
		"render restart=on-failure $PWD/spy/fp-render --outdir \${OUTDIR}" >kill.pipeline &&
	rm -f seen.kill restarted &&
	{ SPY_OUT=$PWD/seen.kill flamepipe run kill.pipeline --outdir kill.out --dir-file dirf 2>kill.err & } &&
	run=$! &&
	wait_for "grep -qs \"^C${T}end${T}fold\" seen.kill" 200 &&
	pid=$(render_field dirf pid) && test -n "$pid" &&
	env kill -s KILL -- "-$pid" &&
	wait_for "test \"\$(render_field dirf starts)\" = 2 && test \"\$(render_field dirf state)\" = running" 200 &&
	touch restarted &&
	wait $run &&
	sed -n "/^# spy started/h; /^# spy started/!H; \${x;p}" seen.kill >after-restart &&
	grep "^C${T}begin${T}fold" after-restart | head -n 1 >first &&
	cat first && test "$(cat first)" = "C${T}begin${T}fold" &&
	grep -q "^C${T}begin${T}fold-delta$" after-restart &&
	test_cmp full.out/stacks.folded kill.out/stacks.folded
'

test_expect_success 'the snapshots leave the pipeline (fp-render --passthrough last): full only' '
	printf "%s\n" "read sh source.sh" "fold fp-fold --interval 100" \
		"render $PWD/spy/fp-render --passthrough" >pt.pipeline &&
	SPY_OUT=$PWD/seen.pt flamepipe run pt.pipeline >pt.stdout &&
	grep -q "^C${T}begin${T}fold$" pt.stdout && ! grep -q "fold-delta" pt.stdout
'

test_expect_success 'a stage that passes snapshots on (fp-range) before the reader: deltas' '
	printf "%s\n" "read sh source.sh" "fold fp-fold --interval 100" "range fp-range" \
		"render $PWD/spy/fp-render --outdir \${OUTDIR}" >range.pipeline &&
	SPY_OUT=$PWD/seen.range flamepipe run range.pipeline --outdir range.out &&
	grep -q "^C${T}begin${T}fold-delta$" seen.range &&
	test_cmp full.out/stacks.folded range.out/stacks.folded
'

test_done
