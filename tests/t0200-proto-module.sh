#!/bin/sh
test_description='the protocol is one code module: no tag dispatch outside fifo/, a parser without libev'
. "$(dirname "$0")/test-lib.sh"

# Hand-written record tests: a tag letter compared with a line's first
# byte, a switch on it, the FP_TAG_ letters, or a record spelled as a
# string ("C\treset", "W\t..."). Outside fifo/ every one of them is a
# second copy of the protocol (fifo/fp_record.h has the one).
TAGS='[SGHFECWIDRKP%]'
PATTERNS="\\[0\\] *[!=]= *'$TAGS'
switch *\\( *[a-z_>.-]*line\\[0\\] *\\)
FP_TAG_
\"(\\\\n)?[SGHFECWIDRKP]\\\\t
and was restarted\", *[0-9]"

tag_dispatch() { # the offending lines, file:line: text
	printf '%s\n' "$PATTERNS" >patterns &&
	(cd "$TOP" && grep -rnE -f "$OLDPWD/patterns" --include='*.c' --include='*.h' \
		lib recording fold perf stages render web runner tests/helper)
}

test_expect_success 'the grep finds a hand-written tag test (it can fail)' '
	mkdir -p probe && printf "%s\n" "if (line[0] == '\''S'\'') x();" "fp_out_str(o, \"C\\treset\\n\");" \
		"switch (line[0]) {" "if (p[0] != FP_TAG_CONTROL)" >probe/x.c &&
	printf "%s\n" "$PATTERNS" >pat &&
	test "$(grep -cE -f pat probe/x.c)" = 4
'

test_expect_success 'no record tag is dispatched by hand outside fifo/' '
	tag_dispatch >found
	if test -s found; then cat found; false; fi
'

test_expect_success 'fp_record.h and its parsers do not include libev' '
	for f in fifo/fp_record.c fifo/fp_records.c fifo/fp_recwrite.c; do
		${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/lib" -I"$TOP/fifo" -M "$TOP/$f" >deps || return 1
		! grep -q "ev\\.h\|fp_io\\.h" deps || { echo "$f pulls in libev"; return 1; }
	done
'

test_expect_success 'the protocol unit tests link without libev' '
	${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP/lib" -I"$TOP/fifo" -o u-proto-noev "$TOP/tests/unit/u-proto.c" \
		"$TOP/fifo/fp_record.c" "$TOP/fifo/fp_records.c" "$TOP/fifo/fp_recwrite.c" \
		"$TOP/lib/fp_error.c" "$TOP/lib/fp_num.c" -lcmocka &&
	./u-proto-noev >out 2>&1 || { cat out; false; }
'

test_done
