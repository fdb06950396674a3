// views-keys.test.mjs: the flame graph without a mouse, and Ctrl+wheel:
// arrows move a focus frame (up = heaviest callee, down = caller,
// left/right = siblings), Enter zooms to it, Escape zooms out one level,
// Ctrl+wheel zooms into the frame under the pointer and out again, "?"
// opens the help overlay. Screenshots: tests/artifacts/views-keys-*.png.
import { step, check, eq, finish, shot, waitCells, servedPage, waitFlame } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 45000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';

const { srv, page } = await servedPage('views-keys', TEST_DEADLINE_MS, { waitMs: WAIT_MS });
const zoomed = () => page.evaluate(() => window.flamepipe.flame.zoomed ? window.flamepipe.flame.zoomed.name : null);
const focus = () => page.evaluate(() => window.flamepipe.focus());

let root;
await step('the whole profile is drawn; Tab reaches the graph', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await waitFlame(page);
	root = await page.evaluate(() => {
		const r = window.flamepipe.flame.data.root;
		const kids = r.kids.slice().sort((a, b) => b.total - a.total);
		const k0 = kids[0];
		const gk = k0.kids.slice().sort((a, b) => b.total - a.total)[0];
		const byX = r.kids.slice().sort((a, b) => a.x - b.x);
		return { heaviest: k0.name, grandchild: gk.name, right: byX[byX.indexOf(k0) + 1] && byX[byX.indexOf(k0) + 1].name };
	});
	await page.focus('#flame');
});

await step('ArrowUp focuses the heaviest callee, again its heaviest; ArrowDown the caller', async () => {
	await page.keyboard.press('ArrowUp');
	eq(await focus(), root.heaviest, 'focus after ArrowUp');
	await page.keyboard.press('ArrowUp');
	eq(await focus(), root.grandchild, 'focus after ArrowUp twice');
	check((await page.textContent('#flame-details')).startsWith('Focus: ' + root.grandchild), 'focus not described');
	await page.keyboard.press('ArrowDown');
	eq(await focus(), root.heaviest, 'focus after ArrowDown');
	await shot(page, 'views-keys-01-focus');
});

await step('ArrowRight moves to the next sibling; Enter zooms to it, Escape zooms out', async () => {
	await page.keyboard.press('ArrowRight');
	eq(await focus(), root.right, 'focus after ArrowRight');
	await page.keyboard.press('Enter');
	eq(await zoomed(), root.right, 'zoomed after Enter');
	check((await page.evaluate(() => location.hash)).includes('z='), 'zoom not in the URL');
	await page.keyboard.press('Escape');
	eq(await zoomed(), null, 'zoom after Escape');
});

await step('Ctrl+wheel zooms into the frame under the pointer, and out', async () => {
	const box = await page.evaluate((name) => {
		const d = window.flamepipe.flame.data;
		const n = d.nodes.find((x) => x.name === name && x.depth === 1);
		const r = document.querySelector(`#flame g.frame[data-i="${d.nodes.indexOf(n)}"] rect`).getBoundingClientRect();
		return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
	}, root.heaviest);
	await page.mouse.move(box.x, box.y);
	await page.keyboard.down('Control');
	await page.mouse.wheel(0, -100);
	await page.waitForFunction((n) => window.flamepipe.flame.zoomed && window.flamepipe.flame.zoomed.name === n, root.heaviest);
	await page.mouse.wheel(0, 100);
	await page.keyboard.up('Control');
	await page.waitForFunction(() => !window.flamepipe.flame.zoomed);
});

await step('"?" opens the help overlay, Escape closes it', async () => {
	await page.focus('#flame');
	await page.keyboard.press('?');
	check(await page.isVisible('#flame-help'), 'help not shown');
	await shot(page, 'views-keys-02-help', false);
	await page.keyboard.press('Escape');
	check(await page.isHidden('#flame-help'), 'help not closed');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
