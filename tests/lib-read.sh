# tests/lib-read.sh: the fp-read tests' goldens (t1000-t1004). Source after
# test-lib.sh.
#
#	$D                 tests/data/read: NAME.perf inputs, NAME.expect outputs
#	read_golden NAME   fp-read -q NAME.perf, run in $D so that W records
#	                   name the file as the golden does, equals NAME.expect;
#	                   the output stays in ./out
D=$DATA/read

read_golden() {
	(cd "$D" && fp-read -q "$1.perf") >out &&
	test_cmp "$D/$1.expect" out
}
