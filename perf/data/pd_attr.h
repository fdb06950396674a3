/* pd_attr.h: perf.data headers, attributes, features and perf's own
 * (user) record types, for pd_read.c. Not a public interface.
 */
#ifndef PD_ATTR_H
#define PD_ATTR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pd_read.h"

#define PD_PIPE_HEADER_SIZE 16  /* magic, size */
#define PD_FILE_HEADER_SIZE 104 /* struct perf_file_header */

/* perf's own record types (tools/perf/util/event.h), not the kernel's. */
enum {
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_EVENT_TYPE = 65,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_ID_INDEX = 69,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_AUXTRACE_ERROR = 72,
	PD_REC_THREAD_MAP = 73,
	PD_REC_CPU_MAP = 74,
	PD_REC_STAT_CONFIG = 75,
	PD_REC_STAT = 76,
	PD_REC_STAT_ROUND = 77,
	PD_REC_EVENT_UPDATE = 78,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
	PD_REC_COMPRESSED2 = 83,
};
#define PERF_RECORD_AUXTRACE PD_REC_AUXTRACE
#define PERF_RECORD_HEADER_TRACING_DATA PD_REC_HEADER_TRACING_DATA

enum pd_user_result { PD_USER_DONE, PD_USER_ROUND, PD_USER_UNKNOWN };

/* File or pipe header at data[0..size): fills the evsels (file mode) and
 * sets r->pipe_mode; 0, or -1 after a fatal problem. */
int pd_file_header(struct pd_reader *r, const unsigned char *data, size_t size, uint64_t *data_off,
		   uint64_t *data_size);
int pd_pipe_header(struct pd_reader *r, const unsigned char *p, size_t n);
/* A record of perf's own types (>= 64). */
enum pd_user_result pd_user_record(struct pd_reader *r, const unsigned char *p, size_t len,
				   uint64_t off);
const struct pd_evsel *pd_evsel_by_id(struct pd_reader *r, uint64_t id);
/* Reports a problem (formatted like printf) through the reader's ops:
 * PD_PROB_FATAL marks the reader failed, PD_PROB_BAD_RECORD is counted. */
void pd_reader_problem(struct pd_reader *r, enum pd_problem what, uint64_t off, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));
void pd_reader_vproblem(struct pd_reader *r, enum pd_problem what, uint64_t off, const char *fmt,
			va_list ap);

/* perf.data is read in the recording machine's byte order, which is this
 * one's (pd_file_header refuses the other): unaligned native loads. */
static inline uint64_t pd_rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t pd_rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

#endif
