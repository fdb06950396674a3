#!/bin/sh
test_description='fp-perfdata: a binary replaced at its path during the capture (a deploy) is two files, never named from the new one for the old'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
test_tags root perf
pd_need_perf

# A service is profiled while it is redeployed: its old build runs, a new
# build is renamed over its path (a new inode, as a package manager or a
# container image update does), the new build runs. Both have exited when
# the capture is read, and the path now holds the new build. The MMAP2
# records name each build's device and inode: the new one's frames are
# read from the file at the path, the old one's never are (its symbols
# are at other addresses: named from the new file they would be wrong).

test_expect_success 'setup: two builds of one program, their functions at different addresses' '
	for v in old new; do
		align= && test $v = new && align="__attribute__((aligned(4096)))"
		cat >$v.c <<-CC || return 1
		#include <time.h>
		static volatile unsigned long sink;
		__attribute__((noinline)) void ${v}_pad(void) { sink++; }
		__attribute__((noinline)) $align void ${v}_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
		int main(void) {
			clock_t end = clock() + $PD_RUN_MS * (CLOCKS_PER_SEC / 1000);
			${v}_pad();
			while (clock() < end) ${v}_spin();
			return 0;
		}
		CC
		cc -O2 -o $v $v.c || return 1
	done &&
	old_at=$(nm old | sed -n "s/ T old_spin\$//p") && new_at=$(nm new | sed -n "s/ T new_spin\$//p") &&
	echo "old_spin at $old_at, new_spin at $new_at" && test -n "$old_at" && test "$old_at" != "$new_at"
'

# deploy DIR: the old build at DIR/prog runs, the new one is renamed over
# it and runs
deploy() {
	echo "mkdir $1 && cp $PWD/old $1/prog && $1/prog && cp $PWD/new $1/prog.next && mv $1/prog.next $1/prog && $1/prog"
}

test_expect_success 'setup: the deploy, recorded with and without build-ids' '
	pd_record_opts --no-buildid deploy-no-buildid.data -g -F 999 -- sh -c "$(deploy $PWD/nb)" &&
	pd_record_opts "" deploy-buildid.data -g -F 999 -- sh -c "$(deploy $PWD/b)" &&
	perf script -i deploy-no-buildid.data --show-mmap-events 2>/dev/null |
		grep "MMAP2.* $PWD/nb/prog\$" | grep -o " [0-9a-f]*:[0-9a-f]* [0-9]* " | sort -u >inodes &&
	cat inodes && test $(wc -l <inodes) = 2
'

# the samples of the program, by its pid: the old build ran first
prog_samples() { awk -F "\t" "\$1 == \"S\" && \$8 == \"prog\"" "$1"; }
pids_in_order() { awk -F "\t" "\$1 == \"S\" && \$8 == \"prog\" && !seen[\$3]++ { print \$3 }" "$1"; }

test_expect_success 'without build-ids: the new build is named, the old one not after it, and a warning says why' '
	fp-perfdata deploy-no-buildid.data >nb.s 2>nb.err && cat nb.err &&
	pids_in_order nb.s >nb.pids && test $(wc -l <nb.pids) = 2 &&
	old=$(sed -n 1p nb.pids) new=$(sed -n 2p nb.pids) &&
	prog_samples nb.s | awk -F "\t" -v p=$old "\$3 == p" >nb.old &&
	prog_samples nb.s | awk -F "\t" -v p=$new "\$3 == p" >nb.new &&
	grep -q "new_spin" nb.new && ! grep -q "old_" nb.new &&
	test -s nb.old && ! grep -q "new_" nb.old && grep -q "	\[prog\]" nb.old &&
	grep -q "cannot read $PWD/nb/prog (the mapped file was device [0-9]*:[0-9]* inode [0-9]*, the one at that path here is .*: a container.s file of that path, or one replaced since" nb.err
'

test_expect_success 'with the build-id perf read from the path at its end: the new build named, the old one with a note' '
	fp-perfdata deploy-buildid.data >b.s 2>b.err && cat b.err &&
	pids_in_order b.s >b.pids && test $(wc -l <b.pids) = 2 &&
	new=$(sed -n 2p b.pids) &&
	prog_samples b.s | awk -F "\t" -v p=$new "\$3 == p" >b.new &&
	grep -q "new_spin" b.new && ! grep -q "old_" b.new &&
	grep -q "deploy-buildid.data: $PWD/b/prog: named from the file at that path here, whose build-id is the recorded one, but the mapped file was device" b.err
'

test_expect_success 'the heatmap and the flame graph still count every sample of both builds' '
	prog_samples nb.s | wc -l >got &&
	perf script -i deploy-no-buildid.data -F comm 2>/dev/null | awk "\$1 == \"prog\"" | wc -l >want &&
	test_cmp want got
'

test_done
