#!/bin/sh
test_description='fp-fold event filter: first event by default, --event-filter, --all-events'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

test_expect_success 'by default only the first event seen is kept (and samples without event)' '
	fp-fold --plain "$D/events.S" >out 2>err &&
	test_cmp "$D/events.default.folded" out
'

test_expect_success 'the first foreign event prints one warning naming both events' '
	echo "fp-fold: warning: filtering for events of type: cpu-clock (dropping page-faults samples; use --event-filter or --all-events)" >expect &&
	test_cmp expect err
'

test_expect_success '--event-filter keeps only that event, without warning' '
	fp-fold --plain --event-filter page-faults "$D/events.S" >out 2>err &&
	test_cmp "$D/events.page-faults.folded" out &&
	test ! -s err
'

test_expect_success '--all-events keeps every event, merged' '
	fp-fold --plain --all-events "$D/events.S" >out 2>err &&
	test_cmp "$D/events.all-events.folded" out &&
	test ! -s err
'

test_expect_success '--event-root keeps every event under a root frame named after it' '
	fp-fold --plain --event-root "$D/events.S" >out &&
	test_cmp "$D/events.event-root.folded" out
'

test_expect_success 'dropped samples are counted in the I record and a W record is written' '
	fp-fold "$D/events.S" >out 2>/dev/null &&
	grep -qx "I	fold	samples=3	stacks=2	total=3	dropped_event=3	bad_samples=0	resets=0" out &&
	grep -q "^W	fold	.*events.S:2	filtering for events of type: cpu-clock" out
'

test_expect_success '--event-filter and --all-events exclude each other (exit 100)' '
	fp-fold --event-filter x --all-events </dev/null 2>err; test $? = 100
'

test_done
