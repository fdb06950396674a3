/* fp_recording.h: the live recording, a capture that is still growing.
 *
 * A recording (written by fp-record, read by fp-read and fp-serve) is a
 * sequence of gzip members, one per batch of samples (about one second):
 * each member inflates to `%flamepipe 1` (and the source's C events line,
 * when it gave one) followed by that batch's S
 * records, so the file is valid gzip (zcat works, members concatenate) and
 * every member stands alone. The gzip header of each member carries an
 * extra field (RFC 1952 FEXTRA, subfield "FP", as BGZF carries "BC") with
 * the member's own length and its time range:
 *
 *	offset  size  field (little endian)
 *	0       4     version (FP_REC_VERSION)
 *	4       4     flags (0)
 *	8       8     length: bytes of the whole member, header to trailer
 *	16      8     min_ns: earliest sample time in the member
 *	24      8     max_ns: latest sample time in the member
 *	32      8     samples in the member
 *	40      8     seq: 0 for the first member written, then 1, 2 ...
 *	48      8     samples_before: samples in every earlier member (also
 *	              those dropped by retention)
 *	56      8     capture_min_ns: earliest sample of the recording so far
 *
 * So the chain of headers is the time index (second -> byte offset): a
 * reader hops from header to header (one small pread each) and reads only
 * the members that overlap the time range it wants.
 *
 * Crash safety: a member is written with one write() after it is
 * complete; a member whose declared length runs past the end of the file
 * with no good member after it (the recorder was killed while writing
 * it, or is writing it now) ends the recording: readers stop at the last
 * complete member.
 *
 * Damage: a header that does not parse (bad magic, a length of 0 or past
 * FP_REC_MEMBER_MAX, min_ns > max_ns, time fields outside the capture's
 * span), bytes between members, a hole in the middle: the scan searches
 * on for the next good header (one whose member fits in the file and
 * ends at the end of the file or at another good header) and resumes
 * there, counting what it passed over (fp_rec_index.skips). A member
 * whose header is good but whose data is not (bad CRC, bad deflate data)
 * is skipped when read, and counted too. Samples of a skipped stretch are
 * known from the next good member's samples_before.
 *
 * Retention: the recorder drops the oldest members by punching a hole over
 * them (fallocate PUNCH_HOLE): offsets stay, disk blocks are freed, the
 * dropped bytes read as zeros. A reader skips leading zeros (and jumps
 * over the hole with SEEK_DATA).
 */
#ifndef FP_RECORDING_H
#define FP_RECORDING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FP_REC_VERSION 1
#define FP_REC_PAYLOAD 64 /* bytes of the "FP" subfield */
/* gzip fixed header (10) + XLEN (2) + subfield id and length (4) */
#define FP_REC_HEADER_BYTES (10 + 2 + 4 + FP_REC_PAYLOAD)
#define FP_REC_TRAILER_BYTES 8        /* CRC32, ISIZE */
#define FP_REC_MEMBER_MAX (64u << 20) /* larger declared lengths are damage */
#define FP_REC_TEXT_MAX (256u << 20)  /* larger ISIZE is damage */
/* A member's times lie within this of its capture's first sample: a
 * header that says otherwise is damage (one year of capture). */
#define FP_REC_SPAN_MAX (366ull * 86400 * 1000000000)

/* 1 if time t lies within FP_REC_SPAN_MAX after first (t at or before
 * first counts as within: other checks order them). The one statement of
 * the rule: the readers take a member past it for damage, and the
 * recorder writes no sample that would put one past it. */
static inline int fp_rec_within_span(uint64_t first, uint64_t t)
{
	return t <= first || t - first <= FP_REC_SPAN_MAX;
}

struct fp_rec_member {
	uint64_t offset; /* in the file */
	uint64_t length;
	uint64_t min_ns, max_ns;
	uint64_t samples;
	uint64_t seq;
	uint64_t samples_before;
	uint64_t capture_min_ns;
	uint32_t text_len; /* ISIZE: bytes once inflated */
};

/* Compresses text (complete lines, the %flamepipe header first) into one
 * member described by m (offset, length and text_len are set here), with
 * libdeflate's whole-buffer compressor at gzip level `level` (1..9; a
 * batch is one buffer, so one member is one call; recording/fp_recenc.c, the
 * only part that links libdeflate). Returns a malloc'ed buffer of
 * m->length bytes: plain gzip (RFC 1952) that zlib, zcat and every reader
 * of older recordings inflate. */
unsigned char *fp_rec_encode(const char *text, size_t len, struct fp_rec_member *m, int level);
/* The same into *buf (*cap bytes, grown with fp_xrealloc when short):
 * returns m->length. A live recorder reuses one buffer for every batch,
 * so a long capture makes no large allocation after its first batches. */
size_t fp_rec_encode_into(const char *text, size_t len, struct fp_rec_member *m, int level,
			  unsigned char **buf, size_t *cap);
/* The member header (FP_REC_HEADER_BYTES) of m into h; v as n bytes
 * little endian into p. For the encoder. */
void fp_rec_write_header(unsigned char *h, const struct fp_rec_member *m);
void fp_rec_put_le(unsigned char *p, uint64_t v, int n);

/* What a reader passed over because it was damaged. */
struct fp_rec_skips {
	uint64_t regions;  /* damaged stretches the scan resynchronised after */
	uint64_t bytes;    /* their bytes */
	uint64_t members;  /* members lost in them (by seq) or unreadable */
	uint64_t samples;  /* samples lost in them (by samples_before) */
	uint64_t first_at; /* offset of the first damage */
};

/* The members of a recording: what fp_rec_scan found. */
struct fp_rec_index {
	struct fp_rec_member *m;
	size_t n, cap;
	uint64_t start; /* offset of the first member (after a hole) */
	uint64_t end;   /* end of the last complete member */
	uint64_t file_size;
	int truncated;             /* bytes after `end` that are no complete member */
	struct fp_rec_skips skips; /* damage between start and end */
	uint64_t base_ns;          /* capture_min_ns of the first member: the span's start */
};

/* 1 if fd (a regular file) holds a recording: its first bytes after any
 * leading hole are a gzip header with an "FP" subfield. Reads with pread
 * (the file offset is unchanged). */
int fp_rec_is_recording(int fd);

/* Reads the member headers of fd into ix (appending to what it holds:
 * call again to pick up members written since; ix starts zeroed). Returns
 * 0, or -1 with errno on a read error. Damage followed by a good member
 * is passed over and counted in ix->skips; damage at the end (no good
 * member after it: an incomplete last member) stops the scan and sets
 * ix->truncated. */
int fp_rec_scan(int fd, struct fp_rec_index *ix);
void fp_rec_index_free(struct fp_rec_index *ix);

/* First member that may hold a sample at or after from_ns, given members
 * whose max_ns are not in order: the index of the first member with
 * max_ns >= from_ns (linear; an hour is 3600 members). */
size_t fp_rec_first_from(const struct fp_rec_index *ix, uint64_t from_ns);

/* Reads and inflates member m of fd into *buf (grown as needed, *cap its
 * size). Returns its text length, or -1 with a message in err. */
ssize_t fp_rec_read_member(int fd, const struct fp_rec_member *m, char **buf, size_t *cap,
			   char *err, size_t errsz);

/* Calls line(ctx, line, len) for each line (LF removed, NUL-terminated)
 * of member m (read into *buf, as fp_rec_read_member). 0, or -1 with a
 * message in err if it cannot be read. */
int fp_rec_member_lines(int fd, const struct fp_rec_member *m, char **buf, size_t *cap,
			void (*line)(void *ctx, char *line, size_t len), void *ctx, char *err,
			size_t errsz);

/* Calls line(ctx, line, len) for each line (LF removed, NUL-terminated)
 * of every member of ix that may hold samples in [from_ns, to_ns) (pass
 * 0, UINT64_MAX for all), in file order. The lines are not filtered by
 * time: members overlap. A member that cannot be read (bad CRC, bad
 * deflate data, a read error) is skipped and counted in *bad (members,
 * samples, first_at; may be NULL), with err the first one's message;
 * the members after it are read. Returns the number of members skipped. */
size_t fp_rec_each_line(int fd, const struct fp_rec_index *ix, uint64_t from_ns, uint64_t to_ns,
			void (*line)(void *ctx, char *line, size_t len), void *ctx,
			struct fp_rec_skips *bad, char *err, size_t errsz);

/* "N damaged batches (M samples, B bytes) skipped from byte X" for people,
 * into buf; "" if s counts nothing. */
void fp_rec_skips_describe(const struct fp_rec_skips *s, char *buf, size_t n);

/* base second of a recording's heatmap axis: floor(earliest sample), as
 * fp-bucket computes it over the whole file. 0 if empty. */
uint64_t fp_rec_base_sec(const struct fp_rec_index *ix);

/* Retention options, shared by fp-record and `flamepipe live`:
 * BYTES with an optional k/M/G suffix (powers of 1024); DURATION in
 * seconds with an optional s/m/h/d suffix. 0 on success, -1 if malformed
 * or zero. */
int fp_rec_parse_size(const char *s, uint64_t *bytes);
int fp_rec_parse_duration(const char *s, uint64_t *ns);
/* The same for an option's argument: the value, or the program ends with
 * FP_EXIT_USAGE and "--OPT: expected ...". */
uint64_t fp_rec_size_arg(const char *opt, const char *arg);
uint64_t fp_rec_duration_arg(const char *opt, const char *arg);

#endif
