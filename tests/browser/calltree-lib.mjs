// calltree-lib.mjs: what the call tree view (ui/calltree.js) must show,
// computed here from a folded file on its own, and the comparisons of
// report-calltree and views-calltree.
// Top-down: every prefix of a stack is a row; its total is the samples of
// the stacks through it, its self those ending there. Bottom-up: every
// prefix of the reversed stack is a row, its total the samples of the
// stacks ending that way; a first-level row's self is its total (the
// function is the leaf), a caller row has none.

// {total, top: Map(path -> {self, total}), bottom: Map(...)} of folded
// text; frame kind annotations (_[k] ...) dropped, as the page shows names.
export function foldedTrees(text) {
	const top = new Map(), bottom = new Map();
	let total = 0;
	const add = (m, p, n, self) => {
		const e = m.get(p) || { self: 0, total: 0 };
		e.total += n;
		e.self += self;
		m.set(p, e);
	};
	for (const l of text.split('\n')) {
		const i = l.lastIndexOf(' ');
		if (i <= 0) continue;
		const n = Number(l.slice(i + 1));
		const frames = l.slice(0, i).split(';').map((f) => f.replace(/_\[[kwij]\]$/, ''));
		total += n;
		for (let d = 1; d <= frames.length; d++) {
			add(top, frames.slice(0, d).join(';'), n, d === frames.length ? n : 0);
			add(bottom, frames.slice(frames.length - d).reverse().join(';'), n, d === 1 ? n : 0);
		}
	}
	return { total, top, bottom };
}

// The page's tree of `mode` ('top' or 'bottom') against want (a Map of
// foldedTrees): "path: page self/total, folded ..." for each difference.
export async function treeMismatches(frame, mode, want) {
	const got = await frame.evaluate((m) => window.flamepipe.calltreeNodes(m), mode);
	const out = [], seen = new Set();
	for (const n of got.nodes) {
		seen.add(n.path);
		const w = want.get(n.path);
		if (!w || w.total !== n.total || w.self !== n.self)
			out.push(`${n.path}: page ${n.self}/${n.total}, folded ${w ? w.self + '/' + w.total : 'none'}`);
	}
	for (const p of want.keys()) if (!seen.has(p)) out.push(p + ': not in the page');
	return out.slice(0, 10);
}

// The call tree's total (the readout's data-total) once it equals n.
export async function waitTreeTotal(frame, n) {
	await frame.waitForFunction((n) => {
		const c = document.getElementById('ct-count');
		return c && Number(c.getAttribute('data-total')) === n;
	}, n).catch(async () => {
		throw new Error(`call tree total ${await frame.getAttribute('#ct-count', 'data-total')}, want ${n}`);
	});
}
// The rows drawn (window.flamepipe.calltree()).
export const treeRows = (frame) => frame.evaluate(() => window.flamepipe.calltree());
