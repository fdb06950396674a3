#!/bin/sh
test_description='fp-fold --snapshot-ids: each stack of a snapshot is an E record naming the D record that defined it, in the order and with the counts of the F records it stands for'
. "$(dirname "$0")/test-lib.sh"
T=$(printf "\t")

# E records back into the F records they stand for (the text of the D
# record of their id, defined before them); an E of an id no D defined
# becomes "F <count> UNDEFINED" so a comparison shows it.
expand() {
	awk -F "\t" -v OFS="\t" '
	$1 == "D" { d[$2] = $4 }
	$1 == "E" { print "F", $2, ($3 in d) ? d[$3] : "UNDEFINED"; next }
	{ print }' "$1"
}

# three parts of a capture with a C flush after the first two
test_expect_success 'setup: the S records of a capture of several processes, in three parts' '
	fp-read -q "$EXAMPLES/multiproc.perf.gz" >all.S &&
	grep "^S" all.S >samples.S &&
	test "$(wc -l <samples.S)" -gt 2000 &&
	head -n 800 samples.S >p1.S && sed -n 801,1600p samples.S >p2.S && tail -n +1601 samples.S >p3.S &&
	{ cat p1.S && echo "C${T}flush" && cat p2.S && echo "C${T}flush" && cat p3.S; } >parts.S
'

test_expect_success 'without --pass-samples (no D records to name): a usage error that says so' '
	rc=0 && fp-fold --snapshot-ids <all.S >out 2>err || rc=$? &&
	test "$rc" = 100 && ! test -s out &&
	grep -q "snapshot-ids needs --pass-samples" err &&
	test_must_fail fp-fold --snapshot-ids --plain <all.S >out 2>err
'

test_expect_success 'the snapshot holds E records only, each naming a D record written before it' '
	fp-fold --pass-samples --snapshot-ids <all.S >ids.out &&
	! grep -q "^F" ids.out &&
	test "$(grep -c "^E" ids.out)" = "$(grep -c "^D" ids.out)" &&
	expand ids.out >ids.expanded &&
	! grep -q "UNDEFINED" ids.expanded
'

test_expect_success 'E records back into the text they name: the stream fp-fold writes without the option' '
	fp-fold --pass-samples <all.S >text.out &&
	grep -q "^F" text.out &&
	test_cmp text.out ids.expanded
'

test_expect_success 'the same with the stack-id stream (K and P) in, and --pid roots' '
	fp-read -q --stack-ids "$EXAMPLES/multiproc.perf.gz" >all.KP &&
	grep -q "^P" all.KP &&
	fp-fold --pass-samples --snapshot-ids --pid <all.KP >kp.ids &&
	fp-fold --pass-samples --pid <all.S >kp.text &&
	expand kp.ids >kp.expanded &&
	test_cmp kp.text kp.expanded
'

# fp-fold copies a P record's "time pid tid cpu period" into its R record
# when they are written as the writers write them; others are formatted.
test_expect_success 'P records with leading zeros or -0: the R records of the canonical ones' '
	awk -F "\t" -v OFS="\t" "\$1 == \"P\" { if (\$3 >= 0) \$3 = \"00\" \$3; if (\$5 == \"0\") \$5 = \"-0\"; \$2 = \"0\" \$2 } { print }" \
		all.KP >zeros.KP &&
	grep -q "^P${T}0[0-9]*${T}00" zeros.KP && grep -q "^P${T}.*${T}-0${T}" zeros.KP &&
	fp-fold --pass-samples <all.KP >canon.out &&
	fp-fold --pass-samples <zeros.KP >zeros.out &&
	grep -q "^R" canon.out &&
	test_cmp canon.out zeros.out
'

test_expect_success 'flush snapshots and deltas: every snapshot by id, the same once expanded' '
	fp-fold --pass-samples --delta-snapshots --snapshot-ids <parts.S >d.ids &&
	fp-fold --pass-samples --delta-snapshots <parts.S >d.text &&
	grep "^C${T}begin" d.ids | cut -f3 | tr "\n" " " >kinds &&
	test "$(cat kinds)" = "fold fold-delta fold " &&
	expand d.ids >d.expanded &&
	test_cmp d.text d.expanded
'

test_expect_success 'after a C reset the ids stay (no D again): the snapshot names the old ones' '
	{ cat p1.S && echo "C${T}flush" && echo "C${T}reset" && cat p1.S; } >reset.S &&
	fp-fold --pass-samples --snapshot-ids <reset.S >r.ids &&
	fp-fold --pass-samples <reset.S >r.text &&
	sed -n "/^C${T}reset/,\$p" r.ids >after-reset &&
	! grep -q "^D" after-reset && grep -q "^E" after-reset &&
	expand r.ids >r.expanded &&
	test_cmp r.text r.expanded
'

test_done
