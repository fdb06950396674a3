// The event picker: which event the heatmap and the flame graph count.
// A capture made with several events (perf record -e cpu-clock -e
// page-faults) holds counts that must not be added up: the server counts
// one event set everywhere (the first event by default, as perf report
// shows first; docs/fp-serve.md "One event at a time"). The picker lists the
// capture's events from the heatmap answer and sets the `event` filter, or
// `allevents=1` (every event, each as a frame under the root).

import { applyFilters } from './filters.js';
import { st } from './state.js';
import { $, clear, el, fmtCount } from './util.js';

export var ALL_EVENTS = '*all';

// Timed events (fifo/PROTOCOL.md "Off-CPU samples": offcpu, wakeup) count
// nanoseconds of blocked time, not samples: while one is the event counted,
// counts read as time. Set from each heatmap answer (fillEventPicker).
var TIMED = { offcpu: 'blocked', wakeup: 'blocked, by waker' };
var countedTimed = null;
export function fmtWeight(n) {
	if (!countedTimed) return fmtCount(n) + ' samples';
	var ms = n / 1e6;
	return (ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms.toFixed(ms >= 10 ? 0 : 2) + ' ms') +
		' ' + TIMED[countedTimed];
}

export function fillEventPicker(h) {
	var s = $('event-pick');
	clear(s);
	var evs = h && h.events ? h.events : [];
	// a running live capture: the names its source gave (perf report's
	// order), without counts until the end; the chain counts the first
	if (!evs.length && h && h.eventNames && h.eventNames.length)
		evs = h.eventNames.map(function (n, i) { return { name: n, samples: null, counted: i === 0 && !h.filtered && !h.allEvents }; });
	evs.forEach(function (e, i) {
		var o = el('option', '', e.name + (TIMED[e.name] ? ' (off-CPU time)' : e.samples === null ? '' : ' (' + fmtCount(e.samples) + ' samples)') + (i === 0 ? ', first' : ''));
		o.value = i === 0 ? '' : e.name;
		o.setAttribute('data-name', e.name);
		s.appendChild(o);
	});
	if (evs.length > 1) {
		var all = el('option', '', 'all events, each as root');
		all.value = ALL_EVENTS;
		s.appendChild(all);
	}
	if (!evs.length) s.appendChild(el('option', '', 'no event names'));
	s.disabled = evs.length < 2 && !st.filters.event && !st.allEvents;
	// the picker shows what the server counted
	var counted = evs.filter(function (e) { return e.counted; });
	var one = counted.length === 1 ? counted[0].name : null;
	countedTimed = one && TIMED[one] && !(h && h.allEvents) ? one : null;
	if (h && h.allEvents) s.value = ALL_EVENTS;
	else if (counted.length === 1) s.value = counted[0] === evs[0] ? '' : counted[0].name;
	else if (st.filters.event) {
		var o = el('option', '', st.filters.event + ' (filter)');
		o.value = st.filters.event;
		s.appendChild(o);
		s.value = st.filters.event;
	}
}

export function setupEventPicker() {
	$('event-pick').addEventListener('change', function () {
		var v = $('event-pick').value;
		st.allEvents = v === ALL_EVENTS;
		if (v && v !== ALL_EVENTS) st.filters.event = v;
		else delete st.filters.event;
		applyFilters();
	});
}
