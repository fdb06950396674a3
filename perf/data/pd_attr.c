/* pd_attr.c: perf.data file/pipe headers, event attributes, the features
 * flamepipe needs (event names, build-ids, hostname) and perf's own record
 * types (pd_attr.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "fp_error.h"
#include "pd_attr.h"

/* struct perf_file_header: magic, size, attr_size, then sections. */
#define FH_ATTR_SIZE 16
#define FH_ATTRS 24
#define FH_DATA 40
#define FH_FEATURES 72
#define FH_FEATURE_WORDS 4 /* 256 feature bits */
#define SECTION_SIZE 16    /* struct perf_file_section: offset, size */
/* Feature numbers (tools/perf/util/header.h). */
#define FEAT_BUILD_ID 2
#define FEAT_HOSTNAME 3
#define FEAT_EVENT_DESC 12
#define FEAT_BITS 256
/* PERF_RECORD_EVENT_UPDATE types. */
#define EVENT_UPDATE_NAME 2
/* build_id_event: header, pid, 24 bytes of build-id (20 + size + pad). */
#define BUILD_ID_PID_OFF 8
#define BUILD_ID_OFF 12
#define BUILD_ID_MAX 20
#define BUILD_ID_SIZE_OFF (BUILD_ID_OFF + BUILD_ID_MAX)
#define BUILD_ID_FILE_OFF (BUILD_ID_OFF + 24)
#define MISC_BUILD_ID_SIZE (1 << 15)
#define NAME_MAX_LEN 1024 /* an event name, a hostname */
#define HDR_SIZE sizeof(struct perf_event_header)

static void fatal(struct pd_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fatal(struct pd_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_reader_vproblem(r, PD_PROB_FATAL, off, fmt, ap);
	va_end(ap);
}

/* ---- event names ----------------------------------------------------- */

static const char *const hw_names[PERF_COUNT_HW_MAX] = {
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branches",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[PERF_COUNT_SW_MAX] = {
	"cpu-clock",        "task-clock",   "page-faults",  "context-switches",
	"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy",        "bpf-output",   "cgroup-switches",
};

/* The name perf gives an event without a recorded name: the generic name
 * and the modifiers perf's evsel__add_modifiers prints (u/k/h, p...). */
static char *made_up_name(const struct perf_event_attr *a)
{
	char buf[128], mod[16];
	size_t m = 0;

	if (a->type == PERF_TYPE_HARDWARE && a->config < PERF_COUNT_HW_MAX)
		snprintf(buf, sizeof buf, "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < PERF_COUNT_SW_MAX)
		snprintf(buf, sizeof buf, "%s", sw_names[a->config]);
	else
		snprintf(buf, sizeof buf, "raw 0x%llx:0x%llx", (unsigned long long)a->type,
			 (unsigned long long)a->config);
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		int u = !a->exclude_user, k = !a->exclude_kernel, h = !a->exclude_hv;
		if (u)
			mod[m++] = 'u';
		if (k)
			mod[m++] = 'k';
		if (h && (u || k) && !(u && k))
			mod[m++] = 'h';
	}
	for (unsigned i = 0; i < a->precise_ip && m < sizeof mod - 1; i++)
		mod[m++] = 'p';
	mod[m] = '\0';
	if (m) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, ":%s", mod);
	}
	return fp_xstrdup(buf);
}

static void set_name(struct pd_evsel *ev, const char *s, size_t n)
{
	free(ev->name);
	ev->name = fp_xstrndup(s, n);
	for (char *c = ev->name; *c; c++) /* protocol names: no TAB/LF */
		if (*c == '\t' || *c == '\n' || *c == '\r')
			*c = ' ';
	ev->name_len = strlen(ev->name);
}

/* ---- attributes and ids ---------------------------------------------- */

static struct pd_evsel *add_evsel(struct pd_reader *r, const unsigned char *attr, size_t size,
				  uint64_t off)
{
	struct perf_event_attr a;

	if (r->nevsels >= PD_MAX_EVSELS) {
		fatal(r, off, "more than %d event attributes", PD_MAX_EVSELS);
		return NULL;
	}
	memset(&a, 0, sizeof a);
	memcpy(&a, attr, size < sizeof a ? size : sizeof a);
	r->evsels = fp_xrealloc(r->evsels, (r->nevsels + 1) * sizeof *r->evsels);
	struct pd_evsel *ev = &r->evsels[r->nevsels++];
	memset(ev, 0, sizeof *ev);
	ev->sample_type = a.sample_type;
	ev->read_format = a.read_format;
	ev->regs_user = a.sample_regs_user;
	ev->regs_intr = a.sample_regs_intr;
	ev->branch_type = a.branch_sample_type;
	ev->type = a.type;
	ev->config = a.config;
	ev->sample_id_all = a.sample_id_all;
	ev->precise_ip = a.precise_ip;
	ev->name = made_up_name(&a);
	ev->name_len = strlen(ev->name);
	return ev;
}

static int cmp_id(const void *a, const void *b)
{
	const struct pd_idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int add_id(struct pd_reader *r, uint64_t id, size_t ev, uint64_t off)
{
	if (r->nids >= PD_MAX_IDS) {
		fatal(r, off, "more than %u sample ids", PD_MAX_IDS);
		return -1;
	}
	if (r->nids == r->ids_cap) {
		r->ids_cap = r->ids_cap ? r->ids_cap * 2 : 64;
		r->ids = fp_xrealloc(r->ids, r->ids_cap * sizeof *r->ids);
	}
	r->ids[r->nids].id = id;
	r->ids[r->nids].ev = (uint32_t)ev;
	r->nids++;
	r->ids_sorted = 0;
	memset(r->id_hint, 0, sizeof r->id_hint);
	return 0;
}

const struct pd_evsel *pd_evsel_by_id(struct pd_reader *r, uint64_t id)
{
	if (!r->nids)
		return NULL;
	/* few ids (an event's per CPU) come again and again: a cache of
	 * them by their low bits before the search */
	size_t *hint = &r->id_hint[id & (PD_ID_HINTS - 1)];
	if (*hint && r->ids[*hint - 1].id == id)
		return &r->evsels[r->ids[*hint - 1].ev];
	if (!r->ids_sorted) {
		qsort(r->ids, r->nids, sizeof *r->ids, cmp_id);
		r->ids_sorted = 1;
	}
	size_t lo = 0, hi = r->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nids && r->ids[lo].id == id) {
		*hint = lo + 1;
		return &r->evsels[r->ids[lo].ev];
	}
	return NULL;
}

/* ---- features -------------------------------------------------------- */

/* perf's string: u32 length (padded, NUL included), then the bytes. */
static int read_string(const unsigned char **p, const unsigned char *end, const char **s, size_t *n)
{
	if (end - *p < 4)
		return -1;
	uint32_t len = pd_rd32(*p);
	if (len > (size_t)(end - *p - 4))
		return -1;
	*s = (const char *)*p + 4;
	*n = strnlen(*s, len);
	*p += 4 + len;
	return 0;
}

static void feature_event_desc(struct pd_reader *r, const unsigned char *p,
			       const unsigned char *end, uint64_t off)
{
	if (end - p < 8)
		goto bad;
	uint32_t nre = pd_rd32(p), sz = pd_rd32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nre; i++) {
		if (sz < 8 || (size_t)(end - p) < (size_t)sz + 4)
			goto bad;
		p += sz;
		uint32_t nids = pd_rd32(p);
		p += 4;
		const char *name;
		size_t n;
		if (read_string(&p, end, &name, &n) < 0 || nids > (size_t)(end - p) / 8)
			goto bad;
		/* the i-th attribute; perf writes them in the same order */
		if (i < r->nevsels && n > 0 && n < NAME_MAX_LEN)
			set_name(&r->evsels[i], name, n);
		p += (size_t)nids * 8;
	}
	return;
bad:
	pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
			  "event description feature is corrupt: "
			  "generic event names used");
}

static void feature_build_ids(struct pd_reader *r, const unsigned char *p, const unsigned char *end,
			      uint64_t off)
{
	while (end - p >= (ptrdiff_t)BUILD_ID_FILE_OFF) {
		struct perf_event_header h;
		memcpy(&h, p, HDR_SIZE);
		if (h.size < BUILD_ID_FILE_OFF || h.size > (size_t)(end - p)) {
			pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
					  "build-id feature is corrupt");
			return;
		}
		size_t idlen = (h.misc & MISC_BUILD_ID_SIZE) ? p[BUILD_ID_SIZE_OFF] : BUILD_ID_MAX;
		if (idlen > BUILD_ID_MAX)
			idlen = BUILD_ID_MAX;
		const char *file = (const char *)p + BUILD_ID_FILE_OFF;
		size_t fl = strnlen(file, h.size - BUILD_ID_FILE_OFF);
		if (fl < (size_t)(h.size - BUILD_ID_FILE_OFF) && r->ops->build_id)
			r->ops->build_id(r->ctx, file, p + BUILD_ID_OFF, idlen);
		p += h.size;
	}
}

static void feature(struct pd_reader *r, unsigned feat, const unsigned char *p,
		    const unsigned char *end, uint64_t off)
{
	const char *s;
	size_t n;

	switch (feat) {
	case FEAT_EVENT_DESC:
		feature_event_desc(r, p, end, off);
		break;
	case FEAT_BUILD_ID:
		feature_build_ids(r, p, end, off);
		break;
	case FEAT_HOSTNAME:
		if (read_string(&p, end, &s, &n) == 0 && n < NAME_MAX_LEN) {
			free(r->hostname);
			r->hostname = fp_xstrndup(s, n);
		}
		break;
	}
}

/* ---- headers ------------------------------------------------------------ */

static int check_magic(struct pd_reader *r, const unsigned char *data, size_t size)
{
	if (size < 8) {
		fatal(r, 0, "not a perf.data file: %zu bytes, shorter than the magic", size);
		return -1;
	}
	uint64_t magic = pd_rd64(data);
	if (magic == __builtin_bswap64(PD_MAGIC)) {
		fatal(r, 0, "perf.data of the other byte order is not supported");
		return -1;
	}
	if (magic != PD_MAGIC) {
		fatal(r, 0, "not a perf.data file: no PERFILE2 magic at its start");
		return -1;
	}
	return 0;
}

int pd_pipe_header(struct pd_reader *r, const unsigned char *p, size_t n)
{
	if (check_magic(r, p, n) < 0)
		return -1;
	if (n < PD_PIPE_HEADER_SIZE || pd_rd64(p + 8) != PD_PIPE_HEADER_SIZE) {
		fatal(r, 8,
		      "perf.data header size %llu: not the pipe format "
		      "(a perf.data file must be read as a file, not from a pipe)",
		      n >= PD_PIPE_HEADER_SIZE ? (unsigned long long)pd_rd64(p + 8) : 0ull);
		return -1;
	}
	r->pipe_mode = 1;
	r->header_done = 1;
	return 0;
}

/* Is [off, off + len) inside a file of size bytes? */
static int in_file(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

static int file_attrs(struct pd_reader *r, const unsigned char *data, size_t size)
{
	uint64_t attr_size = pd_rd64(data + FH_ATTR_SIZE);
	uint64_t off = pd_rd64(data + FH_ATTRS), len = pd_rd64(data + FH_ATTRS + 8);

	if (attr_size < SECTION_SIZE + PERF_ATTR_SIZE_VER0 || attr_size > 4096 ||
	    !in_file(off, len, size)) {
		fatal(r, FH_ATTRS,
		      "corrupt header: attribute section (offset %llu, "
		      "%llu bytes of %llu-byte entries) does not fit the %zu-byte file",
		      (unsigned long long)off, (unsigned long long)len,
		      (unsigned long long)attr_size, size);
		return -1;
	}
	if (len % attr_size) {
		/* perf reads size / attr_size entries and ignores the rest:
		 * so does this reader, saying so */
		pd_reader_problem(
			r, PD_PROB_BAD_RECORD, FH_ATTRS,
			"corrupt header: the attribute "
			"section's %llu bytes are not a whole number of %llu-byte entries: "
			"reading its first %llu, the %llu bytes after them ignored",
			(unsigned long long)len, (unsigned long long)attr_size,
			(unsigned long long)(len / attr_size),
			(unsigned long long)(len % attr_size));
		len -= len % attr_size;
	}
	for (uint64_t a = 0; a < len / attr_size; a++) {
		const unsigned char *e = data + off + a * attr_size;
		struct pd_evsel *ev = add_evsel(r, e, (size_t)(attr_size - SECTION_SIZE),
						off + a * attr_size);
		if (!ev)
			return -1;
		const unsigned char *ids = e + attr_size - SECTION_SIZE;
		uint64_t ioff = pd_rd64(ids), ilen = pd_rd64(ids + 8);
		if (!in_file(ioff, ilen, size)) {
			fatal(r, off, "corrupt header: the ids of event %llu lie outside the file",
			      (unsigned long long)a);
			return -1;
		}
		for (uint64_t i = 0; i < ilen / 8; i++)
			if (add_id(r, pd_rd64(data + ioff + i * 8), r->nevsels - 1, ioff) < 0)
				return -1;
	}
	if (!r->nevsels) {
		fatal(r, FH_ATTRS, "corrupt header: no event attributes");
		return -1;
	}
	return 0;
}

static void file_features(struct pd_reader *r, const unsigned char *data, size_t size,
			  uint64_t sections)
{
	uint64_t bits[FH_FEATURE_WORDS];
	unsigned k = 0;

	memcpy(bits, data + FH_FEATURES, sizeof bits);
	for (unsigned f = 0; f < FEAT_BITS; f++) {
		if (!(bits[f / 64] >> (f % 64) & 1))
			continue;
		uint64_t s = sections + (uint64_t)k++ * SECTION_SIZE;
		if (!in_file(s, SECTION_SIZE, size))
			break;
		uint64_t off = pd_rd64(data + s), len = pd_rd64(data + s + 8);
		if (!in_file(off, len, size)) {
			pd_reader_problem(r, PD_PROB_BAD_RECORD, s,
					  "feature %u lies outside the file", f);
			continue;
		}
		feature(r, f, data + off, data + off + len, off);
	}
}

int pd_file_header(struct pd_reader *r, const unsigned char *data, size_t size, uint64_t *data_off,
		   uint64_t *data_size)
{
	if (check_magic(r, data, size) < 0)
		return -1;
	if (size >= PD_PIPE_HEADER_SIZE && pd_rd64(data + 8) == PD_PIPE_HEADER_SIZE)
		return pd_pipe_header(r, data, size);
	if (size < PD_FILE_HEADER_SIZE || pd_rd64(data + 8) != PD_FILE_HEADER_SIZE) {
		fatal(r, 8, "corrupt header: header size %llu, expected %d (file) or %d (pipe)",
		      size >= 16 ? (unsigned long long)pd_rd64(data + 8) : 0ull,
		      PD_FILE_HEADER_SIZE, PD_PIPE_HEADER_SIZE);
		return -1;
	}
	r->header_done = 1;
	if (file_attrs(r, data, size) < 0)
		return -1;
	uint64_t off = pd_rd64(data + FH_DATA), len = pd_rd64(data + FH_DATA + 8);
	if (off > size) {
		fatal(r, FH_DATA,
		      "corrupt header: data section at %llu is past the end "
		      "of the %zu-byte file",
		      (unsigned long long)off, size);
		return -1;
	}
	if (len > size - off) {
		/* perf record killed before it wrote the final header: data
		 * size 0 or too big. Read what is there. */
		pd_reader_problem(r, PD_PROB_BAD_RECORD, FH_DATA,
				  "truncated: the data section claims "
				  "%llu bytes, the file holds %zu: reading those",
				  (unsigned long long)len, (size_t)(size - off));
		r->st.truncated = 1;
		len = size - off;
	} else {
		file_features(r, data, size, off + len);
	}
	if (len == 0 && size > off) {
		/* perf record that did not finish writes data size 0 */
		len = size - off;
	}
	*data_off = off;
	*data_size = len;
	return 0;
}

/* ---- perf's own records ---------------------------------------------------- */

static void header_attr(struct pd_reader *r, const unsigned char *p, size_t len, uint64_t off)
{
	const unsigned char *a = p + HDR_SIZE;
	size_t avail = len - HDR_SIZE;
	uint32_t asz = avail >= 8 ? pd_rd32(a + 4) : 0;

	if (asz < PERF_ATTR_SIZE_VER0 || asz > avail) {
		pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
				  "attribute record with attr size %u "
				  "in %zu bytes",
				  asz, avail);
		return;
	}
	if (!add_evsel(r, a, asz, off))
		return;
	for (size_t i = asz; i + 8 <= avail; i += 8)
		if (add_id(r, pd_rd64(a + i), r->nevsels - 1, off) < 0)
			return;
}

static void event_update(struct pd_reader *r, const unsigned char *p, size_t len, uint64_t off)
{
	if (len < HDR_SIZE + 16)
		return;
	uint64_t type = pd_rd64(p + HDR_SIZE), id = pd_rd64(p + HDR_SIZE + 8);
	const struct pd_evsel *ev = pd_evsel_by_id(r, id);
	if (type != EVENT_UPDATE_NAME || !ev)
		return;
	const char *s = (const char *)p + HDR_SIZE + 16;
	size_t n = strnlen(s, len - HDR_SIZE - 16);
	if (n > 0 && n < NAME_MAX_LEN)
		set_name(&r->evsels[ev - r->evsels], s, n);
}

enum pd_user_result pd_user_record(struct pd_reader *r, const unsigned char *p, size_t len,
				   uint64_t off)
{
	struct perf_event_header h;

	memcpy(&h, p, HDR_SIZE);
	switch (h.type) {
	case PD_REC_FINISHED_ROUND:
		return PD_USER_ROUND;
	case PD_REC_HEADER_ATTR:
		header_attr(r, p, len, off);
		return PD_USER_DONE;
	case PD_REC_EVENT_UPDATE:
		event_update(r, p, len, off);
		return PD_USER_DONE;
	case PD_REC_HEADER_FEATURE:
		if (len >= HDR_SIZE + 8)
			feature(r, (unsigned)pd_rd64(p + HDR_SIZE), p + HDR_SIZE + 8, p + len, off);
		return PD_USER_DONE;
	case PD_REC_HEADER_BUILD_ID:
		feature_build_ids(r, p, p + len, off);
		return PD_USER_DONE;
	}
	/* COMPRESSED and COMPRESSED2 are pd_read.c's */
	if (h.type >= PD_REC_HEADER_ATTR && h.type <= PD_REC_COMPRESSED2) {
		r->st.other_records++;
		return PD_USER_DONE;
	}
	return PD_USER_UNKNOWN;
}
