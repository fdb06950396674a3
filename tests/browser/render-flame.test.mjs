// render-flame.test.mjs: the flame graph SVG in real headless chromium:
// click-to-zoom (ancestors stay, others hide), reset, hover details,
// regex search with "Matched: N%" checked against the folded data
// (overlaps counted once), Ctrl-F / Ctrl-I, zoom and search in the URL.
// Screenshots go to tests/artifacts/render-flame-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { step, check, eq, finish, deadline, run, tmpdir, launch, screenshot, readFolded, TOP, reportPage } from './render-lib.mjs';

deadline(60000);
const dir = tmpdir('render-flame');
const folded = path.join(dir, 'stacks.folded');
const svg = path.join(dir, 'flame.svg');
const url = pathToFileURL(svg).href;
const AVAIL = 1180;		// 1200 px wide minus 2 x 10 px padding

await step('render the demo capture: report, then fp-flamegraph on its folded file', async () => {
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '-o', dir]);
	fs.writeFileSync(svg, run('fp-flamegraph', [folded]));
	check(fs.statSync(svg).size > 1000, 'flame.svg is empty');
});

const stacks = readFolded(folded);
const total = stacks.reduce((a, [, n]) => a + n, 0);
// "Matched: N%" as the page prints it: every sample whose stack has a
// matching frame, once, however many frames match.
function expectedMatch(re) {
	let n = 0;
	for (const [frames, c] of stacks)
		if (frames.some((f) => re.test(f))) n += c;
	const pct = 100 * n / total;
	return { n, text: 'Matched: ' + (pct === 100 ? '100' : pct.toFixed(1)) + '%' };
}

const browser = await launch();
const { page, errors } = await reportPage(browser, 1300, 900);
let dialogAnswer = null;
page.on('dialog', (d) => (dialogAnswer === null ? d.dismiss() : d.accept(dialogAnswer)));

// Frame facts from the DOM: x/w in samples, the rect's y, class, px width.
async function frames() {
	return page.evaluate(() => [...document.getElementById('frames').children].map((g, i) => {
		const r = g.getElementsByTagName('rect')[0];
		const t = g.getElementsByTagName('title')[0].textContent;
		return {
			i, x: +g.getAttribute('fp:x'), w: +g.getAttribute('fp:w'), y: +r.getAttribute('y'),
			px: +r.getAttribute('width'), cls: g.getAttribute('class') || '',
			name: t.substring(0, t.lastIndexOf(' (')), fill: r.getAttribute('fill'),
			shown: getComputedStyle(g).display !== 'none',
		};
	}));
}

await step('the SVG loads without script errors; the root shows the total', async () => {
	await page.goto(url);
	const f = await frames();
	eq(f[0].name, 'all', 'first frame');
	eq(f[0].w, total, 'root fp:w = folded total');
	const t = await page.textContent('#frames > g title');
	check(t.startsWith(`all (${total.toLocaleString('en-US')} samples, 100%)`), `root title: ${t}`);
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
	await screenshot(page, 'render-flame-initial.png');
});

let target;
function frameRect(f) {
	return page.locator(`#frames > g:nth-child(${f.i + 1}) > rect`);
}
await step('hovering a frame shows its name, samples and percent', async () => {
	const f = await frames();
	// The widest frame at depth 2 that has children: a good zoom target.
	const rootY = f[0].y, fh = 16;
	const depth2 = f.filter((e) => e.y === rootY - 2 * fh && f.some((c) => c.y === e.y - fh && c.x >= e.x && c.x < e.x + e.w));
	check(depth2.length > 0, 'no depth-2 frame with children');
	target = depth2.reduce((a, b) => (b.w > a.w ? b : a));
	await frameRect(target).hover();
	const details = await page.textContent('#details');
	check(details.startsWith(`Function: ${target.name} (`) && details.includes('samples'), `details: ${details}`);
});

await step('clicking a frame zooms: it fills the width, ancestors stay, others hide', async () => {
	await frameRect(target).click();
	const f = await frames();
	const z = f.find((e) => e.x === target.x && e.y === target.y);
	check(Math.abs(z.px - AVAIL) < 0.02, `zoomed frame is ${z.px} px, want ${AVAIL}`);
	let ancestors = 0, inside = 0, hidden = 0;
	for (const e of f) {
		const contains = e.x <= target.x && e.x + e.w >= target.x + target.w;
		if (e.y > target.y) {		// below in the picture: the ancestors' rows
			if (contains) {
				ancestors++;
				check(e.shown && e.cls.includes('parent'), `ancestor ${e.name} not kept`);
			} else {
				check(!e.shown, `non-ancestor ${e.name} still shown`);
				hidden++;
			}
		} else if (e.x >= target.x && e.x + e.w <= target.x + target.w && (e.y !== target.y || e === z)) {
			inside++;
			check(e.shown, `descendant ${e.name} hidden`);
			const want = e.w * AVAIL / target.w;
			check(Math.abs(e.px - want) < 0.02, `descendant ${e.name}: ${e.px} px, want ${want}`);
		} else {
			check(!e.shown, `frame ${e.name} outside the zoom still shown`);
			hidden++;
		}
	}
	eq(ancestors, 2, 'ancestors kept (all + one)');
	check(inside >= 2 && hidden >= 1, `inside ${inside}, hidden ${hidden}`);
	check(await page.isVisible('#unzoom'), 'Reset Zoom is not shown');
	await screenshot(page, 'render-flame-zoomed.png');
});

await step('the zoom is kept in the URL and restored on reload', async () => {
	const u = new URL(page.url());
	eq(u.searchParams.get('x'), String(target.x), 'x in URL');
	await page.reload();
	const f = await frames();
	const z = f.find((e) => e.x === target.x && e.y === target.y);
	check(Math.abs(z.px - AVAIL) < 0.02, `after reload the zoomed frame is ${z.px} px`);
});

await step('Reset Zoom shows every frame again at its original width', async () => {
	await page.click('#unzoom');
	const f = await frames();
	for (const e of f) {
		check(e.shown, `${e.name} hidden after reset`);
		const want = e.w * AVAIL / total;
		check(Math.abs(e.px - want) < 0.02, `${e.name}: ${e.px} px, want ${want}`);
	}
	eq(new URL(page.url()).searchParams.get('x'), null, 'x left in URL');
});

async function matchedText() {
	return (await page.textContent('#matched')).trim();
}

await step('Ctrl-F search: "Matched: N%" equals the folded data, overlaps counted once', async () => {
	// A regex that matches frames nested in each other (a parent and its
	// children): each sample must still count once.
	// The heaviest stack's 2nd and 3rd frames: a parent and its child.
	const heaviest = stacks.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
	const nested = heaviest.slice(1, 3);
	const term = '^(' + nested.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') + ')$';
	const re = new RegExp(term);
	const want = expectedMatch(re);
	const overlapping = stacks.some(([fr]) => fr.filter((x) => re.test(x)).length > 1);
	check(overlapping, 'test data has no nested matches: pick another term');
	dialogAnswer = term;
	await page.keyboard.press('Control+f');
	await page.waitForFunction(() => !document.getElementById('matched').classList.contains('hide'));
	eq(await matchedText(), want.text, `matched for ${term}`);
	eq(await page.getAttribute('#matched', 'fp:samples'), String(want.n), 'matched samples');
	const f = await frames();
	for (const e of f)
		eq(e.fill === 'rgb(230,0,230)', re.test(e.name), `highlight of ${e.name}`);
	eq(new URL(page.url()).searchParams.get('s'), term, 's in URL');
	await screenshot(page, 'render-flame-search.png');
});

await step('a plain substring search matches the folded percentage too', async () => {
	const term = 'sys';
	const want = expectedMatch(new RegExp(term));
	check(want.n > 0 && want.n < total, 'term matches nothing or everything');
	dialogAnswer = term;
	await page.keyboard.press('F3');
	await page.waitForFunction((t) => new URL(location.href).searchParams.get('s') === t, term);
	eq(await matchedText(), want.text, `matched for ${term}`);
});

await step('Ctrl-I toggles case sensitivity and re-runs the search', async () => {
	const term = 'SYS';
	dialogAnswer = term;
	await page.keyboard.press('Control+f');
	await page.waitForFunction((t) => new URL(location.href).searchParams.get('s') === t, term);
	eq(await matchedText(), expectedMatch(new RegExp(term)).text, 'case-sensitive');
	await page.keyboard.press('Control+i');
	eq(await matchedText(), expectedMatch(new RegExp(term, 'i')).text, 'ignoring case');
});

await step('the search survives a reload (URL), and Reset Search clears it', async () => {
	await page.reload();
	await page.waitForFunction(() => !document.getElementById('matched').classList.contains('hide'));
	eq(await matchedText(), expectedMatch(new RegExp('SYS')).text, 'after reload');
	await page.click('#search');
	check(await page.isHidden('#matched'), 'matched still shown');
	const f = await frames();
	check(f.every((e) => e.fill !== 'rgb(230,0,230)'), 'highlight left after reset');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await finish(0);
