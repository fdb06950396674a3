/* u-container: readable container names of cgroup paths, and the
 * container filter (fifo/fp_container.h). */
#include "unit.h"

#include <string.h>

#include "fp_container.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID_SYSTEMD "1a2b3c4d_0000_4e5f_8a9b_00112233aabb"
#define UID "1a2b3c4d-0000-4e5f-8a9b-00112233aabb"

/* One row of the table the rules must give. */
static const struct {
	const char *path, *name;
} cases[] = {
	{ "/system.slice/docker-" HEX64 ".scope", "docker-0123456789ab" },
	{ "/docker/" HEX64, "docker-0123456789ab" },
	{ "/system.slice/cri-containerd-" HEX64 ".scope", "containerd-0123456789ab" },
	{ "/machine.slice/libpod-" HEX64 ".scope", "podman-0123456789ab" },
	{ "/machine.slice/libpod-conmon-" HEX64 ".scope", "podman-conmon-0123456789ab" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" HEX64 ".scope",
	  "podman-0123456789ab" },
	{ "/system.slice/crio-" HEX64 ".scope", "crio-0123456789ab" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_SYSTEMD
	  ".slice/cri-containerd-" HEX64 ".scope",
	  "pod-" UID "/0123456789ab" },
	{ "/kubepods.slice/kubepods-pod" UID_SYSTEMD ".slice/crio-" HEX64 ".scope",
	  "pod-" UID "/0123456789ab" },
	{ "/kubepods/besteffort/pod" UID "/" HEX64, "pod-" UID "/0123456789ab" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_SYSTEMD ".slice",
	  "pod-" UID },
	{ "/kubepods/pod" UID, "pod-" UID },
	{ "/lxc.payload.web", "lxc-web" },
	{ "/lxc/web1/" HEX64, "0123456789ab" },
	{ "/system.slice/nginx.service", "nginx.service" },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope" },
	{ "/", "/" },
	{ "/fpcg-a", "fpcg-a" },
	{ "/a/b", "a/b" },
	{ "/system.slice", "system.slice" },
	/* not ids: too short, or not hex, stay as they are */
	{ "/system.slice/docker-abc.scope", "docker-abc.scope" },
	{ "/docker/"
	  "0123456789ABCDEF0123456789ABCDEF",
	  "docker/0123456789ABCDEF0123456789ABCDEF" },
	{ "/kubepods/podnot-a-uid", "kubepods/podnot-a-uid" },
};

static void each_runtime_path_has_its_readable_name(void **state)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = strlen(cases[i].path);
		char out[512];
		size_t got = fp_container_name(cases[i].path, n, out,
					       n + FP_CONTAINER_NAME_EXTRA + 1);

		if (strcmp(out, cases[i].name) != 0)
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].path, out, cases[i].name);
		assert_int_equal(got, strlen(cases[i].name));
	}
}

static void no_cgroup_has_the_empty_name(void **state)
{
	char out[4] = "x";

	assert_int_equal(fp_container_name("", 0, out, sizeof out), 0);
	assert_string_equal(out, "");
}

static void a_short_buffer_is_cut_not_overrun(void **state)
{
	char out[8];

	memset(out, 'z', sizeof out);
	size_t n = fp_container_name(LINE("/system.slice/docker-" HEX64 ".scope"), out, 5);
	assert_int_equal(n, 4);
	assert_string_equal(out, "dock");
	assert_int_equal(out[5], 'z');
}

static int passes(const char *arg, const char *path)
{
	struct fp_container_filter f;
	char why[256];

	assert_int_equal(fp_container_filter_init(&f, arg, strlen(arg), why, sizeof why), 0);
	int r = fp_container_filter_passes(&f, path, strlen(path));
	fp_container_filter_free(&f);
	return r;
}

static void the_filter_takes_a_name_a_path_or_a_whole_regex(void **state)
{
	const char *docker = "/system.slice/docker-" HEX64 ".scope";

	assert_true(passes("docker-0123456789ab", docker));
	assert_true(passes(docker, docker));
	assert_true(passes("docker-.*", docker));
	assert_true(passes("/system\\.slice/.*", docker));
	/* the regex matches the whole name: a prefix is not enough */
	assert_false(passes("docker-0123", docker));
	assert_false(passes("podman-.*", docker));
	/* a name with regex characters matches itself, as does its path */
	assert_true(passes("a+b", "/a+b"));
	assert_true(passes("/a+b", "/a+b"));
	/* no cgroup: only a regex that matches the empty name */
	assert_false(passes("docker-.*", ""));
	assert_true(passes(".*", ""));
}

static void a_bad_regex_is_refused_with_the_users_offset(void **state)
{
	struct fp_container_filter f;
	char why[256];

	assert_int_equal(fp_container_filter_init(&f, LINE("ab("), why, sizeof why), -1);
	assert_non_null(strstr(why, "offset 3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_runtime_path_has_its_readable_name),
		cmocka_unit_test(no_cgroup_has_the_empty_name),
		cmocka_unit_test(a_short_buffer_is_cut_not_overrun),
		cmocka_unit_test(the_filter_takes_a_name_a_path_or_a_whole_regex),
		cmocka_unit_test(a_bad_regex_is_refused_with_the_users_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
