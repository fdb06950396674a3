// export-speedscope.test.mjs: speedscope.json (fp-render --format
// speedscope) opened in speedscope's own bundled page (the npm package
// speedscope, dist/release), served on 127.0.0.1 by this test: offline
// (every request that is not to that server is aborted and counted), no
// console error or page error, the opened profile is the busiest thread,
// the title counts one profile per thread, and the sandwich view's Self
// column adds up to that thread's samples in the capture, its root to
// "N (100%)". Screenshots: tests/artifacts/export-speedscope-*.png.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { step, check, eq, finish, deadline, run, tmpdir, launch, screenshot, TOP, BIN } from './render-lib.mjs';

deadline(90000);
const DIST = path.join(TOP, 'tests/browser/node_modules/speedscope/dist/release');
const dir = tmpdir('export-speedscope');
const json = path.join(dir, 'speedscope.json');
let doc;

await step('report --format speedscope on the demo capture', async () => {
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '-o', dir, '--format', 'speedscope,folded']);
	doc = JSON.parse(fs.readFileSync(json, 'utf8'));
	check(doc.profiles.length > 1, 'one profile per thread expected');
});

// The samples each thread has in the capture, from the S records fp-fold
// folds (one event: all of them), not from the file under test.
const perThread = new Map();
await step('count the samples per thread in the chain', async () => {
	const s = execSync(`${BIN}/fp-read examples/demo-clockloop.perf.gz | ${BIN}/fp-bucket | ` +
		`${BIN}/fp-range`, { cwd: TOP, maxBuffer: 1 << 28 }).toString();
	for (const line of s.split('\n')) {
		const f = line.split('\t');
		if (f[0] !== 'S') continue;
		const k = `${f[7]} ${f[2]}/${f[3]}`;
		perThread.set(k, (perThread.get(k) || 0) + 1);
	}
	eq(perThread.size, doc.profiles.length, 'threads in the capture vs profiles');
});

// speedscope's files and the profile, from loopback only.
const server = http.createServer((req, res) => {
	const u = new URL(req.url, 'http://127.0.0.1');
	const rel = path.normalize(decodeURIComponent(u.pathname)).replace(/^(\.\.[/\\])+/, '').replace(/^\/+/, '');
	const file = rel === 'profile/speedscope.json' ? json : path.join(DIST, rel || 'index.html');
	if (!file.startsWith(DIST + path.sep) && file !== json) { res.writeHead(403); res.end(); return; }
	fs.readFile(file, (e, data) => {
		if (e) { res.writeHead(404); res.end(); return; }
		const type = file.endsWith('.html') ? 'text/html' : file.endsWith('.js') ? 'text/javascript'
			: file.endsWith('.css') ? 'text/css' : file.endsWith('.json') ? 'application/json'
			: file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
		res.writeHead(200, { 'Content-Type': type });
		res.end(data);
	});
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const origin = `http://127.0.0.1:${port}`;

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
page.setDefaultTimeout(15000);
const errors = [];
let outside = 0;
page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
await page.route('**/*', (route) => {
	if (route.request().url().startsWith(origin + '/')) return route.continue();
	outside++;
	return route.abort();
});

const active = () => doc.profiles[doc.activeProfileIndex];

await step('speedscope opens the file (#profileURL=) with no error, offline', async () => {
	await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(origin + '/profile/speedscope.json')}`);
	const want = `${active().name} (${doc.activeProfileIndex + 1}/${doc.profiles.length})`;
	await page.waitForFunction((w) => document.body.innerText.includes(w), want);
	await screenshot(page, 'export-speedscope-time-order.png');
	eq(errors.join('\n'), '', 'console and page errors');
	eq(outside, 0, 'requests that left 127.0.0.1');
});

await step('the opened profile is the thread with the most samples', async () => {
	const busiest = Math.max(...perThread.values());
	eq(perThread.get(active().name), busiest, `samples of ${active().name}`);
});

await step("sandwich view: the Self column adds up to the thread's samples, the root is N (100%)", async () => {
	await page.keyboard.press('3');
	await page.waitForFunction(() => document.body.innerText.includes('Symbol Name'));
	await screenshot(page, 'export-speedscope-sandwich.png');
	const text = await page.evaluate(() => document.body.innerText);
	const after = text.slice(text.indexOf('Symbol Name') + 'Symbol Name'.length);
	// rows: total "N (P%)", self "N (P%)", name
	const cells = after.split('\n').map((l) => l.trim()).filter((l) => l !== '');
	let self = 0, rows = 0, hundred = 0;
	for (let i = 0; i + 2 < cells.length; i += 3) {
		const t = /^(\d+) \(([^)]*)\)$/.exec(cells[i]), s = /^(\d+) \(([^)]*)\)$/.exec(cells[i + 1]);
		if (!t || !s) break;
		rows++;
		self += Number(s[1]);
		if (t[2] === '100%') hundred = Number(t[1]);
	}
	const want = perThread.get(active().name);
	check(rows > 5, `sandwich rows parsed: ${rows}`);
	eq(self, want, 'sum of Self');
	eq(hundred, want, 'the frame at 100%');
	eq(errors.join('\n'), '', 'console and page errors');
});

server.close();
await finish(0);
