#!/bin/sh
test_description='fp-read --stack-ids looks each tail up two samples later (its slot and string asked for meanwhile): the stream is the same, and a pausing input still gets every sample out at once'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: perf script text of several processes, its plain S stream' '
	zcat "$EXAMPLES/multiproc.perf.gz" >mp.perf &&
	fp-read mp.perf >plain.s &&
	test "$(grep -c "^S	" plain.s)" -gt 1000
'

# K and P back into S records (the K text after the P head).
expand() {
	awk -F "\t" -v OFS="\t" "\$1 == \"K\" { t[\$2] = \$3 OFS \$4 OFS \$5 OFS \$6; next }
		\$1 == \"P\" { print \"S\", \$2, \$3, \$4, \$5, \$6, t[\$7]; next } { print }" "$1"
}

test_expect_success 'from a file (held back) and from a pipe: the plain stream, in order' '
	fp-read --stack-ids mp.perf >file.ids &&
	cat mp.perf | fp-read --stack-ids >pipe.ids &&
	test_cmp file.ids pipe.ids &&
	expand file.ids >file.s &&
	test_cmp plain.s file.s
'

test_expect_success 'warnings keep their place among the samples held back' '
	{ head -n 200 mp.perf; printf "this is not perf script\\n\\n"; tail -n +201 mp.perf; } >bad.perf &&
	fp-read -q bad.perf >bad.plain &&
	fp-read -q --stack-ids bad.perf >bad.ids &&
	grep -q "^W	" bad.ids &&
	expand bad.ids >bad.s &&
	test_cmp bad.plain bad.s
'

test_expect_success 'a pausing input: the samples it gave come out before it goes on' '
	awk "BEGIN { RS = \"\"; ORS = \"\\n\\n\" } NR <= 3" mp.perf >first.perf &&
	test "$(fp-read first.perf | grep -c "^S	")" = 3 &&
	mkfifo in &&
	{ fp-read --stack-ids <in >out & echo $! >pid; } &&
	exec 3>in &&
	test_when_finished "exec 3>&-; kill \$(cat pid) 2>/dev/null" &&
	cat first.perf >&3 &&
	wait_for "test \$(grep -c \"^P	\" out) = 3" 100 &&
	exec 3>&- &&
	wait "$(cat pid)"
'

test_done
