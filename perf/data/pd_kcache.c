/* pd_kcache.c: the kernel's symbols from perf's build-id cache, when that
 * copy must hold what /proc/kallsyms holds now (pd_kcache.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "pd_kcache.h"
#include "pd_symbols.h"
#include "pd_textsyms.h"

#define KERNEL_NOTES "/sys/kernel/notes"
#define PROC_STAT "/proc/stat"
#define BTIME_KEY "\nbtime "
#define KCACHE_DIR "/[kernel.kallsyms]/"
#define KCACHE_FILE "/kallsyms"
#define NOTE_ALIGN 4u
#define NT_GNU_BUILD_ID 3u
#define GNU_NOTE_NAME "GNU"
#define BUILD_ID_HEX_MIN 41 /* 20 bytes as hex, and the NUL */
#define MODULE_NAME_MAX 64  /* MODULE_NAME_LEN is 56 */

static size_t align_note(size_t n)
{
	return (n + NOTE_ALIGN - 1) & ~(size_t)(NOTE_ALIGN - 1);
}

int pd_kcache_build_id(const unsigned char *notes, size_t len, char *hex, size_t cap)
{
	size_t pos = 0;

	while (len - pos >= 3 * sizeof(uint32_t)) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, notes + pos, sizeof namesz);
		memcpy(&descsz, notes + pos + 4, sizeof descsz);
		memcpy(&type, notes + pos + 8, sizeof type);
		pos += 3 * sizeof(uint32_t);
		size_t name_len = align_note(namesz), desc_len = align_note(descsz);
		if (name_len > len - pos || desc_len > len - pos - name_len)
			return 0;
		const unsigned char *name = notes + pos, *desc = notes + pos + name_len;
		pos += name_len + desc_len;
		if (type != NT_GNU_BUILD_ID || namesz != sizeof GNU_NOTE_NAME ||
		    memcmp(name, GNU_NOTE_NAME, sizeof GNU_NOTE_NAME) != 0 || descsz == 0 ||
		    cap < 2 * (size_t)descsz + 1)
			continue;
		for (uint32_t i = 0; i < descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", desc[i]);
		return 1;
	}
	return 0;
}

/* Seconds since the epoch at boot (/proc/stat's btime), or -1. */
static long long boot_time(void)
{
	size_t len;
	int err;
	char *text = pd_read_file(PROC_STAT, &len, &err);
	long long t = -1;

	if (text) {
		const char *p = strstr(text, BTIME_KEY);
		if (p)
			t = strtoll(p + sizeof BTIME_KEY - 1, NULL, 10);
		free(text);
	}
	return t;
}

int pd_kcache_find(char *buf, size_t cap)
{
	char id[BUILD_ID_HEX_MIN * 2];
	size_t len;
	int err;
	unsigned char *notes = (unsigned char *)pd_read_file(KERNEL_NOTES, &len, &err);
	int found = notes && pd_kcache_build_id(notes, len, id, sizeof id);

	free(notes);
	if (!found)
		return 0;
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	int n = dir && *dir ? snprintf(buf, cap, "%s" KCACHE_DIR "%s" KCACHE_FILE, dir, id)
			    : snprintf(buf, cap, "%s/.debug" KCACHE_DIR "%s" KCACHE_FILE,
				       home ? home : "/root", id);
	struct stat st;
	long long booted = boot_time();
	return n > 0 && (size_t)n < cap && booted >= 0 && stat(buf, &st) == 0 &&
	       S_ISREG(st.st_mode) && (long long)st.st_mtime >= booted;
}

/* The "[module]" part of a kallsyms name, without the brackets; NULL for a
 * symbol of the kernel itself. */
static const char *module_of(const char *name, size_t *mlen)
{
	const char *tab = strchr(name, '\t');

	if (!tab || tab[1] != '[')
		return NULL;
	const char *close = strchr(tab + 2, ']');
	if (!close)
		return NULL;
	*mlen = (size_t)(close - (tab + 2));
	return tab + 2;
}

int pd_kcache_dynamic(const char *name, size_t len)
{
	static const char *const tags[] = { "\t[bpf]", "\t[__builtin__" };
	const char *tab = memchr(name, '\t', len);

	if (!tab)
		return 0;
	for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
		size_t tl = strlen(tags[i]);
		if ((size_t)(name + len - tab) >= tl && memcmp(tab, tags[i], tl) == 0)
			return 1;
	}
	return 0;
}

struct module_range {
	char name[MODULE_NAME_MAX];
	uint64_t start, end;
	int seen;
};

/* /proc/modules: "NAME SIZE REFS DEPS STATE ADDRESS ..." per line. 0 and
 * *out NULL if a line does not read so (or hides its address: 0). */
static size_t parse_modules(const char *text, size_t len, struct module_range **out)
{
	size_t n = 0, cap = 0;
	struct module_range *mods = NULL;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char line[512];
		size_t ll = (size_t)((eol ? eol : end) - p);
		char name[MODULE_NAME_MAX];
		unsigned long long size, addr;

		if (ll >= sizeof line)
			goto bad;
		memcpy(line, p, ll);
		line[ll] = '\0';
		p += ll + 1;
		if (!ll)
			continue;
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr)
			goto bad;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			mods = fp_xrealloc(mods, cap * sizeof *mods);
		}
		memset(&mods[n], 0, sizeof mods[n]);
		memcpy(mods[n].name, name, sizeof name);
		mods[n].start = addr;
		mods[n].end = addr + size;
		n++;
	}
	*out = mods;
	return n;
bad:
	free(mods);
	*out = NULL;
	return 0;
}

static struct module_range *find_module(struct module_range *mods, size_t n, const char *name,
					size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(mods[i].name) == len && memcmp(mods[i].name, name, len) == 0)
			return &mods[i];
	return NULL;
}

int pd_kcache_modules_agree(const struct pd_dso *d, const char *text, size_t len)
{
	struct module_range *mods = NULL, *cur = NULL;
	size_t n = 0;
	int agree = 1;
	const char *cur_name = NULL;
	size_t cur_len = 0;

	if (text) {
		n = parse_modules(text, len, &mods);
		if (!mods && len)
			return 0; /* unreadable or hidden addresses */
	}
	for (size_t i = 0; agree && i < d->nsyms; i++) {
		size_t ml;
		const char *m = module_of(d->syms[i].name, &ml);
		if (!m)
			continue;
		/* a module's symbols are listed together: one lookup a run */
		if (!cur_name || ml != cur_len || memcmp(m, cur_name, ml) != 0) {
			cur = find_module(mods, n, m, ml);
			cur_name = m;
			cur_len = ml;
		}
		if (!cur || d->syms[i].start < cur->start || d->syms[i].start >= cur->end)
			agree = 0;
		else
			cur->seen = 1;
	}
	for (size_t i = 0; agree && i < n; i++)
		if (!mods[i].seen)
			agree = 0;
	free(mods);
	return agree;
}
