#!/bin/sh
test_description='fp-perfdata reads a capture from another host by its build-ids: perf'"'"'s build-id cache, --symfs, a real debuginfod server on 127.0.0.1, never names of another kernel'
. "$(dirname "$0")/lib-debuginfod.sh"
di_own_network "$0" "$@"
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
di_need_network
pd_need_perf

# Every look-up here is the test's own: perf's cache in ./bid, debuginfod's
# in a directory per test, no server unless a test names one.
export PERF_BUILDID_DIR="$PWD/bid"
unset DEBUGINFOD_URLS
OTHER_KERNEL=00112233445566778899aabbccddeeff00112233

# A program with time in its own functions, in the kernel (reads of
# /dev/zero: 1 MiB a round, as one 64-KiB read took so little time on a
# fast host that a capture had no sample in it) and in the vdso
# (clock_gettime), built with frame pointers.
# glibc's clock_gettime keeps no frame pointer, so a sample in the vdso
# may skip in_vdso (perf script shows the same): the setup asks for the
# vdso's own frame.
app_program() { # file
	pd_c_program "$1" 'work()' <<-\CC
	#include <fcntl.h>
	#include <unistd.h>
	__attribute__((noinline)) void spin_user(void) { for (int i = 0; i < 200000; i++) sink += i; }
	__attribute__((noinline)) void in_kernel(void) { static char b[65536]; static int fd = -1; if (fd < 0) fd = open("/dev/zero", O_RDONLY); for (int i = 0; i < 16; i++) sink += read(fd, b, sizeof b); }
	__attribute__((noinline)) void in_vdso(void) { struct timespec t; for (int i = 0; i < 2000; i++) { clock_gettime(CLOCK_MONOTONIC, &t); sink += t.tv_nsec; } }
	__attribute__((noinline)) void work(void) { spin_user(); in_kernel(); in_vdso(); }
	CC
}

# perf record as perf record leaves a capture: its build-id cache in ./bid.
record() { # out cmd...
	_out=$1; shift
	perf --buildid-dir "$PERF_BUILDID_DIR" record -q $PD_RECORD_OPTS -g -F 999 -o "$_out" -- "$@" \
		>"$_out.log" 2>&1 || { cat "$_out.log" >&2; return 1; }
}

# The S records of fp-perfdata ARGS... in S (its stderr in S.err).
s_records() { # s args...
	_s=$1; shift
	fp-perfdata "$@" >"$_s.out" 2>"$_s.err" && grep "^S" "$_s.out" >"$_s"
}

# Seconds since the epoch, with fractions.
now() { date +%s.%N; }

test_expect_success 'setup: a capture of a program since deleted, its cache entry removed' '
	app_program app.c && pd_build app.c -fno-omit-frame-pointer &&
	mkdir srv && cp app srv/ &&
	record app.data ./app &&
	s_records ref.s app.data &&
	grep -q "spin_user" ref.s && grep -q "__vdso_clock_gettime" ref.s &&
	awk -F "\t" "\$9 ~ /k/" ref.s | grep -q "clear_user\|read" &&
	pd_build_id app.data "$PWD/app" >app.id && test -s app.id &&
	cp -a bid bid-full &&
	rm app && pd_forget_cache bid "$(cat app.id)" &&
	s_records gone.s app.data &&
	grep "cannot read $PWD/app (No such file or directory)" gone.s.err &&
	! grep -q spin_user gone.s && grep -q "\[app\]" gone.s
'

test_expect_success 'perf'"'"'s build-id cache names the deleted binary: PERF_BUILDID_DIR, else ~/.debug' '
	PERF_BUILDID_DIR=$PWD/bid-full s_records cache.s app.data &&
	test_cmp ref.s cache.s &&
	mkdir home && cp -a bid-full home/.debug &&
	(unset PERF_BUILDID_DIR && HOME=$PWD/home s_records home.s app.data) &&
	test_cmp ref.s home.s
'

test_expect_success 'a debuginfod server on 127.0.0.1 names the frames of the deleted binary' '
	di_start srv && test_when_finished di_stop &&
	wait_for "di_serves $(cat app.id) executable" 300 &&
	DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/dicache s_records di.s app.data &&
	test_cmp ref.s di.s &&
	grep -q "	debuginfod_asked=1	debuginfod_found=1	debuginfod_timed_out=0" di.s.out &&
	test -s "dicache/$(cat app.id)/executable"
'

test_expect_success '--no-debuginfod asks no server, DEBUGINFOD_URLS set or not' '
	di_start srv && test_when_finished di_stop &&
	wait_for "di_serves $(cat app.id) executable" 300 &&
	DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/nodi s_records nodi.s --no-debuginfod app.data &&
	test_cmp gone.s nodi.s &&
	grep -q "	debuginfod_asked=0	" nodi.s.out && ! test -e nodi
'

test_expect_success 'a server that refuses the connection: frames without symbols, a warning' '
	start=$(now) &&
	DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH=$PWD/refused s_records refused.s app.data &&
	end=$(now) &&
	test_cmp gone.s refused.s &&
	grep "cannot read $PWD/app (No such file or directory; debuginfod: Connection refused)" refused.s.err &&
	echo "$start $end" | awk "{ exit !(\$2 - \$1 < 5) }"
'

test_expect_success 'a server that never answers: frames without symbols within the time limit' '
	di_start srv && test_when_finished di_stop &&
	wait_for "di_serves $(cat app.id) executable" 300 &&
	kill -STOP $DI_PID &&
	start=$(now) &&
	DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/silent \
		s_records silent.s --debuginfod-timeout 2 app.data &&
	end=$(now) &&
	test_cmp gone.s silent.s &&
	grep "debuginfod: no answer within the time limit (2 s)" silent.s.err &&
	grep -q "debuginfod_timed_out=1" silent.s.out &&
	echo "$start $end" | awk "{ d = \$2 - \$1; print d; exit !(d >= 2 && d < 2 + 1.5 + 2) }" &&
	! test -e "silent/$(cat app.id)/executable"
'

# Each frame of kind k that differs between the S records of $1 and $2
# (the same samples) is "[kernel.kallsyms]" in $2: prints their number.
kernel_frames_unnamed() { # a b
	paste "$1" "$2" | awk -F "\t" "
		{ n = split(\$10, a, \";\"); m = split(\$20, b, \";\"); if (n != m) bad++
		  for (i = 1; i <= n; i++)
			if (a[i] != b[i]) { if (b[i] != \"[kernel.kallsyms]\") bad++; else unnamed++ } }
		END { print unnamed + 0; exit bad > 0 || unnamed == 0 }"
}

test_expect_success 'a kallsyms of another build-id is refused with a warning: kernel frames unnamed' '
	cp app.data other.data && pd_set_build_id other.data "[kernel.kallsyms]" $OTHER_KERNEL &&
	s_records other.s other.data &&
	grep "cannot read \[kernel.kallsyms\] (the recording.s kernel has build-id $OTHER_KERNEL" other.s.err &&
	kernel_frames_unnamed gone.s other.s &&
	grep -q "^I	read	.*	kallsyms_copy=0" other.s.out
'

test_expect_success 'the recorded kernel'"'"'s kallsyms in perf'"'"'s build-id cache names its frames, moved as KASLR moved them' '
	mkdir -p "bid/[kernel.kallsyms]/$OTHER_KERNEL" &&
	perl -ne "
		my (\$a, \$t, \$n) = /^(\\S+) (\\S) (.*)\$/ or next;
		if (\$n =~ /\\t/) { print; next }
		\$n = \"other_\$n\" unless \$n eq \"_text\";
		printf \"%016x %s %s\\n\", hex(\$a) + 0x200000, \$t, \$n;
	" /proc/kallsyms >"bid/[kernel.kallsyms]/$OTHER_KERNEL/kallsyms" &&
	s_records cached.s other.data &&
	grep -q "[	;]other_" cached.s &&
	sed "s/\([	;]\)other_/\1/g" cached.s >cached.plain &&
	test_cmp gone.s cached.plain &&
	grep -q "^I	read	.*	kallsyms_copy=1" cached.s.out
'

# Under --symfs every file is looked for under DIR, libc too: perf record
# keeps the build-id of libc (its way into the build-id cache) only when
# a sample's own address is in libc, not when libc is only a caller.
test_expect_success '--symfs DIR names the frames of a binary found under DIR' '
	mkdir -p "symfs$PWD" && cp srv/app "symfs$PWD/app" &&
	for lib in $(ldd srv/app | awk "{ for (i = 1; i <= NF; i++) if (\$i ~ /^\//) print \$i }"); do
		lib=$(readlink -f "$lib") && mkdir -p "symfs${lib%/*}" && cp "$lib" "symfs$lib" || return 1
	done &&
	s_records symfs.s --symfs symfs app.data &&
	test_cmp ref.s symfs.s &&
	s_records symfs-slash.s --symfs symfs/ app.data &&
	test_cmp ref.s symfs-slash.s &&
	test_must_fail fp-perfdata --symfs nosuch app.data >/dev/null 2>err &&
	grep "fp-perfdata: --symfs nosuch: No such file or directory" err
'

test_expect_success 'the vdso of another build-id: perf'"'"'s copy of it in the build-id cache, never this process'"'"'s' '
	vdso=$(pd_build_id app.data "[vdso]") && test -n "$vdso" &&
	other=$(echo "$vdso" | tr "0-9a-f" "1-9a-f0") &&
	cp app.data vdso.data && pd_set_build_id vdso.data "[vdso]" $other &&
	s_records vdso-none.s vdso.data &&
	! grep -q "__vdso_clock_gettime" vdso-none.s && grep -q "\[vdso\]" vdso-none.s &&
	grep "cannot read \[vdso\] (this process.s vdso is another build" vdso-none.s.err &&
	mkdir -p "bid/[vdso]/$other" &&
	perl -0777 -e "
		my (\$f, \$a, \$b) = @ARGV; open(my \$h, \"<:raw\", \$f) or die; local \$/; my \$d = <\$h>;
		my (\$x, \$y) = (pack(\"H*\", \$a), pack(\"H*\", \$b));
		\$d =~ s/\\Q\$x\\E/\$y/g; \$d =~ s/clock_gettime/clock_gettimX/g; print \$d;
	" "bid/[vdso]/$vdso/vdso" $vdso $other >"bid/[vdso]/$other/vdso" &&
	s_records vdso.s vdso.data &&
	grep -q "__vdso_clock_gettimX" vdso.s &&
	sed "s/clock_gettimX/clock_gettime/g" vdso.s >vdso.plain && test_cmp gone.s vdso.plain
'

test_expect_success 'a stripped binary gets its symbols from the debug file debuginfod serves' '
	app_program app2.c && pd_build app2.c -fno-omit-frame-pointer &&
	mkdir srv2 && cp app2 srv2/app2.debug && strip app2 &&
	record app2.data ./app2 &&
	id2=$(pd_build_id app2.data "$PWD/app2") && test -n "$id2" &&
	s_records stripped.s app2.data && ! grep -q spin_user stripped.s &&
	cp app2 app2.stripped && cp srv2/app2.debug app2 &&
	s_records ref2.s app2.data && cp app2.stripped app2 &&
	grep -q spin_user ref2.s &&
	di_start srv2 && test_when_finished di_stop &&
	wait_for "di_serves $id2 debuginfo" 300 &&
	DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/dicache2 s_records di2.s app2.data &&
	test_cmp ref2.s di2.s &&
	test -s "dicache2/$id2/debuginfo"
'

# --live reads perf's pipe format from a pipe: app3, stripped, whose
# debug file only the server has. A small buffer (-m 4: 16 KiB) makes
# perf write a round every 8 KiB or so, as a live capture does.
test_expect_success 'setup: --live input of a stripped binary' '
	app_program app3.c && pd_build app3.c -fno-omit-frame-pointer &&
	mkdir srv3 && cp app3 srv3/app3.debug && strip app3 &&
	perf record -q $PD_RECORD_OPTS -m 4 -g -F 999 -o - -- ./app3 >pipe.data 2>pipe.err &&
	pd_build_id_of app3 >app3.id && test -s app3.id
'

test_expect_success '--live: a look-up the server never answers holds no sample back' '
	di_start srv3 && test_when_finished di_stop &&
	wait_for "di_serves $(cat app3.id) debuginfo" 300 &&
	kill -STOP $DI_PID &&
	start=$(now) &&
	cat pipe.data | DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/live-silent \
		fp-perfdata --live --debuginfod-timeout 60 >silent-live.out 2>silent-live.err &&
	end=$(now) &&
	echo "$start $end" | awk "{ d = \$2 - \$1; print d; exit !(d < 10) }" &&
	grep -q "\[app3\]" silent-live.out && ! grep -q spin_user silent-live.out &&
	grep -q "debuginfod_asked=1" silent-live.out
'

# fp-perfdata asks for app3's debug file when it first names a frame of
# app3: when a round of perf's stream lets the samples before it out
# (one every ~8 KiB here). Where the rounds fall varies from recording
# to recording: fed a first half at once, one CI run's fp-perfdata had
# let none of app3's samples out, asked nothing, and the server saw its
# request only when the rest came 60 s later. So the capture goes in
# pieces of 4 KiB until the server has answered that request; then the
# file in the client's cache is waited for.
# The answer is in fp-perfdata once it says so on stderr: the file in
# the client's cache comes a moment before (on a loaded host, long enough
# for the rest to go by unnamed). Until it says so, the rest goes in
# pieces of 1 KiB, each read (and the answers polled) on its own, 2 s
# apart at most; then the rest at once. fp-perfdata polls when it reads,
# so the pieces' gaps are the time the answer has: 0.5 s each (8 s in
# all) ran out once on a loaded fresh-clone run (no notice, the frames
# named only at the end of input).
test_expect_success '--live: frames are named from the answer on' '
	di_start srv3 && test_when_finished di_stop &&
	wait_for "di_serves $(cat app3.id) debuginfo" 300 &&
	size=$(wc -c <pipe.data) && at=0 &&
	asked="grep -q \"UA:elfutils.* /buildid/$(cat app3.id)/debuginfo \" di.log" &&
	came="grep -q \"app3: its file came\" live.err" && : >live.err &&
	{ while ! eval "$asked" && test $at -lt $((size - 8192)); do
		tail -c +$((at + 1)) pipe.data | head -c 4096 && at=$((at + 4096)) &&
		wait_for "$asked" 3 2>/dev/null
	  done
	  wait_for "test -s live/$(cat app3.id)/debuginfo" 600 &&
	  while ! eval "$came" && test $at -lt $((size - 8192)); do
		tail -c +$((at + 1)) pipe.data | head -c 1024 && at=$((at + 1024)) &&
		wait_for "$came" 20 2>/dev/null
	  done
	  tail -c +$((at + 1)) pipe.data; } |
	DEBUGINFOD_URLS=$DI_URL DEBUGINFOD_CACHE_PATH=$PWD/live \
		fp-perfdata --live --debuginfod-timeout 60 >live.out 2>live.err &&
	grep -q "app3: its file came: its frames are named from here on" live.err &&
	grep "^S" live.out | grep "app3" >live.s &&
	# the first sample in app3 itself (one in ld.so names no app3 frame)
	grep -m 1 "\[app3\]\|;main;" live.s | grep -q "\[app3\]" &&
	tail -n 20 live.s >late.s && ! grep -q "\[app3\]" late.s && grep -q ";main;" late.s &&
	grep -q "debuginfod_found=1" live.out ||
	{ echo "# what fp-perfdata said:"; grep "^[IW]" live.out; false; }
'

test_done
