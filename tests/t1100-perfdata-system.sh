#!/bin/sh
test_description='fp-perfdata on a system-wide -g capture made here agrees with perf script | fp-read'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'system-wide frame-pointer callchains: same samples, seconds, samples per thread and stacks' '
	pd_record_system sys.data 800 2000 &&
	# the stacks of the workload and the kernel alone (lib-perfdata.sh)
	PD_OWN_PIDS=$(cut -d " " -f 3 times) &&
	pd_compare sys.data
'

test_expect_success 'the workload function is found, under its comm, as a user frame' '
	fp-perfdata sys.data >s &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"busy\" && \$10 ~ /fp_busy_spin_marker/" s >hot &&
	test "$(wc -l <hot)" -gt 100
'

# kernel_frames STREAM: "K U", its kernel frames and how many of them are
# unresolved ([kernel.kallsyms] for a name)
kernel_frames() {
	awk -F "\t" '$1 == "S" {
		n = split($10, f, ";")
		for (i = 1; i <= n; i++) if (substr($9, i, 1) == "k") {
			k++; if (f[i] == "[kernel.kallsyms]") u++ } }
		END { print k + 0, u + 0 }' "$1"
}

# The spinner runs in user space: the kernel frames of sys.data are what
# the machine did meanwhile (87 on a quiet one); pd_record_kernel's are
# the syscall loop's.
test_expect_success 'kernel frames are kind k and almost all resolve through kallsyms' '
	kernel_frames s >kframes && read k u <kframes && echo "# sys.data: kernel frames $k, unresolved $u" &&
	test $((u * 100)) -le "$k" &&
	pd_record_kernel ksys.data &&
	fp-perfdata ksys.data >ks &&
	kernel_frames ks >kframes && read k u <kframes && echo "# ksys.data: kernel frames $k, unresolved $u" &&
	test "$k" -gt 100 && test $((u * 100)) -lt "$k"
'

test_expect_success 'the I record counts every sample and frame' '
	n=$(grep -c "^S	" s) &&
	frames=$(awk -F "\t" "\$1 == \"S\" { f += length(\$9) } END { print f }" s) &&
	grep "^I	read	" s >i &&
	grep -q "	samples=$n	" i &&
	grep -q "	frames=$frames	" i &&
	grep -q "	bad_records=0	" i
'

test_done
