/* fp_num.c: fp_parse_u64 and fp_parse_i64, the scanner of fp_num.h on a
 * field alone: one decimal parser for every record and option. */
#include "fp_num.h"

int fp_parse_u64(const char *s, size_t n, uint64_t *out)
{
	struct fp_num_scan sc = { s, s + n, 1 };

	return fp_scan_u64(&sc, FP_SCAN_TO_END, out);
}

int fp_parse_i64(const char *s, size_t n, int64_t *out)
{
	struct fp_num_scan sc = { s, s + n, 1 };

	return fp_scan_i64(&sc, FP_SCAN_TO_END, out);
}
