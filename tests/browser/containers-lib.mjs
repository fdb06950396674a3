// containers-lib.mjs: a capture with cgroups for the container tests
// (views2-containers, report-containers): a flamepipe recording
// (fp-record) of S records with the cgroup field as fp-perfdata writes it
// from perf record --all-cgroups: a docker container (two processes), a
// Kubernetes pod's container, a systemd service, and samples without a
// cgroup; and the same samples without their cgroups.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { BIN } from './tap-lib.mjs';

const HEX = '3f6c1a9e2b7d4c5e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a';
const UID = '1a2b3c4d_0000_4e5f_8a9b_00112233aabb';
// [cgroup path, readable name (fifo/fp_container.h), pids, samples a second per pid]
export const GROUPS = [
	[`/system.slice/docker-${HEX}.scope`, `docker-${HEX.slice(0, 12)}`, [700, 701], 9],
	[`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID}.slice/cri-containerd-${HEX}.scope`,
	 `pod-${UID.replace(/_/g, '-')}/${HEX.slice(0, 12)}`, [800], 7],
	['/system.slice/nginx.service', 'nginx.service', [900], 4],
	['', '', [1], 2],	// no cgroup (the 11th field absent)
];
export const SECONDS = 5;

function record(file, text) {
	const r = spawnSync(path.join(BIN, 'fp-record'), ['--output', file],
			    { input: text, stdio: ['pipe', 'ignore', 'pipe'] });
	if (r.status !== 0) throw new Error(`fp-record: ${r.stderr}`);
}

// Writes DIR/NAME (with cgroups) and DIR/PLAIN (without); returns
// {want: Map name -> samples ('' for none), total, named: the names, heaviest first}.
export function containerCapture(dir, name, plain) {
	const want = new Map();
	const lines = [];
	for (let s = 0; s < SECONDS; s++)
		for (const [cg, cname, pids, k] of GROUPS)
			for (const pid of pids)
				for (let i = 0; i < k; i++) {
					const t = (1000 + s) * 1e9 + Math.floor((i + 0.5) / (k + 1) * 1e9) + pid;
					lines.push(['S', t, pid, pid, 0, 1, 'cpu-clock', `app${pid}`, 'uu', `main;work_${pid}`]
						   .concat(cg ? [cg] : []).join('\t'));
					want.set(cname, (want.get(cname) || 0) + 1);
				}
	lines.sort((a, b) => Number(a.split('\t')[1]) - Number(b.split('\t')[1]));
	record(path.join(dir, name), ['%flamepipe\t1', ...lines].join('\n') + '\n');
	if (plain)
		record(path.join(dir, plain), ['%flamepipe\t1', ...lines.map((l) => l.split('\t').slice(0, 10).join('\t'))].join('\n') + '\n');
	const total = [...want.values()].reduce((a, b) => a + b, 0);
	const named = GROUPS.filter((g) => g[1] !== '').map((g) => g[1]);
	return { want, total, named };
}
