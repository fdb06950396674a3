// serve-heatmap-bytes.test.mjs: the three places that write FlameScope's
// /heatmap/ JSON write the same bytes. fp-serve's /heatmap/ body is
// render's writer (render/heatmap.c) plus fp-serve's keys; a report's page
// answers /heatmap/ offline in JavaScript (ui/reportsource.js): for the
// same capture and rows the page's answer, written with JSON.stringify, is
// the server's body byte for byte, row starts included (3 decimals,
// truncated: rows=49 gives 979.591), on a whole axis, with filters and on
// a cut axis. (report-parity compares the parsed answers, rows left out.)
import fs from 'node:fs';
import path from 'node:path';
import { step, check, deadline, launch, report, openReport, endClean, tmpdir } from './report-lib.mjs';
import { startServe } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const FILE = 'multiproc.perf.gz';

deadline(TEST_DEADLINE_MS);
const browser = await launch();

// The page's answer to /heatmap/?QUERY as text, and the server's body.
async function both(page, name, srv, file, query) {
	const q = (f) => new URLSearchParams({ filename: f, ...query }).toString();
	const mine = await page.views.evaluate((u) => {
		try { return JSON.stringify(window.flamepipeReport.answer(u)); } catch (e) { return 'error: ' + e.message; }
	}, '/heatmap/?' + q(name));
	const r = await fetch(srv.url + 'heatmap/?' + q(file));
	const theirs = await r.text();
	check(r.ok, `server: ${r.status} ${theirs.slice(0, 200)}`);
	return [mine, theirs.replace(/\n$/, '')];
}

// Where two texts first differ, for the message.
function firstDiff(a, b) {
	let i = 0;
	while (i < a.length && a[i] === b[i]) i++;
	return `at byte ${i}: page ...${a.slice(Math.max(0, i - 40), i + 40)}... server ...${b.slice(Math.max(0, i - 40), i + 40)}...`;
}

let srv;
await step('fp-serve --dir examples starts', async () => { srv = await startServe(['--dir', 'examples']); });

const pages = [];
for (const rows of [50, 49]) {
	const page = await openReport(browser, report('examples/' + FILE, ['--rows', String(rows)], 'hm-bytes-' + rows));
	const name = await page.evaluate(() => window.flamepipeReport.name);
	for (const f of [{}, { comm: 'mp-crc32,worker2' }, { include: 'crc|hash', exclude: 'mix' }]) {
		await step(`rows=${rows} ${JSON.stringify(f)}: the page's /heatmap/ is the server's body byte for byte`, async () => {
			const [mine, theirs] = await both(page, name, srv, FILE, { rows: String(rows), ...f });
			check(mine === theirs, firstDiff(mine, theirs));
			if (rows === 49) check(theirs.includes('"rows":[979.591,959.183,'), 'row starts of rows=49');
		});
	}
	pages.push(page);
}

await step('a cut axis (one sample 100,000 s before the rest): the same bytes', async () => {
	const d = tmpdir('serve-heatmap-bytes-cut');
	const times = [1, ...Array.from({ length: 200 }, (_, i) => 100004 + i * 0.015)];
	fs.writeFileSync(path.join(d, 'cut.perf'), times.map((t, i) =>
		`cut 9/9 [001] ${t.toFixed(6)}: 1 cpu-clock: \n\t10 ${i % 4 ? 'busy' : 'idle_wait'}+0x2 (/bin/cut)\n\t20 main+0x2 (/bin/cut)\n`).join('\n') + '\n');
	const cutSrv = await startServe(['--dir', d]);
	const cutPage = await openReport(browser, report(path.join(d, 'cut.perf'), [], 'hm-bytes-cut'));
	const name = await cutPage.evaluate(() => window.flamepipeReport.name);
	for (const f of [{}, { include: 'busy' }]) {
		const [mine, theirs] = await both(cutPage, name, cutSrv, 'cut.perf', f);
		check(theirs.includes('"cut":'), 'the server\'s axis is not cut');
		check(mine === theirs, JSON.stringify(f) + ' ' + firstDiff(mine, theirs));
	}
	pages.push(cutPage);
});

await endClean(...pages);
