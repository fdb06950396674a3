#!/bin/sh
test_description='a recording keeps the source'"'"'s event order (C events): its readers count the first -e, as the live chain does'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# A stream whose first sample is of the second event (as fp-perfdata
# writes a capture made with -e cpu-clock -e page-faults): 3 page faults
# a second from second 0, 5 cpu-clock samples a second from second 2.
awk 'BEGIN {
	for (s = 0; s < 6; s++) {
		for (i = 0; i < 3; i++)
			printf "S\t%d%09d\t11\t11\t0\t1\tpage-faults\ttoucher\tuu\tmain;touch\n", 3000 + s, i * 300000000
		if (s >= 2)
			for (i = 0; i < 5; i++)
				printf "S\t%d%09d\t10\t10\t0\t1\tcpu-clock\tspinner\tuu\tmain;spin\n", 3000 + s, i * 200000000 + 5000
	}
}' | sort -t "	" -k2,2n -s >body.S &&
{ printf "%%flamepipe\t1\nC\tevents\tcpu-clock\tpage-faults\n"; cat body.S; } >in.S
CPU=$(grep -c "^S	.*	cpu-clock	" in.S)
PF=$(grep -c "^S	.*	page-faults	" in.S)

test_expect_success 'the input: its first sample is a page fault, C events names cpu-clock first' '
	test "$(grep "^S" in.S | head -n 1 | cut -f7)" = page-faults &&
	test "$CPU" = 20 && test "$PF" = 18
'

test_expect_success 'every batch of the recording has the C events line after its header' '
	fp-record --output rec.fp.gz --flush-interval 1000 <in.S >/dev/null &&
	test "$(fp-read --index rec.fp.gz | grep -vc "^#")" = 6 &&
	test "$(zcat rec.fp.gz | grep -c "^C	events	cpu-clock	page-faults\$")" = 6 &&
	zcat rec.fp.gz | awk "/^%/ { h = NR } /^C/ && NR != h + 1 { bad = 1 } END { exit bad }"
'

test_expect_success 'fp-read of the recording passes C events on once, before the samples' '
	fp-read -q rec.fp.gz >out &&
	test "$(grep -c "^C	events	" out)" = 1 &&
	test "$(grep -v "^[%I]" out | head -n 1 | cut -f1,2)" = "C	events"
'

test_expect_success 'fp-read --time of a later part still names the order; fp-bucket counts cpu-clock' '
	fp-read -q --time 3004,3006 rec.fp.gz | fp-bucket 2>/dev/null >out &&
	grep -q "^I	bucket	.*	counted=10	" out &&
	fp-read -q rec.fp.gz | fp-bucket 2>/dev/null | grep -q "^I	bucket	.*	counted=$CPU	"
'

test_expect_success 'report of the recording: heatmap and folded totals are cpu-clock'"'"'s' '
	flamepipe report rec.fp.gz -o rep -q 2>/dev/null &&
	test "$(jq "[.values[][]] | add" rep/heatmap.json)" = "$CPU" &&
	test "$(awk "{ t += \$NF } END { print t }" rep/stacks.folded)" = "$CPU"
'

mkdir prof && cp rec.fp.gz prof/ && start_server prof || exit 1
test_expect_success 'API on the recording: heatmap, whole and ranged flame graphs count cpu-clock' '
	test "$(get "/heatmap/?filename=rec.fp.gz")" = 200 &&
	test "$(jq .counted body)" = "$CPU" &&
	test "$(jq -r ".events[0].name" body)" = cpu-clock &&
	test "$(get "/flamegraph/?filename=rec.fp.gz")" = 200 &&
	test "$(jq "[.. | objects | .v] | add" body)" = "$CPU" &&
	test "$(get "/flamegraph/?filename=rec.fp.gz&start=0&end=3")" = 200 &&
	test "$(jq "[.. | objects | .v] | add" body)" = 5
'

test_done
