#!/bin/sh
test_description='fp-perfdata names a container'"'"'s frames through its own mount namespace, as perf script, also after it has exited'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
test_tags root perf
pd_need_perf
unshare -m true 2>/dev/null || skip_all 'mount namespaces' 'unshare -m fails here'
T="timeout 120"

# The workload as a container runs it: in a mount namespace of its own,
# its binary on a tmpfs only that namespace sees ($TRASH/ns is empty on
# the host). perf script opens it through /proc/PID/root (perf's nsinfo);
# so must fp-perfdata, and keep it: the frames must still be named when
# the samples are read after the process has exited.

test_expect_success 'setup: a program that spins at go and again at go2, and exits at quit' '
	cat >app.c <<-\CC &&
	#include <stdio.h>
	#include <time.h>
	#include <unistd.h>
	static volatile unsigned long sink;
	__attribute__((noinline)) void container_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
	__attribute__((noinline)) void container_work(void) { container_spin(); sink++; }
	static void touch(const char *d, const char *f) {
		char p[4096]; snprintf(p, sizeof p, "%s/%s", d, f);
		FILE *o = fopen(p, "w"); if (o) fclose(o);
	}
	static void wait_for_file(const char *d, const char *f, time_t until) {
		char p[4096]; snprintf(p, sizeof p, "%s/%s", d, f);
		while (access(p, F_OK) != 0 && time(0) <= until) usleep(5000);
	}
	int main(int argc, char **argv) {	/* argv[1]: where the test signals */
		time_t until = time(0) + 100;
		static const char *const phase[2][2] = { { "go", "spun" }, { "go2", "spun2" } };
		touch(argv[1], "ready");
		for (int p = 0; p < 2; p++) {
			wait_for_file(argv[1], phase[p][0], until);
			clock_t end = clock() + 400 * (CLOCKS_PER_SEC / 1000);
			while (clock() < end && time(0) <= until) container_work();
			touch(argv[1], phase[p][1]);
		}
		wait_for_file(argv[1], "quit", until);
		return 0;
	}
	CC
	cc -O2 -g -o app app.c && mkdir ns &&
	# the live chain of flamepipe live, perf'"'"'s stream and the samples saved
	sed -e "s|^read |save tee \${STREAM}\nread |" \
	    -e "s|^recorder |keep tee \${SAMPLES}\nrecorder |" \
	    "$TOP/examples/live-perfdata.pipeline" >live.pipeline &&
	grep -q "^save" live.pipeline && grep -q "^keep" live.pipeline
'

test_expect_success 'setup: the program in its own mount namespace, profiled live' '
	pd_in_mount_ns "$PWD/ns" "$PWD/app" "$PWD" && app_pid=$! &&
	wait_for "test -e ready" &&
	pid=$(pgrep -f "^$PWD/ns/app") && echo "$pid" >app.pid && echo "app: pid $pid" &&
	test -e /proc/$pid/root$PWD/ns/app && ! test -e ns/app &&
	# system-wide (how a host with containers is profiled) until it has spun
	$T flamepipe live -q -g -F 999 -a --pipeline live.pipeline -o out \
		-D STREAM="$PWD/stream.data" -D SAMPLES="$PWD/live.s" \
		-- sh -c "touch go; while ! test -e spun; do sleep 0.02; done" >live.log 2>&1 ||
		{ cat live.log; false; }
	test -s stream.data && test -e /proc/$pid
'

test_expect_success 'while it runs: the live frames are perf script'"'"'s on the same stream' '
	perf script -i stream.data --no-inline 2>script.err | fp-read -q >want.s &&
	grep -q "container_spin" want.s &&
	cp live.s got.s && PD_OWN_PIDS=$(cat app.pid) pd_compare_streams 0.999 &&
	grep "^S	" got.s | grep -q "	app	.*container_spin" &&
	! grep -q "cannot read $PWD/ns/app" live.log
'

test_expect_success 'after it has exited: fp-perfdata that saw its maps while it ran still names its frames' '
	# its second spin recorded alone (its maps synthesized first), and
	# perf script of it while it runs; fp-perfdata is given the stream up
	# to its first round while it runs, the rest once it has exited
	pid=$(cat app.pid) &&
	perf record -q --no-bpf-event --no-buffering -g -F 999 -p "$pid" -o - \
		-- sh -c "touch go2; while ! test -e spun2; do sleep 0.02; done" >p.data 2>p.err &&
	perf script -i p.data --no-inline 2>script.err | fp-read -q >want.s &&
	grep -q "container_spin" want.s &&
	cut=$(pd_pipe_first_round_end p.data) && echo "first round ends at $cut" &&
	rm -f feed && mkfifo feed &&
	{ $T fp-perfdata <feed >got.s 2>late.err & } && reader=$! &&
	exec 7>feed && head -c "$cut" p.data >&7 &&
	wait_for "pgrep -P $reader >reader.pid" &&
	wait_for "ls -l /proc/$(cat reader.pid)/fd | grep -q ns/app" &&
	touch quit && wait_for "! test -e /proc/$pid" &&
	tail -c +$((cut + 1)) p.data >&7 && exec 7>&- && wait $reader &&
	cat late.err && PD_OWN_PIDS=$pid pd_compare_streams 0.999 &&
	grep "^S	" got.s | grep -q "	app	.*container_spin"
'

test_expect_success 'after it has exited, read afresh: the frames without symbols, as perf script now gives them' '
	fp-perfdata stream.data >afresh.s 2>afresh.err && cat afresh.err &&
	grep -q "cannot read $PWD/ns/app" afresh.err &&
	! grep -q "	app	.*container_spin" afresh.s &&
	perf script -i stream.data --no-inline 2>/dev/null | fp-read -q >now.s &&
	grep -q "	app	" now.s && ! grep -q "	app	.*container_spin" now.s
'

test_expect_success 'JIT code in its own pid and mount namespace: its /tmp/perf-NSPID.map there names it, as perf script' '
	[ "$(uname -m)" = x86_64 ] || { echo "skipped: the JIT helper writes x86-64 code"; return 0; }
	# pid 1 of its pid namespace, its own /tmp: the host has no map of it;
	# started under perf record -a, which ends once it has spun
	cat >jit-ns.sh <<-\EOS &&
	unshare -m -p -f --mount-proc --propagation private sh -c '"'"'
		exec 3<"$2" 4<"$1" && mount -t tmpfs fp-ns /tmp &&
		exec /proc/self/fd/4 600 /proc/self/fd/3/jit.pid /proc/self/fd/3/jit.quit'"'"' sh "$1" "$2" &
	i=0
	while ! test -e "$2/jit.pid" && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
	test -e "$2/jit.pid"
	EOS
	# the program from outside /tmp, which its namespace covers with a
	# tmpfs: a checkout under /tmp (git clone . /tmp/fresh) would hide
	# its own binary from it, where perf 6.1 then names no symbol of it
	# and fp-perfdata takes the recorded path, its build-id the same
	jitdir=$(mktemp -d /var/tmp/fp-jit.XXXXXX) && test_when_finished "rm -rf $jitdir" &&
	cp "$TOP/build/tests/pd-jit" "$jitdir/" &&
	pd_record_opts "" jit.data -a -g -F 999 -- sh jit-ns.sh "$jitdir/pd-jit" "$PWD" &&
	# the child of this test'"'"'s unshare (its arguments name $PWD)
	jpid=$(pgrep -P "$(pgrep -f "^unshare .* $PWD\$")") &&
	echo "pd-jit: pid $jpid, in its namespace $(grep NStgid /proc/$jpid/status)" &&
	test "$(cat jit.pid)" = 1 && ! test -e /tmp/perf-$jpid.map &&
	PD_OWN_PIDS=$jpid pd_compare jit.data &&
	awk -F "\t" -v p=$jpid "\$1 == \"S\" && \$3 == p" got.s >jit.s &&
	echo "$(wc -l <jit.s) samples of pd-jit" &&
	grep -q "pd_jit_named_loop" jit.s && grep -q "\[perf-$jpid.map\]" jit.s &&
	touch jit.quit
'

test_expect_success 'a container that swaps its binary for an absolute link to a host file: resolved in its own root, never the host'"'"'s file' '
	# a root of its own (pivot_root into a tmpfs), as container runtimes
	# make it; the program renames its binary and links /app to the
	# host'"'"'s libc, which its root does not have. /proc/PID/root/app would
	# follow the link out to this host'"'"'s libc and name the frames after
	# it; perf (setns) and fp-perfdata (RESOLVE_IN_ROOT) find nothing.
	cat >swap.c <<-\CC &&
	#include <stdio.h>
	#include <time.h>
	#include <unistd.h>
	static volatile unsigned long sink;
	__attribute__((noinline)) void swapped_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
	int main(int argc, char **argv) {	/* argv[1]: where the test signals, argv[2]: the link target */
		char p[4096];
		time_t until = time(0) + 100;
		if (rename("/app", "/app.orig") != 0 || symlink(argv[2], "/app") != 0) return 1;
		clock_t end = clock() + 400 * (CLOCKS_PER_SEC / 1000);
		while (clock() < end && time(0) <= until) swapped_spin();
		snprintf(p, sizeof p, "%s/swapped", argv[1]);
		FILE *o = fopen(p, "w"); if (o) fclose(o);
		snprintf(p, sizeof p, "%s/swap.quit", argv[1]);
		while (access(p, F_OK) != 0 && time(0) <= until) usleep(5000);
		return 0;
	}
	CC
	cc -O2 -g -static -o swap swap.c && mkdir -p root &&
	libc=$(ldd /bin/sh | awk "/libc.so/ { print \$3 }") && test -f "$libc" && echo "link target $libc" &&
	cat >swap-ns.sh <<-\EOS &&
	unshare -m --propagation private sh -c '"'"'
		mount -t tmpfs fp-root "$1/root" && cp "$1/swap" "$1/root/app" && mkdir "$1/root/old" &&
		cd "$1/root" && pivot_root . old && exec /app "/old$1" "$2"'"'"' sh "$1" "$2" &
	i=0
	while ! test -e "$1/swapped" && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
	test -e "$1/swapped"
	EOS
	pd_record_opts "" swap.data -a -g -F 999 -- sh swap-ns.sh "$PWD" "$libc" &&
	spid=$(pgrep -f "^/app /old$PWD") && echo "swap: pid $spid" &&
	test -L /proc/$spid/root/app && ! test -e "/proc/$spid/root$libc" &&
	PD_OWN_PIDS=$spid pd_compare swap.data &&
	# (its comm: the pid ran sh before it became /app)
	awk -F "\t" -v p=$spid "\$1 == \"S\" && \$3 == p && \$8 == \"app\" && \$9 ~ /^u+\$/" got.s >swap.s &&
	echo "$(wc -l <swap.s) user-only samples of the program" && test -s swap.s &&
	awk -F "\t" "{ n = split(\$10, f, \";\"); print f[n] }" swap.s | sort | uniq -c >leaves &&
	cat leaves && test "$(awk "{ print \$2 }" leaves)" = "[app]" &&
	touch swap.quit
'

test_expect_success 'a process that enters its own mount namespace and execs there (a container'"'"'s first process), read live: named' '
	# the same pid first maps sh in the host'"'"'s namespace (and spins there
	# until fp-perfdata has written its samples: that map was read while
	# it was there), then unshare -m and the program from a tmpfs
	mkdir t8 ns2 &&
	cat >enter.sh <<-\EOS &&
	while ! test -e "$1/go-ns"; do :; done
	exec unshare -m --propagation private sh -c '"'"'
		mount -t tmpfs fp-ns "$1/ns2" && cp "$1/app" "$1/ns2/" && exec "$1/ns2/app" "$1/t8"'"'"' sh "$1"
	EOS
	{ perf record -q --no-bpf-event --no-buffering -a -g -F 999 -o - \
		-- sh -c "while ! test -e $PWD/t8/spun; do sleep 0.02; done" 2>t8.rec |
		tee t8.data | fp-perfdata --live >t8.s 2>t8.err & } &&
	wait_for "test -s t8.data" &&
	{ sh enter.sh "$PWD" & } && epid=$! && echo "$epid" >t8.pid &&
	wait_for "grep -q \"^S	[0-9]*	$epid	\" t8.s" 300 &&
	touch go-ns && wait_for "test -e t8/ready" 300 && touch t8/go &&
	wait_for "test -e t8/spun" 300 && wait_for "grep -q \"^I	read	\" t8.s && ! pgrep -f \"^perf record -q --no-bpf-event --no-buffering -a.* $PWD/t8/spun\" >/dev/null" 300 &&
	perf script -i t8.data --no-inline 2>script.err | fp-read -q >want.s &&
	kill "$epid" && cp t8.s got.s &&
	PD_OWN_PIDS=$epid pd_compare_streams 0.999 &&
	grep "^S	[0-9]*	$epid	.*	app	" got.s | grep -q container_spin
'

# A container's process gone before its file is read (perf script too
# reads this host's path then): the host has another file at that path.
# Only the device and inode of the MMAP2 records tell the two apart.
test_expect_success 'setup: a gone container process whose path names another file on the host' '
	cat >gone.c <<-\CC &&
	#include <time.h>
	static volatile unsigned long sink;
	__attribute__((noinline)) void gone_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
	int main(void) {
		clock_t end = clock() + 300 * (CLOCKS_PER_SEC / 1000);
		while (clock() < end) gone_spin();
		return 0;
	}
	CC
	cat >hostfile.c <<-\CC &&
	#include <time.h>
	static volatile unsigned long sink;
	__attribute__((noinline)) void host_pad_a(void) { sink++; }
	__attribute__((noinline)) void host_pad_b(void) { sink++; }
	__attribute__((noinline)) void host_only_spin(void) { for (int i = 0; i < 100000; i++) sink += i; }
	int main(void) {
		clock_t end = clock() + 300 * (CLOCKS_PER_SEC / 1000);
		host_pad_a(); host_pad_b();
		while (clock() < end) host_only_spin();
		return 0;
	}
	CC
	cc -O2 -o gone gone.c && mkdir gone-dir && cc -O2 -o gone-dir/prog hostfile.c &&
	for b in no-buildid buildid; do
		opt=--$b && test $b = buildid && opt=
		pd_record_opts "$opt" gone-$b.data -g -F 999 -- unshare -m --propagation private sh -c \
			"mount -t tmpfs fp-gone $PWD/gone-dir && cp $PWD/gone $PWD/gone-dir/prog && exec $PWD/gone-dir/prog" ||
			return 1
	done &&
	perf script -i gone-buildid.data --show-mmap-events 2>/dev/null | grep "MMAP2.* $PWD/gone-dir/prog\$"
'

test_expect_success 'a gone container process recorded without build-ids: not named from the other file here, and said why' '
	fp-perfdata gone-no-buildid.data >gone.s 2>gone.err && cat gone.err &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"prog\"" gone.s >gone.prog && test -s gone.prog &&
	! pd_has_frame gone.prog "host_(pad_a|pad_b|only_spin)" && grep -q "	\[prog\]" gone.prog &&
	grep -q "cannot read $PWD/gone-dir/prog (the mapped file was device [0-9]*:[0-9]* inode [0-9]*, the one at that path here is" gone.err
'

test_expect_success 'a gone container process with the build-id perf record read from the host file: a note says the names may be wrong' '
	fp-perfdata gone-buildid.data >gone.s 2>gone.err && cat gone.err &&
	grep -q "gone-buildid.data: $PWD/gone-dir/prog: named from the file at that path here, whose build-id is the recorded one, but the mapped file was device" gone.err &&
	grep -q "record with --buildid-mmap" gone.err
'

test_expect_success 'two builds at one path in a --buildid-mmap capture, both gone: the host one named, the other not after it' '
	pd_record_opts "--buildid-mmap --no-buildid-cache" gone-bm.data -g -F 999 -- sh -c \
		"unshare -m --propagation private sh -c \"mount -t tmpfs fp-bm $PWD/gone-dir && cp $PWD/gone $PWD/gone-dir/prog && exec $PWD/gone-dir/prog\" & $PWD/gone-dir/prog; wait" &&
	fp-perfdata gone-bm.data >bm.s 2>bm.err && cat bm.err &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"prog\" { print \$3 }" bm.s | sort -u >bm.pids &&
	test $(wc -l <bm.pids) = 2 &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"prog\" && \$10 ~ /host_only_spin/ { print \$3 }" bm.s | sort -u >bm.host &&
	test $(wc -l <bm.host) = 1 &&
	other=$(grep -v -x -f bm.host bm.pids) &&
	awk -F "\t" -v p=$other "\$1 == \"S\" && \$3 == p && \$10 ~ /(^|;)host_(pad_a|pad_b|only_spin)(;|\$)/" bm.s >bm.wrong &&
	! test -s bm.wrong &&
	grep -q "cannot read $PWD/gone-dir/prog (a different build than the one recorded)" bm.err
'

test_expect_success 'a live container process and a host process, two files at one path: each named from its own' '
	# perf writes one build-id for the path (the host file'"'"'s); the
	# container'"'"'s file, through its root, is the one its map names
	mkdir sig &&
	unshare -m --propagation private sh -c \
		"mount -t tmpfs fp-two $PWD/gone-dir && cp $PWD/app $PWD/gone-dir/prog && exec $PWD/gone-dir/prog $PWD/sig" &
	wait_for "test -e sig/ready" &&
	cpid=$(pgrep -f "^$PWD/gone-dir/prog $PWD/sig") && echo "container: pid $cpid" &&
	pd_record_opts "" two.data -a -g -F 999 -- sh -c \
		"touch $PWD/sig/go; while ! test -e $PWD/sig/spun; do sleep 0.02; done; $PWD/gone-dir/prog" &&
	fp-perfdata two.data >two.s 2>two.err && cat two.err &&
	awk -F "\t" -v p=$cpid "\$1 == \"S\" && \$3 == p" two.s >two.container &&
	grep -q "container_spin" two.container && ! pd_has_frame two.container "host_(pad_a|pad_b|only_spin)" &&
	awk -F "\t" -v p=$cpid "\$1 == \"S\" && \$3 != p && \$8 == \"prog\"" two.s >two.host &&
	grep -q "host_only_spin" two.host && ! pd_has_frame two.host "container_(spin|work)" &&
	touch sig/go2 sig/quit
'

# the programs see their quit files before the trash directory goes
touch quit jit.quit swap.quit sig/go2 sig/quit 2>/dev/null
for p in $(pgrep -f "$PWD"); do wait_for "! kill -0 $p 2>/dev/null" 50; done
test_done
