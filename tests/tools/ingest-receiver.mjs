// ingest-receiver.mjs: a stand-in for a Pyroscope server's /ingest endpoint
// on 127.0.0.1, for the push tests (tests/t7301). It checks every request
// against the contract docs/fp-push.md documents and logs one JSON line per
// request; it is NOT Pyroscope, only its HTTP contract.
//
//   node ingest-receiver.mjs LOG [--port-file F] [--refuse N] [--status S]
//                            [--save DIR] [--max-seconds S]
//
// Contract checked (each violation is listed in the line's "errors"):
//   POST /ingest (or PREFIX/ingest) with query parameters
//     name        APP or APP{k=v,...}: APP [A-Za-z0-9_.-]+, keys
//                 [A-Za-z_][A-Za-z0-9_.]*, values [A-Za-z0-9_.:/@+-]+
//     from, until Unix seconds, integers, from < until
//     sampleRate  integer > 0
//     spyName     non-empty
//     units       samples; aggregationType sum
//     format      folded (body: `stack count` lines, count > 0, text/plain)
//                 or pprof (body: gzip, application/octet-stream)
// --refuse N: answer 503 to the first N requests (to test retries);
// --status S: answer S to every request instead of 200 (e.g. 400);
// --hang: read each request, log it, never answer (a server that is away
// without refusing: the client's timeout must end it);
// --save DIR: keep each body as DIR/N.body. The log line has: n, status,
// app, labels, from, until, rate, spy, format, samples (folded: the sum of
// the counts), stacks, bytes, sha (of the body), errors.
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';

const args = process.argv.slice(2);
const log = args[0];
const opt = (name, def) => { const i = args.indexOf(name); return i > 0 ? args[i + 1] : def; };
const refuse = Number(opt('--refuse', '0'));
const status = Number(opt('--status', '200'));
const save = opt('--save', null);
const hang = args.includes('--hang');
const portFile = opt('--port-file', null);
const maxSeconds = Number(opt('--max-seconds', '120'));
let n = 0;

const NAME = /^([A-Za-z0-9_.-]+)(\{([A-Za-z_][A-Za-z0-9_.]*=[A-Za-z0-9_.:/@+-]+)(,[A-Za-z_][A-Za-z0-9_.]*=[A-Za-z0-9_.:/@+-]+)*\})?$/;
const INT = /^[0-9]+$/;

function check(req, url, body) {
  const errors = [];
  const q = url.searchParams;
  const rec = { n: ++n, method: req.method, path: url.pathname };
  if (req.method !== 'POST') errors.push(`method ${req.method}, want POST`);
  if (!/(^|\/)ingest$/.test(url.pathname)) errors.push(`path ${url.pathname}, want .../ingest`);
  const name = q.get('name') || '';
  const m = NAME.exec(name);
  if (!m) errors.push(`name ${JSON.stringify(name)} is not APP{k=v,...}`);
  rec.app = m ? m[1] : null;
  rec.labels = m && m[2] ? Object.fromEntries(m[2].slice(1, -1).split(',').map((kv) => kv.split('='))) : {};
  for (const k of ['from', 'until', 'sampleRate']) {
    if (!INT.test(q.get(k) || '')) errors.push(`${k} ${JSON.stringify(q.get(k))} is not an integer`);
  }
  rec.from = Number(q.get('from')); rec.until = Number(q.get('until'));
  rec.rate = Number(q.get('sampleRate'));
  if (!(rec.from < rec.until)) errors.push(`from ${rec.from} is not before until ${rec.until}`);
  if (!(rec.rate > 0)) errors.push('sampleRate is not > 0');
  rec.spy = q.get('spyName');
  if (!rec.spy) errors.push('no spyName');
  if (q.get('units') !== 'samples') errors.push(`units ${q.get('units')}, want samples`);
  if (q.get('aggregationType') !== 'sum') errors.push(`aggregationType ${q.get('aggregationType')}, want sum`);
  rec.format = q.get('format');
  rec.bytes = body.length;
  rec.sha = crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
  const ctype = req.headers['content-type'] || '';
  if (rec.format === 'folded') {
    if (!ctype.startsWith('text/plain')) errors.push(`content-type ${ctype}, want text/plain`);
    const lines = body.toString('utf8').split('\n');
    if (lines.pop() !== '') errors.push('body does not end with a newline');
    rec.samples = 0; rec.stacks = lines.length;
    lines.forEach((l, i) => {
      const mm = /^(.+) ([0-9]+)$/.exec(l);
      if (!mm || Number(mm[2]) === 0) errors.push(`body line ${i + 1} is not "stack count": ${l.slice(0, 80)}`);
      else rec.samples += Number(mm[2]);
    });
    if (!lines.length) errors.push('empty body');
  } else if (rec.format === 'pprof') {
    if (ctype !== 'application/octet-stream') errors.push(`content-type ${ctype}, want application/octet-stream`);
    if (body.length < 2 || body[0] !== 0x1f || body[1] !== 0x8b) errors.push('pprof body is not gzip');
  } else {
    errors.push(`format ${rec.format}, want folded or pprof`);
  }
  rec.errors = errors;
  return rec;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const rec = check(req, new URL(req.url, 'http://127.0.0.1'), body);
    rec.status = rec.n <= refuse ? 503 : status;
    if (save) fs.writeFileSync(path.join(save, `${rec.n}.body`), body);
    if (hang) rec.status = 0;
    fs.appendFileSync(log, JSON.stringify(rec) + '\n');
    if (hang) return;
    res.writeHead(rec.status, { 'Content-Type': 'text/plain' });
    res.end(rec.status < 300 ? 'ok\n' : 'refused\n');
  });
});
server.listen(0, '127.0.0.1', () => {
  if (portFile) fs.writeFileSync(portFile + '.tmp', String(server.address().port)), fs.renameSync(portFile + '.tmp', portFile);
});
setTimeout(() => process.exit(0), maxSeconds * 1000).unref();
process.on('SIGTERM', () => process.exit(0));
