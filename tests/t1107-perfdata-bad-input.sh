#!/bin/sh
test_description='fp-perfdata on bad input: a clear message, a count in I, no crash, no hang'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
# Bounded: a hang fails the test instead of stalling the suite.
T="timeout 60"

# patch FILE OFFSET BYTES...: overwrites bytes (octal escapes) in place.
patch_bytes() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
u64_at() { od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

test_expect_success 'setup: a capture of a program made here' '
	pd_record ok.data -g -F 999 -- "$TOP/build/tests/busy" 300 t 1000 &&
	fp-perfdata ok.data >ok.s && grep -q "^S	" ok.s
'

test_expect_success 'a truncated file: the samples before the cut, truncated=1, a warning, exit 0' '
	# cut in the middle of the data section (the header says where it is:
	# offset and size at bytes 40 and 48): two thirds of the file fell in
	# the feature sections after it when a loaded machine gave few samples
	off=$(u64_at ok.data 40) && dsize=$(u64_at ok.data 48) &&
	head -c $((off + dsize / 2)) ok.data >cut.data &&
	$T fp-perfdata cut.data >cut.s 2>err &&
	cat err && grep -q "truncated" err &&
	grep -q "^W	read	cut.data:[0-9]*	truncated" cut.s &&
	grep -q "^I	read	.*	truncated=1	" cut.s &&
	n=$(grep -c "^S	" cut.s) && all=$(grep -c "^S	" ok.s) &&
	echo "$n of $all samples" && test "$n" -gt 0 && test "$n" -lt "$all"
'

test_expect_success 'a file cut inside its header: not perf.data, exit 1, no sample' '
	head -c 60 ok.data >short.data &&
	pd_expect_rc 1 $T fp-perfdata short.data >short.s 2>err &&
	cat err && grep -q "corrupt header" err && ! grep -q "^S	" short.s
'

test_expect_success 'a corrupted header (attribute section out of the file): exit 1 with the reason' '
	cp ok.data badattr.data && patch_bytes badattr.data 24 "\377\377\377\377" &&
	pd_expect_rc 1 $T fp-perfdata badattr.data >b.s 2>err &&
	cat err && grep -q "corrupt header: attribute section" err &&
	grep -q "^W	read	badattr.data:24	corrupt header" b.s
'

test_expect_success 'an attribute section not a whole number of entries (one flipped bit): every sample read, a warning, as perf script' '
	# attrs.size (bytes 32-39) + 4: perf reads size / attr_size entries
	size=$(u64_at ok.data 32) && cp ok.data ragged.data &&
	patch_bytes ragged.data 32 "$(printf "\\%o" $(( (size ^ 4) & 255 )))" &&
	test "$(u64_at ragged.data 32)" = $((size ^ 4)) &&
	$T fp-perfdata ragged.data >ragged.s 2>err && cat err &&
	grep -q "not a whole number of" err &&
	grep -q "^W	read	ragged.data:24	corrupt header: the attribute section" ragged.s &&
	perf script -i ragged.data -F tid,time >script.out 2>script.err &&
	echo "perf script: $(wc -l <script.out) samples" &&
	test "$(grep -c "^S	" ragged.s)" = "$(wc -l <script.out)" &&
	grep "^S	" ok.s >a && grep "^S	" ragged.s >b && test_cmp a b
'

test_expect_success 'not perf.data at all: exit 1, says so' '
	echo "hello" >text.data &&
	pd_expect_rc 1 $T fp-perfdata text.data 2>err && cat err &&
	grep -q "not a perf.data file" err
'

test_expect_success 'an unknown record type is skipped and counted, the rest is read' '
	off=$(u64_at ok.data 40) && cp ok.data unk.data &&
	patch_bytes unk.data "$off" "\310\000\000\000" &&
	$T fp-perfdata unk.data >unk.s 2>err && cat err &&
	grep -q "unknown record type 200" err &&
	grep -q "^I	read	.*	unknown_records=1	" unk.s &&
	test "$(grep -c "^S	" unk.s)" = "$(grep -c "^S	" ok.s)"
'

test_expect_success 'a binary deleted after the recording (no build-ids recorded): named as perf script names it' '
	cat >gone.c <<-CC &&
	#include <time.h>
	volatile unsigned long sink_$$;
	__attribute__((noinline)) void gone_spin(void) { for (int i = 0; i < 1000000; i++) sink_$$ += i; }
	int main(void) { clock_t end = clock() + CLOCKS_PER_SEC / 2; while (clock() < end) gone_spin(); return 0; }
	CC
	cc -O1 -fno-omit-frame-pointer -o gone gone.c &&
	pd_record gone.data --no-buildid --no-buildid-cache -g -F 999 -- ./gone && rm gone &&
	pd_compare gone.data &&
	$T fp-perfdata gone.data >g.s 2>err && cat err &&
	grep -q "cannot read .*/gone (No such file or directory)" err &&
	grep -q "^I	read	.*	missing_dsos=1	" g.s &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"gone\"" g.s | grep -q "\[gone\]"
'

test_expect_success 'a binary rebuilt after the recording: its symbols from perf build-id cache' '
	cat >moved.c <<-CC &&
	volatile unsigned long sink_$$;
	__attribute__((noinline)) void moved_spin(void) { for (int i = 0; i < 1000000; i++) sink_$$ += i; }
	int main(void) { for (int k = 0; k < 400; k++) moved_spin(); return 0; }
	CC
	cc -O1 -fno-omit-frame-pointer -o moved moved.c &&
	pd_record moved.data -g -F 999 -- ./moved &&
	echo "int main(void) { return 0; }" >moved.c && cc -o moved moved.c &&
	pd_compare moved.data &&
	fp-perfdata moved.data | grep -q "	moved	.*;moved_spin"
'

test_done
