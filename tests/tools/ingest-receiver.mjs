// ingest-receiver.mjs: a strict stand-in for Grafana Pyroscope's /ingest on
// 127.0.0.1, for the push tests (tests/t7301, t7305). It answers as
// Pyroscope's server does, rule by rule, written from its source (grafana/
// pyroscope, read 2026: pkg/ingester/pyroscope/ingest_handler.go and
// ingest_adapter.go, pkg/og/convert/parser.go ParseGroups,
// api/model/labelset, pkg/og/convert/pprof/profile.go, pkg/validation,
// pkg/util/http/error.go); no Pyroscope code is in it. It logs one JSON line
// per request: what Pyroscope would have stored, and what it would have
// lost without saying so.
//
//   node ingest-receiver.mjs LOG [--port-file F] [--refuse N] [--status S]
//        [--answers S,S,...] [--hang] [--save DIR] [--max-seconds S]
//        [--require-token-file F] [--require-basic-file F] [--multitenant]
//
// The rules:
//  - POST /ingest or /pyroscope/ingest; anything else 404.
//  - --require-token-file / --require-basic-file (TOKEN, USER:PASS): the
//    proxy deployments put in front
//    (Pyroscope has no authentication of its own): 401 without it;
//    --multitenant: 401 "no org id" without X-Scope-OrgID (dskit).
//  - name: labelset.Parse: APP up to the first '{' (spaces trimmed), APP
//    non-empty of [A-Za-z0-9_.\-/]; then KEY=VALUE pairs up to ',' or '}'
//    (trimmed), KEY non-empty of [A-Za-z0-9_.] (or __name__); VALUE free.
//    Violation: 400.
//  - from, until: attime (digits: Unix seconds, 13/16/19 digits ms/us/ns;
//    absent: now). sampleRate: an integer >= 0, else the default 100,
//    silently. spyName default "unknown", units "samples", aggregationType
//    "sum".
//  - format=pprof: the body, gunzipped if gzip, decoded as pprof (invalid:
//    422); the metric from its sample types (a type "wall" -> wall, one
//    containing "cpu" -> process_cpu, alloc_/inuse_ -> memory, ...,
//    else the last type's name); service_name = the name's APP as given;
//    time = time_nanos, or from when it is 0 or in 1970; string sample
//    labels split the profile into series (each its own series labels).
//    Any other format (folded included) goes to the "groups" parser: lines
//    read by a bufio.Scanner of 64 KiB whose error is never checked: the
//    first line longer than that ends the parse, the rest is dropped, and
//    the answer is still 200 (logged here as lines_dropped); a line
//    without a space is skipped; a count that is not an integer: 422. The
//    APP's last ".TYPE" is its profile type (no dot: cpu): cpu -> metric
//    process_cpu, counts scaled by 1e9 / sampleRate ns (integer division)
//    into cpu:nanoseconds, service_name = APP without .TYPE; an unknown
//    TYPE: 400.
//  - validation (pkg/validation, the defaults): time outside (now - 1 h,
//    now + 10 min) refused; more than 16000 samples refused; a sample type
//    containing '-' refused; a stack deeper than 1000 frames loses its leaf
//    frames (logged as depth_cut); a string longer than 65535 is cut.
//    Refusals answer 400 on the groups path (a connect InvalidArgument
//    written by httputil.Error) and 422 on the pprof path.
//  - --refuse N: 503 to the first N requests; --answers S,S,...: those
//    statuses to the first requests (e.g. 408,200: the body could not be
//    read, then normal); --status S: S to every request; --hang: never
//    answer. These are not stored.
//
// Log line: n, method, path, status, reason, stored, name, app, labels,
// from, until, time_ns, rate, spy, units, format, parser, content_type,
// auth, tenant, samples, stacks, bytes, sha, cpu_ns, series [{labels,
// type, total}], lines_dropped, depth_cut, max_depth, max_line, errors
// (what Pyroscope would refuse or lose silently).
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const log = args[0];
const opt = (name, def) => { const i = args.indexOf(name); return i > 0 ? args[i + 1] : def; };
const refuse = Number(opt('--refuse', '0'));
const status = Number(opt('--status', '200'));
const answers = (opt('--answers', '') || '').split(',').filter(Boolean).map(Number);
const save = opt('--save', null);
const hang = args.includes('--hang');
const portFile = opt('--port-file', null);
const maxSeconds = Number(opt('--max-seconds', '120'));
// the secrets from files, so that no argv holds them (the tests look)
const secret = (o) => { const f = opt(o, null); return f === null ? null : fs.readFileSync(f, 'utf8').split('\n')[0]; };
const requireToken = secret('--require-token-file');
const requireBasic = secret('--require-basic-file');
const multitenant = args.includes('--multitenant');
let n = 0;

const MAX_LINE = 64 * 1024;		// bufio.MaxScanTokenSize
const MAX_DEPTH = 1000;			// validation.max-profile-stacktrace-depth
const MAX_SAMPLES = 16000;		// validation.max-profile-stacktrace-samples
const MAX_SYMBOL = 65535;		// validation.max-profile-symbol-value-length
const MAX_SIZE = 4 * 1024 * 1024;	// validation.max-profile-size-bytes
const OLDER_S = 3600, NEWER_S = 600;	// reject-older-than, reject-newer-than
const DEFAULT_RATE = 100;

class Refusal extends Error { constructor(code, msg) { super(msg); this.code = code; } }

// labelset.Parse
const SERVICE_RUNE = /^[A-Za-z0-9_.\-/]$/;
const LABEL_RUNE = /^[A-Za-z0-9_.]$/;
function parseName(name) {
  const labels = {};
  let state = 'name', key = '', value = '';
  for (const r of name + '{') {
    if (state === 'name') {
      if (r === '{') {
        const svc = value.trim();
        if (!svc) throw new Refusal(400, 'name: service name is required');
        for (const c of svc) if (!SERVICE_RUNE.test(c)) throw new Refusal(400, `name: invalid service name: ${svc}: character is not allowed: ${JSON.stringify(c)}`);
        labels.__name__ = svc; state = 'set';
      } else value += r;
    } else if (state === 'set') {
      if (r === '}') state = 'done';
      else if (r === '=') { state = 'value'; value = ''; } else key += r;
    } else if (state === 'value') {
      if (r === ',' || r === '}') {
        const k = key.trim();
        if (k !== '__name__') {
          if (!k) throw new Refusal(400, 'name: label name is required');
          for (const c of k) if (!LABEL_RUNE.test(c)) throw new Refusal(400, `name: invalid label name: ${k}: character is not allowed: ${JSON.stringify(c)}`);
        }
        labels[k] = value.trim(); key = '';
        state = 'set';
      } else value += r;
    }
  }
  return labels;
}

// attime.Parse for what clients send (digits); anything else: now
function parseTime(s) {
  if (s === null || s === '') return Date.now() / 1000;
  s = s.trim().replace(/[_, ]/g, '');
  if (!/^\d+$/.test(s)) return Date.now() / 1000;
  const v = Number(s);
  switch (s.length) {
    case 13: return v / 1e3;
    case 16: return v / 1e6;
    case 19: return v / 1e9;
    default: return v;
  }
}

// convertMetadata: the APP's last .TYPE
const TYPES = { cpu: 'process_cpu', itimer: 'process_cpu', wall: 'wall', inuse_objects: 'memory', inuse_space: 'memory', alloc_objects: 'memory', alloc_space: 'memory', goroutines: 'goroutine', mutex_count: 'mutex', mutex_duration: 'mutex', block_count: 'block', block_duration: 'block', lock_count: 'block', lock_duration: 'block', exceptions: 'exceptions', seconds: 'wall', nanoseconds: 'wall', microseconds: 'wall', milliseconds: 'wall', bytes: 'memory' };

// the distributor's ingestion window, on the profile's time
function checkWindow(tSec, code) {
  const now = Date.now() / 1000;
  if (!(tSec > now - OLDER_S && tSec < now + NEWER_S)) {
    throw new Refusal(code, `profile is outside of ingestion window (profile timestamp: ${new Date(tSec * 1000).toISOString()}, the ingestion window starts at ${new Date((now - OLDER_S) * 1000).toISOString()} and ends at ${new Date((now + NEWER_S) * 1000).toISOString()})`);
  }
}

function seriesLabels(rec, metric, app, extra) {
  const l = { __name__: metric, pyroscope_spy: rec.spy };
  for (const [k, v] of Object.entries(rec.labels)) if (!k.startsWith('__')) l[k] = v;
  if (!('service_name' in l)) l.service_name = app;
  return Object.assign(l, extra);
}

// ParseGroups, then the adapter's Put and the distributor's validation
function ingestGroups(rec, body, full) {
  const text = body.toString('latin1');
  const stacks = [];
  let pos = 0, line = 0;
  rec.lines_dropped = 0; rec.max_line = 0;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    line++;
    // the token and its LF must fit the scanner's 64 KiB buffer
    if (end - pos + (nl < 0 ? 0 : 1) > MAX_LINE) {
      rec.lines_dropped = text.slice(pos).split('\n').filter((l) => l.length).length;
      rec.errors.push(`line ${line} is ${end - pos} bytes, over the server's ${MAX_LINE}-byte line: it and the ${rec.lines_dropped - 1} line(s) after it are dropped, the answer still 200`);
      break;
    }
    let l = text.slice(pos, end);
    rec.max_line = Math.max(rec.max_line, end - pos + 1);
    pos = end + 1;
    if (l.endsWith('\r')) l = l.slice(0, -1);
    const sp = l.lastIndexOf(' ');
    if (sp < 0) continue;
    const count = l.slice(sp + 1);
    if (!/^[+-]?\d+$/.test(count)) throw new Refusal(422, `strconv.Atoi: parsing ${JSON.stringify(count)}: invalid syntax`);
    stacks.push([Buffer.from(l.slice(0, sp), 'latin1').toString('utf8'), Number(count)]);
  }
  const parts = full.split('.');
  const type = parts.length <= 1 ? 'cpu' : parts[parts.length - 1];
  const app = parts.length <= 1 ? full : parts.slice(0, -1).join('.');
  const metric = TYPES[type];
  if (!metric) throw new Refusal(400, `pyroscopeIngesterAdapter failed to convert metadata: unknown profile type: ${type}`);
  if (rec.labels.profile_id) return [];	// the adapter skips these
  const timed = metric === 'process_cpu' || metric === 'wall';
  const period = rec.rate && timed ? Math.floor(1e9 / rec.rate) : 1;
  const tree = new Map();
  for (const [st, c] of stacks) tree.set(st, (tree.get(st) || 0) + c);
  rec.samples = stacks.reduce((a, [, c]) => a + c, 0);
  rec.stacks = tree.size;
  rec.time_ns = Math.round(rec.from * 1e9);
  checkWindow(rec.from, 400);
  if (tree.size > MAX_SAMPLES) throw new Refusal(400, `profile has ${tree.size} samples, the limit is ${MAX_SAMPLES}`);
  rec.max_depth = 0; rec.depth_cut = 0;
  for (const st of tree.keys()) {
    const d = st.split(';').length;
    rec.max_depth = Math.max(rec.max_depth, d);
    if (d > MAX_DEPTH) rec.depth_cut++;
  }
  const total = [...tree.values()].reduce((a, c) => a + c * period, 0);
  const stype = rec.rate && timed ? (metric === 'wall' ? 'wall:nanoseconds:cpu:nanoseconds' : 'cpu:nanoseconds:cpu:nanoseconds') : 'samples:count::';
  return [{ labels: seriesLabels(rec, metric, app, {}), type: `${metric}:${stype}`, total }];
}

let pprofFormat = null;
function pprofLib() {
  if (!pprofFormat) {
    const req = createRequire(new URL('../pyroscope/package.json', import.meta.url));
    pprofFormat = req('pprof-format');
  }
  return pprofFormat;
}

function metricName(types) {
  if (types.includes('wall')) return 'wall';
  let st = '';
  for (st of types) {
    if (st.includes('cpu')) return 'process_cpu';
    if (st.includes('alloc_') || st.includes('inuse_') || st === 'space' || st === 'objects') return 'memory';
    if (st.includes('mutex_')) return 'mutex';
    if (st.includes('block_')) return 'block';
    if (st.includes('goroutines')) return 'goroutines';
  }
  return st;
}

// pprof.RawProfile.ParseToPprof, then the distributor
function ingestPprof(rec, body, app) {
  let raw = body;
  try {
    if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) raw = zlib.gunzipSync(body);
  } catch (e) { throw new Refusal(422, `invalid gzip: ${e.message}`); }
  if (!raw.length) return [];
  if (raw.length > MAX_SIZE) throw new Refusal(422, `profile too big: ${raw.length} bytes, the limit is ${MAX_SIZE}`);
  let p, lib;
  try { lib = pprofLib(); } catch (e) { throw new Refusal(501, `pprof-format is not installed (tools/install-deps.sh): ${e.message}`); }
  try { p = lib.Profile.decode(raw); } catch (e) { throw new Refusal(422, `failed to parse pprof: ${e.message}`); }
  const S = p.stringTable.strings;
  const str = (i) => S[Number(i)] ?? '';
  const types = p.sampleType.map((t) => str(t.type));
  const metric = metricName(types);
  let t = Number(p.timeNanos || 0);
  if (t === 0 || new Date(t / 1e6).getUTCFullYear() === 1970) t = rec.from * 1e9;
  rec.time_ns = t;
  rec.duration_ns = Number(p.durationNanos || 0);
  rec.pprof_types = p.sampleType.map((v) => `${str(v.type)}:${str(v.unit)}`);
  rec.pprof_period = p.periodType ? `${str(p.periodType.type)}:${str(p.periodType.unit)}:${Number(p.period)}` : null;
  checkWindow(t / 1e9, 422);
  if (p.sample.length > MAX_SAMPLES) throw new Refusal(422, `profile has ${p.sample.length} samples, the limit is ${MAX_SAMPLES}`);
  for (const ty of types) if (ty.includes('-')) throw new Refusal(422, `sample type contains -: ${ty}`);
  rec.depth_cut = 0; rec.max_depth = 0;
  const groups = new Map();
  for (const s of p.sample) {
    rec.max_depth = Math.max(rec.max_depth, s.locationId.length);
    if (s.locationId.length > MAX_DEPTH) rec.depth_cut++;
    const extra = {};
    for (const l of s.label) if (Number(l.str)) extra[str(l.key)] = str(l.str);
    const key = JSON.stringify(extra);
    if (!groups.has(key)) groups.set(key, { extra, totals: types.map(() => 0) });
    s.value.forEach((v, i) => { groups.get(key).totals[i] += Number(v); });
  }
  for (const s of S) if (s.length > MAX_SYMBOL) rec.errors.push(`a string of ${s.length} bytes is cut to ${MAX_SYMBOL}`);
  const iSamples = types.indexOf('samples');
  rec.samples = iSamples >= 0 ? [...groups.values()].reduce((a, g) => a + g.totals[iSamples], 0) : null;
  rec.stacks = p.sample.length;
  const out = [];
  const period = p.periodType ? `${str(p.periodType.type)}:${str(p.periodType.unit)}` : ':';
  for (const g of groups.values()) {
    p.sampleType.forEach((v, i) => out.push({ labels: seriesLabels(rec, metric, app, g.extra), type: `${metric}:${str(v.type)}:${str(v.unit)}:${period}`, total: g.totals[i] }));
  }
  return out;
}

function handle(req, url, body) {
  const q = url.searchParams;
  const rec = { n: ++n, method: req.method, path: url.pathname, errors: [], stored: false, labels: {} };
  let svcName = null;
  rec.content_type = req.headers['content-type'] || null;
  rec.auth = req.headers.authorization || null;
  rec.tenant = req.headers['x-scope-orgid'] || null;
  rec.user_agent = req.headers['user-agent'] || null;
  rec.bytes = body.length;
  rec.sha = crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
  rec.name = q.get('name');
  rec.query = Object.fromEntries(q.entries());
  rec.from = Math.floor(parseTime(q.get('from')));
  rec.until = Math.floor(parseTime(q.get('until')));
  const sr = q.get('sampleRate');
  rec.rate = sr !== null && /^[+-]?\d+$/.test(sr) && Number(sr) >= 0 ? Number(sr) : DEFAULT_RATE;
  rec.spy = q.get('spyName') || 'unknown';
  rec.units = q.get('units') || 'samples';
  rec.aggregation = q.get('aggregationType') || 'sum';
  rec.format = q.get('format');
  try {
    if (req.method !== 'POST' || !/^(\/pyroscope)?\/ingest$/.test(url.pathname)) throw new Refusal(404, '404 page not found');
    if (requireToken !== null && rec.auth !== `Bearer ${requireToken}`) throw new Refusal(401, 'unauthorized');
    if (requireBasic !== null && rec.auth !== `Basic ${Buffer.from(requireBasic).toString('base64')}`) throw new Refusal(401, 'unauthorized');
    if (multitenant && !rec.tenant) throw new Refusal(401, 'no org id');
    let ls;
    try { ls = parseName(q.get('name') || ''); } catch (e) { throw new Refusal(400, `failed to parse request metadata: ${e.message}`); }
    rec.app = svcName = ls.__name__;
    delete ls.__name__;
    rec.labels = ls;
    const forced = rec.n <= answers.length ? answers[rec.n - 1] : rec.n <= refuse ? 503 : status !== 200 ? status : 0;
    if (forced && forced !== 200) throw new Refusal(forced, forced === 408 ? 'failed to read request body' : 'refused (test)');
    const f = rec.format;
    if (['trie', 'tree', 'lines', 'jfr', 'speedscope'].includes(f)) throw new Refusal(422, `format ${f}: not handled by this test receiver`);
    rec.parser = f === 'pprof' || (rec.content_type || '').includes('multipart/form-data') ? 'pprof' : 'groups';
    if (rec.parser === 'pprof' && f !== 'pprof') throw new Refusal(422, 'multipart pprof: not handled by this test receiver');
    rec.series = rec.parser === 'pprof' ? ingestPprof(rec, body, svcName) : ingestGroups(rec, body, svcName);
    const svc = rec.series.length ? rec.series[0].labels.service_name : null;
    if (svc) rec.app = svc;
    rec.cpu_ns = rec.series.filter((s) => s.type.startsWith('process_cpu:cpu:nanoseconds')).reduce((a, s) => a + s.total, 0);
    rec.stored = rec.series.length > 0;
    rec.status = 200;
    if (rec.depth_cut) rec.errors.push(`${rec.depth_cut} stack(s) deeper than ${MAX_DEPTH} frames lose their leaf frames`);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    rec.status = e.code; rec.reason = e.message;
    rec.errors.push(`${e.code}: ${e.message}`);
  }
  return rec;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const rec = handle(req, new URL(req.url, 'http://127.0.0.1'), body);
    if (save) fs.writeFileSync(path.join(save, `${rec.n}.body`), body);
    if (hang) rec.status = 0;
    fs.appendFileSync(log, JSON.stringify(rec) + '\n');
    if (hang) return;
    res.writeHead(rec.status, { 'Content-Type': 'application/json' });
    res.end(rec.status === 200 ? '' : JSON.stringify({ code: 'invalid_argument', message: rec.reason }) + '\n');
  });
});
server.listen(0, '127.0.0.1', () => {
  if (portFile) fs.writeFileSync(portFile + '.tmp', String(server.address().port)), fs.renameSync(portFile + '.tmp', portFile);
});
setTimeout(() => process.exit(0), maxSeconds * 1000).unref();
process.on('SIGTERM', () => process.exit(0));
