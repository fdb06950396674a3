#!/bin/sh
test_description='fp-fold --event-filter: the matching rule of fp-range, and a word when nothing matches (issue 14 #7)'
. "$(dirname "$0")/test-lib.sh"

s() { printf "S\t%s\t1\t1\t0\t1\t%s\tapp\tu\t%s\n" "$1" "$2" "$3"; }

test_expect_success '--event-filter cpu-clock matches cpu-clock:ppp (as fp-range --event does)' '
	{ s 1 cpu-clock:ppp a; s 2 cycles:u b; s 3 cpu-clock c; } >ev.S &&
	fp-fold --plain --event-filter cpu-clock <ev.S >f 2>err &&
	printf "app;a 1\napp;c 1\n" >expect && test_cmp expect f && test ! -s err &&
	fp-range --event cpu-clock <ev.S | fp-fold --plain --all-events >r &&
	test_cmp f r
'

test_expect_success 'a filter name is not a prefix match: cpu-clo matches nothing' '
	fp-fold --event-filter cpu-clo <ev.S >out 2>err &&
	grep -q "^I	fold	samples=0	.*dropped_event=3" out
'

test_expect_success 'a filter that matches no sample: a warning on stderr and a W naming an event seen' '
	grep -q "^fp-fold: warning: --event-filter cpu-clo matched none of the samples (the input has e.g. cpu-clock:ppp" err &&
	grep -q "^W	fold	stdin:3	--event-filter cpu-clo matched none" out
'

test_expect_success 'the default (first event seen) stays exact, as in stackcollapse' '
	fp-fold --plain <ev.S >d 2>err &&
	printf "app;a 1\n" >expect && test_cmp expect d &&
	grep -q "filtering for events of type: cpu-clock:ppp" err
'

test_done
