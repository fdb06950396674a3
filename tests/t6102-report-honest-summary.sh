#!/bin/sh
test_description='flamepipe report: an honest summary line (bytes really read, FIFO and stdin inputs), a read-only -o found first'
. "$(dirname "$0")/test-lib.sh"

CAP=$EXAMPLES/demo-clockloop.perf.gz
MB() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }

test_expect_success 'setup: a 30 MB plain capture (more than the chain buffers)' '
	for i in 1 2 3 4 5 6 7 8; do zcat "$CAP"; done >big.perf &&
	size=$(stat -c %s big.perf) &&
	test "$size" -gt 30000000 &&
	echo "$size" >size
'

# The second stage holds its input until told, then is killed: the run
# stops with most of the file unread.
test_expect_success 'a killed stage: the summary gives the bytes read, not the file size, and no rate from the size' '
	sed "/^read /a stall sh -c '\''echo \$\$ >stall.pid; exec sleep 600'\''" \
		"$EXAMPLES/default.pipeline" >stall.pipeline &&
	grep -q "^stall " stall.pipeline &&
	{ flamepipe report big.perf -o out1 --pipeline stall.pipeline --dir-file dirf 2>err & } &&
	wait_for "test -s stall.pid && test -s dirf" 100 &&
	# fp-read runs (it reads by mmap: no rchar to wait for); give it a moment
	wait_for "flamepipe ctl \"\$(cat dirf)\" status | grep -q \"name=read	state=running	pid=[1-9]\"" 100 &&
	sleep 1 &&
	kill -KILL "$(cat stall.pid)" &&
	wait_for "grep -q \"report: big.perf\" err" 200 &&
	cat err &&
	total=$(MB "$(cat size)") &&
	grep "report: big.perf: .* of $total MB read in .* (incomplete: a stage failed)" err &&
	! grep "$total MB in" err &&
	read=$(sed -n "s/.*, \([0-9.]*\) of $total MB read.*/\1/p" err) &&
	awk -v r="$read" -v t="$total" "BEGIN { exit !(r >= 0 && r < t) }"
'

test_expect_success 'a FIFO input: the summary gives the bytes read from it, not 0.00 MB' '
	mkfifo in.fifo &&
	{ zcat "$CAP" >in.fifo & } &&
	flamepipe report in.fifo -o out2 2>err &&
	bytes=$(zcat "$CAP" | wc -c) &&
	grep "report: in.fifo: .*, $(MB $bytes) MB read from a FIFO in " err &&
	! grep " 0.00 MB" err
'

test_expect_success 'report - reads the capture from stdin: the same report as from the file' '
	flamepipe report "$CAP" -o ref 2>ref.err &&
	zcat "$CAP" | flamepipe report - -o out3 2>err &&
	n=$(awk "{ s += \$NF } END { print s }" ref/stacks.folded) &&
	test "$n" -gt 0 &&
	grep "report: stdin: $n samples in [0-9]* stacks, $(MB $(zcat "$CAP" | wc -c)) MB read from stdin" err &&
	test_cmp ref/stacks.folded out3/stacks.folded &&
	test_cmp ref/heatmap.tsv out3/heatmap.tsv
'

test_expect_success 'report - with gzip on stdin too' '
	flamepipe report - -o out4 <"$CAP" 2>err &&
	test_cmp ref/stacks.folded out4/stacks.folded &&
	# stdin is the file itself here: its size is what was read
	grep "report: stdin: .*, $(MB $(stat -c %s "$CAP")) MB in " err
'

# The input is a FIFO nobody writes: a report that looked at the output
# directory only after the input would wait for ever.
ro_dir() {
	mkdir ro &&
	if test_have root; then
		mount -t tmpfs -o ro,size=64k tmpfs ro
	else
		chmod 555 ro
	fi
}
test_expect_success 'a read-only output directory: refused before any input is read (exit 111)' '
	ro_dir &&
	test_when_finished "umount ro 2>/dev/null; chmod 755 ro" &&
	mkfifo never.fifo &&
	timeout 20 flamepipe report never.fifo -o ro 2>err
	test $? = 111 &&
	grep "^flamepipe: report: cannot write in output dir ro: " err &&
	! grep samples err
'

test_done
