# shellcheck shell=sh
# tests/lib-read.sh: the fp-read tests' goldens (t1000-t1004). Source after
# test-lib.sh.
#
#	$D                 tests/data/read: NAME.perf inputs, NAME.expect outputs
#	read_golden NAME   fp-read -q NAME.perf, run in $D so that W records
#	                   name the file as the golden does, equals NAME.expect;
#	                   the output stays in ./out
#	read_fields_are FIELDS FORMAT [FILE]
#	                   the fields FIELDS (cut -f) of the S records of
#	                   fp-read FILE (default t.perf) are exactly the lines
#	                   printf FORMAT gives
#	read_warned WHERE MESSAGE
#	                   fp-read's ./out has the W record `W read WHERE
#	                   MESSAGE` and ./err the line `fp-read: WHERE:
#	                   MESSAGE` (MESSAGE a grep pattern of the whole text)
D=$DATA/read

read_fields_are() { # fields format [file]
	fp-read "${3:-t.perf}" | grep "^S	" | cut -f "$1" >got &&
	printf "$2" >expect &&
	test_cmp expect got
}

read_warned() { # where message
	grep -q "^W	read	$1	$2\$" out &&
	grep -q "^fp-read: $1: $2\$" err
}

read_golden() {
	(cd "$D" && fp-read -q "$1.perf") >out &&
	test_cmp "$D/$1.expect" out
}
