#!/bin/sh
# capture-multiproc.sh - regenerate examples/multiproc.perf.gz and
# examples/multiproc-nocallgraph.perf.gz
#
# Workload: src/multiproc.c (2 processes x 2 pthreads, distinct comm names
# and call chains, busy for N seconds).
#
# Exact commands (run as root, from the repo root):
#   cc -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/multiproc" examples/src/multiproc.c
#   # 1) system-wide, with call graphs (frame pointers), 6 s workload
#   perf record -F 199 -a -g -o "$tmp/perf.data" -- "$tmp/multiproc" 6
#   perf script -i "$tmp/perf.data" --no-inline --header | gzip -9 \
#       > examples/multiproc.perf.gz
#   # 2) separate short capture WITHOUT -g, custom field list: the single
#   #    frame (ip sym dso) is printed on the event line itself
#   perf record -F 199 -a -o "$tmp/x.data" -- "$tmp/multiproc" 3
#   perf script -i "$tmp/x.data" -F comm,tid,time,event,ip,sym,dso --no-inline \
#       | gzip -9 > examples/multiproc-nocallgraph.perf.gz
#
# Environment:
#   MP_SECONDS    workload duration for capture 1 (default 6)
#   MP_SECONDS2   workload duration for capture 2 (default 3)
#   MP_FREQ       sampling frequency (default 199)
#   MP_OUTDIR     output directory (default examples/)
# The bundled files were produced with all defaults.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
MP_SECONDS=${MP_SECONDS:-6}
MP_SECONDS2=${MP_SECONDS2:-3}
MP_FREQ=${MP_FREQ:-199}
MP_OUTDIR=${MP_OUTDIR:-$here}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/multiproc" "$here/src/multiproc.c"

perf record -F "$MP_FREQ" -a -g -o "$tmp/perf.data" -- "$tmp/multiproc" "$MP_SECONDS"
perf script -i "$tmp/perf.data" --no-inline --header | gzip -9 \
	> "$MP_OUTDIR/multiproc.perf.gz"

perf record -F "$MP_FREQ" -a -o "$tmp/x.data" -- "$tmp/multiproc" "$MP_SECONDS2"
perf script -i "$tmp/x.data" -F comm,tid,time,event,ip,sym,dso --no-inline \
	| gzip -9 > "$MP_OUTDIR/multiproc-nocallgraph.perf.gz"

ls -l "$MP_OUTDIR/multiproc.perf.gz" "$MP_OUTDIR/multiproc-nocallgraph.perf.gz" >&2
