#!/bin/sh
test_description='fp-serve /threads/ of multi-threaded processes: each thread its own samples and its pid (fp-fold --tid roots are comm-PID/TID), one entry however many comms'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# process 500: threads 500..502; process 600: threads 600..604, thread t
# writing t % 5 + 1 samples a second for 4 seconds
mkdir prof &&
awk 'BEGIN {
	for (s = 0; s < 4; s++)
		for (t = 500; t < 605; t++) {
			if (t > 502 && t < 600) continue
			p = t < 600 ? 500 : 600
			for (i = 0; i <= t % 5; i++)
				printf "app %d/%d [000] %d.%06d:    250000 cpu-clock: \n\t    55d0c0de1000 work_%d+0x10 (/usr/bin/app)\n\n", p, t, 1000 + s, 100000 * i + t % 100, t
		}
}' >prof/mt.perf &&
# thread 700 renamed (prctl): 2 samples as "starter", 3 as "worker"; process
# 800 exec'd: "sh" and "python3" 2 samples each
awk 'BEGIN {
	n = split("700 starter 2,700 worker 3,800 sh 2,800 python3 2", r, ",")
	for (k = 1; k <= n; k++) {
		split(r[k], f, " ")
		for (i = 0; i < f[3]; i++)
			printf "%s %d/%d [000] %d.%06d:    250000 cpu-clock: \n\t    55d0c0de1000 run+0x10 (/usr/bin/app)\n\n", f[2], f[1], f[1], 1000 + k, i
	}
}' >prof/renamed.perf &&
start_server prof || exit 1

# independent count from the perf script text: samples per "PID/TID"
awk '/^[^ \t]/ { split($2, id, "/"); n[id[2] " " id[1]]++ } END { for (k in n) print n[k], k }' prof/mt.perf |
	sort -k1,1nr -k2,2n >by-tid

test_expect_success 'threads: every thread of a process listed with its own samples and its pid, heaviest first' '
	test "$(get "/threads/?filename=mt.perf")" = 200 &&
	jq -r ".threads[] | \"\(.samples) \(.tid) \(.pid)\"" body >got &&
	test_cmp by-tid got &&
	test "$(jq .threads_count body)" = 8 &&
	test "$(jq "[.threads[].samples] | add" body)" = "$(jq .total body)"
'

test_expect_success 'processes: the sum of their threads' '
	test "$(get "/threads/?filename=mt.perf")" = 200 &&
	jq -r ".processes[] | \"\(.pid) \(.samples)\"" body | sort >got &&
	awk "{ n[\$3] += \$1 } END { for (p in n) print p, n[p] }" by-tid | sort >want &&
	test_cmp want got
'

test_expect_success 'a thread'"'"'s /heatmap/?tid= counts what /threads/ says it has' '
	test "$(get "/threads/?filename=mt.perf")" = 200 &&
	tid=$(jq ".threads[0].tid" body) && n=$(jq ".threads[0].samples" body) &&
	test "$(get "/heatmap/?filename=mt.perf&tid=$tid")" = 200 &&
	test "$(jq .counted body)" = "$n"
'

test_expect_success 'with allevents the same processes and threads (the event is no root of theirs)' '
	test "$(get "/threads/?filename=mt.perf&allevents=1")" = 200 &&
	jq -r ".threads[] | \"\(.samples) \(.tid) \(.pid)\"" body >got &&
	test_cmp by-tid got &&
	test "$(jq -r "[.processes[].pid] | sort | join(\",\")" body)" = 500,600 &&
	test "$(jq -r ".containers[0].name" body)" = ""
'

test_expect_success 'a renamed thread or an exec'"'"'d process is one entry, named by its busiest comm (of equals the first by name)' '
	test "$(get "/threads/?filename=renamed.perf")" = 200 &&
	jq -r ".threads[] | \"\(.tid) \(.comm) \(.samples)\"" body >got &&
	printf "700 worker 5\n800 python3 4\n" >want &&
	test_cmp want got &&
	jq -r ".processes[] | \"\(.pid) \(.comm) \(.samples)\"" body >got &&
	test_cmp want got
'

test_done
