#!/bin/sh
test_description='fp-perfdata'"'"'s I record says where the kernel symbols came from even when no sample needed them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# The kernel's symbols are read in a thread from the start; a recording
# without kernel frames ends before a lookup waits for them. The last I
# record waits for that thread (the process does anyway before it exits),
# so kallsyms_copy tells what was read, not how far the thread had got.
id=$(perf buildid-list -k 2>/dev/null)

# The S records with a frame of the kernel's own symbols: kind k, but not
# the vdso's (kind k as well, its symbols from the vdso image: a sample
# in clock_gettime, which busy calls, has one).
kernel_frames() {
	awk -F "\t" '$1 == "S" {
		n = split($10, frame, ";")
		for (i = 1; i <= n; i++)
			if (substr($9, i, 1) == "k" && frame[i] !~ /^__vdso_/) { print; next }
	}' "$1"
}

test_expect_success 'a user-only recording, perf'"'"'s copy of kallsyms: kallsyms_copy=1 every time' '
	test -n "$id" &&
	mkdir -p "cache/[kernel.kallsyms]/$id" &&
	cat /proc/kallsyms >"cache/[kernel.kallsyms]/$id/kallsyms" &&
	pd_record user.data -e cpu-clock:u -F 999 -g -- "$BUSY" 100 times 400 &&
	for i in 1 2 3 4 5; do
		PERF_BUILDID_DIR=$PWD/cache fp-perfdata -q user.data >out.$i &&
		grep "^I	read	" out.$i >info.$i &&
		grep -q "	kallsyms_copy=1" info.$i || return 1
	done &&
	kernel_frames out.1 >kernel.s &&
	test ! -s kernel.s && grep -q "^S	" out.1
'

test_expect_success 'the same recording with --kallsyms /proc/kallsyms: kallsyms_copy=0' '
	PERF_BUILDID_DIR=$PWD/cache fp-perfdata -q --kallsyms /proc/kallsyms user.data >proc.out &&
	grep -q "^I	read	.*	kallsyms_copy=0" proc.out
'

test_done
