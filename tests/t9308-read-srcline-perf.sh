#!/bin/sh
test_description='a real perf capture with inlined frames: kind i from the srcline marker, --srcline folding (issue 14 #7)'
. "$(dirname "$0")/test-lib.sh"
test_tags perf

# inner() is always inlined into outer(): with --call-graph dwarf perf
# prints it as its own frame, without a dso, and with -F +srcline the
# "(inlined)" marker goes on its srcline line.
cat >x.c <<'C'
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long inner(unsigned long i)
{
	unsigned long s = 0;
	for (int k = 0; k < 100; k++)
		s += (i * k) ^ (s >> 3);
	return s;
}
__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	unsigned long t = 0;
	for (unsigned long i = 0; i < n; i++)
		t += inner(i);
	return t;
}
int main(void)
{
	for (int r = 0; r < 2000; r++)
		sink += outer(100000);
	return 0;
}
C

if ! command -v perf >/dev/null 2>&1 || ! ${CC:-cc} -O2 -g -o x x.c 2>cc.err; then
	test_skip 'real capture' 'perf or a C compiler is not installed'
	test_done
fi
if ! perf record -q --no-bpf-event -F 999 --call-graph dwarf -o x.data ./x 2>record.err ||
   ! perf script -i x.data -F +srcline --inline >sl.perf 2>script.err || ! grep -q "(inlined)" sl.perf; then
	cat record.err script.err >&2
	test_skip 'real capture' "perf could not record inlined frames here: $(head -n 1 record.err)"
	test_done
fi

test_expect_success 'inner has kind i (its marker is on the srcline line), never x' '
	fp-read sl.perf >s &&
	n=$(grep -c "^S	" s) && test "$n" -gt 3 &&
	awk -F "\t" "\$1 == \"S\" && \$10 ~ /;inner\$/ { k = substr(\$9, length(\$9)); c[k]++ }
	     END { for (k in c) print k, c[k] }" s >kinds &&
	cat kinds && test "$(wc -l <kinds)" = 1 && grep -q "^i " kinds
'

test_expect_success 'fp-fold --all: inner_[i]; --srcline: inner:x.c:N' '
	fp-fold --all --plain <s >all.folded &&
	grep -q ";outer;inner_\[i\] [0-9]*\$" all.folded &&
	fp-read --srcline sl.perf | fp-fold --plain >sl.folded &&
	grep -q ";outer:x.c:[0-9]*;inner:x.c:[0-9]* [0-9]*\$" sl.folded &&
	test "$(awk "{ t += \$NF } END { print t }" sl.folded)" = "$(awk "{ t += \$NF } END { print t }" all.folded)"
'

test_expect_success 'flamepipe report --read-arg --srcline folds by source line' '
	flamepipe report -q --read-arg --srcline sl.perf -o o &&
	grep -q ";inner:x.c:[0-9]* [0-9]*\$" o/stacks.folded
'

test_done
