#!/bin/sh
test_description='fp-perfdata reads perf record -z captures (zstd COMPRESSED records), file and pipe format, and never skips samples silently'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
T="timeout 60"
TOPIPE=$TOP/build/tests/pd-topipe

u64_at() { od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
# The offset of the first record of TYPE in a perf.data file's data section.
record_at() { # file type
	_off=$(u64_at "$1" 40) _end=$(($(u64_at "$1" 40) + $(u64_at "$1" 48)))
	while [ "$_off" -lt "$_end" ]; do
		_type=$(od -A n -t u4 -j "$_off" -N 4 "$1" | tr -d ' ')
		_size=$(od -A n -t u2 -j $((_off + 6)) -N 2 "$1" | tr -d ' ')
		[ "$_type" = "$2" ] && { echo "$_off"; return 0; }
		[ "$_size" -gt 0 ] || return 1
		_off=$((_off + _size))
	done
	return 1
}

test_expect_success 'setup: a -z capture of a program made here' '
	pd_record z.data -z -g -F 999 -- "$BUSY" 300 t 1000 &&
	off=$(record_at z.data 81) && echo "first COMPRESSED record at $off"
'

test_expect_success 'file format: the samples and stacks of perf script' '
	pd_compare z.data &&
	grep -q "^I	read	.*	compressed_records=[1-9][0-9]*	compressed_unread=0	" got.s
'

test_expect_success 'pipe format (the records kept compressed): the samples and stacks of perf script' '
	"$TOPIPE" z.data >zpipe.data &&
	pd_compare zpipe.data
'

test_expect_success 'pipe format from a pipe: the S records of the file' '
	cat zpipe.data | $T fp-perfdata >from-pipe.s &&
	fp-perfdata z.data >from-file.s &&
	grep "^S	" from-pipe.s >a && grep "^S	" from-file.s >b &&
	test -s a && test_cmp b a
'

test_expect_success 'a system-wide -z capture (records cut across COMPRESSED records): the same samples as perf script' '
	pd_record_opts "" zsys.data -z -a -g -F 999 -- "$BUSY" 300 times 2000 &&
	PD_OWN_PIDS=$(cut -d " " -f 3 times) pd_compare zsys.data &&
	"$TOPIPE" zsys.data >zsys-pipe.data &&
	PD_OWN_PIDS=$(cut -d " " -f 3 times) pd_compare zsys-pipe.data
'

test_expect_success 'a damaged zstd stream: its samples counted as skipped, said, exit 1 when nothing was read' '
	off=$(record_at z.data 81) && cp z.data zbad.data &&
	# the zstd frame magic at the start of the first compressed data
	printf "\\377\\377\\377\\377" | dd of=zbad.data bs=1 seek=$((off + 8)) conv=notrunc status=none &&
	pd_expect_rc 1 $T fp-perfdata zbad.data >bad.s 2>err && cat err &&
	grep -q "cannot be decompressed" err &&
	grep -q "compressed records not decompressed" err &&
	grep -q "no usable sample read" err &&
	grep -q "^W	read	zbad.data	.* samples skipped" bad.s &&
	grep -q "^I	read	.*	compressed_unread=[1-9]" bad.s &&
	! grep -q "^S	" bad.s
'

test_expect_success 'samples of an unknown event id: skipped, counted and said, exit 1 when none is left' '
	# two events (samples then carry their event id), every id in the
	# attribute section changed: every sample names an unknown one
	pd_record two.data -e cpu-clock -e task-clock -F 999 -- "$BUSY" 100 t 1000 &&
	cp two.data noid.data && asz=$(u64_at two.data 16) && a=$(u64_at two.data 24) &&
	aend=$((a + $(u64_at two.data 32))) && changed=0 &&
	while [ "$a" -lt "$aend" ]; do
		ids=$(u64_at two.data $((a + asz - 16))) && n=$(($(u64_at two.data $((a + asz - 8))) / 8)) &&
		i=0 &&
		while [ $i -lt "$n" ]; do
			printf "\\377\\377\\377\\177" |
				dd of=noid.data bs=1 seek=$((ids + 8 * i + 4)) conv=notrunc status=none
			i=$((i + 1)) changed=$((changed + 1))
		done
		a=$((a + asz))
	done &&
	echo "$changed ids changed" && test "$changed" -gt 1 &&
	pd_expect_rc 1 $T fp-perfdata noid.data >noid.s 2>err && tail -n 3 err &&
	grep -q "samples skipped ([1-9][0-9]* with an unknown event id" err &&
	grep -q "^I	read	.*	skipped_samples=[1-9]" noid.s &&
	! grep -q "^S	" noid.s
'

test_done
