#!/bin/sh
# tests/mk-long-capture.sh SECONDS RATE STACKS: perf script text of a long
# capture with many stacks, on stdout (tests t5201 and
# browser/report-long): RATE samples a second for SECONDS seconds, from
# four processes (one thread each) on four cpus, each sample one of
# STACKS distinct stacks (main -> mid_N -> leaf_M), deterministic.
set -eu
awk -v secs="$1" -v rate="$2" -v stacks="$3" 'BEGIN {
	n = secs * rate
	for (i = 0; i < n; i++) {
		p = i % 4
		id = (i * 7919) % stacks
		printf "long%d %d [%03d] %.6f:     250000 cpu-clock: \n", p, 4000 + p, p, 1000 + i / rate
		printf "\t    55d0c0de%04x leaf_%d+0x10 (/usr/bin/long)\n", id % 65536, id
		printf "\t    55d0c0df%04x mid_%d+0x20 (/usr/bin/long)\n", id % 50, id % 50
		printf "\t    55d0c0e00000 main+0x30 (/usr/bin/long)\n\n"
	}
}'
