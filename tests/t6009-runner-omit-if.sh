#!/bin/sh
test_description='flamepipe: omit-if= leaves a stage out and joins its neighbours; flamepipe report runs no fp-range when nothing is selected'
. "$(dirname "$0")/test-lib.sh"

CAP=$EXAMPLES/multiproc.perf.gz

test_expect_success 'omit-if= with an empty value keeps the stage' '
	printf "read fp-read\nmid omit-if=\${SKIP:-} fp-bucket\nfold fp-fold\n" >p &&
	flamepipe check p >out && cat out &&
	test "$(cut -f1 out | tr "\n" " ")" = "read mid fold "
'

test_expect_success 'omit-if= with a value leaves the stage out' '
	flamepipe check p -D SKIP=1 >out && cat out &&
	test "$(cut -f1 out | tr "\n" " ")" = "read fold "
'

test_expect_success 'an omitted stage'"'"'s neighbours are joined: the chain gives what it gives without it' '
	zcat "$CAP" >cap.perf &&
	printf "read fp-read \${INPUT}\nfold fp-fold\n" >two &&
	printf "read fp-read \${INPUT}\nmid omit-if=\${SKIP:-} sh -c \"exit 3\"\nfold fp-fold\n" >three &&
	flamepipe run two --input cap.perf >want &&
	flamepipe run three --input cap.perf -D SKIP=1 >got &&
	grep -q "^F	" want && test_cmp want got
'

test_expect_success 'omit-if=... is a setting: a stage of settings alone still needs its program' '
	printf "read fp-read\nmid omit-if=1\n" >p &&
	{ flamepipe check p 2>err; test $? = 100; } && cat err &&
	grep "^flamepipe: p:2: stage .mid.: expected a program after the stage name" err
'

test_expect_success 'flamepipe report with no range and no filter runs no fp-range' '
	flamepipe report -q "$CAP" -o all &&
	! grep -q "<th>range</th>" all/index.html &&
	grep -q "<th>fold</th>" all/index.html
'

test_expect_success 'flamepipe report with a range or a filter runs fp-range' '
	flamepipe report -q "$CAP" -o from --from 0.5 &&
	grep -q "<th>range</th>" from/index.html &&
	flamepipe report -q "$CAP" -o comm --comm mp-crc32 &&
	grep -q "<th>range</th>" comm/index.html
'

test_expect_success '-D NO_RANGE= keeps fp-range, and the files are the same without it' '
	flamepipe report -q "$CAP" -o kept -D NO_RANGE= --format all &&
	grep -q "<th>range</th>" kept/index.html &&
	flamepipe report -q "$CAP" -o left --format all &&
	for f in kept/*; do
		case $f in */index.html) continue ;; esac
		test_cmp "$f" "left/${f#kept/}" || return 1
	done
'

test_done
