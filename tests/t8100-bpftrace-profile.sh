#!/bin/sh
test_description='real bpftrace profile of a busy workload through fp-bpftrace | fp-read | fp-bucket | fp-fold'
. "$(dirname "$0")/test-lib.sh"
test_tags root bpftrace slow

# The workload is not under test: the plain build even for the ASan suite
# (the sanitizer runtime makes syscalls of its own, getppid among them).
HELPERS=$TOP/build/tests
[ -x "$HELPERS/sleeper" ] || HELPERS=$TOP/build-asan/tests
HZ=99			# samples per second per CPU
BUSY_CPU_MS=1000	# the workload's CPU time (8 s of wall time at most)
BUSY_WALL_MS=8000
# then it stays until bpftrace has printed past its spin (release_busy),
# BUSY_LINGER_MS at most: bpftrace names user frames when it prints a
# sample, late on a loaded machine, and cannot once the process is gone (a
# fixed 2 s stay, with two suites on 2 cores, left 7 of about 99 samples of
# fp_busy_spin_marker named)
BUSY_LINGER_MS=20000
PRINTED_PAST_NS=500000000	# printed this far past the spin, on every CPU
MIN_SAMPLES=10		# of about HZ * 1 s; be lenient on a shared machine
ROWS=50
# bpftrace 0.17 with -c caches user symbols per program and aborts
# (read_symlink /proc/PID/exe) on a sample of a process that has exited
# before it is printed: with other tests running alongside, most runs.
# Without the cache there is no such step.
export BPFTRACE_CACHE_USER_SYMBOLS=0
LIMIT=60

# Skip only when bpftrace truly cannot run here.
need_bpftrace 'bpftrace profile'

# One capture for every test: profile.bt while busy spins for 1 s of CPU. -c
# starts busy once the probe is attached and stops bpftrace when it ends.
# One bpftrace run. bpftrace 0.17 may abort at the end when it resolves a
# sample of the workload after the workload exited (read_symlink
# /proc/PID/exe): a bpftrace bug, not ours; what it printed before is
# checked. It also, rarely, ends early on a loaded machine ("failed to look
# up stack id", taking busy with it before busy wrote times.txt).
capture_once() {
	rm -f times.txt released
	release_busy &
	_watch=$!
	{ timeout -k 5 $LIMIT bpftrace -q -B none -c "$HELPERS/busy $BUSY_CPU_MS times.txt $BUSY_WALL_MS $BUSY_LINGER_MS released" \
		"$EXAMPLES/bpftrace/profile.bt" $HZ >profile.txt 2>bpftrace.err ||
	  grep -q "filesystem error: read_symlink" bpftrace.err; }
	_rc=$?
	kill $_watch 2>/dev/null
	wait $_watch
	if [ $_rc != 0 ] || ! test -s times.txt; then
		why="it ended before the workload did: $(head -n 2 bpftrace.err)"
		return 1
	fi
	# bpftrace itself, on a loaded machine, once stopped sampling one CPU
	# after 3 samples of busy spinning there (the other CPU went on for
	# 21 s): too few to check the chain against. That is bpftrace's run
	# to do again, not the chain's failure.
	read _start _end _pid <times.txt
	_n=$(awk -v p="$_pid" '/ cpu-clock:$/ { cur = $1 == "busy" && index($2, p "/") == 1; next }
		cur && /fp_busy_spin_marker/ { n++; cur = 0 } END { print n + 0 }' profile.txt)
	if [ "$_n" -lt $MIN_SAMPLES ]; then
		why="it printed $_n samples of busy's spin (pid $_pid), fewer than $MIN_SAMPLES"
		return 1
	fi
}

# release_busy: once busy has written its times and bpftrace has printed a
# sample PRINTED_PAST_NS after the spin's end on every CPU it printed (so
# every sample of the spin has been printed, its frames named), busy may go.
release_busy() {
	until test -s times.txt; do sleep 0.1; done
	read _start _end _pid <times.txt
	until awk -v lim=$((_end + PRINTED_PAST_NS)) '
		match($0, /\[[0-9]+\] [0-9]+\.[0-9]+: 1 cpu-clock:$/) {
			split(substr($0, RSTART + 1, RLENGTH - 1), f, "[] .:]+")
			t = f[2] * 1e9 + f[3]
			if (!(f[1] in last) || t > last[f[1]]) last[f[1]] = t
		}
		END { n = 0; for (c in last) { n++; if (last[c] <= lim) exit 1 } exit n == 0 }' profile.txt
	do sleep 0.1; done
	: >released
}
CAPTURE_TRIES=3		# runs of bpftrace before the setup fails

test_expect_success 'setup: bpftrace samples the machine while busy runs' '
	try=1 &&
	until capture_once; do
		echo "bpftrace run $try: $why"
		test $try -lt $CAPTURE_TRIES || return 1
		try=$((try + 1))
	done &&
	grep -q "^busy [0-9]*/[0-9]* \[[0-9]*\] [0-9]*\.[0-9]*: 1 cpu-clock:\$" profile.txt
'

test_expect_success 'fp-bpftrace turns it into perf script text that fp-read reads without a bad line' '
	fp-bpftrace profile.txt >profile.perf &&
	fp-read profile.perf >read.S &&
	grep -q "	bad_lines=0	" read.S &&
	test "$(grep -c "^S" read.S)" = "$(grep -c " cpu-clock:\$" profile.txt)" &&
	test "$(grep -c "^S" read.S)" -gt 0
'

# profile.bt samples the whole machine: another busy (a parallel test job,
# the ASan suite's run of this test) may be in it too. Only this run's busy
# (its pid in times.txt) is checked against this run's times.
test_expect_success 'the busy function appears in the folded output' '
	read start end pid <times.txt &&
	fp-bpftrace profile.txt | fp-read | fp-range --pid "$pid" | fp-bucket --rows $ROWS |
		fp-fold >chain.out &&
	grep "^F	" chain.out | grep "	busy;.*fp_busy_spin_marker" >busy.F &&
	n=$(awk -F"\t" "{ s += \$2 } END { print s + 0 }" busy.F) &&
	echo "busy samples: $n" &&
	test "$n" -ge $MIN_SAMPLES &&
	grep -q "^C	end	fold	" chain.out
'

# Every heatmap cell of the busy function lies in the seconds busy ran
# (times.txt, CLOCK_MONOTONIC as bpftrace's nsecs; this run's pid), and their counts add
# up to its folded samples.
test_expect_success 'its samples fill the heatmap cells of the seconds it ran, and only those' '
	read start end pid <times.txt &&
	fp-bpftrace profile.txt | fp-read | fp-range --pid "$pid" --include fp_busy_spin_marker |
		fp-bucket --rows $ROWS >busy.H &&
	awk -F"\t" -v rows=$ROWS -v start=$start -v end=$end -v want=$(awk -F"\t" "{ s += \$2 } END { print s }" busy.F) "
		\$1 == \"G\" { base = \$3 }
		\$1 == \"H\" { c[\$2 \" \" \$3] = \$4 }
		END {
			slice = 1e9 / rows
			for (k in c) {
				split(k, cr, \" \")
				from = (base + cr[1]) * 1e9 + cr[2] * slice
				if (from + slice <= start || from > end) { print \"cell \" k \" outside the run\"; bad = 1 }
				total += c[k]; cols[cr[1]] = 1
			}
			n = 0; for (x in cols) n++
			print total \" samples in \" n \" columns\"
			if (total != want) { print \"heatmap \" total \" != folded \" want; bad = 1 }
			exit bad
		}" busy.H
'

test_done
