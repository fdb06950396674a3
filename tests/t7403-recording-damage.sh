#!/bin/sh
test_description='a damaged batch of a recording is skipped and counted: every other batch is read'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# A generated recording: 600 one-second batches of 400 samples (240,000),
# each second with stacks of its own. Batch 300 (0-based) is damaged.
awk 'BEGIN { printf "%%flamepipe\t1\n";
	for (s = 0; s < 600; s++) for (i = 0; i < 400; i++)
		printf "S\t%d%09d\t%d\t%d\t0\t1\tcpu-clock\tapp\tuu\tmain;f%d\n",
			1000 + s, i * 2000000, 100 + i % 7, 100 + i % 7, s % 50 }' >gen.S
fp-record --output clean.fp.gz <gen.S >/dev/null || exit 1
fp-read --index clean.fp.gz | grep -v "^#" >clean.ix
test "$(wc -l <clean.ix)" = 600 || { echo "expected 600 batches"; exit 1; }

K=300
# offset, length and samples of batch K, and the offset of batch K+1
OFF=$(awk -v k=$K 'NR == k + 1 { print $1 }' clean.ix)
LEN=$(awk -v k=$K 'NR == k + 1 { print $2 }' clean.ix)
NEXT=$(awk -v k=$K 'NR == k + 2 { print $1 }' clean.ix)
TOTAL=240000

# poke BYTES (printf octal escapes) at OFF + AT of a copy of the recording
poke() { # AT BYTES
	cp clean.fp.gz rec.fp.gz &&
	printf "$2" | dd of=rec.fp.gz bs=1 seek=$((OFF + $1)) conv=notrunc 2>/dev/null
}
# the header's payload starts at byte 16: length +8, min_ns +16, max_ns +24
damage() { # KIND
	case $1 in
	len0) poke 24 '\0\0\0\0\0\0\0\0' ;;
	lenmax) poke 24 '\377\377\377\377\377\377\377\377' ;;
	magic) poke 0 'XX' ;;
	garbage)
		head -c "$NEXT" clean.fp.gz >rec.fp.gz &&
		head -c 700 /dev/urandom | tr '\037' 'x' >>rec.fp.gz &&
		tail -c +$((NEXT + 1)) clean.fp.gz >>rec.fp.gz ;;
	hole)
		cp clean.fp.gz rec.fp.gz &&
		{ fallocate -p -o "$OFF" -l "$LEN" rec.fp.gz 2>/dev/null ||
		  dd if=/dev/zero of=rec.fp.gz bs=1 seek="$OFF" count="$LEN" conv=notrunc 2>/dev/null; } ;;
	minmax) poke 32 '\377\377\377\377\377\377\377\177' ;;
	crc) poke $((LEN - 8)) '\1\2\3\4' ;;
	hugetime) poke 32 '\0\0\0\0\0\0\0\100\0\0\0\0\0\0\0\100' ;;
	esac
}
# samples a damage of KIND loses: the batch's 400, none for bytes between batches
lost() { test "$1" = garbage && echo 0 || echo 400; }

for kind in len0 lenmax magic garbage hole minmax crc hugetime; do
	test_expect_success "$kind: every other batch is read, the skip is told, exit 1" "
		damage $kind &&
		test_must_fail fp-read rec.fp.gz >out 2>err &&
		test \$(grep -c '^S' out) = \$(($TOTAL - \$(lost $kind))) &&
		grep -q 'damaged batches skipped' err &&
		grep -q '^W	read	.*damaged batches skipped' out &&
		grep -q '^I	read	.*damaged_samples=$(lost $kind)	' out
	"
	test_expect_success "$kind: a range after the damage answers in full" "
		damage $kind &&
		fp-read -q --damage-ok --time 1400,1410 rec.fp.gz >out &&
		test \$(grep -c '^S' out) = 4000
	"
done

test_expect_success 'the index lists the batches around the damage and says where it was' '
	damage magic &&
	fp-read --index rec.fp.gz >ix &&
	test "$(grep -vc "^#" ix)" = 599 &&
	grep -q "^# damaged: 1 stretches ([0-9]* bytes, 1 batches, 400 samples) skipped from byte $OFF" ix
'

test_expect_success 'an undamaged recording says nothing and exits 0' '
	fp-read clean.fp.gz >out 2>err &&
	test ! -s err && grep -q "damaged_batches=0" out
'

test_expect_success 'fp-serve: the heatmap and a range after the damage answer, the API counts the skip' '
	mkdir srv && damage crc && cp rec.fp.gz srv/ &&
	start_server srv &&
	test "$(get "/heatmap/?filename=rec.fp.gz")" = 200 &&
	jq -e ".recording.damaged_batches == 1 and .recording.damaged_samples == 400" body &&
	jq -e ".samples == $TOTAL - 400" body &&
	test "$(get "/flamegraph/?filename=rec.fp.gz&start=400&end=410")" = 200 &&
	test "$(tree_total)" = 4000
'

test_expect_success 'fp-serve: damage between batches is counted as a damaged stretch' '
	mkdir srv2 && damage garbage && cp rec.fp.gz srv2/ &&
	start_server srv2 &&
	test "$(get "/heatmap/?filename=rec.fp.gz")" = 200 &&
	jq -e ".recording.damaged_regions == 1 and .recording.damaged_batches == 0" body &&
	jq -e ".samples == $TOTAL" body
'

test_done
