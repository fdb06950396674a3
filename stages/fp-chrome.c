/* fp-chrome: a source stage: Chrome/V8 CPU profiles -> flamepipe S records.
 *
 * Interface:
 *	fp-chrome [--comm NAME] [--max-mb N] [-q] [FILE]
 *
 * Input (FILE or stdin, plain or gzip, at most --max-mb MB, default 256),
 * recognised by its content:
 *  - a .cpuprofile (node --cpu-prof, Chrome DevTools "Save profile"):
 *	{"nodes":[{"id":1,"callFrame":{"functionName":..,"url":..,
 *	  "lineNumber":..},"children":[2,..]},..],"startTime":US,
 *	 "samples":[node id,..],"timeDeltas":[US,..]}
 *  - Chrome trace-event JSON (DevTools Performance panel, chrome://tracing,
 *    node --prof-process is NOT this): an array of events, or an object
 *    with "traceEvents"; its "Profile" (args.data.startTime) and
 *    "ProfileChunk" events (args.data.cpuProfile.nodes / .samples,
 *    args.data.timeDeltas) make one profile per (pid, id); "thread_name"
 *    metadata events name the threads.
 *
 * Output: `%flamepipe 1`, then one S record per sample, in time order:
 *	S time_ns pid tid -1 period v8-sample comm kinds stack
 * with the profile's own timestamps (microseconds -> ns: startTime plus the
 * running sum of timeDeltas), so the heatmap and ranges work on them;
 * period = the sample's time delta in ns (at least 1). pid/tid: the trace
 * event's, or for a .cpuprofile those in node's file name
 * CPU.DATE.TIME.PID.TID.SEQ.cpuprofile, else -1. comm: the thread's name,
 * else --comm (default "v8"). Frames root first, without V8's "(root)":
 * "functionName url:line" (line 1-based; "(anonymous)" for an empty
 * name), V8's pseudo frames "(program)", "(garbage collector)", "(idle)"
 * as "[program]" ... (a name starting with "(" is dropped by the folding
 * rules); kind j for frames with a script url, u for the others. Then
 *	I chrome samples=N profiles=P nodes=M
 *
 * Exit codes: 0 ok; 1 bad input (not JSON, not a CPU profile, a broken
 * node tree, too large: the message names file, line and what was
 * expected); 100 usage; 111 read error; 141 the reader went away.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fp_error.h"
#include "fp_opts.h"
#include "fp_readall.h"
#include "fp_record.h"

#define USAGE "usage: fp-chrome [--comm NAME] [--max-mb N] [-q] [FILE]"
#define STAGE_NAME "chrome"
#define EVENT_NAME "v8-sample"
#define DEFAULT_COMM "v8"
#define DEFAULT_MAX_MB 256
#define MAX_MB_LIMIT 4096
#define NS_PER_US 1000
#define EXIT_PIPE 141
#define MAX_PROFILES 4096 /* (pid, id) pairs in a trace */
#define COMM_MAX 256

struct node {
	int64_t id;
	size_t parent; /* index, or SIZE_MAX for a root */
	char *name;    /* the frame name, as written */
	char kind;
	int is_root; /* V8's "(root)": not a frame */
};

struct sample {
	uint64_t time_ns, period;
	size_t node, profile;
	size_t seq; /* arrival: breaks ties of time */
};

struct profile {
	int64_t pid, tid, id; /* id: the trace's profile id */
	int64_t time_us;      /* running time: start + deltas */
	int started;
	char comm[COMM_MAX];
	struct node *nodes;
	size_t nnodes, cap;
	int sorted;
};

struct chrome {
	const char *in_name;
	const char *comm;
	struct profile *prof;
	size_t nprof;
	struct sample *s;
	size_t ns, scap;
	uint64_t nodes_total;
};

static _Noreturn void bad(const struct chrome *c, const char *what)
{
	fp_die(FP_EXIT_DATA, "%s: %s", c->in_name, what);
}

/* ---- input ---------------------------------------------------------------- */

/* ---- nodes ------------------------------------------------------------------ */

/* "functionName url:line", V8's pseudo frames "(x)" as "[x]"; protocol
 * bytes (TAB, LF, CR, ';') replaced as fp-read does. */
static char *frame_name(json_t *cf, char *kind, int *is_root)
{
	const char *fn = json_string_value(json_object_get(cf, "functionName"));
	const char *url = json_string_value(json_object_get(cf, "url"));
	json_int_t line = json_integer_value(json_object_get(cf, "lineNumber"));
	size_t n;
	char *out;

	if (!fn || !*fn)
		fn = "(anonymous)";
	*is_root = !strcmp(fn, "(root)");
	*kind = url && *url ? FP_KIND_JIT : FP_KIND_USER;
	n = strlen(fn) + (url ? strlen(url) : 0) + 32;
	out = fp_xmalloc(n);
	snprintf(out, n, "%s", fn);
	size_t fl = strlen(out);
	if (fl >= 2 && out[0] == '(' && out[fl - 1] == ')') { /* (program) -> [program] */
		out[0] = '[';
		out[fl - 1] = ']';
	}
	if (url && *url)
		snprintf(out + fl, n - fl, " %s:%lld", url, (long long)line + 1);
	for (char *p = out; *p; p++) {
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
		else if (*p == ';')
			*p = ':';
	}
	return out;
}

static int by_id(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static size_t find_node(const struct profile *p, int64_t id)
{
	size_t lo = 0, hi = p->nnodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->nodes[mid].id == id)
			return mid;
		if (p->nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* Adds nodes (a JSON array of {id, callFrame, children | parent}); parent
 * ids are resolved later (resolve_parents), kept in .parent as id + 1 in
 * the meantime with SIZE_MAX for none. */
static void add_nodes(struct chrome *c, struct profile *p, json_t *nodes)
{
	size_t i;
	json_t *n;

	if (!json_is_array(nodes))
		bad(c, "expected \"nodes\" to be an array of profile nodes");
	json_array_foreach(nodes, i, n)
	{
		json_t *id = json_object_get(n, "id"), *cf = json_object_get(n, "callFrame");
		json_t *parent = json_object_get(n, "parent");
		struct node *nd;

		if (!json_is_integer(id) || !json_is_object(cf))
			bad(c, "expected every node to have an integer \"id\" and a \"callFrame\" "
			       "object");
		if (p->nnodes == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 256;
			p->nodes = fp_xrealloc(p->nodes, p->cap * sizeof *p->nodes);
		}
		nd = &p->nodes[p->nnodes++];
		nd->id = json_integer_value(id);
		nd->parent = json_is_integer(parent) ? (size_t)json_integer_value(parent)
						     : SIZE_MAX;
		nd->name = frame_name(cf, &nd->kind, &nd->is_root);
		c->nodes_total++;
	}
	p->sorted = 0;
	(void)i;
}

/* Second pass over the same arrays: children lists give parents. */
static void add_children(struct chrome *c, struct profile *p, json_t *nodes)
{
	size_t i, j;
	json_t *n, *ch;

	json_array_foreach(nodes, i, n)
	{
		int64_t id = json_integer_value(json_object_get(n, "id"));
		json_t *children = json_object_get(n, "children");

		if (!children)
			continue;
		if (!json_is_array(children))
			bad(c, "expected \"children\" to be an array of node ids");
		json_array_foreach(children, j, ch)
		{
			size_t k = find_node(p, json_integer_value(ch));

			if (!json_is_integer(ch) || k == SIZE_MAX)
				bad(c, "a node's \"children\" names a node id that does not exist");
			p->nodes[k].parent = (size_t)id;
		}
	}
}

static void sort_nodes(struct chrome *c, struct profile *p)
{
	if (p->sorted)
		return;
	qsort(p->nodes, p->nnodes, sizeof *p->nodes, by_id);
	for (size_t i = 1; i < p->nnodes; i++)
		if (p->nodes[i].id == p->nodes[i - 1].id)
			bad(c, "two nodes have the same \"id\"");
	p->sorted = 1;
}

/* Parent ids -> indexes, once every node of the profile is known. */
static void resolve_parents(struct chrome *c, struct profile *p)
{
	for (size_t i = 0; i < p->nnodes; i++) {
		size_t pid = p->nodes[i].parent;

		if (pid == SIZE_MAX)
			continue;
		p->nodes[i].parent = find_node(p, (int64_t)pid);
		if (p->nodes[i].parent == SIZE_MAX)
			bad(c, "a node's \"parent\" names a node id that does not exist");
	}
}

/* ---- samples --------------------------------------------------------------- */

static void add_samples(struct chrome *c, struct profile *p, size_t pi, json_t *samples,
			json_t *deltas)
{
	size_t i;
	json_t *v;

	if (!json_is_array(samples) || (deltas && !json_is_array(deltas)))
		bad(c, "expected \"samples\" and \"timeDeltas\" to be arrays");
	if (deltas && json_array_size(deltas) != json_array_size(samples))
		bad(c, "\"samples\" and \"timeDeltas\" differ in length");
	json_array_foreach(samples, i, v)
	{
		json_t *d = deltas ? json_array_get(deltas, i) : NULL;
		int64_t delta = d ? json_integer_value(d) : 0;
		size_t k;

		if (!json_is_integer(v) || (d && !json_is_integer(d)))
			bad(c, "expected \"samples\" and \"timeDeltas\" to hold integers");
		k = find_node(p, json_integer_value(v));
		if (k == SIZE_MAX)
			bad(c, "a sample names a node id that does not exist");
		p->time_us += delta;
		if (p->time_us < 0)
			bad(c, "a sample's time (startTime + timeDeltas) is before 0");
		if (c->ns == c->scap) {
			c->scap = c->scap ? 2 * c->scap : 4096;
			c->s = fp_xrealloc(c->s, c->scap * sizeof *c->s);
		}
		c->s[c->ns] = (struct sample){ (uint64_t)p->time_us * NS_PER_US,
					       delta > 0 ? (uint64_t)delta * NS_PER_US : 1, k, pi,
					       c->ns };
		c->ns++;
	}
}

static struct profile *new_profile(struct chrome *c, int64_t pid, int64_t tid, int64_t id)
{
	struct profile *p;

	if (c->nprof == MAX_PROFILES)
		bad(c, "more than 4096 CPU profiles in one trace");
	c->prof = fp_xrealloc(c->prof, (c->nprof + 1) * sizeof *c->prof);
	p = &c->prof[c->nprof++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->tid = tid;
	p->id = id;
	snprintf(p->comm, sizeof p->comm, "%s", c->comm);
	return p;
}

/* pid and tid from node's file name CPU.YYYYMMDD.HHMMSS.PID.TID.SEQ.cpuprofile */
static void ids_from_name(const char *path, int64_t *pid, int64_t *tid)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	long long d, t, p, th, seq;
	char tail[32];

	base = base ? base + 1 : path;
	*pid = *tid = -1;
	if (base &&
	    sscanf(base, "CPU.%lld.%lld.%lld.%lld.%lld.%31s", &d, &t, &p, &th, &seq, tail) == 6 &&
	    !strcmp(tail, "cpuprofile")) {
		*pid = p;
		*tid = th;
	}
}

static void read_cpuprofile(struct chrome *c, json_t *root, const char *path)
{
	int64_t pid, tid;
	struct profile *p;
	json_t *nodes = json_object_get(root, "nodes");

	ids_from_name(path, &pid, &tid);
	p = new_profile(c, pid, tid, 0);
	add_nodes(c, p, nodes);
	sort_nodes(c, p);
	add_children(c, p, nodes);
	resolve_parents(c, p);
	p->time_us = json_integer_value(json_object_get(root, "startTime"));
	add_samples(c, p, 0, json_object_get(root, "samples"), json_object_get(root, "timeDeltas"));
}

/* ---- trace events ------------------------------------------------------------ */

static int64_t event_int(json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v)) /* "id": "0x1" */
		return strtoll(json_string_value(v), NULL, 0);
	return -1;
}

static struct profile *trace_profile(struct chrome *c, json_t *ev)
{
	int64_t pid = event_int(ev, "pid"), id = event_int(ev, "id");

	for (size_t i = 0; i < c->nprof; i++)
		if (c->prof[i].pid == pid && c->prof[i].id == id)
			return &c->prof[i];
	return new_profile(c, pid, event_int(ev, "tid"), id);
}

static int is_event(json_t *ev, const char *name)
{
	const char *n = json_string_value(json_object_get(ev, "name"));

	return n && !strcmp(n, name);
}

/* thread_name metadata events name the profiles' threads */
static void name_threads(struct chrome *c, json_t *events)
{
	size_t i;
	json_t *ev;

	json_array_foreach(events, i, ev)
	{
		const char *name = json_string_value(
			json_object_get(json_object_get(ev, "args"), "name"));

		if (!is_event(ev, "thread_name") || !name || !*name)
			continue;
		for (size_t k = 0; k < c->nprof; k++)
			if (c->prof[k].pid == event_int(ev, "pid") &&
			    c->prof[k].tid == event_int(ev, "tid")) {
				snprintf(c->prof[k].comm, sizeof c->prof[k].comm, "%s", name);
				for (char *q = c->prof[k].comm; *q; q++)
					if (*q == '\t' || *q == '\n' || *q == '\r')
						*q = ' ';
			}
	}
}

static void read_trace(struct chrome *c, json_t *events)
{
	size_t i;
	json_t *ev;

	if (!json_is_array(events))
		bad(c, "expected \"traceEvents\" to be an array of events");
	/* every node first (a chunk's nodes may be the parents of a later one's) */
	json_array_foreach(events, i, ev)
	{
		json_t *data = json_object_get(json_object_get(ev, "args"), "data");

		if (is_event(ev, "Profile")) {
			struct profile *p = trace_profile(c, ev);

			p->time_us = json_integer_value(json_object_get(data, "startTime"));
			p->started = 1;
		} else if (is_event(ev, "ProfileChunk")) {
			json_t *nodes = json_object_get(json_object_get(data, "cpuProfile"),
							"nodes");

			if (nodes)
				add_nodes(c, trace_profile(c, ev), nodes);
		}
	}
	if (!c->nprof)
		bad(c, "no \"Profile\"/\"ProfileChunk\" events: not a trace with a CPU profile "
		       "(record with the JavaScript samples category)");
	for (size_t k = 0; k < c->nprof; k++) {
		if (!c->prof[k].started)
			bad(c, "a \"ProfileChunk\" without its \"Profile\" event (no startTime)");
		sort_nodes(c, &c->prof[k]);
		resolve_parents(c, &c->prof[k]);
	}
	json_array_foreach(events, i, ev)
	{
		json_t *data = json_object_get(json_object_get(ev, "args"), "data");
		json_t *samples = json_object_get(json_object_get(data, "cpuProfile"), "samples");

		if (!is_event(ev, "ProfileChunk") || !samples)
			continue;
		struct profile *p = trace_profile(c, ev);
		add_samples(c, p, (size_t)(p - c->prof), samples,
			    json_object_get(data, "timeDeltas"));
	}
	name_threads(c, events);
}

/* ---- output ----------------------------------------------------------------- */

static int by_time(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct out {
	struct fp_wmem kinds, stack; /* one sample's fields */
	size_t *path, cap;
};

/* The kinds and stack fields of node k, root first. */
static void build_stack(struct out *o, const struct profile *p, size_t k, const struct chrome *c)
{
	size_t n = 0;

	for (size_t i = k; i != SIZE_MAX; i = p->nodes[i].parent) {
		if (n > p->nnodes)
			bad(c, "the node tree has a cycle (a node is its own ancestor)");
		if (p->nodes[i].is_root)
			continue;
		if (n == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 64;
			o->path = fp_xrealloc(o->path, o->cap * sizeof *o->path);
		}
		o->path[n++] = i;
	}
	o->kinds.len = o->stack.len = 0;
	for (size_t i = n; i-- > 0;) {
		const struct node *nd = &p->nodes[o->path[i]];

		fp_wmem_add(&o->kinds, &nd->kind, 1);
		fp_wmem_add(&o->stack, nd->name, strlen(nd->name));
		if (i)
			fp_wmem_add(&o->stack, ";", 1);
	}
}

static void stdio_write(void *ctx, const void *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

static void write_samples(struct chrome *c, FILE *fp)
{
	struct fp_wr w = { stdio_write, fp };
	struct out o = { 0 };
	static const char event[] = EVENT_NAME;

	qsort(c->s, c->ns, sizeof *c->s, by_time);
	fp_write_header(w);
	for (size_t i = 0; i < c->ns; i++) {
		const struct sample *s = &c->s[i];
		const struct profile *p = &c->prof[s->profile];

		build_stack(&o, p, s->node, c);
		fp_write_sample(w, &(struct fp_sample){ .time_ns = s->time_ns,
							.pid = p->pid,
							.tid = p->tid,
							.cpu = -1,
							.period = s->period,
							.event = { event, sizeof event - 1 },
							.comm = { p->comm, strlen(p->comm) },
							.kinds = { o.kinds.p, o.kinds.len },
							.stack = { o.stack.p, o.stack.len } });
	}
	fp_write_info(w, STAGE_NAME,
		      (const struct fp_stat[]){ { "samples", c->ns },
						{ "profiles", c->nprof },
						{ "nodes", c->nodes_total } },
		      3);
	fp_wmem_free(&o.kinds);
	fp_wmem_free(&o.stack);
	free(o.path);
}

static void opt_comm(void *ctx, const char *opt, const char *arg)
{
	struct chrome *c = ctx;

	if (!*arg || strlen(arg) >= COMM_MAX || strpbrk(arg, "\t\n\r"))
		fp_die(FP_EXIT_USAGE, "--comm: want a name without TAB or LF, got '%s'", arg);
	c->comm = arg;
}

int main(int argc, char **argv)
{
	struct chrome c = { .in_name = "stdin", .comm = DEFAULT_COMM };
	const char *path = NULL;
	uint64_t max_mb = DEFAULT_MAX_MB;
	json_error_t jerr;
	json_t *root;
	size_t len;
	char *buf;
	int quiet; /* accepted like fp-read -q: fp-chrome only warns on errors */
	const struct fp_opt options[] = {
		{ "comm", FP_OPT_FN, .fn = opt_comm },
		{ "max-mb", FP_OPT_U64, &max_mb, 1, MAX_MB_LIMIT },
		{ "quiet", FP_OPT_FLAG, &quiet, .short_name = 'q' },
		{ NULL },
	};

	fp_set_prog(argv[0]);
	int first = fp_opts_parse(argc, argv, options, USAGE, 1, &c);
	if (first < argc && strcmp(argv[first], "-"))
		c.in_name = path = argv[first];
	signal(SIGPIPE, SIG_IGN);
	buf = fp_read_all(path, c.in_name, (size_t)max_mb * FP_BYTES_PER_MB, &len);
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (!root)
		fp_die(FP_EXIT_DATA, "%s:%d:%d: not JSON: %s", c.in_name, jerr.line, jerr.column,
		       jerr.text);
	if (json_is_object(root) && json_object_get(root, "nodes") &&
	    json_object_get(root, "samples"))
		read_cpuprofile(&c, root, path);
	else if (json_is_array(root) || json_object_get(root, "traceEvents"))
		read_trace(&c, json_is_array(root) ? root : json_object_get(root, "traceEvents"));
	else
		bad(&c, "expected a .cpuprofile ({\"nodes\", \"samples\", ...}) or Chrome "
			"trace-event JSON ([...] or {\"traceEvents\": [...]})");
	json_decref(root);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	write_samples(&c, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return EXIT_PIPE;
		fp_die_sys(FP_EXIT_SYS, "write stdout");
	}
	for (size_t i = 0; i < c.nprof; i++) {
		for (size_t k = 0; k < c.prof[i].nnodes; k++)
			free(c.prof[i].nodes[k].name);
		free(c.prof[i].nodes);
	}
	free(c.prof);
	free(c.s);
	return FP_EXIT_OK;
}
