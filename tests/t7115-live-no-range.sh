#!/bin/sh
test_description='flamepipe live runs fp-range only for a filter: without one the stage is left out, and the flame graph still counts the recording'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
need_perf_sampling 'live without fp-range'

# the stages named in the report's stage table
stages_of() { grep -o "<th>[a-z]*</th>" "$1/index.html" | sed "s/<[^>]*>//g" | sort | tr "\n" " "; }

test_expect_success 'no --pid and no --container: the chain has no fp-range' '
	{ flamepipe live -F 99 -g --no-term -o plain -- "$TOP/build/tests/busy" 1000 times 2>err ||
		{ cat err; false; }; } &&
	cat err && test "$(stages_of plain)" = "bucket fold read record render " &&
	test -s plain/stacks.folded
'

test_expect_success '-D NO_RANGE= keeps fp-range' '
	{ flamepipe live -F 99 -g --no-term -o kept -D NO_RANGE= \
		-- "$TOP/build/tests/busy" 1000 times 2>err || { cat err; false; }; } &&
	test "$(stages_of kept)" = "bucket fold range read record render "
'

test_expect_success 'either way the flame graph counts the recording'"'"'s samples less the idle ones' '
	for d in plain kept; do
		fp-read -q "$d/recording.fp.gz" | fp-bucket >b &&
		counted=$(sed -n "s/^I	bucket	.*	counted=\([0-9]*\)	.*/\1/p" b) &&
		test -n "$counted" &&
		test "$(awk "{ n += \$NF } END { print n + 0 }" "$d/stacks.folded")" = "$counted" ||
			return 1
	done
'

test_done
