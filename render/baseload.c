/* fp_baseload.c: a baseline folded table from a file (fp_baseload.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseload.h"
#include "fp_error.h"
#include "fp_readall.h"
#include "fp_recording.h"
#include "fp_sniff.h"

#define MAX_STAGES 4
#define FOLDED_MAX_MB 1024 /* a folded text larger than this is not a baseline */

extern char **environ;

/* The directory of this program (the stages are installed together), or
 * NULL: then $PATH. */
static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);

	if (n <= 0)
		return NULL;
	buf[n] = 0;
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	return fp_xstrdup(buf);
}

/* Runs argv[0] | argv[1] | ... with in_fd as the first stage's stdin;
 * the last stage's stdout into *out. 0, or -1 with err. */
static int run_chain(char *const *argv[], size_t n, int in_fd, char **out, size_t *outlen,
		     char *err, size_t errsz)
{
	pid_t pid[MAX_STAGES];
	int prev = in_fd, rfd = -1, failed = -1, status = 0;
	size_t started = 0, cap = 0, len = 0;
	char *dir = self_dir(), *buf = NULL;

	for (size_t i = 0; i < n; i++) {
		int p[2];
		posix_spawn_file_actions_t fa;
		char path[PATH_MAX];

		if (pipe2(p, O_CLOEXEC) < 0)
			break;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, prev, 0);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", argv[i][0]);
		int rc = dir && access(path, X_OK) == 0
				 ? posix_spawn(&pid[i], path, &fa, NULL, argv[i], environ)
				 : posix_spawnp(&pid[i], argv[i][0], &fa, NULL, argv[i], environ);
		posix_spawn_file_actions_destroy(&fa);
		close(p[1]);
		if (prev != in_fd)
			close(prev);
		prev = p[0];
		if (rc != 0) {
			snprintf(err, errsz, "cannot start %s: %s", argv[i][0], strerror(rc));
			close(p[0]);
			prev = -1;
			break;
		}
		started++;
	}
	free(dir);
	rfd = started == n ? prev : -1;
	for (;;) {
		if (rfd < 0)
			break;
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			if (cap > (size_t)FOLDED_MAX_MB * FP_BYTES_PER_MB) {
				snprintf(err, errsz, "its folded stacks are larger than %u MB",
					 FOLDED_MAX_MB);
				failed = -2;
				break;
			}
			buf = fp_xrealloc(buf, cap);
		}
		ssize_t r = read(rfd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (rfd >= 0)
		close(rfd);
	for (size_t i = 0; i < started; i++) {
		if (failed == -2)
			kill(pid[i], SIGTERM);
		while (waitpid(pid[i], &status, 0) < 0 && errno == EINTR)
			;
		if (failed == -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			failed = (int)i;
			snprintf(err, errsz, "%s %s %d (its message is above)", argv[i][0],
				 WIFEXITED(status) ? "exited" : "was killed by signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
	}
	if (started < n || failed != -1) {
		free(buf);
		return -1;
	}
	if (!buf)
		buf = fp_xmalloc(1);
	buf[len] = 0;
	*out = buf;
	*outlen = len;
	return 0;
}

/* The first line that is not blank or a # comment is `stack count`. */
static int looks_folded(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct fp_folded t;

		if (n && p[0] != '#' && strspn(p, " \t\r") < n) {
			fp_folded_init(&t);
			int ok = fp_folded_parse_line(&t, p, n, FP_FOLDED_REF) == 0 && t.n == 1;
			fp_folded_free(&t);
			return ok;
		}
		p += n + 1;
	}
	return 0;
}

/* A capture folded by the stages (see the header). */
static int fold_capture(int fd, const char *path, enum fp_capture_kind kind, const char *from,
			const char *to, char **text, size_t *len, char *err, size_t errsz)
{
	/* the path as operand: the reader's messages name the file (not -q:
	 * that silences its fatal message too) */
	char *reader[] = { (char *)fp_sniff_reader(kind), (char *)path, NULL };
	char *bucket[] = { "fp-bucket", NULL };
	char *range[8] = { "fp-range", "--history", "0" };
	char *fold[] = { "fp-fold", "--plain", "--all-events", NULL };
	char *const *argv[MAX_STAGES];
	size_t n = 0, k = 3;

	if (from) {
		range[k++] = "--from";
		range[k++] = (char *)from;
	}
	if (to) {
		range[k++] = "--to";
		range[k++] = (char *)to;
	}
	range[k] = NULL;
	argv[n++] = reader;
	argv[n++] = bucket;
	if (from || to)
		argv[n++] = range;
	argv[n++] = fold;
	return run_chain(argv, n, fd, text, len, err, errsz);
}

int fp_baseload(const char *path, const char *from, const char *to, struct fp_folded *out,
		char *err, size_t errsz)
{
	char why[512] = "";
	char *text = NULL;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	fp_folded_init(out);
	if (fd < 0) {
		snprintf(err, errsz, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	enum fp_capture_kind kind = fp_sniff_fd(fd);
	int capture = kind != FP_CAPTURE_PERF || fp_rec_is_recording(fd) ||
		      fp_sniff_profile(fd).kind != FP_CAPTURE_NONE;

	if (!capture) {
		text = fp_read_all(path, path, (size_t)FOLDED_MAX_MB * FP_BYTES_PER_MB, &len);
		if (!looks_folded(text, len)) {
			snprintf(err, errsz,
				 "%s: not a capture flamepipe reads nor a folded file "
				 "(expected `stack count` lines, perf script text, perf.data or a "
				 "recording)",
				 path);
			goto fail;
		}
		if (from || to) {
			snprintf(err, errsz,
				 "%s: a folded file has no times: --from/--to need a "
				 "capture",
				 path);
			goto fail;
		}
	} else if (lseek(fd, 0, SEEK_SET) < 0 ||
		   fold_capture(fd, path, kind, from, to, &text, &len, why, sizeof why) < 0) {
		snprintf(err, errsz, "%s: cannot fold it: %s", path,
			 why[0] ? why : strerror(errno));
		goto fail;
	}
	fp_folded_parse_buffer(out, text, len, FP_FOLDED_COPY);
	if (out->ignored) {
		snprintf(err, errsz, "%s:%llu: expected `stack count` (%llu such lines)", path,
			 (unsigned long long)out->first_ignored, (unsigned long long)out->ignored);
		goto fail;
	}
	if (!out->total) {
		snprintf(err, errsz, "%s: no samples%s: nothing to compare against", path,
			 from || to ? " in that range" : "");
		goto fail;
	}
	free(text);
	close(fd);
	return 0;
fail:
	free(text);
	fp_folded_free(out);
	fp_folded_init(out);
	close(fd);
	return -1;
}
