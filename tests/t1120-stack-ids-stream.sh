#!/bin/sh
test_description='the stack-id stream: each distinct sample tail once (K), each sample as a P naming it; the stages read it as they read S'
. "$(dirname "$0")/test-lib.sh"

# The chain of the default pipeline up to fp-fold, all events (the render
# side gets the same D/R/F records either way).
chain() { # stream-file
	fp-bucket --all-events <"$1" | fp-range | fp-fold --all-events --pass-samples
}

test_expect_success 'setup: perf script text of several processes' '
	zcat "$EXAMPLES/multiproc.perf.gz" >mp.perf &&
	fp-read mp.perf >plain.s &&
	fp-read --stack-ids mp.perf >ids.s &&
	test "$(grep -c "^S	" plain.s)" -gt 1000
'

test_expect_success 'fp-read --stack-ids writes no S record, one P per sample, in order' '
	! grep -q "^S	" ids.s &&
	test "$(grep -c "^P	" ids.s)" = "$(grep -c "^S	" plain.s)" &&
	awk -F "\t" "\$1 == \"S\" { print \$2, \$3, \$4, \$5, \$6 }" plain.s >want &&
	awk -F "\t" "\$1 == \"P\" { print \$2, \$3, \$4, \$5, \$6 }" ids.s >got &&
	test_cmp want got
'

test_expect_success 'each distinct tail is defined once, ids 0, 1, 2 ..., before its first P' '
	awk -F "\t" "
		\$1 == \"K\" { if (\$2 != nk++) { print \"id out of order: \" \$0; bad = 1 }
			       t = \$3 \"\t\" \$4 \"\t\" \$5 \"\t\" \$6
			       if (t in seen) { print \"defined twice: \" t; bad = 1 }; seen[t] = 1; def[\$2] = 1 }
		\$1 == \"P\" { if (!(\$7 in def)) { print \"P before its K: \" \$0; bad = 1 } }
		END { exit bad }" ids.s &&
	awk -F "\t" "\$1 == \"S\" { print \$7 \"\t\" \$8 \"\t\" \$9 \"\t\" \$10 }" plain.s |
		LC_ALL=C sort -u | wc -l >want.n &&
	grep -c "^K	" ids.s >got.n &&
	test_cmp want.n got.n
'

test_expect_success 'P and its K are the S record: expanding them gives the plain stream' '
	awk -F "\t" -v OFS="\t" "
		\$1 == \"K\" { t[\$2] = \$3 \"\t\" \$4 \"\t\" \$5 \"\t\" \$6; next }
		\$1 == \"P\" { print \"S\", \$2, \$3, \$4, \$5, \$6, t[\$7]; next }
		{ print }" ids.s >expanded.s &&
	grep -v "^I	" plain.s >want &&
	grep -v "^I	" expanded.s >got &&
	test_cmp want got
'

test_expect_success 'bucket | range | fold: the same records from both streams' '
	chain plain.s >plain.out 2>plain.err &&
	chain ids.s >ids.out 2>ids.err &&
	grep -v "^[SKP]	" plain.out >want &&
	grep -v "^[SKP]	" ids.out >got &&
	test_cmp want got &&
	test_cmp plain.err ids.err
'

test_expect_success 'every sample counted once in the heatmap and once in the folded output' '
	n=$(grep -c "^P	" ids.s) &&
	awk -F "\t" "\$1 == \"H\" { c[\$2 \" \" \$3] = \$4 } END { for (k in c) t += c[k]; print t }" \
		ids.out >heat &&
	awk -F "\t" "\$1 == \"F\" { t += \$2 } END { print t }" ids.out >folded &&
	grep -c "^R	" ids.out >refs &&
	echo "$n" >want && test_cmp want heat && test_cmp want folded && test_cmp want refs
'

# 4000 tails of 1000 frames (9 kB each), one sample each: fp-fold keeps a
# tail's frames until it has folded them, then only its event and comm, so
# the stack-id stream costs it no more memory than the same S records (it
# used to keep all 36 MB of frames besides its folded stacks).
test_expect_success 'fp-fold needs no more memory for K and P records than for S records' '
	awk "BEGIN {
		for (f = 0; f < 999; f++) { kinds = kinds \"u\"; common = common sprintf(\"fn%05d;\", f) }
		kinds = kinds \"u\"
		print \"%flamepipe\t1\" >\"deep.s\"; print \"%flamepipe\t1\" >\"deep.ids\"
		for (i = 0; i < 4000; i++) {
			tail = \"cycles\tapp\t\" kinds \"\t\" common \"leaf\" i
			head = (1e9 + i) \"\t1\t1\t0\t1\"
			print \"S\t\" head \"\t\" tail >\"deep.s\"
			print \"K\t\" i \"\t\" tail >\"deep.ids\"
			print \"P\t\" head \"\t\" i >\"deep.ids\"
		}
	}" &&
	/usr/bin/time -f %M -o plain.kb fp-fold <deep.s >deep-plain.out &&
	/usr/bin/time -f %M -o ids.kb fp-fold <deep.ids >deep-ids.out &&
	test_cmp deep-plain.out deep-ids.out &&
	echo "peak RSS: S records $(cat plain.kb) kB, K and P records $(cat ids.kb) kB" &&
	test "$(cat ids.kb)" -lt $(( $(cat plain.kb) * 5 / 4 ))
'

test_done
