#!/bin/sh
test_description='flamepipe faults: restarts with throttling, the loss bound counted, a slow stage, a writer that reopens its FIFO'
. "$(dirname "$0")/test-lib.sh"

T=30
# The slow-reader helper is a tool here, not under test: the plain build.
H=$TOP/build/tests
. "$TOP/tests/lib-runner.sh"

# the header and the samples only (perf script --header text also gives a
# C events line), so that line N + 1 is sample N
fp-read "$EXAMPLES/multiproc.perf.gz" | grep -v "^C	events	" >all.S
TOTAL=$(grep -c "^S	" all.S)

# A comment record passes every stage unchanged and in order: once it is
# out of the chain, every record before it has been through every stage.
mark() { printf "# mark %s\n" "$1" >&7 && wait_for "grep -q \"^# mark $1\\\$\" live.out" 100; }
stage_pid() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*pid=\([0-9]*\).*/\1/p"; }
stage_starts() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*starts=\([0-9]*\).*/\1/p"; }
# Sum of the last complete snapshot of each fold process (epoch): the
# totals of every "C end fold" before a runner W record, and the last one.
epoch_totals() {
	awk -F "\t" '$1 == "C" && $2 == "end" && $3 == "fold" { last = $5 }
		$1 == "W" && $2 == "flamepipe" { sum += last; last = 0 }
		END { print sum + last }' "$1"
}

cat >restart.pipeline <<\EOP
src    cat
bucket fp-bucket --keep-idle
range  restart=on-failure fp-range
fold   restart=on-failure fp-fold --interval 600000
sink   cat
EOP

test_expect_success 'fold killed mid-run (restart=on-failure): exactly the samples since its last snapshot are lost, and reported' '
	start_live restart.pipeline &&
	head -n 1001 all.S >&7 && printf "C\tflush\n" >&7 && mark 1 &&
	sed -n "1002,1501p" all.S >&7 && mark 2 &&
	kill -KILL $(stage_pid fold) &&
	wait_for "test \"\$(stage_starts fold)\" = 2" 100 &&
	sed -n "1502,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	grep "^flamepipe: stage .fold. (fp-fold) killed by signal SIGKILL" err &&
	grep "^flamepipe: stage .fold.: lost the records it had read and not yet passed on" err &&
	grep "^flamepipe: stage .fold.: restarting in [0-9.]* s (fast failure 1 of 5 allowed)" err &&
	grep "^W	flamepipe	restart.pipeline:4	stage fold killed by signal SIGKILL and was restarted" live.out &&
	# 1000 samples before the snapshot, 500 inside the dead fold, the rest after
	grep "^C	end	fold	[0-9]*	1000\$" live.out &&
	grep "^C	end	fold	[0-9]*	$((TOTAL - 1500))\$" live.out &&
	test "$(epoch_totals live.out)" = $((TOTAL - 500)) &&
	grep "^I	bucket	samples=$TOTAL	" live.out &&
	no_fifo_dir_left
'

test_expect_success 'a pass-through stage killed between records (restart=on-failure): nothing lost' '
	start_live restart.pipeline &&
	head -n 1001 all.S >&7 && mark 1 &&
	kill -KILL $(stage_pid range) &&
	wait_for "test \"\$(stage_starts range)\" = 2" 100 &&
	sed -n "1002,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	grep "^flamepipe: stage .range. (fp-range) killed by signal SIGKILL" err &&
	grep "^W	flamepipe	restart.pipeline:3	stage range killed by signal SIGKILL" live.out &&
	grep "^C	end	fold	[0-9]*	$TOTAL\$" live.out
'

test_expect_success 'a stage that fails before reading is restarted after a pause and loses nothing' '
	cat >once.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	flaky restart=on-failure sh -c "test -e flag && exec cat; touch flag; exit 3"
	fold  fp-fold
	sink  cat
	EOP
	rm -f flag &&
	run_chain once.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "^flamepipe: stage .flaky. (sh) exited with code 3" err &&
	grep "^flamepipe: stage .flaky.: restarting in [01].[0-9] s (fast failure 1 of 5 allowed)" err &&
	grep "^C	end	fold	[0-9]*	$TOTAL\$" out && no_fifo_dir_left
'

test_expect_success 'a restarted stage before fp-read (perf text) gets no in-band W record in its text' '
	cat >text.pipeline <<-\EOP &&
	src   zcat ${INPUT}
	text  restart=on-failure sh -c "test -e flag2 && exec cat; touch flag2; exit 3"
	read  fp-read
	fold  fp-fold
	sink  cat
	EOP
	rm -f flag2 &&
	run_chain text.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "^flamepipe: stage .text. (sh) exited with code 3" err &&
	! grep "^fp-read:" err && ! grep "^W	" out &&
	grep "^C	end	fold	[0-9]*	$TOTAL\$" out
'

test_expect_success 'restarts are throttled and limited by retries: give up, exit 2, every exit reported' '
	cat >always-fails.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	bad   restart=on-failure retries=2 sh -c "exit 3"
	sink  cat
	EOP
	start=$(date +%s.%N) &&
	run_chain always-fails.pipeline "$EXAMPLES/multiproc.perf.gz";
	end=$(date +%s.%N) &&
	test $rc = 2 &&
	test $(grep -c "^flamepipe: stage .bad. (sh) exited with code 3" err) = 3 &&
	grep "restarting in [01].[0-9] s (fast failure 1 of 2 allowed)" err &&
	grep "restarting in [12].[0-9] s (fast failure 2 of 2 allowed)" err &&
	grep "^flamepipe: stage .bad.: giving up after 3 fast failures in a row" err &&
	# throttled: 1 s then 2 s between the starts
	awk -v s=$start -v e=$end "BEGIN { exit !(e - s >= 2.9) }" &&
	no_fifo_dir_left
'

test_expect_success 'give-up=bypass: a middle stage that keeps failing is replaced by a pass-through, nothing lost, exit 0' '
	cat >bypass.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	view  restart=on-failure retries=1 give-up=bypass sh -c "exit 3"
	sink  cat
	EOP
	run_chain bypass.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "^flamepipe: stage .view. (sh): giving up after 2 fast failures in a row; the rest of the pipeline runs on without it (give-up=bypass: its input is passed on unchanged)" err &&
	grep "^W	flamepipe	bypass.pipeline:2	stage view was given up after 2 fast failures in a row (the last exited with code 3): its input is passed on unchanged" out &&
	grep "^C	restarted	view" out &&
	test $(grep -c "^S	" out) = $TOTAL &&
	no_fifo_dir_left
'

test_expect_success 'give-up=bypass as the last stage: its input is read and discarded, the stage before it finishes, exit 0' '
	cat >bypass-last.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	view  restart=on-failure retries=1 give-up=bypass sh -c "exit 3"
	EOP
	run_chain bypass-last.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "give-up=bypass: its input is read and discarded" err &&
	! grep "^flamepipe: stage .read." err &&
	test ! -s out
'

test_expect_success 'a crash by signal is reported by its name and restarted (restart=always too)' '
	cat >segv.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	flaky restart=always sh -c "test -e flag && exec cat; touch flag; kill -SEGV \$\$"
	sink  cat
	EOP
	rm -f flag &&
	run_chain segv.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "^flamepipe: stage .flaky. (sh) killed by signal SIGSEGV" err &&
	test $(grep -c "^S	" out) = $TOTAL
'

test_expect_success 'restart=always: a stage that exits 0 while its input is open is reported and restarted' '
	cat >quits.pipeline <<-\EOP &&
	src   cat
	one   restart=always sh -c "IFS= read -r l && printf \"%s\\n\" \"\$l\""
	sink  cat
	EOP
	start_live quits.pipeline &&
	printf "first\nsecond\n" >&7 &&
	wait_for "grep -q ^second live.out" 50 &&
	finish && test $rc = 0 &&
	test "$(cat live.out)" = "$(printf "first\nsecond")" &&
	grep "^flamepipe: stage .one. (sh) exited with code 0" err &&
	grep "^flamepipe: stage .one.: restarting in [01].[0-9] s (restart=always)" err
'

test_expect_success 'a writer that closes its FIFO and reopens it by path: the reader sees no EOF, nothing lost' '
	cat >reopen.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	mid   sh -c "i=0; while IFS= read -r l; do printf \"%s\\n\" \"\$l\"; i=\$((i+1)); [ \$i = 1000 ] && break; done; exec >&-; exec >\"\$0\"; exec cat" ${FIFODIR}/mid.out
	fold  fp-fold --interval 0
	sink  cat
	EOP
	run_chain reopen.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 0 &&
	grep "^C	end	fold	[0-9]*	$TOTAL\$" out &&
	# one snapshot: fp-fold saw one end of input. --interval 0: no timed
	# snapshot either, which a loaded machine gave when the input paused
	# for a second around the reopen (and it counted 2)
	test $(grep -c "^C	end	fold" out) = 1
'

test_expect_success 'a slow stage: the writer blocks (memory bounded), nothing lost in file mode' '
	awk "BEGIN { for (i = 0; i < 150000; i++)
		printf \"S\t%d\t%d\t%d\t0\t1\tcpu-clock\tload%d\tuuuuuuuu\tmain;work%d;f1;f2;f3;f4;f5;leaf_function_with_a_long_name_%d\n\",
			1000000000 + i * 1000000, 100 + i % 7, 100 + i % 7, i % 7, i % 13, i % 97 }" >big.S &&
	ls -l big.S &&
	cat >slow.pipeline <<-EOP &&
	src    cat \${INPUT}
	bucket fp-bucket --keep-idle
	slow   $H/slow-reader 65536 8000
	fold   fp-fold
	sink   cat
	EOP
	rm -f dirf &&
	{ timeout $T flamepipe run slow.pipeline --input big.S --dir-file dirf >out 2>err & } && runner=$! &&
	wait_for "test -s dirf" 100 &&
	wait_for "test -n \"\$(stage_pid bucket)\"" 100 && pid=$(stage_pid bucket) &&
	hwm=0 &&
	while kill -0 $pid 2>/dev/null; do
		h=$(awk "/VmHWM/ { print \$2 }" /proc/$pid/status 2>/dev/null) && [ -n "$h" ] && hwm=$h
		sleep 0.1
	done &&
	wait $runner; rc=$?; cat err;
	echo "exit $rc, input $(wc -c <big.S) bytes, fp-bucket peak RSS $hwm kB" &&
	test $rc = 0 &&
	# no backpressure would mean the whole input (16 MB) held in memory;
	# ASan adds its shadow and quarantine, so only a rough bound there
	test "$hwm" -gt 0 && test "$hwm" -lt $(test -n "${FP_ASAN:-}" && echo 65536 || echo 8192) &&
	grep "^C	end	fold	[0-9]*	150000\$" out
'
test_done
