# shellcheck shell=sh
# tests/lib-cgroup.sh: cgroup v2 groups made by a test, a workload in
# each, for the container tests (t1160, t7106). Source after test-lib.sh.
#
#	cg_need WHAT          skip_all unless a cgroup v2 hierarchy is mounted
#	                      and writable here, and perf record knows
#	                      --all-cgroups and the kernel takes it
#	cg_make NAME          makes the group NAME at the hierarchy's root
#	                      (removed when the script ends); its path as perf
#	                      names it is then $(cg_path NAME): /NAME
#	cg_dir NAME           the group's directory
#
# A workload joins its group before it runs anything, in a script:
#	( echo 0 >"$(cg_dir NAME)/cgroup.procs" && exec CMD ) &
# (0 is the writer itself; the subshell is a fork of the script, not a
# new shell with a start-up of its own). Every sample after the exec is in
# the group; the fork may be sampled before it joined (a loaded machine
# did: comm sh, in /), so a group's count is perf report --sort cgroup's,
# not its pid's.
CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG_MADE=

cg_need() {
	test -n "$CG_ROOT" || skip_all "$1" 'no cgroup v2 hierarchy is mounted'
	mkdir "$CG_ROOT/fpcg-probe-$$" 2>cg.err ||
		skip_all "$1" "cannot make a cgroup in $CG_ROOT: $(head -n 1 cg.err)"
	rmdir "$CG_ROOT/fpcg-probe-$$"
	perf record -q --no-bpf-event --all-cgroups -o cg-probe.data -- true >cg.err 2>&1 ||
		skip_all "$1" "perf record --all-cgroups fails here: $(head -n 1 cg.err)"
}

cg_dir() { echo "$CG_ROOT/$1"; }
cg_path() { echo "/$1"; }

# The groups are removed once their processes have gone (rmdir refuses
# a group that still has one); the script's last step.
cg_cleanup() {
	for _g in $CG_MADE; do
		wait_for "rmdir '$CG_ROOT/$_g' 2>/dev/null" 100 || echo "cgroup $_g left behind" >&2
	done
}

cg_make() { # NAME
	mkdir "$CG_ROOT/$1" || return 1
	CG_MADE="$CG_MADE $1"
}
