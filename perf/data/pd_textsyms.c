/* pd_textsyms.c: symbol tables read from text files, for fp-perfdata:
 * the kernel's from /proc/kallsyms (or perf's copy of it, pd_kcache.h),
 * JIT code's from /tmp/perf-PID.map (pd_textsyms.h).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "pd_buildid.h"
#include "pd_kcache.h"
#include "pd_procroot.h"
#include "pd_symbols.h"
#include "pd_symfile.h"
#include "pd_symtab.h"
#include "pd_textsyms.h"

#define KALLSYMS "/proc/kallsyms"
#define PROC_MODULES "/proc/modules"
#define PATH_CAP 4096

static const char kallsyms_default[] = KALLSYMS;
static const char *kallsyms_path = kallsyms_default;

void pd_symbols_set_kallsyms(const char *path)
{
	kallsyms_path = path;
}

static int kallsyms_binding(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}

#define TEXT_READ (1u << 20) /* bytes per read(): fewer seq_file rounds for kallsyms */

/* The whole of fd (a /proc file reports size 0: read until EOF); NULL and
 * errno on a read error. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = TEXT_READ, n = 0;
	char *buf = fp_xmalloc(cap + 1);

	for (;;) {
		if (cap - n < TEXT_READ) {
			cap *= 2;
			buf = fp_xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *pd_read_file(const char *path, size_t *len, int *err)
{
	int fd = pd_open_regular(path, err); /* /proc and /sys files are regular */
	char *text = fd >= 0 ? read_all(fd, len) : NULL;

	if (fd >= 0) {
		if (!text)
			*err = errno;
		close(fd);
	}
	return text;
}

/* Calls fn for each line of the text file at path (kallsyms, a perf map),
 * NUL-terminated without its LF; the file is read whole, in large reads
 * (not stdio: kallsyms is 120 k lines the kernel formats per read). An
 * unreadable file marks d missing and returns -1. */
static int each_line(struct pd_dso *d, const char *path,
		     void (*fn)(struct pd_dso *, char *, size_t), int keep)
{
	int err;
	size_t len = 0;
	char *text = pd_read_file(path, &len, &err);

	if (!text) {
		d->missing = 1;
		d->missing_why = fp_xstrdup(strerror(err));
		return -1;
	}
	for (char *p = text, *end = text + len; p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		*eol = '\0';
		fn(d, p, (size_t)(eol - p));
		p = eol + 1;
	}
	if (keep)
		d->text = text; /* the names point into it */
	else
		free(text);
	return 0;
}

#define ADDR_DIGITS 16 /* a 64-bit address in hex */

/* The hex number at the start of s, as strtoull(s, end, 16) reads it: by
 * hand for the ADDR_DIGITS digits and a space of every kallsyms line
 * (strtoull was a third of the time parsing it), else by strtoull. */
/* A hex digit's value + 1, 0 for any other byte: one load a digit, no
 * branches on its kind. */
static const unsigned char hex_digit1[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static unsigned long long hex_field(char *s, char **end)
{
	unsigned long long v = 0;
	int i = 0;

	for (; i <= ADDR_DIGITS; i++) {
		unsigned d = hex_digit1[(unsigned char)s[i]];
		if (!d)
			break;
		v = v << 4 | (d - 1);
	}
	if (i == 0 || i > ADDR_DIGITS || s[i] != ' ')
		return strtoull(s, end, 16);
	*end = s + i;
	return v;
}

/* "ADDR TYPE NAME[\t[module]]": text and weak symbols. */
static void kallsyms_line(struct pd_dso *d, char *line, size_t n)
{
	char *end;
	unsigned long long addr = hex_field(line, &end);

	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return;
	char type = end[1];
	if (toupper((unsigned char)type) != 'T' && toupper((unsigned char)type) != 'W')
		return;
	char *name = end + 3;
	size_t len = strnlen(name, n - (size_t)(name - line)); /* the line has no LF */
	name[len] = '\0';                                      /* "name\t[module]", in place */
	struct pd_sym *s = pd_dso_push_sym(d, addr, addr, name);
	s->binding = (uint8_t)kallsyms_binding(type);
	if (memchr(name, '\t', len))
		s->flags = PD_SYM_MODULE;
}

/* A line of perf's copy (pd_kcache.h): as kallsyms_line, without the
 * symbols of code the kernel makes and frees as it runs. */
static void kallsyms_copy_line(struct pd_dso *d, char *line, size_t n)
{
	if (!pd_kcache_dynamic(line, n))
		kallsyms_line(d, line, n);
}

/* Forgets what a rejected copy put in d. */
static void drop_symbols(struct pd_dso *d)
{
	free(d->text);
	d->text = NULL;
	d->nsyms = 0;
	d->missing = 0;
	free(d->missing_why);
	d->missing_why = NULL;
}

/* The symbols of perf's copy of kallsyms, if it must hold what
 * /proc/kallsyms holds now (pd_kcache.h): 1, else 0 and d as it was. */
static int load_kallsyms_copy(struct pd_dso *d)
{
	char path[PATH_CAP];

	if (kallsyms_path != kallsyms_default || !pd_kcache_find(path, sizeof path))
		return 0;
	if (each_line(d, path, kallsyms_copy_line, 1) == 0) {
		int err;
		size_t len = 0;
		char *mods = pd_read_file(PROC_MODULES, &len, &err);
		/* no /proc/modules: a kernel without modules */
		int agree = (mods || err == ENOENT) && pd_kcache_modules_agree(d, mods, len);
		free(mods);
		if (agree)
			return 1;
	}
	drop_symbols(d);
	return 0;
}

/* The names of d's symbols moved out of the text they were read in (its
 * addresses, types and the symbols not kept: twice the names' size) into
 * one block of their own; the text is freed. */
static void compact_names(struct pd_dso *d)
{
	size_t total = 0;

	for (size_t i = 0; i < d->nsyms; i++)
		total += strlen(d->syms[i].name) + 1;
	char *names = fp_xmalloc(total ? total : 1), *w = names;
	for (size_t i = 0; i < d->nsyms; i++) {
		size_t n = strlen(d->syms[i].name) + 1;
		memcpy(w, d->syms[i].name, n);
		d->syms[i].name = w;
		w += n;
	}
	free(d->text);
	d->text = names;
}

void pd_load_kallsyms(struct pd_dso *d)
{
	char path[PATH_CAP];
	/* --kallsyms FILE is the user's word; else the recorded kernel's
	 * (pd_buildid.h): this machine's if it runs that kernel */
	enum pd_ksrc src = kallsyms_path != kallsyms_default
				   ? PD_KSRC_RUNNING
				   : pd_kallsyms_source(d, path, sizeof path);

	if (src == PD_KSRC_NONE)
		return;
	if (src == PD_KSRC_CACHE) {
		if (each_line(d, path, kallsyms_copy_line, 1) < 0)
			return;
		d->kallsyms_copy = 1;
	} else {
		d->kallsyms_copy = load_kallsyms_copy(d);
		if (!d->kallsyms_copy && each_line(d, kallsyms_path, kallsyms_line, 1) < 0)
			return;
	}
	pd_kernel_note_text(d);
	pd_symtab_fixup(d, 1);
	/* the shown name stops at the module's TAB */
	for (size_t i = 0; i < d->nsyms; i++)
		if (d->syms[i].flags & PD_SYM_MODULE)
			*strchr(d->syms[i].name, '\t') = '\0';
	compact_names(d);
}

/* /tmp/perf-PID.map: "START SIZE NAME", both in hex. */
static void jitmap_line(struct pd_dso *d, char *line, size_t n)
{
	char *p = line, *e;
	unsigned long long start = strtoull(p, &e, 16), size;

	if (e == p || *e != ' ')
		return;
	p = e + 1;
	size = strtoull(p, &e, 16);
	if (e == p || *e != ' ')
		return;
	p = e + 1;
	size_t len = strcspn(p, "\n");
	if (len)
		pd_dso_add_sym(d, start, start + size, p, len);
}

/* perf's dso__find_perf_map: the map in the process's own mount namespace
 * (pd_procroot.h), else the host's /tmp/perf-PID.map. */
void pd_load_jitmap(struct pd_dso *d)
{
	char nspath[PATH_CAP];
	const char *ns = pd_procroot_open(d, nspath, sizeof nspath);

	if (ns && each_line(d, ns, jitmap_line, 0) == 0) {
		pd_symtab_fixup(d, 0);
		return;
	}
	drop_symbols(d);
	if (each_line(d, d->name, jitmap_line, 0) == 0)
		pd_symtab_fixup(d, 0);
}
