#!/bin/sh
test_description='fp-perfdata: a binary replaced at its path during the capture (a deploy) is two files, never named from the new one for the old'
. "$(dirname "$0")/lib-debuginfod.sh"
di_own_network "$0" "$@"
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
		#include <stdio.h>
		#include <time.h>
		#include <unistd.h>
		static volatile unsigned long sink;
		__attribute__((noinline)) void ${v}_pad(void) { sink++; }
		__attribute__((noinline)) $align void ${v}_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
		int main(int argc, char **argv) {	/* argv[1]: stay until DIR/quit */
			clock_t end = clock() + $PD_RUN_MS * (CLOCKS_PER_SEC / 1000);
			time_t until = time(0) + 100;
			char p[4096];
			${v}_pad();
			while (clock() < end) ${v}_spin();
			if (argc < 2)
				return 0;
			snprintf(p, sizeof p, "%s/spun", argv[1]);
			fclose(fopen(p, "w"));
			snprintf(p, sizeof p, "%s/quit", argv[1]);
			while (access(p, F_OK) != 0 && time(0) <= until)
				usleep(5000);
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
# a frame of build V's own functions in FILE
has_build_frame() { pd_has_frame "$1" "$2_(pad|spin)"; } # file v

test_expect_success 'without build-ids: the new build is named, the old one not after it, and a warning says why' '
	fp-perfdata deploy-no-buildid.data >nb.s 2>nb.err && cat nb.err &&
	pids_in_order nb.s >nb.pids && test $(wc -l <nb.pids) = 2 &&
	old=$(sed -n 1p nb.pids) new=$(sed -n 2p nb.pids) &&
	prog_samples nb.s | awk -F "\t" -v p=$old "\$3 == p" >nb.old &&
	prog_samples nb.s | awk -F "\t" -v p=$new "\$3 == p" >nb.new &&
	has_build_frame nb.new new && ! has_build_frame nb.new old &&
	test -s nb.old && ! has_build_frame nb.old new && grep -q "	\[prog\]" nb.old &&
	grep -q "cannot read $PWD/nb/prog (the mapped file was device [0-9]*:[0-9]* inode [0-9]*, the one at that path here is .*: a container.s file of that path, or one replaced since" nb.err
'

test_expect_success 'with the build-id perf read from the path at its end: the new build named, the old one with a note' '
	fp-perfdata deploy-buildid.data >b.s 2>b.err && cat b.err &&
	pids_in_order b.s >b.pids && test $(wc -l <b.pids) = 2 &&
	new=$(sed -n 2p b.pids) &&
	prog_samples b.s | awk -F "\t" -v p=$new "\$3 == p" >b.new &&
	has_build_frame b.new new && ! has_build_frame b.new old &&
	grep -q "deploy-buildid.data: $PWD/b/prog: named from the file at that path here, whose build-id is the recorded one, but the mapped file was device" b.err
'

# Both builds gone: each is named only if its file can be had by the
# build-id the kernel read at its map (--buildid-mmap), here from a real
# debuginfod server that has both, as a build farm's does.
if [ -n "${FP_DI_NETNS:-}" ] && command -v debuginfod >/dev/null 2>&1 && ip link set lo up; then
test_expect_success 'setup: the deploy recorded with each map'"'"'s build-id (--buildid-mmap)' '
	PERF_BUILDID_DIR=$PWD/bid pd_record_opts "--buildid-mmap --no-buildid-cache" deploy-bm.data \
		-g -F 999 -- sh -c "$(deploy $PWD/bm)" &&
	for v in old new; do
		perf script -i deploy-bm.data --show-mmap-events 2>/dev/null |
			grep -q "MMAP2.* <$(pd_build_id_of $v)>\]: r-xp $PWD/bm/prog\$" || return 1
	done
'

test_expect_success 'both builds gone, no server: the new build named, the old one not after it' '
	PERF_BUILDID_DIR=$PWD/bid fp-perfdata deploy-bm.data >bm0.s 2>bm0.err && cat bm0.err &&
	pids_in_order bm0.s >bm0.pids && test $(wc -l <bm0.pids) = 2 &&
	prog_samples bm0.s | awk -F "\t" -v p=$(sed -n 1p bm0.pids) "\$3 == p" >bm0.old &&
	test -s bm0.old && ! has_build_frame bm0.old new && grep -q "	\[prog\]" bm0.old &&
	grep -q "cannot read $PWD/bm/prog (a different build than the one recorded)" bm0.err
'

test_expect_success 'both builds gone, a debuginfod server has both: each build named from its own file' '
	mkdir srv && cp old new srv/ &&
	di_start srv && test_when_finished di_stop &&
	wait_for "di_serves $(pd_build_id_of old) executable" 300 &&
	PERF_BUILDID_DIR=$PWD/bid DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/dicache \
		fp-perfdata deploy-bm.data >bm.s 2>bm.err && cat bm.err &&
	pids_in_order bm.s >bm.pids && test $(wc -l <bm.pids) = 2 &&
	prog_samples bm.s | awk -F "\t" -v p=$(sed -n 1p bm.pids) "\$3 == p" >bm.old &&
	prog_samples bm.s | awk -F "\t" -v p=$(sed -n 2p bm.pids) "\$3 == p" >bm.new &&
	has_build_frame bm.old old && ! has_build_frame bm.old new &&
	has_build_frame bm.new new && ! has_build_frame bm.new old &&
	! grep -q "cannot read $PWD/bm/prog" bm.err &&
	grep -q "debuginfod_found=[1-9]" bm.s
'
else
	test_skip 'the deploy with build-ids and a debuginfod server' \
		'needs a network namespace of its own (root, unshare -n) and debuginfod'
fi

test_expect_success 'the old build still running when the capture is read: named from its mapped file (/proc/PID/map_files)' '
	mkdir run sig &&
	pd_record_opts --no-buildid run.data -g -F 999 -- sh -c \
		"cp $PWD/old $PWD/run/prog && { $PWD/run/prog $PWD/sig & } &&
		 while ! test -e $PWD/sig/spun; do sleep 0.02; done &&
		 cp $PWD/new $PWD/run/prog.next && mv $PWD/run/prog.next $PWD/run/prog && $PWD/run/prog" &&
	old=$(pgrep -f "^$PWD/run/prog $PWD/sig") && echo "old build: pid $old, still running" &&
	fp-perfdata run.data >run.s 2>run.err; rc=$?; touch sig/quit; cat run.err && test $rc = 0 &&
	prog_samples run.s | awk -F "\t" -v p=$old "\$3 == p" >run.old &&
	prog_samples run.s | awk -F "\t" -v p=$old "\$3 != p" >run.new &&
	has_build_frame run.old old && ! has_build_frame run.old new &&
	has_build_frame run.new new && ! has_build_frame run.new old &&
	! grep -q "cannot read $PWD/run/prog" run.err
'

test_expect_success 'a binary deleted while its process runs (perf maps it as "PATH (deleted)"): named while the process lives' '
	mkdir del delsig &&
	sed -e "s/old_/gone_/g" -e "s|while (clock() < end) gone_spin();|while (access(argv[1], F_OK) == 0 \&\& !go(argv[1])) usleep(5000);\n\t\t\twhile (clock() < end) gone_spin();|" \
	    -e "s|^int main|static int go(const char *d) { char p[4096]; snprintf(p, sizeof p, \"%s/go\", d); return access(p, F_OK) == 0; }\nint main|" old.c >gone.c &&
	cc -O2 -o del/prog gone.c && nm del/prog | grep -q " T gone_spin" &&
	{ del/prog "$PWD/delsig" & } && gone=$! &&
	wait_for "pgrep -f \"^del/prog $PWD/delsig\" >/dev/null" && rm del/prog &&
	grep -q "$PWD/del/prog (deleted)" /proc/$gone/maps &&
	pd_record_opts --no-buildid del.data -a -g -F 999 -- sh -c \
		"touch $PWD/delsig/go; while ! test -e $PWD/delsig/spun; do sleep 0.02; done" &&
	fp-perfdata del.data >del.s 2>del.err; rc=$?; touch delsig/quit; cat del.err && test $rc = 0 &&
	awk -F "\t" -v p=$gone "\$1 == \"S\" && \$3 == p" del.s >del.prog &&
	test -s del.prog && has_build_frame del.prog gone
'

test_expect_success 'the heatmap and the flame graph still count every sample of both builds' '
	prog_samples nb.s | wc -l >got &&
	perf script -i deploy-no-buildid.data -F comm 2>/dev/null | awk "\$1 == \"prog\"" | wc -l >want &&
	test_cmp want got
'

touch sig/quit delsig/quit 2>/dev/null
test_done
