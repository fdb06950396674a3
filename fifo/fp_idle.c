/* fp_idle.c: the idle rule of the heatmap (fp_idle.h). */
#include <string.h>

#include "fp_idle.h"

/* Frames of interrupt or softirq work. Any of them in a swapper stack means
 * the CPU was busy (handle_softirqs, __irq_exit_rcu, do_IRQ, irq_work_run,
 * sysvec_*, common_interrupt, net_rx_action ...): never idle. The APIC
 * timer is no exception: a sample inside its handler or in the softirqs
 * run on its exit is time the CPU spent working. */
static int frame_is_interrupt_work(const char *f, size_t n)
{
	static const char *const words[] = {
		"irq", "IRQ", "sysvec_", "_interrupt", "net_rx_action", "net_tx_action", "tasklet",
	};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (memmem(f, n, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* Functions the idle task sits in while the CPU has nothing to do. A name
 * matches exactly or with a compiler suffix (".isra.0", ".constprop.0");
 * entries ending in '*' match as prefixes. With their lengths: a K record
 * of fp-bucket's stack-id stream looks its leaf up in all of them. */
#define NAME(s)                 \
	{                       \
		s, sizeof s - 1 \
	}
static const struct {
	const char *name;
	size_t len;
} idle_loop_functions[] = {
	NAME("pv_native_safe_halt"), NAME("native_safe_halt"),
	NAME("safe_halt"),           NAME("xen_safe_halt"),
	NAME("acpi_safe_halt"),      NAME("io_idle"),
	NAME("default_idle"),        NAME("default_idle_call"),
	NAME("arch_cpu_idle"),       NAME("cpu_idle_poll"),
	NAME("poll_idle"),           NAME("amd_e400_idle"),
	NAME("cpu_do_idle"),         NAME("cpuidle_idle_call"),
	NAME("call_cpuidle"),        NAME("do_idle"),
	NAME("cpu_startup_entry"),   NAME("cpu_idle"),
	NAME("intel_idle*"),         NAME("acpi_idle_*"),
	NAME("mwait_idle*"),         NAME("cpuidle_enter*"),
	NAME("psci_enter_idle*"),
};

static int frame_is_idle_loop(const char *f, size_t n)
{
	const char *dot = memchr(f, '.', n);

	if (dot)
		n = dot - f;
	for (size_t i = 0; i < sizeof idle_loop_functions / sizeof idle_loop_functions[0]; i++) {
		const char *name = idle_loop_functions[i].name;
		size_t len = idle_loop_functions[i].len;

		if (name[len - 1] == '*') {
			if (n >= len - 1 && !memcmp(f, name, len - 1))
				return 1;
		} else if (n == len && !memcmp(f, name, len)) {
			return 1;
		}
	}
	return 0;
}

int fp_comm_is_swapper(struct fp_str comm)
{
	static const char swapper[] = "swapper";

	return comm.n >= sizeof swapper - 1 && !memcmp(comm.p, swapper, sizeof swapper - 1);
}

static int is_swapper(const struct fp_sample *s)
{
	if (s->pid == 0)
		return 1;
	return s->pid == -1 && fp_comm_is_swapper(s->comm);
}

/* The leaf is looked at first: most stacks end elsewhere, and then no
 * frame needs the interrupt-work search. */
int fp_stack_is_idle(struct fp_str stack)
{
	const char *p = stack.p, *end = stack.p + stack.n, *semi;

	if (stack.n == 0)
		return 1;
	const char *leaf = memrchr(p, ';', stack.n);
	leaf = leaf ? leaf + 1 : p;
	if (!frame_is_idle_loop(leaf, end - leaf))
		return 0;
	for (; p <= end; p = semi + 1) {
		semi = memchr(p, ';', end - p);
		if (!semi)
			semi = end;
		if (frame_is_interrupt_work(p, semi - p))
			return 0;
	}
	return 1;
}

/* A sample is idle when it ran in the idle task (pid 0, or comm swapper*
 * when the pid is unknown), none of its frames is interrupt work, and its
 * stack is empty or its leaf is an idle-loop function. */
int fp_sample_is_idle(const struct fp_sample *s)
{
	return is_swapper(s) && fp_stack_is_idle(s->stack);
}
