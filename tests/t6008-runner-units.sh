#!/bin/sh
test_description='flamepipe units (unit=NAME): stages that share one stream restart together, never joined mid-way'
. "$(dirname "$0")/test-lib.sh"

T=60
. "$TOP/tests/lib-runner.sh"

# A writer whose stream, like perf's pipe format, starts with a header a
# reader needs: "HDR PID", then "L PID N" for N = 1, 2, ... The reader
# (check.awk) says OK for each line of the writer whose header it read,
# BAD for a line of another writer (a stream joined mid-way) and GAP for
# a line that skips a number (a line lost inside one stream).
cat >gen.sh <<\EOS
echo "HDR $$"
n=0
while :; do n=$((n + 1)); echo "L $$ $n"; sleep 0.005; done
EOS
cat >check.awk <<\EOA
/^HDR / { h = $2; print "# header " h; fflush(); next }
/^L / {
	if ($2 != h) print "BAD " $0
	else if (last[h] != "" && $3 != last[h] + 1) print "GAP " $0
	else print "OK " $2 " " $3
	last[$2] = $3; fflush(); next
}
EOA
cat >unit.pipeline <<\EOP
src  restart=on-failure unit=u sh gen.sh
rd   restart=on-failure unit=u awk -f check.awk
sink cat
EOP

stage_pid() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	state=running	pid=\([0-9]*\).*/\1/p"; }
stage_starts() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*starts=\([0-9]*\).*/\1/p"; }
writers() { sed -n "s/^OK \([0-9]*\) .*/\1/p" live.out | uniq | wc -l; }
# both stages started twice, and the new writer's lines are out
restarted() {
	wait_for "test \"\$(stage_starts src)\" = 2 && test \"\$(stage_starts rd)\" = 2 && test \$(writers) = 2" 300 ||
	{ flamepipe ctl dirf status; cat err; false; }
}
stop_run() { flamepipe ctl dirf stop >/dev/null && wait $runner; rc=$?; exec 7>&-; cat err; }
one_stream_each() {
	! grep -q "^BAD\|^GAP" live.out &&
	test "$(grep -c "^# header" live.out)" = 2
}

test_expect_success 'kill -9 of the reader restarts the whole unit: a new writer, never a stream joined mid-way' '
	start_live unit.pipeline &&
	wait_for "test \$(grep -c \"^OK\" live.out) -ge 20" 300 &&
	kill -9 "$(stage_pid rd)" &&
	restarted && stop_run &&
	test $rc = 0 &&
	one_stream_each &&
	grep -q "^flamepipe: stage .rd. (awk) killed by signal SIGKILL: restarting its unit .u. (stages src to rd)" err &&
	grep -q "^W	flamepipe	unit.pipeline:2	stage rd killed by signal SIGKILL: its unit u was restarted; [0-9]* bytes of the stream inside it were dropped" live.out &&
	grep -q "^C	restarted	rd\$" live.out
'

test_expect_success 'kill -9 of the writer: the reader reads all it wrote, then both start again' '
	start_live unit.pipeline &&
	wait_for "test \$(grep -c \"^OK\" live.out) -ge 20" 300 &&
	kill -9 "$(stage_pid src)" &&
	restarted && stop_run &&
	test $rc = 0 &&
	one_stream_each &&
	grep -q "^flamepipe: unit .u.: every stage has ended (0 bytes left in its FIFOs dropped)" err &&
	grep -q "^W	flamepipe	unit.pipeline:1	stage src killed by signal SIGKILL: its unit u was restarted; 0 bytes" live.out
'

test_expect_success 'ctl restart of one stage restarts the unit, as at the end of a stream: nothing dropped' '
	start_live unit.pipeline &&
	wait_for "test \$(grep -c \"^OK\" live.out) -ge 20" 300 &&
	flamepipe ctl dirf restart rd >reply &&
	grep -q "^ok: stage .rd. is one of unit .u.: the unit is restarting" reply &&
	restarted && stop_run &&
	test $rc = 0 &&
	one_stream_each &&
	grep -q "every stage has ended (0 bytes left in its FIFOs dropped)" err
'

test_expect_success 'ctl replace of a stage of a unit, or an insert that would restart one alone, is refused' '
	start_live unit.pipeline &&
	wait_for "test \$(grep -c \"^OK\" live.out) -ge 1" 300 &&
	! flamepipe ctl dirf replace rd cat >replace.reply 2>&1 &&
	! flamepipe ctl dirf insert mid after src cat >insert.reply 2>&1 &&
	! flamepipe ctl dirf insert late before sink cat >before.reply 2>&1 &&
	test "$(stage_starts rd)" = 1 && test "$(stage_starts src)" = 1 &&
	stop_run &&
	grep -q "error: stage .rd. is one of unit .u., whose stages share one stream: replace refused" replace.reply &&
	grep -q "error: stage .src. is one of unit .u., whose stages share one stream: insert refused" insert.reply &&
	grep -q "error: stage .rd. is one of unit .u., .*insert refused (it would restart .rd. alone" before.reply &&
	! grep -q "^BAD\|^GAP" live.out
'

test_expect_success 'a unit that is not one run of adjacent stages is refused when the file is read' '
	cat >split.pipeline <<-\EOP &&
	a  unit=u cat
	b  cat
	c  unit=u cat
	EOP
	run_chain split.pipeline /dev/null;
	test $rc = 100 &&
	grep -q "split.pipeline:3: stage .c.: unit .u. is not one run of adjacent stages" err
'

test_expect_success 'a unit failing fast every time is given up: the run ends with the failure' '
	cat >fails.pipeline <<-\EOP &&
	src  restart=on-failure retries=1 unit=u sh -c "exit 3"
	rd   restart=on-failure unit=u cat
	sink cat
	EOP
	run_chain fails.pipeline /dev/null;
	test $rc != 0 &&
	test "$(grep -c "restarting its unit .u." err)" = 1 &&
	grep -q "^flamepipe: stage .src.: giving up after 2 fast failures in a row" err &&
	no_fifo_dir_left
'

test_done
