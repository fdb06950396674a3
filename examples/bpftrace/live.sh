#!/bin/sh
# live.sh: a live on-CPU profile from bpftrace through the flamepipe chain.
#
#	examples/bpftrace/live.sh [-F HZ] [-d SECONDS] [-o DIR]
#
# Runs examples/bpftrace/profile.bt (HZ samples per second per CPU, default
# 49) and pipes it through
#	fp-bpftrace | fp-read | fp-bucket | fp-fold | fp-render --term
# so the terminal shows the heatmap and flame graph while it runs. Without -d
# it runs until Ctrl-C; with -d it stops after SECONDS and the stages print
# their final tables. With -o DIR it also keeps the raw bpftrace text
# (DIR/profile.bt.txt) and the perf-shaped text (DIR/profile.perf) for
# `flamepipe report` or any perf script tool.
# Needs root (BPF). Binaries are taken from bin/ next to this checkout.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/examples/bpftrace-env.sh"
hz=49
duration=
outdir=
while getopts F:d:o:h opt; do
	case $opt in
	F) hz=$OPTARG ;;
	d) duration=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) usage 16 ;;
	esac
done
need_bpftrace fp-bpftrace fp-read fp-bucket fp-fold

# The source: -q drops "Attaching 1 probe...", -B none writes each sample
# as soon as it is read (a pipe is fully buffered otherwise).
source_cmd() {
	if [ -n "$duration" ]; then
		timeout -s INT "$duration" bpftrace -q -B none "$top/examples/bpftrace/profile.bt" "$hz"
	else
		bpftrace -q -B none "$top/examples/bpftrace/profile.bt" "$hz"
	fi
}
keep_raw() { if [ -n "$outdir" ]; then tee "$outdir/$1"; else cat; fi; }
[ -z "$outdir" ] || mkdir -p "$outdir"

if [ -x "$bin/fp-render" ]; then
	fold_render() { "$bin/fp-fold" | "$bin/fp-render" --term; }
else
	# No renderer built: the 20 hottest stacks once the source stops.
	fold_render() {
		"$bin/fp-fold" --plain | awk '{ print $NF "\t" $0 }' | sort -k1,1nr | head -n 20 | cut -f2-
	}
fi

# bpftrace 0.17 always complains when it may not raise RLIMIT_MEMLOCK,
# which kernels >= 5.11 do not need: keep its other messages.
{ source_cmd 2>&1 1>&3 | grep -v RLIMIT_MEMLOCK >&2; } 3>&1 |
	keep_raw profile.bt.txt | "$bin/fp-bpftrace" | keep_raw profile.perf |
	"$bin/fp-read" | "$bin/fp-bucket" | fold_render
