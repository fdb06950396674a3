// report-parity.test.mjs: the static report's data source answers as the
// server does. The same capture (examples/multiproc.perf.gz) as a report
// (index.html's views, ui/reportsource.js, offline) and served by
// fp-serve: for the same parameters (whole profile and cell-aligned
// ranges, filters, a bad filter) /heatmap/, /flamegraph/, /threads/,
// /differential/ and /elided/ give the same JSON, and /flamechart/ the
// same total (its time order is per cell in the report); the same on a
// cut axis.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, endClean, tmpdir } from './report-lib.mjs';
import { startServe, getJSON } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const FILE = 'multiproc.perf.gz';

deadline(TEST_DEADLINE_MS);
const dir = report('examples/' + FILE);
const browser = await launch();
const page = await openReport(browser, dir);
const name = await page.evaluate(() => window.flamepipeReport.name);
let srv;
await step('fp-serve --dir examples starts', async () => { srv = await startServe(['--dir', 'examples']); });

// The report's answer and the server's for one route and parameters
// (filename and compareFilename name each one's profile).
async function both(route, params, pg = page, server = srv, file = FILE) {
	const q = (f) => new URLSearchParams(Object.fromEntries(Object.entries(params)
		.map(([k, v]) => [k, v === '@' ? f : v]))).toString();
	const mine = await pg.views.evaluate((u) => {
		try { return window.flamepipeReport.answer(u); } catch (e) { return { error: e.message }; }
	}, route + '?' + q(name));
	let theirs;
	try { theirs = await getJSON(server.url + route.slice(1) + '?' + q(file)); } catch (e) { theirs = { error: e.message }; }
	return [mine, theirs];
}
// The JSON with the answers' fields that name no data dropped: the
// server's warnings, the file it read, floats of the row starts.
function data(j) {
	const { warnings, rows, ...rest } = j;
	return JSON.stringify(rest);
}

const CASES = [
	{},
	{ start: '2', end: '2.5' },
	{ start: '1.02', end: '4.4', comm: 'mp-crc32,worker2' },
	{ pid: '6313' },
	{ include: 'crc|hash', exclude: 'mix' },
];
for (const c of CASES) {
	await step(`the same heatmap, flame graph and threads for ${JSON.stringify(c)}`, async () => {
		for (const route of ['/heatmap/', '/flamegraph/', '/threads/']) {
			const [mine, theirs] = await both(route, { filename: '@', ...c });
			check(!theirs.error, route + ' server: ' + theirs.error);
			eq(data(mine), data(theirs), route);
		}
		const [mc, tc] = await both('/flamechart/', { filename: '@', ...c });
		eq(mc.total, tc.total, '/flamechart/ total');
	});
}

await step('the same differential and elided trees of two ranges', async () => {
	const p = { filename: '@', start: '4', end: '5', compareFilename: '@', compareStart: '0.5', compareEnd: '2' };
	for (const route of ['/differential/', '/elided/']) {
		const [mine, theirs] = await both(route, p);
		check(!theirs.error, route + ' server: ' + theirs.error);
		eq(JSON.stringify(mine), JSON.stringify(theirs), route);
	}
});

await step('a bad filter is refused with the same kind of message', async () => {
	const [mine, theirs] = await both('/flamegraph/', { filename: '@', pid: 'abc' });
	eq(mine.error, '400: ' + JSON.parse(theirs.error.replace(/^[^{]*/, '')).error, 'pid=abc');
	const [m2] = await both('/heatmap/', { filename: '@', include: '((' });
	check(/^400: include: bad regex: /.test(m2.error), 'include=((: ' + m2.error);
});

await step('a cut axis (one sample 100,000 s before the rest): the same heatmap and graphs', async () => {
	const d = tmpdir('report-parity-cut');
	const times = [1, ...Array.from({ length: 200 }, (_, i) => 100004 + i * 0.015)];
	fs.writeFileSync(path.join(d, 'cut.perf'), times.map((t, i) =>
		`cut 9/9 [001] ${t.toFixed(6)}: 1 cpu-clock: \n\t10 ${i % 4 ? 'busy' : 'idle_wait'}+0x2 (/bin/cut)\n\t20 main+0x2 (/bin/cut)\n`).join('\n') + '\n');
	const cutSrv = await startServe(['--dir', d]);
	const cutPage = await openReport(browser, report(path.join(d, 'cut.perf'), [], 'cut'));
	for (const c of [{}, { start: '100004', end: '100005.5' }])
		for (const route of ['/heatmap/', '/flamegraph/']) {
			const [mine, theirs] = await both(route, { filename: '@', ...c }, cutPage, cutSrv, 'cut.perf');
			check(!theirs.error, route + ' server: ' + theirs.error);
			eq(data(mine), data(theirs), route + ' ' + JSON.stringify(c));
		}
	check((await cutPage.views.evaluate(() => window.flamepipe.state.heat.cut)) > 0, 'the views\' axis is not cut');
	eq(cutPage.problems.join('; '), '', 'errors');
});

await step('250 threads: the 200 heaviest processes and threads, and the count of all, as the server', async () => {
	const d = tmpdir('report-parity-many');
	const lines = [];
	for (let t = 0; t < 250; t++)	// thread t: t % 7 + 1 samples, a process of its own
		for (let i = 0; i <= t % 7; i++)
			lines.push(`w${t} ${1000 + t}/${1000 + t} [000] ${(1 + t / 1000 + i / 1e5).toFixed(6)}: 1 cpu-clock: \n\t10 run+0x2 (/bin/w)\n`);
	fs.writeFileSync(path.join(d, 'many.perf'), lines.join('\n') + '\n');
	const manySrv = await startServe(['--dir', d]);
	const manyPage = await openReport(browser, report(path.join(d, 'many.perf'), [], 'many'));
	const [mine, theirs] = await both('/threads/', { filename: '@' }, manyPage, manySrv, 'many.perf');
	check(!theirs.error, '/threads/ server: ' + theirs.error);
	eq(mine.threads.length + ' of ' + mine.threads_count, '200 of 250', 'threads listed');
	eq(data(mine), data(theirs), '/threads/');
	eq(manyPage.problems.join('; '), '', 'errors');
});

// A random capture (seeded, so every run has the same): processes and
// threads named with spaces, non-ASCII, ';' and Object's property names,
// user frames then kernel ones from a syscall entry, names that are both
// kernel and user functions (strlen, valueOf) or prefixes of others
// (strlen, strlen2), kernel threads.
function randomCapture(seed, n) {
	let x = seed;
	const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
	const pick = (a) => a[Math.floor(rnd() * a.length)];
	const comms = ['node', 'constructor', 'java', 'a b', 'ünï', 'toString', 'x;y', 'worker-1', '__proto__'];
	const user = ['strlen', 'main', 'run', 'hasOwnProperty', 'a b c', 'Foo::bar(int)', '[unknown]', 'strlen2', 'valueOf'];
	const kern = ['strlen', 'do_syscall_64', 'valueOf', '__proto__'];
	const lines = [];
	let t = 1;
	for (let i = 0; i < n; i++) {
		t += rnd() * 0.01;
		const kthread = rnd() < 0.15, pid = kthread ? 7 : pick([100, 200, 300, 400]);
		lines.push(`${kthread ? 'kworker/0:1' : pick(comms)} ${pid}/${pid + (kthread ? 0 : pick([0, 0, 1]))} [00${Math.floor(rnd() * 4)}] ${t.toFixed(6)}: 1 cpu-clock: `);
		const fr = [];
		if (!kthread)
			for (let k = 1 + Math.floor(rnd() * 4); k > 0; k--) fr.push(['    55d0c0de1000', pick(user), '/usr/bin/app']);
		if (kthread || rnd() < 0.5) {
			fr.push(['ffffffff81000000', 'entry_SYSCALL_64', '[kernel.kallsyms]']);
			for (let k = Math.floor(rnd() * 4); k > 0; k--) fr.push(['ffffffff81000000', pick(kern), '[kernel.kallsyms]']);
		}
		for (const [addr, name, dso] of fr.reverse()) lines.push(`\t${addr} ${name}+0x10 (${dso})`);
		lines.push('');
	}
	return lines.join('\n') + '\n';
}
await step('a random capture: every route and filter as the server answers it', async () => {
	const d = tmpdir('report-parity-random');
	fs.writeFileSync(path.join(d, 'random.perf'), randomCapture(7, 600));
	const rSrv = await startServe(['--dir', d]);
	const rPage = await openReport(browser, report(path.join(d, 'random.perf'), [], 'random'));
	const cases = [{}, { allevents: '1' }, { start: '0.5', end: '2' }, { comm: 'constructor,a b' }, { include: 'strlen' },
		       { exclude: 'main|run' }, { pid: '200' }, { tid: '301,100' }, { cpu: '1,2' }];
	for (const c of cases)
		for (const route of ['/heatmap/', '/flamegraph/', '/threads/', '/flamechart/']) {
			const [mine, theirs] = await both(route, { filename: '@', ...c }, rPage, rSrv, 'random.perf');
			check(!theirs.error, route + ' server: ' + theirs.error);
			if (route === '/flamechart/') eq(mine.total, theirs.total, route + ' total ' + JSON.stringify(c));
			else eq(data(mine), data(theirs), route + ' ' + JSON.stringify(c));
		}
	for (const all of [{}, { allevents: '1' }])
		for (const route of ['/differential/', '/elided/']) {
			const p = { filename: '@', start: '0', end: '1', compareFilename: '@', compareStart: '1', compareEnd: '3', ...all };
			const [mine, theirs] = await both(route, p, rPage, rSrv, 'random.perf');
			check(!theirs.error, route + ' server: ' + theirs.error);
			eq(JSON.stringify(mine), JSON.stringify(theirs), route + ' ' + JSON.stringify(all));
		}
	eq(rPage.problems.join('; '), '', 'errors');
});

await step('include/exclude by the server\'s PCRE2 rules: byte-wise names, \\s, a leading ]; PCRE2-only syntax said', async () => {
	const d = tmpdir('report-parity-regex');
	const leaves = ['caf\u00e9', 'x y', ']odd', 'tab\u00a0nbsp', 'plain'];
	fs.writeFileSync(path.join(d, 'names.perf'), Array.from({ length: 100 }, (_, i) =>
		`rx 7/7 [000] ${(10 + i * 0.01).toFixed(6)}: 1 cpu-clock: \n\t10 ${leaves[i % leaves.length]}+0x2 (/bin/rx)\n\t20 main+0x2 (/bin/rx)\n`).join('\n') + '\n');
	const rxSrv = await startServe(['--dir', d]);
	const rxPage = await openReport(browser, report(path.join(d, 'names.perf'), [], 'regex'));
	// '.' is one byte (é is two), \s is not a no-break space, [] opens with ]
	// (each leaf has 20 samples; JavaScript's own rules would give 20, 0, 20
	// for the first three)
	const sum = (t) => (t.v || 0) + (t.c || []).reduce((n, k) => n + sum(k), 0);
	for (const [f, want] of [[{ include: 'caf.$' }, 0], [{ include: 'caf..$' }, 20], [{ include: 'tab.\\snbsp' }, 0],
				 [{ include: 'x\\sy' }, 20], [{ include: '[]q]odd' }, 20], [{ include: '\\S+ y' }, 20],
				 [{ exclude: 'main;[^;]{4}$' }, 80], [{ include: 'caf\u00e9|pl(ai)n' }, 40]]) {
		const [mine, theirs] = await both('/flamegraph/', { filename: '@', ...f }, rxPage, rxSrv, 'names.perf');
		check(!theirs.error, JSON.stringify(f) + ' server: ' + theirs.error);
		eq(JSON.stringify(mine), JSON.stringify(theirs), JSON.stringify(f));
		eq(sum(theirs), want, 'samples of ' + JSON.stringify(f));
	}
	// the server takes PCRE2's own syntax; the page refuses it by name
	const [mine, theirs] = await both('/flamegraph/', { filename: '@', include: 'ca(?>f)' }, rxPage, rxSrv, 'names.perf');
	check(!theirs.error, 'server: ' + theirs.error);
	check(/^400: include: bad regex: the group \(\?> is PCRE2 syntax/.test(mine.error), 'page: ' + mine.error);
	check((await rxPage.textContent('#regex-note')).includes('PCRE2-only syntax is refused here'), 'the page does not say what differs');
	eq(rxPage.problems.join('; '), '', 'errors');
});

await endClean(page);
