/* fp_readall.h: a whole input in memory, plain or gzip (zlib tells them
 * apart), for the tools that parse a document at once: fp-chrome's
 * profiles (JSON), fp-flamegraph's folded files.
 *
 *	size_t len;
 *	char *buf = fp_read_all(path, name, max, &len);  // NUL-terminated; free it
 *
 * path NULL or "-" is stdin; name is how messages call the input. A file's
 * size is known up front: one buffer of it, not doubling. More than max
 * bytes (0: no limit) ends the program: `prog: NAME: larger than N MB
 * (--max-mb): not read` (FP_EXIT_DATA); bad gzip data `prog: NAME: bad gzip
 * data: why` (FP_EXIT_DATA); open and read errors FP_EXIT_SYS.
 */
#ifndef FP_READALL_H
#define FP_READALL_H

#include <stddef.h>
#include <stdint.h>

#define FP_BYTES_PER_MB (1024u * 1024u)

char *fp_read_all(const char *path, const char *name, size_t max, size_t *len);

/* The inflate budget: environment FP_INFLATE_MAX=BYTES (fp-serve sets it
 * for its stages, docs/fp-serve.md "Budgets"); 0 when unset. A reader that has
 * inflated more than that from one input ends with exit 1 and
 * `prog: NAME: gzip data inflates to more than FP_INFLATE_MAX=N bytes`
 * (fp_read_all and fp_io's gzip pump). */
uint64_t fp_inflate_max(void);
void fp_inflate_check(const char *name, uint64_t inflated);

#endif
