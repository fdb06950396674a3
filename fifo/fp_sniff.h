/* fp_sniff.h: what kind of capture a file holds, from its first bytes.
 *
 * `flamepipe report` and fp-serve pick the source stage by content, not by
 * file name: perf script text goes to fp-read, Chrome/V8 CPU profiles
 * (.cpuprofile, trace-event JSON) to fp-chrome, perf.data (its PERFILE2
 * magic, file or pipe format) to fp-perfdata. gzip is looked through
 * (not for perf.data, which fp-perfdata reads uncompressed).
 *
 *	if (fp_sniff_fd(fd) == FP_CAPTURE_CHROME) reader = FP_CHROME_READER;
 */
#ifndef FP_SNIFF_H
#define FP_SNIFF_H

enum fp_capture_kind {
	FP_CAPTURE_PERF,     /* perf script text (or anything, for fp_sniff_fd) */
	FP_CAPTURE_CHROME,   /* .cpuprofile / trace-event JSON */
	FP_CAPTURE_PERFDATA, /* perf.data (magic PERFILE2) */
	FP_CAPTURE_NONE,     /* not a capture: fp_sniff_profile only */
};

/* What fp_sniff_profile found: the kind, gzip or not, and a label for
 * listings ("perf script", "perf script, gzip", "chrome", "perf.data"). */
struct fp_sniffed {
	enum fp_capture_kind kind;
	int gzip;
	const char *format;
};

#define FP_PERF_READER "fp-read"
#define FP_CHROME_READER "fp-chrome"
#define FP_PERFDATA_READER "fp-perfdata"

/* Reads the first bytes of fd with pread (its offset is not moved): the
 * PERFILE2 magic is FP_CAPTURE_PERFDATA; JSON
 * (a '{' then '"', or a '[' then '{' or ']', after blanks and a UTF-8
 * BOM) is FP_CAPTURE_CHROME; anything else, an empty or unreadable file
 * included, FP_CAPTURE_PERF (fp-read then says what is wrong with it). */
enum fp_capture_kind fp_sniff_fd(int fd);
/* The same for a path (FP_CAPTURE_PERF if it cannot be opened). */
enum fp_capture_kind fp_sniff_path(const char *path);
/* The source stage for a kind: FP_PERF_READER, FP_CHROME_READER or
 * FP_PERFDATA_READER (NULL for NONE). */
const char *fp_sniff_reader(enum fp_capture_kind k);

/* Strict, for profile listings: FP_CAPTURE_PERFDATA by its magic,
 * FP_CAPTURE_CHROME by structure, not just any JSON: a .cpuprofile
 * ("nodes" with "callFrame", "samples" or "timeDeltas"), {"traceEvents":
 * ...}, or an array of trace events ("ph" and "ts"); FP_CAPTURE_PERF only when the first
 * line that is not a '#' comment or blank (after gunzip) looks like a perf
 * script sample header: a word "SECONDS.FRACTION:" (the timestamp), or
 * when the head is perf script's "# ========" header; else
 * FP_CAPTURE_NONE (README, scripts, binaries, empty files). */
struct fp_sniffed fp_sniff_profile(int fd);

#endif
