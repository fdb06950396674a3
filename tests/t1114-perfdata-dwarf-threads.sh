#!/bin/sh
test_description='fp-perfdata --call-graph dwarf: threads, an exec, and stacks deeper than the stack copy (the [unknown] perf shows, counted in I)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# sorter's 16 KiB array puts its caller's return address beyond the 8 KiB
# stack copy: the unwinding stops there, with perf's [unknown] frame. No
# libc call in the hot loops: samples in a PLT entry are named differently
# (tests/data/perfdata/differences), which a few samples would make count.
# Each thread runs for 500 ms of its own CPU time: as many samples on a
# loaded machine as on an idle one.
cat >big.c <<'CC'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
static unsigned next(unsigned *x) { *x ^= *x << 13; *x ^= *x >> 17; *x ^= *x << 5; return *x; }
__attribute__((noinline)) void sorter(void) { int v[4096]; unsigned x = 2463534242u; for (int i = 0; i < 4096; i++) v[i] = (int)(next(&x) >> 1); qsort(v, 4096, sizeof v[0], cmp); }
__attribute__((noinline)) void spin(void) { for (int i = 0; i < 200000; i++) sink += i; }
static long cpu_ms(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1000 + t.tv_nsec / 1000000; }
static void *worker(void *arg) { do { sorter(); spin(); } while (cpu_ms() < 500); return arg; }
int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0); worker(0); pthread_join(t, 0); return 0; }
CC

test_expect_success 'setup: dwarf captures of threads that exec, and of deep stack frames' '
	ln -s "$TOP/build/tests/pd-threads" renamed-prog &&
	pd_record_dwarf thr.data "$TOP/build/tests/pd-threads" 500 &&
	pd_record_dwarf exec.data "$TOP/build/tests/pd-threads" 300 ./renamed-prog &&
	pd_build big.c -lpthread &&
	pd_record_dwarf big.data ./big
'

test_expect_success 'threads: unwound as perf script does (folded agreement >= 0.99)' '
	pd_compare thr.data 0.99
'

test_expect_success 'an exec: both images unwound, each thread from its own start' '
	fp-perfdata exec.data >s &&
	grep -q "	pd-threads	[^	]*	_start;.*;main;.*spin_until" s &&
	grep -q "	renamed-prog	[^	]*	_start;.*;main;.*spin_until" s &&
	grep -q "	renamed-prog	[^	]*	clone3;start_thread;.*spin_until" s
'

# perf 6.1 (libunwind) cannot step out of the new image's libc frames
# after an exec: its stacks end there (no __libc_start_main, _start,
# clone3), sometimes with an [unknown] or a [stack] (a failed step's
# address, in the stack's own map); before the exec it agrees. Samples in
# the dynamic loader's startup (libunwind gives up there in any process,
# docs/fp-perfdata.md) are left out, in both images.
test_expect_success 'an exec: perf script agrees before it; after it, its stacks are ours cut short at the root' '
	perf script -i exec.data --no-inline 2>/dev/null | fp-read -q >want.s &&
	awk -F "\t" "\$1 == \"S\" { print \$8 \"\t\" \$10 }" want.s >w &&
	awk -F "\t" "\$1 == \"S\" { print \$8 \"\t\" \$10 }" s >g &&
	test "$(wc -l <w)" = "$(wc -l <g)" &&
	paste w g | awk -F "\t" "
		\$1 != \$3 { bad++; next }
		\$4 ~ /^(_start;_dl_start;|_dl_start_user;)/ { loader++; next }
		\$1 == \"pd-threads\" { n++; same += \$2 == \$4; next }
		{ m++; p = \$2; sub(/^\\[(unknown|stack)\\];/, \"\", p)
		  if (\$2 != \$4 && substr(\$4, length(\$4) - length(p)) != \";\" p) { bad++; print } }
		END { printf \"before: %d of %d equal; after: %d, %d unexplained; %d in ld.so startup\\n\", same, n, m, bad, loader
		      exit !(n > 0 && m > 0 && same >= 0.99 * n && !bad) }"
'

test_expect_success 'stacks beyond the stack copy: perf script agreement >= 0.99, the cut shown as [unknown]' '
	pd_compare big.data 0.99 &&
	fp-perfdata big.data >b &&
	grep -q "	\[unknown\];sorter;__GI___qsort_r;" b
'

test_expect_success 'I counts the samples whose unwinding stopped early, the others not' '
	# (cut in the deep recursion of sorter, or in clone3 as a thread starts)
	cut=$(awk -F "\t" "\$1 == \"S\" && \$10 ~ /^\[unknown\];/" b | wc -l) &&
	n=$(grep -c "^S	" b) &&
	echo "$cut of $n samples cut" &&
	test "$cut" -gt 0 && test "$cut" -lt "$n" &&
	grep -q "^I	read	.*	unwound=$n	unwind_incomplete=$cut	" b
'

test_done
