// The profile list and the upload form.

import { API, getJSON, qs } from './api.js';
import { setStatus, showError, st } from './state.js';
import { $, clear, el, fmtCount, text } from './util.js';

// ---- file list ------------------------------------------------------------------
export function normalizeProfiles(j) {
	// FlameScope returns a list of {filename, type, ...}; accept plain
	// strings and {files:[...]} too.
	var list = Array.isArray(j) ? j : (j && Array.isArray(j.files) ? j.files : []);
	return list.map(function (f) {
		if (typeof f === 'string') return { filename: f, type: '' };
		var o = {};
		for (var k in f) o[k] = f[k];
		o.filename = String(f.filename !== undefined ? f.filename : f.name);
		o.live = !!(f.live || f.type === 'live');
		return o;
	}).filter(function (f) { return f.filename && f.filename !== 'undefined'; });
}
export function loadProfiles() {
	return getJSON(API.profiles).then(function (j) {
		st.files = normalizeProfiles(j);
		st.files.sort(function (a, b) {
			if (a.live !== b.live) return a.live ? -1 : 1;
			return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;
		});
		return st.files;
	});
}
export function profileHref(name) { return '#/profile?' + qs({ file: name }); }
export function showList() {
	st.view = 'list';
	$('profile-view').hidden = true;
	$('list-view').hidden = false;
	text($('crumb'), '');
	document.title = 'flamepipe';
	setStatus('loading file list\u2026');
	loadProfiles().then(function (files) {
		setStatus('');
		var tb = $('files').tBodies[0];
		clear(tb);
		files.forEach(function (f) {
			var tr = el('tr', f.live ? 'file live-file' : 'file');
			var td = el('td');
			var a = el('a', 'file-link', f.filename);
			a.href = profileHref(f.filename);
			td.appendChild(a);
			if (f.live) td.appendChild(el('span', 'live', 'LIVE'));
			tr.appendChild(td);
			tr.appendChild(el('td', '', f.live ? 'live capture' : (f.format || f.type || '')));
			tr.appendChild(el('td', 'num', f.size !== undefined ? fmtCount(f.size) : ''));
			var m = f.mtime !== undefined ? f.mtime : f.modified;
			tr.appendChild(el('td', '', typeof m === 'number' ? new Date(m * 1000).toISOString().replace('T', ' ').slice(0, 19) : (m || '')));
			tb.appendChild(tr);
		});
		$('files-empty').hidden = files.length > 0;
	}).catch(function (e) { setStatus(''); showError('file list: ' + e.message); });
}

export function setupUpload() {
	$('upload').addEventListener('submit', function (ev) {
		ev.preventDefault();
		var f = $('upload-file').files[0];
		if (!f) return;
		var fd = new FormData();
		fd.append('file', f, f.name);
		text($('upload-status'), 'uploading\u2026');
		getJSON(API.upload, { method: 'POST', body: fd }).then(function (j) {
			var name = (j && (j.filename || j.name)) || f.name;
			text($('upload-status'), 'uploaded as ' + name);
			$('upload').reset();
			showList();
		}).catch(function (e) { text($('upload-status'), 'upload failed: ' + e.message); });
	});
}
