#!/bin/sh
# ssh-remote.sh: what flamepipe live --ssh costs the remote host, per
# sample: perf record only, the perf.data stream read here (fp-ssh
# --control | fp-perfdata --remote, the default) against perf record |
# perf script on the host (fp-ssh --perf-script | fp-read, live --ssh
# --remote-script). Issue 25 item 4.
#
#	bench/ssh-remote.sh [RUNS]
#
# The host is a throwaway sshd on 127.0.0.1 (tests/lib-sshd.sh); its CPU
# is the daemon's own and its reaped children's (every session's sshd,
# shell, perf record, perf script, and the ssh fetches of files, which
# ride on the capture's connection): /proc/SSHD/stat utime+stime+cutime+
# cstime before and after each capture, once every session has ended.
# Each capture: BENCH_SSH_S seconds (default 5) of -F BENCH_SSH_HZ
# (default 4999) -g, system-wide (-a: every process of the host, with a
# spinning build/tests/live-spin among them), or of that one process
# (BENCH_SSH_SCOPE=spin: -p).
# RUNS (default 3) of each, alternating, each run a capture of SECS and
# one of 3 SECS; prints medians:
#	perfdata_us=.. script_us=.. ratio=.. perfdata_fixed_s=..
#	script_fixed_s=.. perfdata_all_us=.. script_all_us=..
#	perfdata_samples=.. script_samples=.. perfdata_cpu_s=.. script_cpu_s=..
#	runs=N exit=0
# (_us: microseconds of the host's CPU per sample, from the difference of
# the two captures; _fixed_s: the rest of the short capture's, seconds;
# _all_us, _samples, _cpu_s: the short capture whole; ratio script/perfdata).
# Needs root (perf, sshd), openssh-server and -client. FP_BIN: the
# binaries (default bin/).
set -eu

. "$(dirname "$0")/env.sh"
RUNS=${1:-3}
SECS=${BENCH_SSH_S:-5}
HZ=${BENCH_SSH_HZ:-4999}
SPIN_BIN=$root/build/tests/live-spin
SCOPE=${BENCH_SSH_SCOPE:-system}	# system: -a; spin: -p of the spinning process

[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 ||
	{ echo "ssh-remote.sh: openssh-server / openssh-client is not installed" >&2; echo "exit=2"; exit 2; }
[ -x "$SPIN_BIN" ] || { echo "ssh-remote.sh: $SPIN_BIN missing (make tests)" >&2; echo "exit=2"; exit 2; }

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/fp-bench-ssh.XXXXXX")
wait_for() {
	_i=0
	while ! eval "$1"; do
		_i=$((_i + 1))
		[ $_i -ge "${2:-100}" ] && { echo "wait_for: timed out: $1" >&2; return 1; }
		sleep 0.1
	done
}
# shellcheck source=../tests/lib-sshd.sh
. "$root/tests/lib-sshd.sh"
trap 'kill "$SSHD_PID" "${spin:-}" 2>/dev/null; rm -rf "$TRASH" "$SSHD_PIDS"' EXIT
start_sshd >&2 || { echo "exit=1"; exit 1; }

tck=$(getconf CLK_TCK)
# The daemon's CPU and its reaped children's, seconds.
host_cpu() {
	sed 's/.*) //' "/proc/$SSHD_PID/stat" |
		awk -v t="$tck" '{ printf "%.3f\n", ($12 + $13 + $14 + $15) / t }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "") }'; }

"$SPIN_BIN" 1000000 >/dev/null &
spin=$!
TARGET="-a"
[ "$SCOPE" = spin ] && TARGET="-p $spin"

# one_run MODE SECONDS -> "cpu_s samples"
one_run() {
	secs=$2
	before=$(host_cpu)
	if [ "$1" = perfdata ]; then
		# shellcheck disable=SC2086
		fp-ssh --control "$TRASH/ctl" $SSH_OPTS --duration "$secs" root@127.0.0.1 \
			-F "$HZ" $TARGET -g 2>"$TRASH/ssh.err" |
			fp-perfdata --remote root@127.0.0.1 --remote-control "$TRASH/ctl" \
				--remote-cache "$TRASH/cache" $SSH_OPTS >"$TRASH/out" 2>"$TRASH/read.err"
		n=$(sed -n 's/^I	.*	samples=\([0-9]*\).*/\1/p' "$TRASH/out" | tail -n 1)
	else
		# shellcheck disable=SC2086
		fp-ssh --perf-script $SSH_OPTS --duration "$secs" root@127.0.0.1 \
			-F "$HZ" $TARGET -g 2>"$TRASH/ssh.err" |
			fp-read >"$TRASH/out" 2>"$TRASH/read.err"
		n=$(grep -c '^S	' "$TRASH/out" || true)
	fi
	wait_for "test -z \"\$(sshd_sessions)\"" 200 || return 1
	echo "$(awk "BEGIN { print $(host_cpu) - $before }") ${n:-0}"
}

: >"$TRASH/perfdata" && : >"$TRASH/script"
# Each run: a capture of SECS and one of 3 SECS per mode; the difference
# is the cost of the extra samples alone (the marginal cost per sample),
# what is left of the short one the fixed cost (login, perf's start, the
# kernel's kallsyms for perf.data, perf script's symbol tables).
for _r in $(seq "$RUNS"); do
	for mode in perfdata script; do
		a=$(one_run $mode "$SECS") && b=$(one_run $mode $((SECS * 3))) ||
			{ cat "$TRASH/ssh.err" "$TRASH/read.err" >&2; echo "exit=1"; exit 1; }
		echo "ssh-remote.sh: $mode: host cpu_s samples = $a, then $b" >&2
		echo "$a $b" >>"$TRASH/$mode"
	done
done

# per run: all-in us/sample of the short capture, marginal us/sample,
# fixed seconds
stats() {
	awk '{ all = $2 > 0 ? $1 * 1e6 / $2 : 0
	       d = $4 - $2; m = d > 0 ? ($3 - $1) * 1e6 / d : 0; if (m < 0) m = 0	# below a tick
	       f = $1 - m * $2 / 1e6
	       print all, m, f, $2, $1 }' "$TRASH/$1"
}
col() { stats "$1" | awk -v c="$2" '{ print $c }' | median; }
p_m=$(col perfdata 2)
s_m=$(col script 2)
echo "perfdata_us=$p_m script_us=$s_m ratio=$(awk "BEGIN { if ($p_m > 0) printf \"%.1f\", $s_m / $p_m; else print \"-\" }")" \
	"perfdata_fixed_s=$(col perfdata 3) script_fixed_s=$(col script 3)" \
	"perfdata_all_us=$(col perfdata 1) script_all_us=$(col script 1)" \
	"perfdata_samples=$(col perfdata 4) script_samples=$(col script 4)" \
	"perfdata_cpu_s=$(col perfdata 5) script_cpu_s=$(col script 5) runs=$RUNS exit=0"
