/* serve.h: the parts of fp-serve, the flamepipe web UI server.
 *
 * Threading model (see docs/fp-serve.md "Implementation"): libmicrohttpd runs
 * one thread per connection (MHD_USE_THREAD_PER_CONNECTION), so a request
 * that waits for a stage pipeline or an SSE stream blocks only its own
 * thread. The main thread runs a libev loop that reads the live protocol
 * stream (fp_pump on stdin) and handles signals. Everything shared between
 * threads (the result cache, the live capture's cells and fold snapshot)
 * lives behind one mutex per structure; no lock is held while a child
 * process runs or while a response is being sent.
 */
#ifndef FP_SERVE_H
#define FP_SERVE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "heatmap.h"
#include "sink.h"

#define SERVE_DEFAULT_PORT 5000
#define SERVE_DEFAULT_MAX_UPLOAD (256ull << 20)
#define SERVE_ROWS_DEFAULT 50
#include "fp_record.h" /* FP_ROWS_MAX */

struct live;
struct fp_rec_index;

/* What one request may spend (docs/fp-serve.md "Budgets"); 0: no limit. */
struct limits {
	uint64_t cpu_ms;  /* --max-cpu: CPU of every chain of a request */
	uint64_t wall_ms; /* --max-time: from the request's arrival, queue included */
	uint64_t inflate; /* --max-inflate: bytes a reader may inflate (FP_INFLATE_MAX) */
	uint64_t output;  /* --max-output: bytes a chain may hand to fp-serve */
};

struct server {
	const char *dir; /* as given */
	char *dir_real;  /* realpath(dir) */
	int dir_fd;      /* O_DIRECTORY|O_PATH of dir_real */
	char *bin_dir;   /* where the stage binaries are */
	uint64_t max_upload;
	uint64_t upload_quota;   /* --upload-quota: bytes below DIR/uploads */
	int upload_evict;        /* --upload-evict: oldest uploads go, not the new one */
	int upload_host_symbols; /* --upload-host-symbols: uploads may use this
					 * host's symbol files (default: never) */
	struct limits limits;
	char **child_env;      /* environ + FP_INFLATE_MAX for the stages */
	const char *cache_dir; /* --cache-dir, or a private temporary one */
	int cache_dir_temp;    /* removed at exit */
	uint64_t cache_max;    /* --cache-size */
	struct live *live;     /* NULL unless --live */
	int listen_loopback;   /* Host header check only on loopback */
};

/* A request's spending so far (spawn.c checks it while chains run, the
 * fair queue while it waits). One per connection thread. */
struct budget {
	long long deadline_ms; /* CLOCK_MONOTONIC ms; 0: none */
	uint64_t cpu_ms_used;  /* CPU of this request's finished chains */
	char flow[64];         /* whom it counts against in the fair queue:
				 * "uid:N" (a local user, on loopback) or "ip:ADDR" */
};

/* What a stage chain is run for: the server (where the stages are) and
 * the client whose request it answers. client_fd is that client's socket
 * (-1: none): the chain is cancelled when the client goes away. budget:
 * the request's (NULL: none, e.g. the live capture's own). */
struct job {
	const struct server *srv;
	int client_fd;
	struct budget *budget;
	int untrusted; /* the capture is an upload: readers read no
				 * symbol file of this host */
	int indexed;   /* fd is the capture's index (index.c), not
				 * the file: its reader's counts are these */
	uint64_t index_samples, index_warnings, index_base_sec;
	const char *index_first_event;            /* the capture's first event, or NULL */
	const struct fp_rec_index *index_members; /* its member table (shared) */
	void *index_members_ref;                  /* released by index_release */
	int unlimited_output; /* the index's conversion: its stream is not an answer */
};

/* ---- budget.c: per-request limits and the fair queue ---------------------- */

/* Starts the budget of the request on connection c (the calling thread's). */
struct MHD_Connection;
void budget_begin(const struct server *srv, struct MHD_Connection *c);
/* The calling thread's request budget. */
struct budget *budget_current(void);
long long budget_now_ms(void);
/* Waits for a chain slot (at most 4 chains run, at most 3 of one flow; a
 * freed slot goes to the waiting flow with the fewest chains running). 0,
 * or -1 when the request's deadline passed while waiting. */
int fairq_enter(const struct job *job);
void fairq_leave(const struct job *job);

/* ---- safepath.c: names under DIR --------------------------------------- */

/* Checks a client-supplied relative name (already URL-decoded, `n` bytes,
 * may contain NUL) and opens it read-only below DIR without a race (see
 * safepath.c). Refused: empty, NUL, absolute, backslash, `..` or `.`
 * segments, empty segments, dotfiles, any symlink on the path (inside DIR
 * or not), non-regular files. Returns an fd, or -1 with *status (HTTP
 * code) and *why set. */
int safepath_open(const struct server *srv, const char *name, size_t n, struct stat *st,
		  int *status, const char **why);
/* openat(dir_fd, rel, flags) that cannot leave dir_fd nor follow a
 * symlink: openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or the O_NOFOLLOW
 * walk (safepath_open_walk) where the kernel has no openat2. -1 and errno
 * (ELOOP: a symlink, EXDEV: outside) on refusal. */
int safepath_open_beneath(int dir_fd, const char *rel, int flags);
int safepath_open_walk(int dir_fd, const char *rel, int flags);
/* 1 if the name is syntactically acceptable (the checks that need no
 * filesystem), 0 otherwise with *why. */
int safepath_name_ok(const char *name, size_t n, const char **why);

/* ---- query.c: client-supplied values ------------------------------------ */

#define QUERY_VALUE_MAX 4096 /* longest filter value (regexes included) */
#define QUERY_SECONDS_MAX 32 /* "1234567890.123456789" fits */
#define UPLOAD_NAME_MAX 128

/* Each returns 1 if acceptable, else 0 with *why (a static message). */
/* No NUL or control character (CR/LF cannot reach a control FIFO), at most
 * max bytes. */
int query_value_ok(const char *s, size_t n, size_t max, const char **why);
/* rows: a decimal integer 1..FP_ROWS_MAX. */
int query_rows(const char *s, size_t n, unsigned *rows, const char **why);
/* start/end: DIGITS[.DIGITS] (at most 9 decimals) -> nanoseconds. */
int query_seconds(const char *s, size_t n, uint64_t *ns, const char **why);
/* A filter value for fp-range's `word` command (pid, tid, cpu, comm, event,
 * include, exclude), checked with fp-range's own parser; regexes compiled
 * with fp-range's bounds (lib/fp_regex.h). 1, or 0 with the reason in why. */
#define QUERY_WHY_MAX 320
int query_filter_ok(const char *word, const char *s, size_t n, char *why, size_t whysize);
/* The name an upload is stored under: basename, bytes outside
 * [A-Za-z0-9._-] -> '_', leading dots dropped, at most UPLOAD_NAME_MAX
 * bytes, "upload" if empty. Returns its length. */
size_t upload_safe_name(const char *in, size_t n, char *out, size_t outsz);

/* ---- spawn.c: stage pipelines --------------------------------------------*/

/* A chain of stage programs: argv[i] for stage i (argv[i][0] is a bare
 * program name, found in job->srv->bin_dir). The first stage reads in_fd. */
struct pipeline_result {
	int ok;          /* every stage exited 0 */
	int over_budget; /* 0, or the HTTP status of a spent budget
				 * (503 CPU or time, 413 inflate or output):
				 * the chain was killed, err says which */
	int data_error;  /* a stage exited 1: bad input data */
	int usage_error; /* a stage exited 100: it refused a parameter
				 * (a regex over its match limit) */
	char err[1024];  /* first stderr bytes when !ok */
};
/* Runs the chain, calling on_line for each output line (LF removed,
 * NUL-terminated). Blocks the calling thread only. When job->client_fd
 * (>= 0) shows the client gone (peer closed, POLLRDHUP), every stage gets
 * SIGTERM and the result is a failure ("the client went away"). */
void pipeline_run(const struct job *job, char *const *const *argv, size_t nstages, int in_fd,
		  void (*on_line)(void *ctx, char *line, size_t len), void *ctx,
		  struct pipeline_result *res);

/* ---- compute.c: heatmap and folded tables, cached ------------------------ */

/* A capture's heatmap: render's model (render/heatmap.h: sparse cells,
 * rows, base second, the axis drawn: whole, or cut to the columns with
 * samples; a filtered heatmap has the unfiltered one's axis pinned, see
 * fp_heatmap_onto) and what the chain said about it, which /heatmap/ adds
 * to render's FlameScope JSON (heatmeta.c). */
struct heatmap {
	struct fp_heatmap hm; /* cells; hm.ncols: the last column set + 1 */
	uint64_t samples;     /* from I read samples= (all samples read) */
	uint64_t counted;     /* sum of the cells */
	uint64_t idle;        /* idle samples dropped */
	uint64_t warnings;
	int filtered;   /* only the samples that pass filters */
	int all_events; /* every event counted (allevents=1) */
	/* fp-bucket's I bucket-event records, one line per event name of the
	 * whole capture: "samples TAB counted(0|1) TAB name LF"; NULL if none */
	char *events;
	size_t events_len;
	/* a live recording (fp-read's I read recording=1): what retention
	 * dropped from it (docs/fp-record.md) */
	int recording;
	uint64_t retention_dropped, kept_from_ns, capture_from_ns;
	/* damaged batches fp-read skipped (I read damaged_*): said on the page */
	uint64_t damaged_batches, damaged_samples, damaged_regions;
};

/* ,"recording":{...} for heatmap JSON when h is a recording */
struct fp_sink;
void heatmap_recording_json(struct fp_sink *s, const struct heatmap *h);

enum { SEL_ROOT_COMM, SEL_ROOT_PID, SEL_ROOT_TID, SEL_ROOT_CONTAINER };
/* The event is a root frame above the comm with allevents; tables rooted
 * at the process, thread or container (/threads/) have no event root. */
#define SEL_EVENT_ROOT(sel) ((sel)->all_events && (sel)->root == SEL_ROOT_COMM)

/* Filters and range of a flame graph request. Strings NULL when absent. */
struct selection {
	const char *start, *end; /* decimal seconds or NULL */
	const char *pid, *tid, *cpu, *comm, *event, *include, *exclude, *container;
	int keep_idle;
	int all_events; /* allevents=1: every event, each as the root frame */
	int root;       /* folded tables: SEL_ROOT_COMM, _PID ("comm-pid"), _TID,
				 * _CONTAINER (the container as the root frame) */
	/* the time axis start/end are on, when it is not the file's own:
	 * the live capture's heatmap (its recording may have dropped its
	 * oldest seconds) */
	int has_axis;
	uint64_t axis_base_sec;
};

struct folded_text {
	char *buf; /* plain folded file `stack count\n`... */
	size_t len;
	uint64_t total; /* sum of counts */
};

/* Both return a reference-counted cached result (release with *_put), or
 * NULL with *status and err filled. */
/* With filters in sel (its range is ignored): the heatmap of the matching
 * samples on the unfiltered heatmap's axis, `filtered` set. */
const struct heatmap *heatmap_get(const struct job *job, int fd, const struct stat *st,
				  unsigned rows, const struct selection *sel, int *status,
				  char *err, size_t errsz);
int selection_has_filters(const struct selection *sel);
/* Runs reader | fp-bucket EVENTS | fp-range RANGE FILTERS over fd (the
 * samples of sel, in input order) into on_line; *status 0, or an HTTP
 * status with err. */
void selection_chain_run(const struct job *job, int fd, const struct selection *sel,
			 void (*on_line)(void *ctx, char *line, size_t len), void *ctx, int *status,
			 char *err, size_t errsz);
/* ---- owners.c: /threads/ ----------------------------------------------------- */
struct owner {
	char *comm;
	long long id;  /* pid, or tid */
	long long pid; /* a thread's pid ("comm-PID/TID"), else -1 */
	uint64_t samples;
};
/* Sums a folded table rooted at "comm-ID" frames by ID, heaviest first,
 * each named by its busiest comm: the number of owners, in *out
 * (malloc'd; free each comm and *out). */
size_t owners_of(const struct folded_text *f, struct owner **out);
/* ,"KEY":[{"IDKEY":ID[,"pid":PID],"comm":C,"samples":N}...],"KEY_count":N
 * (at most THREADS_MAX entries; "pid" for a thread whose pid is known) */
void owners_json(struct fp_sink *s, const char *key, const char *idkey, const struct owner *v,
		 size_t n);
/* ,"containers":[{"name":NAME,"samples":N}...],"containers_count":N from a
 * folded table rooted at the container (fp-fold --container-root),
 * heaviest first; a sample without a cgroup is in the entry named "". */
void containers_json(struct fp_sink *s, const struct folded_text *f);

/* ---- flamechart.c: /flamechart/ -------------------------------------------- */
/* The samples of sel in time order as a flame chart (see flamechart.c):
 * JSON into s; 0, or an HTTP status with err. */
int flamechart_json(const struct job *job, int fd, const struct selection *sel, struct fp_sink *s,
		    char *err, size_t errsz);
void heatmap_put(const struct heatmap *h);
const struct folded_text *folded_get(const struct job *job, int fd, const struct stat *st,
				     const struct selection *sel, int *status, char *err,
				     size_t errsz);
void folded_put(const struct folded_text *f);
/* A whole answer to a selection of a file (/flamegraph/'s tree,
 * /threads/), made once per key (what, the file's version, sel) and
 * shared by every viewer: the cache keeps it gzip-compressed; requests
 * that ask while it is made wait for it. fill makes it into s: 0, or an
 * HTTP status (its message in err, which ctx holds). A reference
 * (http_shared_unref), or NULL with *status (and err). *how says
 * whether this request made it, and in how many ms. */
typedef int answer_fill(void *ctx, struct fp_sink *s);
struct answer_how {
	int made;    /* this request made the answer (else it came made) */
	uint64_t ms; /* the time it spent making it */
};
struct http_shared *answer_shared(const struct job *job, const struct stat *st,
				  const struct selection *sel, const char *what, answer_fill *fill,
				  void *ctx, struct answer_how *how, int *status, char *err,
				  size_t errsz);
/* The selection's samples as a gzip'd pprof profile (render/pprof.h), in
 * a folded_text (buf/len: the bytes, total: the samples); release with
 * folded_put. */
const struct folded_text *pprof_get(const struct job *job, int fd, const struct stat *st,
				    const struct selection *sel, int *status, char *err,
				    size_t errsz);

/* /heatmap/'s JSON (heatmeta.c): render's fp_heatmap_json_keys of h->hm,
 * then fp-serve's keys (rows_per_second, start_sec, samples, counted,
 * idle, warnings, filtered, all_events, events, recording; docs/fp-serve.md)
 * and the closing brace, no newline. */
void heatmap_json(struct fp_sink *s, const struct heatmap *h);
/* Frees h's cells and event list. */
void heatmap_free(struct heatmap *h);

/* Builds a heatmap from G/H/I/W records (files and the live capture). */
struct heatmap_builder {
	/* h.hm: before the G record, the rows to list (fp_heatmap_reset);
	 * zero-initialised it is an empty heatmap */
	struct heatmap h;
	int geometry; /* a G record came: H records are taken */
	int too_big;  /* a column past FP_HEATMAP_MAX_COL */
	/* optional: called with each column whose cells changed */
	void (*on_change)(void *ctx, uint32_t col);
	void (*on_geometry)(void *ctx);
	void *ctx;
};
void heatmap_builder_line(struct heatmap_builder *b, const char *line, size_t len);

/* ---- cache.c: the result cache and the chain limiter -------------------- */

enum entry_kind { KIND_HEATMAP, KIND_FOLDED, KIND_ANSWER };

struct http_shared;
struct cache_entry {
	struct cache_entry *next;
	char *key;
	enum entry_kind kind;
	struct heatmap hm;
	struct folded_text ft;
	struct http_shared *answer; /* KIND_ANSWER: a whole answer, shared */
	size_t bytes;
	unsigned refs;
	uint64_t last_used;
};

/* The entry of key, referenced (cache_release when done), or NULL. */
struct cache_entry *cache_lookup(const char *key);
/* cache_lookup for an answer many viewers ask at once: while another
 * request makes key's entry, waits for it (until job's deadline) instead
 * of making it again. NULL: the caller makes it; *claimed then says the
 * others wait for its cache_insert, or cache_unclaim if it fails. */
struct cache_entry *cache_lookup_claim(const char *key, const struct job *job, int *claimed);
void cache_unclaim(const char *key);
/* Adds e (or returns the equal entry another thread added meanwhile, e
 * freed), referenced. */
struct cache_entry *cache_insert(struct cache_entry *e);
void cache_release(struct cache_entry *e);
/* "what|dev:ino:size:mtime|" into buf; returns its length. */
int cache_file_key(char *buf, size_t n, const struct stat *st, const char *what);
/* pipeline_run, but at most COMPUTE_PARALLEL_MAX chains at once. */
void chain_run(const struct job *job, char *const *const *argv, size_t nstages, int in_fd,
	       void (*on_line)(void *ctx, char *line, size_t len), void *ctx,
	       struct pipeline_result *res);

/* ---- tree.c: folded stacks -> FlameScope JSON trees ---------------------- */

/* FlameScope's flame graph: {"n","l","v" (self),"c"} nodes. roots: the
 * levels of root frames, libtype "" (TREE_ROOTS: the comm, and the event
 * above it where the table has one, SEL_EVENT_ROOT). */
void tree_json(struct fp_sink *s, const char *folded, size_t len, size_t roots);
/* FlameScope's /differential/ ({"name","libtype","value","delta",
 * "children"} nodes): the tree of a, each node with
 * delta = self(a) - round(self(b) * total(a) / total(b)). */
void tree_differential_json(struct fp_sink *s, const char *a, size_t alen, const char *b,
			    size_t blen, size_t roots);
/* FlameScope's /elided/ (same keys, no delta): the tree of b; a frame
 * path a also has gets value 0, others round(self(b) * total(a) / total(b)). */
void tree_elided_json(struct fp_sink *s, const char *a, size_t alen, const char *b, size_t blen,
		      size_t roots);
#define TREE_ROOTS(event_root) ((event_root) ? 2u : 1u)

/* ---- index.c: the time index of a served capture ----------------------- */

/* The index of the capture open on fd (stat st) for job: its recording
 * (docs/fp-record.md) in the cache directory, built on its first open
 * (reader | fp-record), rebuilt when the file changes. Returns an fd of
 * the recording (job->indexed and its counts set), the fd itself when it
 * already is a recording or the index cannot be written (fd not closed),
 * or -1 with *status and err. */
int index_open(struct job *job, int fd, const struct stat *st, int *status, char *err,
	       size_t errsz);
/* Drops job's reference to its index's member table (target_close). */
void index_release(struct job *job);
/* After the privilege drop: creates or adopts the cache directory. */
void index_init(struct server *srv);
/* At exit: a temporary cache directory is removed. */
void index_cleanup(const struct server *srv);
/* The same from a signal handler, as far as it can (async-signal-safe). */
void index_cleanup_now(void);

/* ---- rangefold.c ------------------------------------------------------------ */

/* The folded table of sel's range [from_ns, to_ns) of an index (fd), as
 * the range chain would write it, into out (its total in *total), when
 * sel has no filters and the range holds at most a bound of samples: 1.
 * 0: not done here (run the chain; also when a member in the range is
 * damaged: fp-read --damage-ok skips and counts it). -1: an error (err). */
struct fp_sink;
int rangefold(const struct job *job, int fd, const struct selection *sel, uint64_t from_ns,
	      uint64_t to_ns, struct fp_sink *out, uint64_t *total, char *err, size_t errsz);
/* The folded tables of an index's members, kept with its member table
 * (index.c makes and frees it; rangefold.c fills it). */
struct rf_cache;
struct rf_cache *rf_cache_new(size_t members);
void rf_cache_free(struct rf_cache *c);
/* index.c: the cache of job's index, or NULL */
struct rf_cache *index_fold_cache(const struct job *job);

/* ---- privilege.c ------------------------------------------------------------ */

/* Started as root: becomes user (default "nobody"; "root" keeps root)
 * after the socket is bound: DIR/uploads is created for that user,
 * groups, gid and uid are set, no new privileges. Not root: a user other
 * than oneself is a usage error. With --live and no --user: unchanged
 * (the runner chose the chain's user). */
void privilege_drop(const struct server *srv, const char *user);

/* ---- live.c ------------------------------------------------------------- */

struct live *live_create(const char *name, const char *recording);
int live_name_is(const struct live *l, const char *name, size_t n);
const char *live_name(const struct live *l);
/* Feeds one protocol line (main thread). */
void live_line(struct live *l, const char *line, size_t len);
void live_eof(struct live *l);

#endif
