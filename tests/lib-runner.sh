# shellcheck shell=sh
# tests/lib-runner.sh: what the flamepipe runner tests (t60xx) share.
# Source after test-lib.sh, with $T (the bound in seconds of one run) set.
#
# TMPDIR is private to the script ($TRASH/tmp): the runner makes its FIFO
# dirs there, so a test can see that none is left.
#	no_fifo_dir_left                  TMPDIR is empty again
#	run_chain PIPELINE INPUT [OPTS]   flamepipe run PIPELINE --input INPUT
#	                                  OPTS, bounded by $T s: stdout in out,
#	                                  its exit code in $rc, stderr in err
#	                                  (and shown)
#	start_live PIPELINE [OPTS]        the runner on PIPELINE reading a FIFO
#	                                  the script holds open on fd 7 (the
#	                                  live input), stdout in live.out, stderr
#	                                  in err, its pid in $runner, its control
#	                                  dir named in dirf
#	finish                            closes fd 7 (end of input) and waits:
#	                                  $rc, err shown
#	write_live_pipeline               live.pipeline: stdin through fp-range
#	                                  (its control FIFO range.ctl in the
#	                                  FIFO dir) and fp-fold to stdout
TMPDIR=$TRASH/tmp && export TMPDIR && mkdir -p "$TMPDIR"

no_fifo_dir_left() { test -z "$(ls -A "$TMPDIR")" || { echo "left behind: $(ls -A "$TMPDIR")"; return 1; }; }

run_chain() { # PIPELINE INPUT [run options]
	_p=$1 _in=$2
	shift 2
	timeout $T flamepipe run "$_p" --input "$_in" "$@" >out 2>err; rc=$?; cat err
}

start_live() { # PIPELINE [run options]
	_p=$1
	shift
	rm -f feed dirf live.out && mkfifo feed &&
	{ timeout --foreground $T flamepipe run "$_p" --dir-file dirf "$@" <feed >live.out 2>err 7>&- & } &&
	runner=$! && exec 7>feed
}
finish() { exec 7>&-; wait $runner; rc=$?; cat err; }

write_live_pipeline() {
	cat >live.pipeline <<-\EOP
	src   cat
	range fp-range --control ${FIFODIR}/range.ctl
	fold  fp-fold
	sink  cat
	EOP
}
