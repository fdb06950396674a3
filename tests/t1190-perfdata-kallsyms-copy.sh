#!/bin/sh
test_description='fp-perfdata reads the kernel symbols from perf'"'"'s copy of /proc/kallsyms only when it must hold what /proc/kallsyms holds now'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# The running kernel's build-id, as perf names its cache directory.
running_build_id() { perf buildid-list -k 2>/dev/null; }

id=$(running_build_id)

# A copy in cache/ (PERF_BUILDID_DIR) made from the kallsyms text on stdin.
put_copy() {
	rm -rf cache && mkdir -p "cache/[kernel.kallsyms]/$id" &&
	cat >"cache/[kernel.kallsyms]/$id/kallsyms"
}

# The S records of sys.data read with the copy in cache/. PERF_BUILDID_DIR
# is every look-up's build-id cache, user binaries' too: the reference run
# (proc.s) gets an empty one, so a binary only perf's ~/.debug holds (a
# container's, of another test running meanwhile) is unnamed on both sides.
with_copy() {
	PERF_BUILDID_DIR=$PWD/cache fp-perfdata -q "$@" sys.data >with.out &&
	grep -v "^I" with.out >with.s
}

# Each S record's time and its kernel frames (kind k): what the kallsyms
# copy decides. User frames are left out: a system-wide capture holds other
# programs whose files may come and go between two reads.
kernel_frames() { # file.s -> file.k
	awk -F "\t" "\$1 == \"S\" {
		n = split(\$10, f, \";\"); out = \$2
		for (i = 1; i <= n; i++) if (substr(\$9, i, 1) == \"k\") out = out \" \" f[i]
		print out
	}" "$1" >"${1%.s}.k"
}

copy_used() { grep -q "^I	read	.*	kallsyms_copy=1" with.out; }
copy_not_used() { grep -q "^I	read	.*	kallsyms_copy=0" with.out; }

test_expect_success 'setup: a system-wide recording with kernel frames' '
	test -n "$id" &&
	pd_record_kernel sys.data &&
	mkdir -p nocache &&
	PERF_BUILDID_DIR=$PWD/nocache fp-perfdata -q --kallsyms /proc/kallsyms sys.data >proc.out &&
	grep -q "^I	read	.*	kallsyms_copy=0" proc.out &&
	grep -v "^I" proc.out >proc.s &&
	kernel_frames proc.s && test -s proc.k &&
	awk -F "\t" "\$1 == \"S\" && \$9 ~ /k/" proc.s >kernel.s &&
	test -s kernel.s
'

test_expect_success 'a copy made this boot is read, and names what /proc/kallsyms names' '
	put_copy </proc/kallsyms &&
	with_copy && copy_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_expect_success 'the names come from the copy when it is read' '
	awk "BEGIN { OFS = \" \" } \$2 ~ /^[tTwW]$/ { \$3 = \"copy_\" \$3 } { print }" /proc/kallsyms | put_copy &&
	with_copy && copy_used &&
	kernel_frames with.s &&
	# each frame /proc names from kallsyms, renamed (a vdso frame of a
	# kernel stack is named from the vdso: the same on both sides)
	awk "NR == FNR { if (\$2 ~ /^[tTwW]\$/) k[\$3] = 1; next }
	     { for (i = 2; i <= NF; i++) if (\$i in k) \$i = \"copy_\" \$i; print }" /proc/kallsyms proc.k >want.k &&
	test_cmp want.k with.k
'

test_expect_success 'a copy older than this boot is not read' '
	btime=$(awk "/^btime/ { print \$2 }" /proc/stat) &&
	touch -d "@$((btime - 60))" "cache/[kernel.kallsyms]/$id/kallsyms" &&
	with_copy && copy_not_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_expect_success 'a copy naming a module the kernel does not have now is not read' '
	{ awk "BEGIN { OFS = \" \" } \$2 ~ /^[tTwW]$/ { \$3 = \"copy_\" \$3 } { print }" /proc/kallsyms &&
	  printf "ffffffffc9000000 t gone_fn\t[fp_gone_module]\n"; } | put_copy &&
	with_copy && copy_not_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_expect_success 'a copy under another build-id is not read' '
	awk "BEGIN { OFS = \" \" } \$2 ~ /^[tTwW]$/ { \$3 = \"copy_\" \$3 } { print }" /proc/kallsyms | put_copy &&
	mv "cache/[kernel.kallsyms]/$id" "cache/[kernel.kallsyms]/0000000000000000000000000000000000000000" &&
	with_copy && copy_not_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_expect_success '--kallsyms /proc/kallsyms reads /proc/kallsyms even with a copy' '
	awk "BEGIN { OFS = \" \" } \$2 ~ /^[tTwW]$/ { \$3 = \"copy_\" \$3 } { print }" /proc/kallsyms | put_copy &&
	with_copy --kallsyms /proc/kallsyms && copy_not_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_expect_success 'a copy that is not a regular file is not read' '
	rm -rf cache && mkdir -p "cache/[kernel.kallsyms]/$id/kallsyms" &&
	with_copy && copy_not_used &&
	kernel_frames with.s && test_cmp proc.k with.k
'

test_done
