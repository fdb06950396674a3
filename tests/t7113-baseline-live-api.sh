#!/bin/sh
test_description='fp-serve live view: /live/flamegraph?baseline= shows what grew and shrank, by share, while the capture runs'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-baseline.sh"
test_tags perf
need_perf_sampling 'live baseline API'
command -v python3 >/dev/null 2>&1 || skip_all 'live baseline API' 'python3 (the JSON poller) is not installed'

# The poller: waits for fp-serve's URL and the workload's switch (its
# mark), then asks the live flame graph against the first 2 s of the
# capture (and against an earlier capture in the served directory) over
# the last second, until the new function leads what grew by more than 40
# points; prints how long after the switch that was. Exits non-zero if a condition is not met.
cat >poll.py <<'PY'
import json, os, re, sys, time, urllib.request, urllib.error
out, mark, new, old = sys.argv[1:5]
deadline = time.monotonic() + 30
url = None
while url is None and time.monotonic() < deadline:
    m = os.path.exists(out) and re.search(r"listening on (http://\S+/)", open(out).read())
    url = m.group(1) if m else None
    time.sleep(0.05)
assert url, "fp-serve printed no URL"
def get(q):
    with urllib.request.urlopen(url + "live/flamegraph?name=live&" + q, timeout=10) as r:
        return json.load(r)
def status(q):
    try:
        get(q); return 200
    except urllib.error.HTTPError as e:
        json.load(e); return e.code
while not os.path.exists(mark) and time.monotonic() < deadline:
    time.sleep(0.05)
assert os.path.exists(mark), "the workload never switched"
switch = int(open(mark).read().split()[1]) / 1e9
def leads(j):  # first in what grew, by > 40 points (the window is partly before the switch at first)
    g = j["baseline"]["grew"]
    return g and g[0]["name"] == new and g[0]["points"] > 40
def old_shrank(j):  # and the old one shrank by as much (a slow run's window lags)
    return any(k["name"] == old and k["points"] < -40 for k in j["baseline"]["shrank"])
for q in ("baselineStart=0&baselineEnd=2&window=1", "baseline=before.data&window=1"):
    j = None
    while time.monotonic() < deadline:
        j = get(q)
        if leads(j) and old_shrank(j):
            break
        time.sleep(0.2)
    seen = time.time() - switch
    b = j["baseline"]
    print("%s: %s leads what grew %.2f s after the switch: %s" % (q, new, seen, b["grew"][0]))
    assert leads(j), b
    assert b["by"] == "function" and b["grew"][0]["points"] > 40 and b["grew"][0]["base"] == 0, b
    assert any(k["name"] == old and k["points"] < -40 for k in b["shrank"]), b["shrank"]
    assert b["samples"] > 0 and b["now_samples"] > 0, b
    assert "delta" in json.dumps(j["tree"]), "the tree is not differential"
j = get("baselineStart=0&baselineEnd=2&window=1&by=stack")
assert j["baseline"]["by"] == "stack" and j["baseline"]["grew"][0]["name"].endswith(";" + new), j["baseline"]["grew"][0]
assert status("baselineStart=0&baselineEnd=2&by=module") == 400
assert status("baselineStart=0&baselineEnd=2&window=x") == 400
assert status("baseline=nonexistent.data") == 404
assert status("baselineStart=100&baselineEnd=200") == 422
print("errors: 400, 400, 404, 422")
PY

test_expect_success 'the new function leads what grew, the old what shrank, against a range and a file' '
	mkdir srv &&
	perf record --no-bpf-event --no-buildid-cache -g -F 199 -o srv/before.data -- "$SWITCH" 2 0 /dev/null \
		2>record.err >/dev/null || { cat record.err; return 1; }
	flamepipe live -g -F 199 --http 127.0.0.1:0 --serve-dir srv --keep-serving \
		-- "$SWITCH" 5 6 "$TRASH/mark" >out 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	python3 poll.py out "$TRASH/mark" "$NEW" "$OLD" >timing &&
	cat timing &&
	end_live $fp
'
test_done
