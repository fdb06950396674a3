#!/bin/sh
test_description='flamepipe ctl: restart, replace and insert a stage mid-stream without stopping the others; totals add up'
. "$(dirname "$0")/test-lib.sh"

T=30
. "$TOP/tests/lib-runner.sh"

# the header and the samples only (perf script --header text also gives a
# C events line), so that line N + 1 is sample N
fp-read "$EXAMPLES/multiproc.perf.gz" | grep -v "^C	events	" >all.S
TOTAL=$(grep -c "^S	" all.S)

mark() { printf "# mark %s\n" "$1" >&7 && wait_for "grep -q \"^# mark $1\\\$\" live.out" 100; }
stage_pid() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*pid=\([0-9]*\).*/\1/p"; }
# Totals of every complete fold snapshot, in order.
snapshots() { sed -n "s/^C	end	fold	[0-9]*	\([0-9]*\)\$/\1/p" live.out; }

cat >live.pipeline <<\EOP
src    cat
bucket fp-bucket --keep-idle
range  fp-range --control ${FIFODIR}/range.ctl
fold   fp-fold --interval 600000
sink   cat
EOP

test_expect_success 'status lists the runner and every stage' '
	start_live live.pipeline &&
	wait_for "flamepipe ctl dirf status >status" 100 &&
	flamepipe ctl "$(cat dirf)" status >status2 &&
	finish && cat status &&
	grep "^runner	pid=[0-9]*	state=running	dir=$TMPDIR/flamepipe\." status &&
	grep "^stage	name=fold	state=running	pid=[1-9][0-9]*	starts=1	last=-	command=fp-fold --interval 600000\$" status &&
	test $(grep -c "^stage	" status) = 5 &&
	test $(grep -c "^stage	" status2) = 5
'

test_expect_success 'replace the folder with another program mid-stream: the others keep running, totals add up' '
	start_live live.pipeline &&
	head -n 1001 all.S >&7 && mark 1 &&
	pids_before=$(for s in src bucket range sink; do stage_pid $s; done) &&
	flamepipe ctl dirf replace fold fp-fold --weight period --interval 600000 >reply &&
	grep "^ok: stage .fold. replaced, pid [0-9]*\$" reply &&
	pids_after=$(for s in src bucket range sink; do stage_pid $s; done) &&
	echo "pids before: $pids_before; after: $pids_after" &&
	test "$pids_before" = "$pids_after" &&
	flamepipe ctl dirf status >status && cat status &&
	grep "name=fold	state=running.*starts=2	last=exited with code 0	command=fp-fold --weight period --interval 600000" status &&
	sed -n "1002,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	# the old folder wrote its table on TERM: 1000 samples; the new one
	# counts periods, so count its samples from its I record
	snapshots >snaps && cat snaps &&
	test "$(head -n 1 snaps)" = 1000 &&
	grep "^I	fold	samples=$((TOTAL - 1000))	" live.out &&
	test $(grep -c "^I	fold	samples=" live.out) = 2 &&
	grep "^I	bucket	samples=$TOTAL	" live.out &&
	no_fifo_dir_left
'

test_expect_success 'swap the folder for a non-C program (awk counter) and back: every sample counted once' '
	start_live live.pipeline &&
	head -n 801 all.S >&7 && mark 1 &&
	# mawk reads a pipe in blocks unless -W interactive (needed live); it
	# dies on the SIGTERM of the next replace, so it reports as it goes
	flamepipe ctl dirf replace fold mawk -W interactive -F "\t" "\$1 == \"S\" { printf \"I\tawkfold\tsamples=%d\n\", ++n; next } { print }" &&
	sed -n "802,1600p" all.S >&7 && mark 2 &&
	flamepipe ctl dirf replace fold fp-fold --interval 600000 &&
	sed -n "1601,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	a=$(snapshots | head -n 1) &&
	b=$(sed -n "s/^I	awkfold	samples=//p" live.out | tail -n 1) &&
	c=$(snapshots | tail -n 1) &&
	echo "$a + $b + $c" &&
	test $((a + b + c)) = $TOTAL && test $a = 800 && test $b = 799
'

test_expect_success 'restart a stage mid-stream: nothing lost, its neighbours keep their pids' '
	start_live live.pipeline &&
	head -n 1001 all.S >&7 && mark 1 &&
	fold=$(stage_pid fold) &&
	flamepipe ctl dirf restart range >reply && grep "^ok: stage .range. restarted" reply &&
	test "$(stage_pid fold)" = $fold &&
	sed -n "1002,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	test "$(snapshots)" = $TOTAL &&
	test $(grep -c "^I	range	" live.out) = 2
'

test_expect_success 'insert a stage after another mid-stream: the stages after it are not restarted' '
	start_live live.pipeline &&
	head -n 1001 all.S >&7 && mark 1 &&
	fold=$(stage_pid fold) && sink=$(stage_pid sink) &&
	flamepipe ctl dirf insert drop after range awk -F "\t" "\$1 == \"S\" && \$8 == \"mp-crc32\" { next } { print; fflush() }" >reply &&
	cat reply && grep "^ok: stage .drop. inserted after .range., pid [0-9]*\$" reply &&
	test "$(stage_pid fold)" = $fold && test "$(stage_pid sink)" = $sink &&
	flamepipe ctl dirf status >status && cat status &&
	sed -n "s/^stage	name=\([^	]*\).*/\1/p" status | tr "\n" " " >order &&
	test "$(cat order)" = "src bucket range drop fold sink " &&
	test -p "$(cat dirf)/drop.out" && test -p "$(cat dirf)/range.out" &&
	sed -n "1002,\$p" all.S >&7 && finish &&
	test $rc = 0 &&
	crc_after=$(sed -n "1002,\$p" all.S | awk -F "\t" "\$8 == \"mp-crc32\"" | wc -l) &&
	test "$(snapshots)" = $((TOTAL - crc_after)) &&
	grep "^flamepipe: control: stage .drop. (awk) inserted after .range." err &&
	no_fifo_dir_left
'

test_expect_success 'insert before a stage is insert after the one before it' '
	start_live live.pipeline &&
	head -n 11 all.S >&7 && mark 1 &&
	flamepipe ctl dirf insert tee1 before fold cat >reply && cat reply &&
	grep "^ok: stage .tee1. inserted after .range." reply &&
	sed -n "12,\$p" all.S >&7 && finish && test $rc = 0 &&
	test "$(snapshots)" = $TOTAL
'

test_expect_success 'ctl errors: unknown stage or command, bad insert places and names, missing program' '
	start_live live.pipeline &&
	wait_for "flamepipe ctl dirf status >/dev/null" 100 &&
	test_must_fail flamepipe ctl dirf restart nosuch 2>e1 &&
	grep "^flamepipe: ctl: error: no stage .nosuch." e1 &&
	test_must_fail flamepipe ctl dirf frobnicate 2>e2 &&
	grep "error: unknown command .frobnicate." e2 &&
	test_must_fail flamepipe ctl dirf insert x before src cat 2>e3 &&
	grep "error: cannot insert before the first stage .src." e3 &&
	test_must_fail flamepipe ctl dirf insert x after sink cat 2>e4 &&
	grep "error: cannot insert after the last stage .sink." e4 &&
	test_must_fail flamepipe ctl dirf insert fold after range cat 2>e5 &&
	grep "error: bad or existing stage name .fold." e5 &&
	test_must_fail flamepipe ctl dirf insert ../x after range cat 2>e6 &&
	grep "error: bad or existing stage name" e6 &&
	test_must_fail flamepipe ctl dirf replace fold fp-nosuch 2>e7 &&
	grep "error: program .fp-nosuch. not found" e7 &&
	test_must_fail flamepipe ctl dirf insert x middle range cat 2>e8 &&
	grep "error: usage: insert NEW after|before NAME PROGRAM" e8 &&
	finish && test $rc = 0
'

test_expect_success 'ctl stop ends the pipeline like SIGTERM (drain, exit 0)' '
	start_live live.pipeline &&
	cat all.S >&7 && mark 1 &&
	flamepipe ctl dirf stop >reply && grep "^ok: stopping" reply &&
	wait $runner; rc=$?; exec 7>&-; cat err; test $rc = 0 &&
	test "$(snapshots)" = $TOTAL && no_fifo_dir_left
'

test_expect_success 'ctl with no runner: exit 111 with a message' '
	mkdir -p fake &&
	test_must_fail flamepipe ctl fake status 2>e &&
	grep "^flamepipe: ctl: no runner listening on fake/runner.ctl" e
'
test_done
