#!/bin/sh
test_description='flamepipe live --http: the web view gains columns and the workload while it runs'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
need_perf_sampling 'live web view'
command -v python3 >/dev/null 2>&1 || skip_all 'live web view' 'python3 (the JSON poller) is not installed'

# The poller: waits for the capture to run, starts the workload, then polls
# the JSON API until the workload's function is in the live flame graph.
# Prints the timings; exits non-zero if a condition is not met.
cat >poll.py <<'PY'
import json, re, subprocess, sys, time, urllib.request
out, spin, target, bound = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
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
t0 = time.monotonic()
w = subprocess.Popen([spin, "2500"], stdout=subprocess.DEVNULL)
seen = None
while seen is None and time.monotonic() - t0 < 5:
    fg = json.dumps(get("flamegraph/?filename=live"))
    if target in fg:
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
assert seen <= bound, "workload appeared after %.2f s (more than %g s)" % (seen, bound)
assert len(h["columns"]) > cols0, "no new heatmap columns"
assert h.get("ended") is False, "the capture had already ended"
PY

# The issue's acceptance: within 2 s of the workload starting. The
# sanitizer build (FP_ASAN=1, run-all's asan suite) runs every stage 2-3x
# slower, so there the bound is 5 s; the 2 s target is the normal build's.
BOUND=2
[ "${FP_ASAN:-0}" = 1 ] && BOUND=5

test_expect_success "live --http: new columns and the workload appear within $BOUND s, before the capture ends" '
	flamepipe live -g --http 127.0.0.1:0 --dir-file dirf >out 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	python3 poll.py out "$SPIN" flamepipe_live_spin_target $BOUND >timing &&
	cat timing &&
	kill -INT $fp &&
	wait $fp &&
	test ! -e "$(cat dirf)"
'

test_expect_success 'live --http --duration: the server stops when the capture ends' '
	flamepipe live --http 127.0.0.1:0 --duration 2 >out 2>err &&
	grep -q "listening on http://127.0.0.1:" out
'

test_done
