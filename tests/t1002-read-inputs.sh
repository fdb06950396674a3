#!/bin/sh
test_description='fp-read: gzip, stdin, FIFO and CRLF inputs give byte-identical output to a plain file'
. "$(dirname "$0")/test-lib.sh"

# Plain copies of every bundled capture, and of the hand-made read data.
for f in "$EXAMPLES"/*.perf.gz; do
	zcat "$f" >"$(basename "$f" .gz)"
done
cp "$DATA"/read/*.perf .

inputs=$(ls *.perf)

# fp-read, with the input name in W records (file:line) made neutral: the
# only part of the output that may differ between input forms.
read_as() { # out-file fp-read-args...
	_o=$1; shift
	fp-read "$@" | sed "s/^W	read	[^	]*:\([0-9]*\)	/W	read	INPUT:\1	/" >"$_o"
}

test_expect_success 'gzip file = plain file' '
	for f in $inputs; do
		read_as plain.out "$f" && gzip -c "$f" >"$f.gz" &&
		read_as gz.out "$f.gz" && test_cmp plain.out gz.out || return 1
	done
'

test_expect_success 'the bundled .perf.gz files as shipped = their plain text' '
	for f in "$EXAMPLES"/*.perf.gz; do
		b=$(basename "$f" .gz) &&
		read_as plain.out "$b" && cp "$f" "$b.gz" && read_as gz.out "$b.gz" &&
		test_cmp plain.out gz.out || return 1
	done
'

test_expect_success 'stdin (plain and gzip) = plain file' '
	for f in $inputs; do
		read_as plain.out "$f" &&
		read_as stdin.out <"$f" && test_cmp plain.out stdin.out &&
		gzip -c "$f" | read_as stdin-gz.out && test_cmp plain.out stdin-gz.out &&
		cat "$f" | read_as pipe.out - && test_cmp plain.out pipe.out || return 1
	done
'

test_expect_success 'a FIFO (plain and gzip) = plain file' '
	mkfifo fifo &&
	for f in $inputs; do
		read_as plain.out "$f" &&
		{ cat "$f" >fifo & } && read_as fifo.out fifo && wait &&
		test_cmp plain.out fifo.out &&
		{ gzip -c "$f" >fifo & } && read_as fifo-gz.out fifo && wait &&
		test_cmp plain.out fifo-gz.out || return 1
	done
'

test_expect_success 'a FIFO written in small pieces with pauses = plain file' '
	f=multiproc.perf && read_as plain.out "$f" &&
	mkfifo slow &&
	{ { head -c 100000 "$f"; sleep 0.2; tail -c +100001 "$f"; } >slow & } &&
	fp-read slow >slow.out && wait &&
	test_cmp plain.out slow.out
'

test_expect_success 'concatenated gzip members = one plain file' '
	f=multiproc.perf && read_as plain.out "$f" &&
	n=$(wc -l <"$f") && half=$((n / 2)) &&
	{ head -n $half "$f" | gzip -c; tail -n +$((half + 1)) "$f" | gzip -c; } >two.gz &&
	fp-read two.gz >two.out && test_cmp plain.out two.out
'

test_expect_success 'CRLF line ends = LF line ends (apart from bytes=)' '
	for f in $inputs; do
		read_as lf.out "$f" && sed -i "s/	bytes=[0-9]*\$//" lf.out &&
		sed "s/\$/\r/" "$f" >crlf.perf &&
		read_as crlf.out crlf.perf && sed -i "s/	bytes=[0-9]*\$//" crlf.out &&
		test_cmp lf.out crlf.out || return 1
	done
'

test_expect_success 'bytes= is the size of the perf text, whatever the input form' '
	f=demo-clockloop.perf &&
	size=$(wc -c <"$f") &&
	gzip -c "$f" | fp-read | grep -q "^I	read	.*	bytes=$size\$"
'

# Found by fuzz-read (tests/fuzz/regress/fuzz-read/early-stop-*): fp-read
# gives up on input that is not perf script, and bytes= then counted what
# had been read ahead, which depended on the input form.
test_expect_success 'input that is not perf script: the same output from a file, a pipe and gzip' '
	{ printf "\tjunk frame\n"; for i in $(seq 30); do echo "not perf $i"; done; } >junk.perf &&
	test_must_fail fp-read -q <junk.perf >file.out &&
	cat junk.perf | test_must_fail fp-read -q >pipe.out &&
	gzip -c junk.perf | test_must_fail fp-read -q >gz.out &&
	test_cmp file.out pipe.out && test_cmp file.out gz.out &&
	grep -q "	bad_lines=10	.*	bytes=$(head -n 10 junk.perf | wc -c)\$" file.out
'

test_expect_success 'a truncated gzip: the samples before the damage, exit 1, the file named' '
	head -c 20000 "$EXAMPLES/multiproc.perf.gz" >cut.gz &&
	test_must_fail fp-read cut.gz >out 2>err &&
	grep -q "^S	" out && grep -q "^I	read	" out &&
	cat err && grep -q "cut.gz" err && grep -q "truncated gzip" err
'

test_done
