#!/bin/sh
test_description='fp-perfdata reads symbol names from the files when a lookup needs them; with few file descriptors it copies them, and the frames are the same'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# fp-perfdata keeps a sampled ELF file open (up to half of RLIMIT_NOFILE)
# and reads a symbol's name from it when a frame first needs it; past that
# budget it copies the names as it reads the tables. A system-wide capture
# samples more files (the workload, perf and its libraries, libc, ld.so)
# than a limit of 24 descriptors keeps open (8; 16 are left for the rest).
# It also catches other tests' processes, whose files may be gone by now
# (a W record on both sides alike), and on a loaded machine perf may lose
# events (said alike too): any other warning fails.
test_expect_success 'names read from the files equal names copied when descriptors run short' '
	pd_record_system sys.data 300 800 &&
	fp-perfdata -q sys.data >kept.s &&
	(ulimit -n 24 && fp-perfdata -q sys.data >copied.s) &&
	test_cmp kept.s copied.s &&
	awk -F "\t" "\$1 == \"S\" && \$9 ~ /u/" kept.s >user.s &&
	test "$(wc -l <user.s)" -gt 10 &&
	! grep "^W	" kept.s | grep -v "(No such file or directory): " |
		grep -v "	perf lost [0-9]* events here" | grep -q .
'

test_done
