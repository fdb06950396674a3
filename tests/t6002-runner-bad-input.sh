#!/bin/sh
test_description='flamepipe: bad input through the runner, a stage exiting early, signals at several moments: clear message naming the stage, non-zero exit, no hang, no FIFO dir left'
. "$(dirname "$0")/test-lib.sh"

T=20
. "$TOP/tests/lib-runner.sh"
# run_report FILE: report into out.d; exit code in $rc, stderr in err.
run_report() { timeout $T flamepipe report "$1" -o out.d 2>err; rc=$?; cat err; }

test_expect_success 'missing input file: report refuses before starting anything (111)' '
	run_report nosuch.perf; test $rc = 111 &&
	grep "^flamepipe: report: cannot read nosuch.perf: No such file or directory" err &&
	no_fifo_dir_left
'

test_expect_success 'missing input file through run: the stage says why, the runner names it (exit 2)' '
	timeout $T flamepipe run --input nosuch.perf --outdir out.d 2>err; rc=$?; cat err;
	test $rc = 2 &&
	grep "^fp-read: cannot open .nosuch.perf.: No such file or directory" err &&
	grep "^flamepipe: stage .read. (fp-read) exited with code 111" err &&
	no_fifo_dir_left
'

test_expect_success 'truncated gzip: file and line named, exit 1, the summary says incomplete' '
	zcat "$EXAMPLES/demo-clockloop.perf.gz" | gzip -c | head -c 30000 >trunc.gz &&
	run_report trunc.gz; test $rc = 1 &&
	grep "^fp-read: trunc.gz:[0-9]*: truncated gzip data" err &&
	grep "^flamepipe: stage .read. (fp-read) exited with code 1" err &&
	grep "(incomplete: a stage failed)" err &&
	no_fifo_dir_left
'

test_expect_success 'binary garbage: exit 1 naming the file and its first line' '
	awk "BEGIN { srand(7); for (i = 0; i < 20000; i++) printf \"%c\", int(rand() * 255) + 1 }" >garbage.bin &&
	run_report garbage.bin; test $rc = 1 &&
	grep -E "^fp-read: garbage.bin:( line )?1: .*expected a perf script event line" err &&
	grep "^flamepipe: stage .read. (fp-read) exited with code 1" err &&
	no_fifo_dir_left
'

test_expect_success 'a line over the maximum (1 MiB) is skipped with a warning naming file:line; the rest counts' '
	zcat "$EXAMPLES/multiproc.perf.gz" | head -n 200 >long.perf &&
	awk "BEGIN { printf \"\\t\"; for (i = 0; i < 1100000; i++) printf \"x\"; printf \"\\n\" }" >>long.perf &&
	zcat "$EXAMPLES/multiproc.perf.gz" | sed -n "201,\$p" >>long.perf &&
	run_report long.perf; test $rc = 0 &&
	grep "long.perf:201" err &&
	no_fifo_dir_left
'

test_expect_success 'an empty file: exit 0, empty but complete outputs' '
	: >empty.perf &&
	run_report empty.perf; test $rc = 0 &&
	test -f out.d/stacks.folded && ! test -s out.d/stacks.folded &&
	grep "empty.perf: 0 samples in 0 stacks" err &&
	no_fifo_dir_left
'

test_expect_success 'a stage that exits early with an error: named with its code, pipeline stopped, its exit code' '
	cat >early.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	bad   sh -c "head -n 3 >/dev/null; echo \"bad: stream.S:3: no good\" >&2; exit 1"
	fold  fp-fold
	sink  cat
	EOP
	run_chain early.pipeline "$EXAMPLES/demo-clockloop.perf.gz";
	test $rc = 1 &&
	grep "^bad: stream.S:3: no good" err &&
	grep "^flamepipe: stage .bad. (sh) exited with code 1" err &&
	no_fifo_dir_left
'

test_expect_success 'a stage that exits early with success (head): upstream ends quietly, exit 0' '
	cat >head.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	head  head -n 5
	sink  cat
	EOP
	run_chain head.pipeline "$EXAMPLES/demo-clockloop.perf.gz";
	test $rc = 0 && test $(wc -l <out) = 5 &&
	no_fifo_dir_left
'

test_expect_success 'a stage killed by a signal is named with the signal (SIGSEGV), exit 2' '
	cat >segv.pipeline <<-\EOP &&
	read  fp-read ${INPUT}
	crash sh -c "kill -SEGV \$\$"
	sink  cat
	EOP
	run_chain segv.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 2 &&
	grep "^flamepipe: stage .crash. (sh) killed by signal SIGSEGV" err &&
	no_fifo_dir_left
'

test_expect_success 'a program that cannot be executed (exec fails): named, exit 100' '
	printf "#!/nonexistent/interp\n" >noexec && chmod +x noexec &&
	printf "read fp-read \${INPUT}\nx ./noexec\n" >noexec.pipeline &&
	run_chain noexec.pipeline "$EXAMPLES/multiproc.perf.gz";
	test $rc = 100 &&
	grep "^flamepipe: stage .x. (./noexec): cannot run ./noexec: No such file or directory" err &&
	no_fifo_dir_left
'

# ---- signals at several moments; a live input that never ends by itself --

write_live_pipeline
fp-read "$EXAMPLES/multiproc.perf.gz" >all.S

# The runner on live.pipeline (lib-runner.sh's start_live), stopping a
# stage it signals after 2 s.
start_chain() { start_live live.pipeline --kill-timeout 2 "$@"; }
# The stage pids, from the runner itself.
stage_pids() { flamepipe ctl dirf status | sed -n "s/^stage.*	pid=\([0-9]*\).*/\1/p" | grep -v "^0\$"; }
all_up() { test "$(stage_pids | wc -l)" = 4; }
none_alive() { for p in $pids; do kill -0 $p 2>/dev/null && { echo "stage $p still alive"; return 1; }; done; return 0; }
# The runner was signalled: wait for it with its input still open (closing
# fd 7 first could end it by EOF instead), then close it.
reap() { wait $runner; rc=$?; exec 7>&-; cat err; }

for sig in INT TERM HUP; do
	test_expect_success "SIG$sig while running: the source stops, the rest drains, nothing left" '
		start_chain &&
		cat all.S >&7 &&
		wait_for all_up 100 && pids=$(stage_pids) &&
		wait_for "grep -q \"^I	read\" live.out" 100 &&
		kill -$sig $runner && reap &&
		test $rc = 0 &&
		grep "^flamepipe: SIG$sig: stopping" err &&
		grep "^C	end	fold	14	2390\$" live.out &&
		none_alive && no_fifo_dir_left
	'
done

test_expect_success 'SIGTERM before the stages are up (as soon as the FIFO dir exists)' '
	start_chain &&
	wait_for "test -n \"\$(ls -A \$TMPDIR)\"" 100 &&
	kill -TERM $runner && reap &&
	test $rc = 0 -o $rc = 2 && no_fifo_dir_left
'

# flamepipe itself, once timeout (the $T bound, $runner) has exec'd it: a
# TERM to timeout just as it forks exits timeout alone (its child not yet
# recorded), and flamepipe went on, still removing its FIFO dir after reap.
runner_child() { # -> $fp
	fp=$(cat /proc/$runner/task/$runner/children 2>/dev/null) && fp=${fp% } &&
	test -n "$fp" && test "$(cat /proc/$fp/comm 2>/dev/null)" = flamepipe
}
test_expect_success 'SIGTERM at once after the start: exit, nothing left' '
	start_chain && wait_for runner_child 100 && kill -TERM $fp && reap;
	no_fifo_dir_left
'

test_expect_success 'a second SIGTERM: every stage gets SIGTERM, then SIGKILL after --kill-timeout (a stage that ignores TERM and EOF)' '
	cat >stuck.pipeline <<-\EOP &&
	src   cat
	stuck sh -c "trap \"\" TERM; cat; exec sleep 60"
	sink  cat
	EOP
	rm -f feed dirf && mkfifo feed &&
	{ timeout --foreground $T flamepipe run stuck.pipeline --dir-file dirf --drain-timeout 60 --kill-timeout 1 <feed >live.out 2>err 7>&- & } &&
	runner=$! && exec 7>feed &&
	wait_for "test \$(stage_pids | wc -l) = 3" 100 && pids=$(stage_pids) &&
	kill -TERM $runner &&
	wait_for "grep -q \"stage .src. (cat)\" err || ! kill -0 \$(echo \$pids | cut -d\" \" -f1) 2>/dev/null" 50 &&
	kill -TERM $runner && reap &&
	grep "SIGTERM again: sending SIGTERM to every stage" err &&
	grep "stage .stuck. (sh) did not stop: sending SIGKILL" err &&
	none_alive && no_fifo_dir_left
'

test_expect_success 'SIGQUIT kills every stage at once' '
	start_chain &&
	wait_for all_up 100 && pids=$(stage_pids) &&
	kill -QUIT $runner && reap &&
	grep "SIGQUIT: killing every stage" err &&
	none_alive && no_fifo_dir_left
'

test_expect_success 'SIGKILL of a stage (restart=never): named, the pipeline stops, exit 2, nothing left' '
	start_chain &&
	cat all.S >&7 &&
	wait_for all_up 100 && pids=$(stage_pids) &&
	fold=$(flamepipe ctl dirf status | sed -n "s/^stage	name=fold	.*pid=\([0-9]*\).*/\1/p") &&
	kill -KILL $fold && reap &&
	test $rc = 2 &&
	grep "^flamepipe: stage .fold. (fp-fold) killed by signal SIGKILL" err &&
	none_alive && no_fifo_dir_left
'

test_expect_success 'SIGKILL of the runner: the stages die with it (parent-death signal)' '
	start_chain &&
	wait_for all_up 100 && pids=$(stage_pids) && dir=$(cat dirf) &&
	kill -KILL $runner && reap;
	wait_for none_alive 50 &&
	# the one exit path that cannot clean up: the dir stays (documented)
	rm -rf "$dir"
'
test_done
