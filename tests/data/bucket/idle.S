%flamepipe	1
# idle: the halt in the idle loop (real stack from this VM)
S	323448030000	0	0	0	1001001	cpu-clock:ppp	swapper	kkkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt
# counted: softirq run on the exit of an APIC timer interrupt that hit the halt (real)
S	324184751000	0	0	0	1001001	cpu-clock:ppp	swapper	kkkkkkkkkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt;asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;__irq_exit_rcu;handle_softirqs;sched_balance_softirq;sched_balance_update_blocked_averages
# counted: RCU softirq whose leaf is a lock helper (real)
S	325184749000	0	0	0	1001001	cpu-clock:ppp	swapper	kkkkkkkkkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt;asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;__irq_exit_rcu;handle_softirqs;rcu_core;_raw_spin_unlock_irqrestore
# counted: an IPI whose softirq work is the leaf (real, demo capture)
S	325100000000	0	0	0	1001001	cpu-clock:ppp	swapper	kkkkkkkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt;asm_sysvec_call_function_single;sysvec_call_function_single;__irq_exit_rcu;handle_softirqs
# counted: the scheduler switching into the idle task is work (real)
S	325334901000	0	0	0	1001001	cpu-clock:ppp	swapper	kkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;schedule_idle;__schedule;finish_task_switch.isra.0
# counted: network receive softirq in swapper context
S	325400000000	0	0	1	1001001	cpu-clock:ppp	swapper	kkkkkkkkkkkkkkkkkkkkkk	common_startup_64;x86_64_start_kernel;__pfx_clear_bss;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt;asm_common_interrupt;common_interrupt;__common_interrupt;handle_edge_irq;handle_irq_event;vring_interrupt;skb_recv_done;__napi_schedule_irqoff;__do_softirq;net_rx_action;__napi_poll;virtnet_poll
# idle: bare-metal shapes (intel_idle, mwait with a compiler suffix, ACPI)
S	325500000000	0	0	1	1001001	cpu-clock:ppp	swapper	kkkkkkkk	secondary_startup_64_no_verify;start_secondary;cpu_startup_entry;do_idle;cpuidle_idle_call;cpuidle_enter;cpuidle_enter_state;intel_idle
S	325600000000	0	0	1	1001001	cpu-clock:ppp	swapper	kkkkkkkkk	secondary_startup_64_no_verify;start_secondary;cpu_startup_entry;do_idle;cpuidle_idle_call;cpuidle_enter;cpuidle_enter_state;intel_idle;mwait_idle_with_hints.constprop.0
S	325700000000	0	0	1	1001001	cpu-clock:ppp	swapper	kkkkkkkkk	secondary_startup_64_no_verify;start_secondary;cpu_startup_entry;do_idle;cpuidle_idle_call;cpuidle_enter;cpuidle_enter_state;acpi_idle_enter;acpi_idle_do_entry
# idle: swapper without call graph (empty stack, and the single leaf frame)
S	325800000000	0	0	1	1001001	cpu-clock:ppp	swapper		
S	325810000000	0	0	1	1001001	cpu-clock:ppp	swapper	k	pv_native_safe_halt
# idle: pid unknown (-1) but comm swapper/1
S	325900000000	-1	-1	1	1001001	cpu-clock:ppp	swapper/1	kkkkkkkk	secondary_startup_64_no_verify;start_secondary;cpu_startup_entry;do_idle;cpuidle_idle_call;cpuidle_enter;cpuidle_enter_state;poll_idle
# counted: pid unknown, comm is not swapper
S	325910000000	-1	-1	1	1001001	cpu-clock:ppp	bash	k	pv_native_safe_halt
# counted: an idle-looking leaf outside the idle task
S	326000000000	4242	4242	1	1001001	cpu-clock:ppp	app	kk	main;default_idle
# counted: ordinary user work
S	326100000000	4242	4242	1	1001001	cpu-clock:ppp	app	kk	main;compute
