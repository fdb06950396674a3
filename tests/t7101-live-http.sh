#!/bin/sh
test_description='flamepipe live --http: the web view gains columns and the workload while it runs'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
need_perf_sampling 'live web view'
command -v python3 >/dev/null 2>&1 || skip_all 'live web view' 'python3 (the JSON poller) is not installed'

# The poller: waits for the capture to run, starts the workload, then polls
# the JSON API until the workload's function is in the live flame graph,
# under the workload's own comm (the copy of live-spin this script made:
# the capture is system-wide, other tests may run live-spin at the same time).
# Prints the timings and writes "START_NS SHOWN_NS" (CLOCK_MONOTONIC: when
# the workload started, when the API first showed it) to SEEN; exits
# non-zero if a condition is not met.
cat >poll.py <<'PY'
import json, re, subprocess, sys, time, urllib.request
out, spin, target, seen_file = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
comm = spin.rsplit("/", 1)[-1]
def has_frame(t, name):
    return t.get("n") == name or any(has_frame(k, name) for k in t.get("c", []))
def shows_workload(root):
    return any(k.get("n") == comm and has_frame(k, target) for k in root.get("c", []))
deadline = time.monotonic() + 20
url = None
while url is None and time.monotonic() < deadline:
    m = re.search(r"listening on (http://\S+/)", open(out).read())
    url = m.group(1) if m else None
    time.sleep(0.05)
assert url, "fp-serve printed no URL"
def get(path):
    with urllib.request.urlopen(url + path, timeout=10) as r:
        return json.load(r)
profiles = get("profile/")
assert any(p.get("filename") == "live" and p.get("live") for p in profiles), profiles
def heat():
    return get("heatmap/?filename=live")
h = heat()
while len(h["columns"]) == 0 and time.monotonic() < deadline:
    time.sleep(0.1); h = heat()
cols0 = len(h["columns"])
assert cols0 > 0, "no heatmap column before the workload"
assert h.get("ended") is False, h.get("ended")
t0_ns = time.monotonic_ns()
t0 = time.monotonic()
w = subprocess.Popen([spin, "2500"], stdout=subprocess.DEVNULL)
seen = None
while seen is None and time.monotonic() - t0 < 5:
    if shows_workload(get("flamegraph/?filename=live")):
        seen_ns = time.monotonic_ns()
        seen = time.monotonic() - t0
    else:
        time.sleep(0.1)
h = heat()
while len(h["columns"]) <= cols0 and time.monotonic() - t0 < 5:
    time.sleep(0.1); h = heat()
grown = time.monotonic() - t0
w.wait()
print("columns: %d before the workload, %d after %.2f s; workload in the flame graph after %s s; ended=%s"
      % (cols0, len(h["columns"]), grown, seen, h.get("ended")))
assert seen is not None, "workload never appeared in the live flame graph"
with open(seen_file, "w") as f:
    print(t0_ns, seen_ns, file=f)
assert len(h["columns"]) > cols0, "no new heatmap columns"
assert h.get("ended") is False, "the capture had already ended"
PY

# The issue's acceptance: the workload is in the live API within 2 s. The
# sanitizer build (FP_ASAN=1, run-all's asan suite) runs every stage 2-3x
# slower, so there the bound is 5 s; the 2 s target is the normal build's.
BOUND=2
[ "${FP_ASAN:-0}" = 1 ] && BOUND=5
# The 2 s are counted from the workload's first sample, by the sample's own
# timestamp (perf -k CLOCK_MONOTONIC, the poller's clock), not from the
# moment the poller started it: on a loaded machine the scheduler may give
# a new process its first CPU time late, and no profiler can show a
# workload before it has run. The first sample is the earliest of the
# workload in the recording, so the bound is never measured from a later one.
# within_bound SEEN RECORDING: the first sample of the workload (comm
# $WORKLOAD, in $TARGET) is after its start (the clocks agree) and the API
# showed it at most $BOUND s after that sample.
WORKLOAD=fp7101-$$
cp "$SPIN" "$WORKLOAD" || exit 1
within_bound() {
	read start shown <"$1" &&
	first=$(fp-read -q "$2" | awk -F "\t" -v c="$WORKLOAD" -v t="$TARGET" \
		"\$1 == \"S\" && \$8 == c && index(\$10, t) { print \$2; exit }") &&
	test -n "$first" &&
	awk -v s="$start" -v f="$first" -v w="$shown" -v b="$BOUND" "BEGIN {
		printf \"first sample %.3f s after the start; shown %.3f s after the first sample (bound %s s)\\n\",
			(f - s) / 1e9, (w - f) / 1e9, b
		exit !(f >= s && w - f <= b * 1e9) }"
}

test_expect_success "live --http: new columns and the workload appear within $BOUND s of its first sample, before the capture ends" '
	flamepipe live -g --http 127.0.0.1:0 --exit-at-end --dir-file dirf -o rec \
		--perf-arg -k --perf-arg CLOCK_MONOTONIC >out 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	python3 poll.py out "$TRASH/$WORKLOAD" "$TARGET" seen >timing &&
	cat timing &&
	kill -INT $fp &&
	wait $fp &&
	test ! -e "$(cat dirf)" &&
	within_bound seen rec/recording.fp.gz
'

test_expect_success 'live --http --duration --exit-at-end: the server stops when the capture ends' '
	flamepipe live --http 127.0.0.1:0 --duration 2 --exit-at-end >out 2>err &&
	grep -q "listening on http://127.0.0.1:" out
'

test_done
