/* pprof.c: samples -> profile.pb.gz (see pprof.h). */
#include "pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "exports.h"
#include "fp_error.h"
#include "profile.pb-c.h"

#define GZIP_WINDOW_BITS (15 + 16) /* zlib: a gzip wrapper, 32 KiB window */
#define GZIP_MEM_LEVEL 8
#define GZIP_CHUNK (64u << 10)
#define CAP_MIN 64u
#define KEY_BYTES (3 * sizeof(uint32_t) + 3 * sizeof(int64_t))
#define MAX_LABELS 5 /* pid tid cpu comm event */

/* The mappings, one per frame kind (pprof wants one for each location). */
static const char mapping_kinds[] = { FP_KIND_USER, FP_KIND_KERNEL, FP_KIND_JIT, FP_KIND_UNKNOWN };
#define N_MAPPINGS (sizeof mapping_kinds)

static size_t mapping_of(char kind)
{
	for (size_t i = 0; i < N_MAPPINGS; i++)
		if (mapping_kinds[i] == kind)
			return i;
	return 0; /* user: what perf did not mark otherwise */
}

void fp_pprof_init(struct fp_pprof *p)
{
	memset(p, 0, sizeof *p);
	fp_strtab_init(&p->strings);
	fp_strtab_init(&p->functions);
	fp_strtab_init(&p->locations);
	fp_strtab_init(&p->stacks);
	fp_strtab_init(&p->comms);
	fp_strtab_init(&p->events);
	fp_strtab_init(&p->keys);
	fp_strtab_intern(&p->strings, "", 0, NULL); /* pprof: string 0 is "" */
	p->stack_off = fp_xgrow(NULL, &p->stack_off_cap, 1, sizeof *p->stack_off, CAP_MIN);
	p->stack_off[0] = 0;
}

void fp_pprof_free(struct fp_pprof *p)
{
	fp_fold_buf_free(&p->folded);
	fp_fold_buf_free(&p->kinds);
	fp_fold_buf_free(&p->scratch);
	fp_strtab_free(&p->strings);
	fp_strtab_free(&p->functions);
	fp_strtab_free(&p->locations);
	fp_strtab_free(&p->stacks);
	fp_strtab_free(&p->comms);
	fp_strtab_free(&p->events);
	fp_strtab_free(&p->keys);
	FP_FREE_ALL(p->function_name, p->function_kind, p->location_kind, p->stack_locs,
		    p->stack_off, p->samples);
	memset(p, 0, sizeof *p);
}

void fp_pprof_reset(struct fp_pprof *p)
{
	fp_strtab_clear(&p->keys);
	p->n_samples = 0;
	p->first_ns = p->last_ns = 0;
}

static uint32_t function_id(struct fp_pprof *p, const char *name, size_t n, char kind)
{
	struct fp_fold_buf *key = &p->scratch;
	int added;
	uint32_t id;

	key->len = 0;
	fp_fold_buf_add(key, &kind, 1);
	fp_fold_buf_add(key, name, n);
	id = fp_strtab_intern(&p->functions, key->p, key->len, &added);
	if (added) {
		if (id >= p->functions_cap) {
			size_t cap = p->functions_cap;

			p->function_kind = fp_xgrow(p->function_kind, &cap, id + 1, 1, CAP_MIN);
			p->function_name = fp_xrealloc(p->function_name,
						       cap * sizeof *p->function_name);
			p->functions_cap = cap;
		}
		p->function_name[id] = fp_strtab_intern(&p->strings, name, n, NULL);
		p->function_kind[id] = kind;
	}
	return id;
}

/* One location: the function ids of a frame and of those inlined into it,
 * root first in group[0..n); pprof lists them the other way round. */
static uint32_t location_id(struct fp_pprof *p, uint32_t *group, size_t n)
{
	int added;
	uint32_t id;

	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = group[i];
		group[i] = group[n - 1 - i];
		group[n - 1 - i] = t;
	}
	id = fp_strtab_intern(&p->locations, (const char *)group, n * sizeof *group, &added);
	if (added) {
		p->location_kind = fp_xgrow(p->location_kind, &p->locations_cap, id + 1, 1,
					    CAP_MIN);
		p->location_kind[id] = p->function_kind[group[n - 1]];
	}
	return id;
}

static void push_loc(struct fp_pprof *p, uint32_t loc)
{
	p->stack_locs = fp_xgrow(p->stack_locs, &p->stack_locs_cap, p->stack_locs_len + 1,
				 sizeof *p->stack_locs, CAP_MIN);
	p->stack_locs[p->stack_locs_len++] = loc;
}

/* A new stack: its frames (after the comm root of the folded string) into
 * locations, leaf first. */
static void add_stack_locations(struct fp_pprof *p, const char *frames, size_t n, const char *kinds,
				size_t nkinds)
{
	size_t start = p->stack_locs_len, group_cap = 0, group_n = 0, k = 0;
	uint32_t *group = NULL;
	const char *q = frames, *end = frames + n;

	while (n && k < nkinds) {
		const char *semi = memchr(q, ';', end - q);
		const char *stop = semi ? semi : end;
		char kind = kinds[k++];

		if (kind != FP_KIND_INLINED && group_n) {
			push_loc(p, location_id(p, group, group_n));
			group_n = 0;
		}
		group = fp_xgrow(group, &group_cap, group_n + 1, sizeof *group, CAP_MIN);
		group[group_n++] = function_id(p, q, stop - q, kind);
		if (!semi)
			break;
		q = semi + 1;
	}
	if (group_n)
		push_loc(p, location_id(p, group, group_n));
	free(group);
	for (size_t i = start, j = p->stack_locs_len; i + 1 < j; i++, j--) {
		uint32_t t = p->stack_locs[i];
		p->stack_locs[i] = p->stack_locs[j - 1];
		p->stack_locs[j - 1] = t;
	}
}

static uint32_t stack_id(struct fp_pprof *p, const char *frames, size_t nframes, const char *kinds,
			 size_t nkinds)
{
	struct fp_fold_buf *f = &p->folded, *k = &p->kinds, *key = &p->scratch;
	int added;
	uint32_t id;

	key->len = 0; /* folded NUL kinds */
	fp_fold_buf_add(key, f->p, f->len);
	fp_fold_buf_add(key, "", 1);
	fp_fold_buf_add(key, k->p, k->len);
	id = fp_strtab_intern(&p->stacks, key->p, key->len, &added);
	if (added) {
		add_stack_locations(p, frames, nframes, kinds, nkinds);
		p->stack_off = fp_xgrow(p->stack_off, &p->stack_off_cap, id + 2,
					sizeof *p->stack_off, CAP_MIN);
		p->stack_off[id + 1] = p->stack_locs_len;
	}
	return id;
}

static size_t pack_key(uint8_t *key, uint32_t stack, uint32_t comm, uint32_t event,
		       const struct fp_sample *s)
{
	uint8_t *q = key;

	memcpy(q, &stack, sizeof stack), q += sizeof stack;
	memcpy(q, &comm, sizeof comm), q += sizeof comm;
	memcpy(q, &event, sizeof event), q += sizeof event;
	memcpy(q, &s->pid, sizeof s->pid), q += sizeof s->pid;
	memcpy(q, &s->tid, sizeof s->tid), q += sizeof s->tid;
	memcpy(q, &s->cpu, sizeof s->cpu), q += sizeof s->cpu;
	return q - key;
}

int fp_pprof_add(struct fp_pprof *p, const struct fp_sample *s)
{
	uint8_t key[KEY_BYTES];
	uint32_t stack, comm, event, id;
	const char *frames, *kinds;
	size_t nframes, nkinds;
	int added;

	struct fp_sample ids = *s;

	if (fp_export_fold(&p->folded, &p->kinds, s, &frames, &nframes, &kinds, &nkinds) < 0) {
		p->bad++;
		return -1;
	}
	if (p->push_rate) {
		/* Pyroscope's shape: the comm is the root frame, as in the folded
		 * body; ids not asked for are not part of the key */
		frames = p->folded.p, nframes = p->folded.len;
		kinds = p->kinds.p, nkinds = p->kinds.len;
		if (!(p->push_labels & FP_PPROF_LABEL_PID))
			ids.pid = -1;
		if (!(p->push_labels & FP_PPROF_LABEL_TID))
			ids.tid = -1;
		if (!(p->push_labels & FP_PPROF_LABEL_CPU))
			ids.cpu = -1;
	}
	stack = stack_id(p, frames, nframes, kinds, nkinds);
	comm = fp_strtab_intern(&p->comms, s->comm.p, s->comm.n, NULL);
	event = fp_strtab_intern(&p->events, s->event.p, s->event.n, NULL);
	id = fp_strtab_intern(&p->keys, (const char *)key, pack_key(key, stack, comm, event, &ids),
			      &added);
	if (added) {
		p->samples = fp_xgrow(p->samples, &p->samples_cap, id + 1, sizeof *p->samples,
				      CAP_MIN);
		p->samples[id] = (struct fp_pprof_sample){ 0, 0 };
	}
	p->samples[id].count++;
	p->samples[id].period += s->period;
	if (!p->n_samples++) {
		p->first_ns = p->last_ns = s->time_ns;
		p->first_period = s->period;
	}
	if (s->time_ns < p->first_ns)
		p->first_ns = s->time_ns;
	if (s->time_ns > p->last_ns)
		p->last_ns = s->time_ns;
	return 0;
}

/* ---- writing ---- */

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Everything the Profile message points to, freed together. */
struct build {
	Profile prof;
	ValueType *types, **type_ptrs, period_type;
	Sample *samples, **sample_ptrs;
	int64_t *values;
	uint64_t *loc_ids;
	Label *labels, **label_ptrs;
	Mapping maps[N_MAPPINGS], *map_ptrs[N_MAPPINGS];
	Location *locs, **loc_ptrs;
	Line *lines;
	Function *funcs, **func_ptrs;
	char **strings;
	int64_t comment;
};

static int64_t str_id(struct fp_pprof *p, const char *s)
{
	return fp_strtab_intern(&p->strings, s, strlen(s), NULL);
}

/* fp-push's shape: samples/count, cpu/nanoseconds (see pprof.h). */
static void build_push_types(struct fp_pprof *p, struct build *b)
{
	b->types = fp_xcalloc(2, sizeof *b->types);
	b->type_ptrs = fp_xcalloc(2, sizeof *b->type_ptrs);
	for (size_t i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	b->types[0].type = str_id(p, "samples");
	b->types[0].unit = str_id(p, "count");
	b->types[1].type = str_id(p, "cpu");
	b->types[1].unit = str_id(p, "nanoseconds");
	b->prof.n_sample_type = 2;
	b->prof.sample_type = b->type_ptrs;
	b->prof.default_sample_type = b->types[1].type;
	perftools__profiles__value_type__init(&b->period_type);
	b->period_type = b->types[1];
	b->prof.period_type = &b->period_type;
	b->prof.period = (int64_t)(FP_NSEC_PER_SEC / p->push_rate);
}

/* samples/count, then one type per event (see pprof.h). */
static void build_types(struct fp_pprof *p, struct build *b)
{
	size_t nev = fp_strtab_count(&p->events), ntypes = 1 + nev, cpu = SIZE_MAX;

	if (p->push_rate) {
		build_push_types(p, b);
		return;
	}

	/* "cpu": cpu-clock if there is one, else the first clock event */
	for (int pass = 0; pass < 2 && cpu == SIZE_MAX; pass++)
		for (size_t e = 0; e < nev && cpu == SIZE_MAX; e++) {
			size_t n;
			const char *ev = fp_strtab_str(&p->events, (uint32_t)e, &n);

			if (fp_export_clock_event(ev, n) && (pass || !strncmp(ev, "cpu-clock", 9)))
				cpu = e;
		}
	b->types = fp_xcalloc(ntypes, sizeof *b->types);
	b->type_ptrs = fp_xcalloc(ntypes, sizeof *b->type_ptrs);
	for (size_t i = 0; i < ntypes; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	b->types[0].type = str_id(p, "samples");
	b->types[0].unit = str_id(p, "count");
	for (size_t e = 0; e < nev; e++) {
		size_t n;
		const char *ev = fp_strtab_str(&p->events, (uint32_t)e, &n);

		int clock = fp_export_clock_event(ev, n);

		if (e == cpu)
			b->types[1 + e].type = str_id(p, "cpu");
		else if (!strcmp(ev, "-"))
			b->types[1 + e].type = str_id(p, "period");
		else
			b->types[1 + e].type = fp_strtab_intern(&p->strings, ev, n, NULL);
		b->types[1 + e].unit = str_id(p, clock ? "nanoseconds" : "count");
	}
	b->prof.n_sample_type = ntypes;
	b->prof.sample_type = b->type_ptrs;
	b->prof.default_sample_type = b->types[0].type;
	perftools__profiles__value_type__init(&b->period_type);
	if (nev) {
		b->period_type = b->types[1];
		b->prof.period_type = &b->period_type;
		b->prof.period = (int64_t)p->first_period;
	}
}

/* pid, tid and cpu are string labels: pprof drops a numeric label whose
 * value is 0 (pid 0, cpu 0), and Pyroscope keeps only string labels. */
static void add_id_label(struct fp_pprof *p, Label **lp, Label *l, int64_t key, int64_t v,
			 size_t *n)
{
	char num[24];
	int len;

	if (v < 0)
		return; /* perf printed none */
	len = snprintf(num, sizeof num, "%lld", (long long)v);
	perftools__profiles__label__init(l);
	l->key = key;
	l->str = fp_strtab_intern(&p->strings, num, (size_t)len, NULL);
	lp[(*n)++] = l;
}

static void add_str_label(Label **lp, Label *l, int64_t key, int64_t v, size_t *n)
{
	perftools__profiles__label__init(l);
	l->key = key;
	l->str = v;
	lp[(*n)++] = l;
}

/* The samples: one per key; label strings are interned first. */
static void build_samples(struct fp_pprof *p, struct build *b)
{
	size_t n = fp_strtab_count(&p->keys), ntypes = b->prof.n_sample_type;
	size_t ncomm = fp_strtab_count(&p->comms), nev = fp_strtab_count(&p->events);
	int64_t k_pid = str_id(p, "pid"), k_tid = str_id(p, "tid"), k_cpu = str_id(p, "cpu");
	int64_t k_comm = str_id(p, "comm"), k_event = str_id(p, "event");
	int64_t *comm_str = fp_xcalloc(ncomm + 1, sizeof *comm_str);
	int64_t *event_str = fp_xcalloc(nev + 1, sizeof *event_str);
	char *event_clock = fp_xcalloc(nev + 1, 1);
	unsigned want = p->push_rate ? p->push_labels : ~0u;

	for (size_t i = 0; i < ncomm; i++) {
		size_t len;
		const char *c = fp_strtab_str(&p->comms, (uint32_t)i, &len);
		comm_str[i] = fp_strtab_intern(&p->strings, c, len, NULL);
	}
	for (size_t i = 0; i < nev; i++) {
		size_t len;
		const char *c = fp_strtab_str(&p->events, (uint32_t)i, &len);
		event_str[i] = fp_strtab_intern(&p->strings, c, len, NULL);
		event_clock[i] = (char)fp_export_clock_event(c, len);
	}
	b->samples = fp_xcalloc(n + 1, sizeof *b->samples);
	b->sample_ptrs = fp_xcalloc(n + 1, sizeof *b->sample_ptrs);
	b->values = fp_xcalloc(n * ntypes + 1, sizeof *b->values);
	b->labels = fp_xcalloc(n * MAX_LABELS + 1, sizeof *b->labels);
	b->label_ptrs = fp_xcalloc(n * MAX_LABELS + 1, sizeof *b->label_ptrs);
	b->loc_ids = fp_xcalloc(p->stack_locs_len + 1, sizeof *b->loc_ids);
	for (size_t i = 0; i < p->stack_locs_len; i++)
		b->loc_ids[i] = (uint64_t)p->stack_locs[i] + 1;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *key = (const uint8_t *)fp_strtab_str(&p->keys, (uint32_t)i, NULL);
		uint32_t stack, comm, event;
		int64_t pid, tid, cpu;
		Sample *s = &b->samples[i];
		Label **lp = &b->label_ptrs[i * MAX_LABELS], *l = &b->labels[i * MAX_LABELS];
		size_t nl = 0;

		memcpy(&stack, key, sizeof stack), key += sizeof stack;
		memcpy(&comm, key, sizeof comm), key += sizeof comm;
		memcpy(&event, key, sizeof event), key += sizeof event;
		memcpy(&pid, key, sizeof pid), key += sizeof pid;
		memcpy(&tid, key, sizeof tid), key += sizeof tid;
		memcpy(&cpu, key, sizeof cpu);
		perftools__profiles__sample__init(s);
		s->n_location_id = p->stack_off[stack + 1] - p->stack_off[stack];
		s->location_id = &b->loc_ids[p->stack_off[stack]];
		s->n_value = ntypes;
		s->value = &b->values[i * ntypes];
		s->value[0] = (int64_t)p->samples[i].count;
		if (!p->push_rate)
			s->value[1 + event] = (int64_t)p->samples[i].period;
		else /* CPU time: a clock's periods, else 1e9 / Hz per sample */
			s->value[1] = (int64_t)(event_clock[event]
							? p->samples[i].period
							: p->samples[i].count *
								  (FP_NSEC_PER_SEC / p->push_rate));
		add_id_label(p, lp, l + nl, k_pid, pid, &nl);
		add_id_label(p, lp, l + nl, k_tid, tid, &nl);
		add_id_label(p, lp, l + nl, k_cpu, cpu, &nl);
		if (want & FP_PPROF_LABEL_COMM)
			add_str_label(lp, l + nl, k_comm, comm_str[comm], &nl);
		if (!p->push_rate)
			add_str_label(lp, l + nl, k_event, event_str[event], &nl);
		s->n_label = nl;
		s->label = lp;
		b->sample_ptrs[i] = s;
	}
	b->prof.n_sample = n;
	b->prof.sample = b->sample_ptrs;
	free(comm_str);
	free(event_str);
	free(event_clock);
}

/* Mappings (one per kind), locations and functions. */
static void build_code(struct fp_pprof *p, struct build *b)
{
	size_t nloc = fp_strtab_count(&p->locations), nfun = fp_strtab_count(&p->functions);
	size_t nlines = 0, li = 0;

	for (size_t i = 0; i < N_MAPPINGS; i++) {
		perftools__profiles__mapping__init(&b->maps[i]);
		b->maps[i].id = i + 1;
		b->maps[i].filename = str_id(p, fp_export_kind_name(mapping_kinds[i]));
		b->maps[i].has_functions = 1;
		b->maps[i].has_inline_frames = 1;
		b->map_ptrs[i] = &b->maps[i];
	}
	b->prof.n_mapping = N_MAPPINGS;
	b->prof.mapping = b->map_ptrs;
	for (size_t i = 0; i < nloc; i++) {
		size_t len;

		fp_strtab_str(&p->locations, (uint32_t)i, &len);
		nlines += len / sizeof(uint32_t);
	}
	b->locs = fp_xcalloc(nloc + 1, sizeof *b->locs);
	b->loc_ptrs = fp_xcalloc(nloc + 1, sizeof *b->loc_ptrs);
	b->lines = fp_xcalloc(nlines + 1, sizeof *b->lines);
	for (size_t i = 0; i < nloc; i++) {
		size_t len;
		const char *key = fp_strtab_str(&p->locations, (uint32_t)i, &len);
		Location *l = &b->locs[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = mapping_of(p->location_kind[i]) + 1;
		l->n_line = len / sizeof(uint32_t);
		l->line = fp_xcalloc(l->n_line, sizeof *l->line);
		for (size_t j = 0; j < l->n_line; j++, li++) {
			uint32_t f;

			memcpy(&f, key + j * sizeof f, sizeof f);
			perftools__profiles__line__init(&b->lines[li]);
			b->lines[li].function_id = (uint64_t)f + 1;
			l->line[j] = &b->lines[li];
		}
		b->loc_ptrs[i] = l;
	}
	b->prof.n_location = nloc;
	b->prof.location = b->loc_ptrs;
	b->funcs = fp_xcalloc(nfun + 1, sizeof *b->funcs);
	b->func_ptrs = fp_xcalloc(nfun + 1, sizeof *b->func_ptrs);
	for (size_t i = 0; i < nfun; i++) {
		Function *f = &b->funcs[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = p->function_name[i]; /* as perf printed it: demangled */
		b->func_ptrs[i] = f;
	}
	b->prof.n_function = nfun;
	b->prof.function = b->func_ptrs;
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->prof.n_location; i++)
		free(b->locs[i].line);
	FP_FREE_ALL(b->types, b->type_ptrs, b->samples, b->sample_ptrs, b->values, b->loc_ids,
		    b->labels, b->label_ptrs, b->locs, b->loc_ptrs, b->lines, b->funcs,
		    b->func_ptrs, b->strings);
}

/* gzip of n bytes at data into s. */
static void gzip_into(struct fp_sink *s, const uint8_t *data, size_t n)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, GZIP_MEM_LEVEL,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		fp_die(FP_EXIT_SYS, "pprof: gzip: cannot initialise zlib");
	z.next_in = (Bytef *)data;
	do {
		size_t before;
		/* avail_in is 32 bits: feed at most UINT32_MAX at a time */
		size_t left = n - (size_t)((const uint8_t *)z.next_in - data);

		if (z.avail_in == 0)
			z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
		z.next_out = (Bytef *)fp_sink_reserve(s, GZIP_CHUNK);
		z.avail_out = GZIP_CHUNK;
		before = z.total_out;
		rc = deflate(&z, z.avail_in == left ? Z_FINISH : Z_NO_FLUSH);
		fp_sink_commit(s, z.total_out - before);
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	if (rc != Z_STREAM_END)
		fp_die(FP_EXIT_SYS, "pprof: gzip: deflate failed (%d)", rc);
	deflateEnd(&z);
}

void fp_pprof_write(struct fp_pprof *p, struct fp_sink *s)
{
	struct build b;
	char comment[160];
	uint8_t *buf;
	size_t len, nstr;

	memset(&b, 0, sizeof b);
	perftools__profiles__profile__init(&b.prof);
	build_types(p, &b);
	build_samples(p, &b);
	build_code(p, &b);
	if (p->n_samples) {
		b.prof.duration_nanos = (int64_t)(p->last_ns - p->first_ns);
		snprintf(comment, sizeof comment,
			 "flamepipe: %llu samples, perf clock %llu.%09llu s "
			 "to %llu.%09llu s",
			 (unsigned long long)p->n_samples,
			 (unsigned long long)(p->first_ns / FP_NSEC_PER_SEC),
			 (unsigned long long)(p->first_ns % FP_NSEC_PER_SEC),
			 (unsigned long long)(p->last_ns / FP_NSEC_PER_SEC),
			 (unsigned long long)(p->last_ns % FP_NSEC_PER_SEC));
		b.comment = str_id(p, comment);
		b.prof.n_comment = 1;
		b.prof.comment = &b.comment;
	}
	if (p->time_nanos) { /* fp-push: the wall-clock interval */
		b.prof.time_nanos = p->time_nanos;
		b.prof.duration_nanos = p->duration_nanos;
	}
	/* every string is interned now: the arena no longer moves */
	nstr = fp_strtab_count(&p->strings);
	b.strings = fp_xcalloc(nstr, sizeof *b.strings);
	for (size_t i = 0; i < nstr; i++)
		b.strings[i] = (char *)fp_strtab_str(&p->strings, (uint32_t)i, NULL);
	b.prof.n_string_table = nstr;
	b.prof.string_table = b.strings;
	len = perftools__profiles__profile__get_packed_size(&b.prof);
	buf = fp_xmalloc(len + 1);
	perftools__profiles__profile__pack(&b.prof, buf);
	gzip_into(s, buf, len);
	free(buf);
	build_free(&b);
}
