#!/bin/sh
# mixed.sh: the bench's mixed system-wide load, for SECONDS (default 30):
# every kind of program a production host runs at once, each in its own
# process, so a `perf record -a -g` of it has many unique stacks from
# compilers (gcc building flamepipe), interpreters (python3, perl), a C++
# service (cxxload), deep recursion (deep), a C service with syscalls
# (load), and coreutils through pipes (sort, gzip). Not part of the product.
#
#	bench/loads/mixed.sh SECONDS BINDIR
#
# BINDIR holds the compiled loads (load, deep, cxxload); the compiler
# builds this checkout into a temporary directory, again and again.
set -u
# its own process group, so the end can stop every load with kill 0 and
# nothing else (not the perf record that runs it)
if [ -z "${MIXED_LEADER:-}" ]; then
	MIXED_LEADER=1 exec setsid -w "$0" "$@"
fi
seconds=${1:-30} bin=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
# the end stops every load of the group but not itself, and exits 0: perf
# record passes on a workload's death by signal as its own
trap 'trap "" TERM; kill 0 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 0' INT TERM
end=$(( $(date +%s) + seconds ))
until_end() { while [ "$(date +%s)" -lt "$end" ]; do "$@" || true; done; }

until_end sh -c "rm -rf '$tmp/b' '$tmp/bin'; make -s -C '$root' BUILD='$tmp/b' BIN='$tmp/bin' -j2 all >/dev/null 2>&1" &
until_end python3 -c '
import json, re, random, time
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + 5
while time.time() < end:
    doc = [{"id": i, "name": "item%d" % random.randrange(10**6), "tags": list(range(i % 7))} for i in range(2000)]
    back = json.loads(json.dumps(doc))
    sum(len(re.findall(r"item(\d+)", d["name"])) for d in back)
    fib(18)
' &
until_end perl -e '
my $t = time + 5;
while (time < $t) { my $s = join(" ", map { int(rand(1e6)) } 1..20000); my @m = ($s =~ /(\d{3})(\d+)/g); my %h; $h{$_}++ for @m; }
' &
until_end "$bin/cxxload" 5 &
until_end "$bin/deep" 5 &
until_end "$bin/load" 5 &
until_end sh -c 'seq 1 300000 | sort -R | gzip -1 >/dev/null' &
sleep "$seconds"	# then the trap stops every load mid-run
exit 0
