/* pd_symfile.c: symbol names left in their ELF file, read when a lookup
 * shows them (pd_symfile.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "pd_symfile.h"

#define NAME_READ 256            /* a name's first pread: most are shorter */
#define NAME_READ_MAX (1u << 20) /* a name without a NUL ends there */
#define FD_BUDGET_MAX 4096
#define FD_RESERVE \
	16 /* never kept: std streams, the input, the file
				 * being read and its debug files */

static atomic_int fds_kept; /* ELF files kept open for their names */

/* How many files may be kept open for their names: half the descriptors
 * (the rest for --inline's sessions, which keep theirs, and the files
 * still to read), FD_RESERVE left at least, at most FD_BUDGET_MAX. Past
 * it the names are copied. */
static int fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 2 > FD_BUDGET_MAX)
		return FD_BUDGET_MAX;
	if (rl.rlim_cur <= 2 * FD_RESERVE)
		return rl.rlim_cur > FD_RESERVE ? (int)(rl.rlim_cur - FD_RESERVE) : 0;
	return (int)(rl.rlim_cur / 2);
}

static int in_image(const struct pd_dso *d, const char *name)
{
	return d->image && name >= d->image && name < d->image + d->image_size;
}

void pd_symfile_add_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name,
			int binding)
{
	struct pd_sym *s;

	if (d->fd >= 0 && in_image(d, name)) {
		s = pd_dso_push_sym(d, start, end, NULL);
		s->name_off = (uint64_t)(name - d->image);
		s->flags = PD_SYM_IN_FILE;
	} else {
		pd_dso_add_sym(d, start, end, name, strlen(name));
		s = &d->syms[d->nsyms - 1];
	}
	s->binding = (uint8_t)binding;
}

const char *pd_sym_name(struct pd_dso *d, const struct pd_sym *s, int slot)
{
	if (!(s->flags & PD_SYM_IN_FILE))
		return s->name;
	struct pd_namebuf *b = &d->namebuf[slot];
	size_t n = 0;
	if (b->off1 == s->name_off + 1)
		return b->p; /* read last (perf's choice compares one name to several) */
	for (;;) {
		if (b->cap - n < NAME_READ + 1) {
			b->cap = b->cap ? b->cap * 2 : 2 * NAME_READ;
			b->p = fp_xrealloc(b->p, b->cap);
		}
		ssize_t r = pread(d->fd, b->p + n, b->cap - n - 1, (off_t)(s->name_off + n));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* the file's end ends the name, as when it was mapped */
		int ended = memchr(b->p + n, '\0', (size_t)r) != NULL;
		n += (size_t)r;
		if (ended || n >= NAME_READ_MAX)
			break;
	}
	b->p[n] = '\0';
	b->off1 = s->name_off + 1;
	return b->p;
}

/* The mapping has a zero page after the file's end: a name at the very
 * end of the file still ends in a NUL while libelf reads it. */
int pd_symfile_map(struct pd_dso *d, int fd)
{
	struct stat st;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *base = MAP_FAILED;

	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2) {
		size_t size = (size_t)st.st_size;
		size_t span = (size + page - 1) / page * page + page;
		base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base != MAP_FAILED && mmap(base, size, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
			munmap(base, span);
			base = MAP_FAILED;
		}
		if (base != MAP_FAILED) {
			d->image = base;
			d->image_size = size;
			d->image_span = span;
		}
	}
	if (base != MAP_FAILED && atomic_fetch_add(&fds_kept, 1) < fd_budget()) {
		d->fd = fd;
		return 0;
	}
	if (base != MAP_FAILED)
		atomic_fetch_sub(&fds_kept, 1);
	close(fd);
	return base == MAP_FAILED ? -1 : 0;
}

static void unmap_image(struct pd_dso *d)
{
	if (d->image)
		munmap(d->image, d->image_span);
	d->image = NULL;
	d->image_size = d->image_span = 0;
}

static void close_file(struct pd_dso *d)
{
	if (d->fd < 0)
		return;
	close(d->fd);
	d->fd = -1;
	atomic_fetch_sub(&fds_kept, 1);
}

/* The mapping goes (and with it the pages read of the file); the file
 * stays open if names are read from it. */
void pd_symfile_release(struct pd_dso *d)
{
	size_t i = 0;

	unmap_image(d);
	while (i < d->nsyms && !(d->syms[i].flags & PD_SYM_IN_FILE))
		i++;
	if (i == d->nsyms)
		close_file(d);
}

void pd_symfile_drop(struct pd_dso *d)
{
	unmap_image(d);
	close_file(d);
}
