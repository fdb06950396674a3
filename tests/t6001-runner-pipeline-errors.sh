#!/bin/sh
test_description='flamepipe: pipeline file errors name file:line and what was expected; exit 100; nothing left behind'
. "$(dirname "$0")/test-lib.sh"

TMPDIR=$TRASH/tmp && export TMPDIR && mkdir -p "$TMPDIR"

# expect_error FILE MESSAGE-REGEX: run and check both refuse with it.
expect_error() {
	for cmd in check run; do
		timeout 10 flamepipe $cmd "$1" --input /dev/null >out 2>err
		rc=$?
		cat err
		test $rc = 100 || { echo "$cmd: exit $rc, expected 100"; return 1; }
		grep -E "$2" err || return 1
	done
	test -z "$(ls "$TMPDIR")" || { echo "left behind: $(ls "$TMPDIR")"; return 1; }
}

test_expect_success 'unknown program: file:line, stage and program named' '
	printf "# comment\nread fp-read \${INPUT}\n\nfold fp-nosuchstage\n" >p &&
	expect_error p "^flamepipe: p:4: stage .fold.: program .fp-nosuchstage. not found"
'

test_expect_success 'a program path that is not executable' '
	printf "read fp-read\nx ./notexec\n" >p && echo hi >notexec &&
	expect_error p "^flamepipe: p:2: stage .x.: program .\\./notexec. is not an executable file"
'

test_expect_success 'bad restart policy' '
	printf "read fp-read\nfold restart=sometimes fp-fold\n" >p &&
	expect_error p "^flamepipe: p:2: stage .fold.: bad restart policy .sometimes. \(expected never, on-failure or always\)"
'

test_expect_success 'bad retries' '
	printf "read fp-read\nfold restart=always retries=-1 fp-fold\n" >p &&
	expect_error p "^flamepipe: p:2: stage .fold.: bad retries .-1."
'

test_expect_success 'unknown setting (a typo) is not taken for the program' '
	printf "read fp-read\nfold restrat=always fp-fold\n" >p &&
	expect_error p "^flamepipe: p:2: stage .fold.: unknown setting .restrat."
'

test_expect_success 'unterminated quote: the line of the logical line is given' '
	printf "read fp-read\n\nfold fp-fold \"--weight\n" >p &&
	expect_error p "^flamepipe: p:3: unterminated \"...\""
'

test_expect_success 'a continued line reports its first line' '
	printf "read fp-read \\\\\n  --name r\nfold fp-fold '\''x\n" >p &&
	cat p &&
	expect_error p "^flamepipe: p:3: unterminated '\''...'\''"
'

test_expect_success 'undefined variable' '
	printf "read fp-read \${NOPE}\n" >p &&
	expect_error p "^flamepipe: p:1: undefined variable \\$\\{NOPE\\} \(define it with -D NOPE=VALUE\)"
'

test_expect_success 'duplicate stage name' '
	printf "a cat\nb cat\na cat\n" >p &&
	expect_error p "^flamepipe: p:3: stage .a. is defined twice"
'

test_expect_success 'bad stage name' '
	printf "a cat\n-b cat\n" >p &&
	expect_error p "^flamepipe: p:2: bad stage name .-b."
'

test_expect_success 'a stage with no program' '
	printf "a cat\nb restart=always\n" >p &&
	expect_error p "^flamepipe: p:2: stage .b.: expected a program"
'

test_expect_success 'no stages at all' '
	printf "# only a comment\n\n" >p &&
	expect_error p "^flamepipe: p:2: no stages"
'

test_expect_success 'a NUL byte' '
	printf "a cat\nb c\000at\n" >p &&
	expect_error p "a NUL byte"
'

test_expect_success 'missing pipeline file' '
	expect_error nosuch.pipeline "cannot open pipeline file nosuch.pipeline: No such file"
'

test_expect_success 'a list variable inside a word' '
	printf "a cat x\${FOLD_ARGS}y\n" >p &&
	expect_error p "^flamepipe: p:1: list variable .\\{FOLD_ARGS\\} must stand alone"
'

test_expect_success 'check prints the expanded stages of a good file' '
	printf "read fp-read \${READ_ARGS} \${INPUT}\nfold restart=on-failure retries=3 fp-fold \"\${FOLD_ARGS}\"\n" >p &&
	flamepipe check p -A READ_ARGS=-q -A FOLD_ARGS=--pid -A FOLD_ARGS=--kernel --input in.perf >out &&
	printf "read\trestart=never\tretries=5\t$FP_BIN/fp-read\tfp-read\t-q\tin.perf\nfold\trestart=on-failure\tretries=3\t$FP_BIN/fp-fold\tfp-fold\t--pid --kernel\n" >expect &&
	test_cmp expect out
'

test_expect_success 'every shipped pipeline checks (live ones need their command'\''s variables)' '
	for p in "$EXAMPLES"/*.pipeline; do
		flamepipe check "$p" >/dev/null 2>err && continue
		cat err
		case $(basename "$p") in
		live*) grep -q "undefined variable" err && continue ;;
		esac
		echo "bad: $p"; exit 1
	done &&
	flamepipe check "$EXAMPLES/default.pipeline" >/dev/null &&
	flamepipe check "$EXAMPLES/awk-stage.pipeline" >/dev/null
'

test_expect_success 'usage errors exit 100' '
	test_expect_code() { want=$1; shift; "$@"; rc=$?; test $rc = $want || { echo "exit $rc: $*"; return 1; }; } &&
	test_expect_code 100 flamepipe run --rows 0 &&
	test_expect_code 100 flamepipe run --drain-timeout x &&
	test_expect_code 100 flamepipe run -D 1X=2 &&
	test_expect_code 100 flamepipe run -D FIFODIR=/tmp &&
	test_expect_code 100 flamepipe nosuchcommand &&
	test_expect_code 100 flamepipe report &&
	test_expect_code 100 flamepipe ctl
'
test_done
