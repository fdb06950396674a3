#!/bin/sh
test_description='fp-fold tidies frame names as stackcollapse-perf.pl does'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

# tidy.S holds one sample per rule; tidy.folded was checked by hand, line by
# line, and against stackcollapse-perf.pl (the only difference is the
# "(anonymous namespace)::helper" frame, which stackcollapse drops).
test_expect_success 'argument lists, quotes, Go methods, a->b->c, java names' '
	fp-fold --plain --weight period "$D/tidy.S" >out &&
	test_cmp "$D/tidy.folded" out
'

test_expect_success 'arguments are cut at the first parenthesis' '
	grep -qx "prog;main;compute 2" out &&
	grep -qx "prog;main;Foo::operator 1" out
'

test_expect_success 'Go methods keep their parentheses (and arguments)' '
	grep -qx "prog;main;net/http.(\*Client).Do;runtime.(\*mheap).alloc(0x1) 1" out
'

test_expect_success '(anonymous namespace) is kept, at the start of a name too' '
	grep -qx "prog;main;(anonymous namespace)::helper 1" out &&
	grep -qx "prog;main;ns::(anonymous namespace)::f 1" out &&
	grep -qx "prog;main;f 1" out
'

test_expect_success 'a frame starting with any other ( is skipped, like stackcollapse' '
	grep -qx "prog;main;leaf 1" out
'

test_expect_success 'a->b->c becomes a;b_[i];c_[i], trailing -> vanishes, _[i] not doubled' '
	grep -qxF "prog;main;outer;mid_[i];inner_[i] 1" out &&
	grep -qxF "prog;main;tail 1" out &&
	grep -qxF "prog;main;already;b_[i] 1" out
'

test_expect_success 'quotes are deleted' '
	grep -qxF "prog;main;RegExp:[&<>] 1" out
'

test_expect_success 'java comms lose the leading L of class names with a slash' '
	grep -qxF "java;Interpreter;org/mozilla/javascript/ContextFactory:.call;LNoSlash.m;java/lang/Thread:.run 1" out &&
	grep -qxF "notjava;main;Lorg/x/Y:.m 1" out
'

test_expect_success 'a sample without frames folds to its comm alone' '
	grep -qx "prog 1" out
'

test_done
