#!/bin/sh
test_description='fp-bucket on the stack-id stream keeps of a K record only what its samples need (the event, the idle rule), and drops and counts every P as its S record'
. "$(dirname "$0")/test-lib.sh"

# The tails: idle and busy stacks of the idle task, other comms, two
# events, an empty stack; then samples of them with pids 0, -1 and others.
tails() {
	cat <<-EOF
	cpu-clock	swapper/0	kkk	secondary_startup_64;cpu_startup_entry;do_idle
	cpu-clock	swapper/1	kkkk	cpu_startup_entry;do_idle;cpuidle_enter_state;intel_idle.constprop.0
	cpu-clock	swapper/0	kkkk	do_idle;cpuidle_enter;sysvec_apic_timer_interrupt;intel_idle
	cpu-clock	swapper/2	kk	do_idle;handle_irq_event
	cpu-clock	swapper/0
	cpu-clock	app	uu	main;cpu_idle
	cpu-clock	app	uu	main;work
	page-faults	swapper/0	k	do_idle
	page-faults	app	u	main
	EOF
}
# stream ids|plain: the same samples as K and P records or as S records.
stream() {
	printf "%%flamepipe\t1\n"
	tails | awk -F "\t" -v OFS="\t" -v form="$1" '
		{ if (NF == 2) { $3 = ""; $4 = "" }
		  t[NR - 1] = $0; n = NR }
		END {
			if (form == "ids") for (i = 0; i < n; i++) print "K", i, t[i]
			time = 1000000000
			for (round = 0; round < 3; round++)
				for (i = 0; i < n; i++)
					for (p = 0; p < 4; p++) {
						pid = p == 0 ? 0 : p == 1 ? -1 : p == 2 ? 42 : 0
						time += 7000000
						if (form == "ids") print "P", time, pid, pid, 0, 1, i
						else print "S", time, pid, pid, 0, 1, t[i]
					}
		}'
}
# expand: K and P back to the S records they stand for.
expand() {
	awk -F "\t" -v OFS="\t" '
		$1 == "K" { t[$2] = $3 "\t" $4 "\t" $5 "\t" $6; next }
		$1 == "P" { print "S", $2, $3, $4, $5, $6, t[$7]; next }
		{ print }'
}

test_expect_success 'setup: both forms of the samples' '
	stream ids >ids.s && stream plain >plain.s &&
	expand <ids.s >want && test_cmp plain.s want &&
	test "$(grep -c "^P	" ids.s)" = 108
'

for opts in "" "--keep-idle" "--all-events" "--event page-faults" "--all-events --keep-idle"; do
	test_expect_success "fp-bucket $opts: the samples, cells and counts of the plain stream" '
		fp-bucket $opts <ids.s >ids.out 2>ids.err &&
		fp-bucket $opts <plain.s >plain.out 2>plain.err &&
		expand <ids.out | grep -v "^K	" >got &&
		test_cmp plain.out got && test_cmp plain.err ids.err
	'
done

# 12 samples a tail; page-faults not counted (24); idle: the first two
# swapper tails and the empty stack at pids 0, -1, 0 (3 x 9) and app at
# cpu_idle at pid 0 (6): 33; counted 108 - 24 - 33 = 51.
test_expect_success 'the idle samples: pid 0 or -1 of the idle task at an idle leaf, no interrupt frame' '
	fp-bucket <ids.s 2>/dev/null | grep "^I	bucket	" >got &&
	printf "I\tbucket\tsamples=108\tcounted=51\tidle=33\tcells=28\tcolumns=1\toverflow=0\tbad=0\n" >want &&
	test_cmp want got
'

test_expect_success 'a redefined K: its samples follow the new definition' '
	{ cat ids.s; printf "K\t6\tcpu-clock\tswapper/0\tk\tdo_idle\nP\t2000000000\t0\t0\t0\t1\t6\n"; } |
		fp-bucket >out 2>/dev/null &&
	grep -q "^I	bucket	samples=109	counted=51	idle=34	" out &&
	! grep -q "^P	2000000000	" out
'

test_done
