# shellcheck shell=sh
# examples/bpftrace-env.sh: sourced by the bpftrace example scripts
# (bpftrace/live.sh, latency/run.sh) after they set $top (the checkout).
#	$bin                   the flamepipe programs (FP_BIN, default bin/)
#	usage LAST             prints lines 2..LAST of the script (its header
#	                       comment) and exits 100
#	need_bpftrace PROG...  exits 111 unless bpftrace is installed, 100
#	                       unless root and every PROG is in $bin; lifts
#	                       RLIMIT_MEMLOCK (BPF maps count against it on
#	                       kernels before 5.11; newer ones ignore it)
bin=${FP_BIN:-$top/bin}
me=$(basename "$0")

usage() { sed -n "2,${1}p" "$0"; exit 100; }

need_bpftrace() {
	command -v bpftrace >/dev/null || { echo "$me: bpftrace is not installed" >&2; exit 111; }
	[ "$(id -u)" = 0 ] || { echo "$me: bpftrace needs root" >&2; exit 100; }
	for _p in "$@"; do
		[ -x "$bin/$_p" ] || { echo "$me: $bin/$_p missing: run make" >&2; exit 100; }
	done
	# shellcheck disable=SC3045  # dash has ulimit -l
	ulimit -l unlimited 2>/dev/null || true
}
