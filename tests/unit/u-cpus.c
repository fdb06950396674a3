/* u-cpus.c: CPUs by cgroup quota (lib/fp_cpus.h), on a made-up cgroup
 * file system. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_cpus.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], *p;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static unsigned quota(void)
{
	char proc[512], fs[512];

	snprintf(proc, sizeof proc, "%s/proc-cgroup", root);
	snprintf(fs, sizeof fs, "%s/fs", root);
	return fp_cpus_quota(proc, fs);
}

static int setup(void **state)
{
	strcpy(root, "/tmp/u-cpus.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void v2_cpu_max_rounds_up(void **state)
{
	put("proc-cgroup", "0::/box/job\n");
	put("fs/box/job/cpu.max", "250000 100000\n");
	assert_int_equal(quota(), 3);
}

static void v2_max_is_no_limit_and_an_ancestor_s_quota_counts(void **state)
{
	put("proc-cgroup", "0::/box/job\n");
	put("fs/box/job/cpu.max", "max 100000\n");
	assert_int_equal(quota(), 0);
	put("fs/box/cpu.max", "200000 100000\n");
	assert_int_equal(quota(), 2);
	put("fs/box/job/cpu.max", "50000 100000\n");
	assert_int_equal(quota(), 1); /* the tightest; half a CPU is one */
}

static void v1_cfs_quota_of_a_joined_mount(void **state)
{
	put("proc-cgroup", "12:memory:/x\n4:cpu,cpuacct:/docker/abc\n0::/\n");
	put("fs/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "400000\n");
	put("fs/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
	assert_int_equal(quota(), 4);
}

static void v1_minus_one_is_no_limit(void **state)
{
	put("proc-cgroup", "1:cpu:/\n");
	put("fs/cpu/cpu.cfs_quota_us", "-1\n");
	put("fs/cpu/cpu.cfs_period_us", "100000\n");
	assert_int_equal(quota(), 0);
}

static void a_missing_file_or_garbage_is_no_limit(void **state)
{
	put("proc-cgroup", "garbage\n3:cpuset:/\n0::relative\n");
	assert_int_equal(quota(), 0);
	put("proc-cgroup", "0::/none/here\n");
	assert_int_equal(quota(), 0);
}

static void usable_is_at_least_one_and_at_most_max(void **state)
{
	assert_true(fp_cpus_usable(3) >= 1 && fp_cpus_usable(3) <= 3);
	assert_int_equal(fp_cpus_usable(1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(v2_cpu_max_rounds_up, setup, teardown),
		cmocka_unit_test_setup_teardown(v2_max_is_no_limit_and_an_ancestor_s_quota_counts,
						setup, teardown),
		cmocka_unit_test_setup_teardown(v1_cfs_quota_of_a_joined_mount, setup, teardown),
		cmocka_unit_test_setup_teardown(v1_minus_one_is_no_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(a_missing_file_or_garbage_is_no_limit, setup,
						teardown),
		cmocka_unit_test(usable_is_at_least_one_and_at_most_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
