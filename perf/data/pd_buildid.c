/* pd_buildid.c: the lookup order of a recording's files by build-id, the
 * kernel's symbols of the recorded kernel, and separate debug files
 * (pd_buildid.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fp_error.h"
#include "pd_buildid.h"
#include "pd_debuginfod.h"
#include "pd_kcache.h"
#include "pd_remote.h"
#include "pd_procroot.h"
#include "pd_symbols.h"
#include "pd_textsyms.h"

#define PATH_CAP 4096
#define HEX_CAP (2 * 64 + 1)
#define KERNEL_NOTES "/sys/kernel/notes"
#define KERNEL_TEXT "_text" /* perf's ref_reloc_sym on x86 */
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

static const char *symfs;
static int wait_answers = 1;
/* libdwfl's debuginfo_path (pd_symbols.c's callbacks): the build-id
 * directories of separate debug files; NULL is its default,
 * ":.debug:/usr/lib/debug". With --symfs DIR, DIR/usr/lib/debug first. */
char *pd_debuginfo_path;

int pd_buildid_foreign(void)
{
	return symfs || pd_remote_on();
}

void pd_buildid_set_symfs(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--; /* DIR/ and DIR name the same root */
	symfs = fp_xstrndup(dir, n);
	size_t cap = 2 * n + sizeof ":.debug:" SYSTEM_DEBUG_DIR ":" SYSTEM_DEBUG_DIR;
	pd_debuginfo_path = fp_xmalloc(cap);
	snprintf(pd_debuginfo_path, cap, ":.debug:%s" SYSTEM_DEBUG_DIR ":" SYSTEM_DEBUG_DIR, symfs);
}

void pd_buildid_set_wait(int wait)
{
	wait_answers = wait;
}

int pd_buildid_wait(void)
{
	return wait_answers;
}

static char buildid_dir[PATH_CAP];
static pthread_once_t buildid_dir_once = PTHREAD_ONCE_INIT;

static void set_buildid_dir(void)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	snprintf(buildid_dir, sizeof buildid_dir, "%s%s",
		 env && *env ? env
		 : home      ? home
			     : "/root",
		 env && *env ? "" : "/.debug");
}

const char *pd_buildid_dir(void)
{
	/* the kernel's thread and the sample reader may ask first at once */
	pthread_once(&buildid_dir_once, set_buildid_dir);
	return buildid_dir;
}

void pd_buildid_hex(const unsigned char *id, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * n] = '\0';
}

/* 1 if path fits in cap (snprintf's result n). */
static int fits(int n, size_t cap)
{
	return n > 0 && (size_t)n < cap;
}

/* ---- the lookup order --------------------------------------------------- */

/* A file of a live process of another mount namespace, as it sees it
 * (pd_procroot.h: opened then and kept, so d changes); none with --symfs
 * or --remote, whose recording is another host's: its pids are not this
 * host's. */
static int at_process_root(const struct pd_dso *d, char *buf, size_t cap)
{
	return !pd_buildid_foreign() && pd_procroot_open((struct pd_dso *)d, buf, cap) != NULL;
}

int pd_file_id_other(const struct pd_file_id *id, const char *path, struct stat *st)
{
	return id && id->known && stat(path, st) == 0 &&
	       !pd_file_id_is(id, major(st->st_dev), minor(st->st_dev), st->st_ino);
}

int pd_buildid_is_mapped(const struct pd_dso *d, const char *path, char *why, size_t cap)
{
	struct stat st;

	if (d->mapped_mixed || pd_buildid_foreign() || !pd_file_id_other(&d->mapped, path, &st))
		return 1;
	snprintf(why, cap,
		 "the mapped file was device %u:%u inode %llu, the one at that path here is "
		 "%u:%u inode %llu: a container's file of that path, or one replaced since",
		 d->mapped.maj, d->mapped.min, (unsigned long long)d->mapped.ino, major(st.st_dev),
		 minor(st.st_dev), (unsigned long long)st.st_ino);
	return 0;
}

static int at_recorded(const struct pd_dso *d, char *buf, size_t cap)
{
	/* a recording of a remote host (--remote): a file here by its name
	 * is this host's, used only when the recorded build-id says it is
	 * the same */
	if (pd_remote_on() && !d->build_id_len && !symfs)
		return 0;
	if (!fits(snprintf(buf, cap, "%s%s", symfs ? symfs : "", d->name), cap))
		return 0;
	/* with no build-id to check it by, only if it is the mapped file */
	char why[PATH_CAP];
	if (d->build_id_len || pd_buildid_is_mapped(d, buf, why, sizeof why))
		return 1;
	snprintf(buf, cap, "%s; no build-id is recorded to find the mapped one by", why);
	return -2;
}

/* perf's build_id_cache__linkname: DIR/.build-id/xx/yyyy/NAME. */
static int cache_by_id(const unsigned char *id, size_t n, const char *name, char *buf, size_t cap)
{
	char hex[HEX_CAP];

	if (!n || n > 64)
		return 0;
	pd_buildid_hex(id, n, hex);
	return fits(
		snprintf(buf, cap, "%s/.build-id/%.2s/%s/%s", pd_buildid_dir(), hex, hex + 2, name),
		cap);
}

static int at_cache_elf(const struct pd_dso *d, char *buf, size_t cap)
{
	return cache_by_id(d->build_id, d->build_id_len, "elf", buf, cap);
}

/* perf record's copy of the vdso: DIR/[vdso]/ID/vdso. */
static int at_cache_vdso(const struct pd_dso *d, char *buf, size_t cap)
{
	char hex[HEX_CAP];

	if (!d->build_id_len)
		return 0;
	pd_buildid_hex(d->build_id, d->build_id_len, hex);
	return fits(snprintf(buf, cap, "%s/[vdso]/%s/vdso", pd_buildid_dir(), hex), cap);
}

/* debuginfod's executable: -1 while it is being asked (--live). */
static int at_debuginfod(const struct pd_dso *d, char *buf, size_t cap)
{
	const char *path = NULL;
	enum pd_di_state s = pd_debuginfod_get(d->build_id, d->build_id_len, PD_DI_EXECUTABLE,
					       wait_answers, &path, NULL);

	if (s == PD_DI_PENDING)
		return -1;
	return s == PD_DI_FOUND && fits(snprintf(buf, cap, "%s", path), cap);
}

/* the recording's host over ssh (--remote): -1 while it is fetched. */
static int at_remote(const struct pd_dso *d, char *buf, size_t cap)
{
	const char *path = NULL;
	enum pd_di_state s = pd_remote_get(d->name, d->build_id, d->build_id_len, wait_answers,
					   &path, NULL);

	if (s == PD_DI_PENDING)
		return -1;
	return s == PD_DI_FOUND && fits(snprintf(buf, cap, "%s", path), cap);
}

enum { ON_ELF = 1 << PD_DSO_ELF, ON_VDSO = 1 << PD_DSO_VDSO };

static const struct lookup_row {
	unsigned on;      /* ON_*: the dso types it applies to */
	const char *what; /* said when nothing is found */
	/* a path in buf: 1; none: 0; pending: -1; refused, why in buf: -2 */
	int (*at)(const struct pd_dso *d, char *buf, size_t cap);
} lookup_order[] = {
	{ ON_ELF, "its process's root", at_process_root },
	{ ON_ELF, "the recorded path", at_recorded },
	{ ON_VDSO, "perf's build-id cache", at_cache_vdso },
	{ ON_ELF | ON_VDSO, "perf's build-id cache", at_cache_elf },
	{ ON_ELF, "the remote host", at_remote },
	{ ON_ELF | ON_VDSO, "debuginfod", at_debuginfod },
};

enum pd_lookup_result pd_lookup(const struct pd_dso *d, size_t i, char *buf, size_t cap,
				const char **what)
{
	if (i >= sizeof lookup_order / sizeof lookup_order[0])
		return PD_LK_END;
	const struct lookup_row *row = &lookup_order[i];
	*what = row->what;
	if (!(row->on & (1u << d->type)))
		return PD_LK_SKIP;
	int r = row->at(d, buf, cap);
	return r == -2 ? PD_LK_REFUSED : r < 0 ? PD_LK_PENDING : r ? PD_LK_PATH : PD_LK_SKIP;
}

/* ---- the kernel ------------------------------------------------------------ */

enum pd_ksrc pd_kallsyms_source(struct pd_dso *d, char *path, size_t cap)
{
	char want[HEX_CAP], running[HEX_CAP] = "";
	size_t len;
	int err;
	struct stat st;

	if (pd_remote_on()) /* the recording's host's, never this one's */
		return pd_remote_kallsyms(d, path, cap);
	if (!d->build_id_len)
		return PD_KSRC_RUNNING; /* nothing to check: as perf */
	pd_buildid_hex(d->build_id, d->build_id_len, want);
	unsigned char *notes = (unsigned char *)pd_read_file(KERNEL_NOTES, &len, &err);
	int known = notes && pd_kcache_build_id(notes, len, running, sizeof running);
	free(notes);
	if (known && strcmp(running, want) == 0)
		return PD_KSRC_RUNNING;
	if (fits(snprintf(path, cap, "%s/[kernel.kallsyms]/%s/kallsyms", pd_buildid_dir(), want),
		 cap) &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return PD_KSRC_CACHE;
	char why[PATH_CAP + 512];
	snprintf(why, sizeof why,
		 "the recording's kernel has build-id %s, this machine's %s, "
		 "and %s is not there (perf archive or perf buildid-cache of that kernel puts "
		 "it there): this machine's kallsyms would name its frames wrongly",
		 want, known ? running : "is unknown", path);
	d->missing = 1;
	d->missing_why = fp_xstrdup(why);
	return PD_KSRC_NONE;
}

void pd_kernel_note_text(struct pd_dso *d)
{
	/* before the fixups, which may keep another name at its address */
	for (size_t i = 0; i < d->nsyms; i++)
		if (!(d->syms[i].flags & PD_SYM_MODULE) &&
		    strcmp(d->syms[i].name, KERNEL_TEXT) == 0) {
			d->text_addr = d->syms[i].start;
			return;
		}
}

int64_t pd_kernel_relocate(struct pd_dso *d, uint64_t recorded_text)
{
	uint64_t text = d->text_addr;

	/* no _text, or zeros (kptr_restrict): nothing to go by */
	if (!recorded_text || !text || text == recorded_text)
		return 0;
	int64_t delta = (int64_t)(text - recorded_text);
	for (size_t i = 0; i < d->nsyms; i++) {
		if (d->syms[i].flags & PD_SYM_MODULE)
			continue;
		d->syms[i].start -= (uint64_t)delta;
		d->syms[i].end -= (uint64_t)delta;
	}
	/* the kernel's own symbols lie below the modules': moved as one block
	 * they stay sorted unless they cross a module, which KASLR's range
	 * cannot do; if a table says otherwise, it is put back */
	for (size_t i = 1; i < d->nsyms; i++)
		if (d->syms[i].start < d->syms[i - 1].start) {
			for (size_t k = 0; k < d->nsyms; k++)
				if (!(d->syms[k].flags & PD_SYM_MODULE)) {
					d->syms[k].start += (uint64_t)delta;
					d->syms[k].end += (uint64_t)delta;
				}
			return 0;
		}
	for (size_t i = 0; i < d->nsyms; i++)
		d->max_end[i] = i && d->max_end[i - 1] > d->syms[i].end ? d->max_end[i - 1]
									: d->syms[i].end;
	return delta;
}

/* ---- separate debug files ------------------------------------------------------ */

static int open_as(const char *path, char **name)
{
	int err, fd = pd_open_regular(path, &err);

	if (fd >= 0)
		*name = fp_xstrdup(path);
	return fd;
}

/* .gnu_debuglink (or a dwz alt file's path) as libdwfl looks for it: next
 * to the file, in its .debug, under the debug directories; libdwfl checks
 * the build-id of what is returned. */
static int open_debuglink(const char *file_name, const char *link, char **name)
{
	char dir[PATH_CAP], path[PATH_CAP];
	const char *rdir;
	size_t sl = symfs ? strlen(symfs) : 0;
	int fd = -1;

	if (link[0] == '/') {
		if (symfs && fits(snprintf(path, sizeof path, "%s%s", symfs, link), sizeof path))
			fd = open_as(path, name);
		return fd >= 0 ? fd : open_as(link, name);
	}
	if (!file_name || !fits(snprintf(dir, sizeof dir, "%s", file_name), sizeof dir))
		return -1;
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	/* the recorded directory, without the symfs it was read under */
	rdir = symfs && strncmp(dir, symfs, sl) == 0 ? dir + sl : dir;
	const char *fmt[][3] = {
		{ "%s/%s", dir, link },
		{ "%s/.debug/%s", dir, link },
	};
	for (size_t i = 0; fd < 0 && i < sizeof fmt / sizeof fmt[0]; i++)
		if (fits(snprintf(path, sizeof path, fmt[i][0], fmt[i][1], fmt[i][2]), sizeof path))
			fd = open_as(path, name);
	if (fd < 0 && symfs &&
	    fits(snprintf(path, sizeof path, "%s" SYSTEM_DEBUG_DIR "%s/%s", symfs, rdir, link),
		 sizeof path))
		fd = open_as(path, name);
	if (fd < 0 &&
	    fits(snprintf(path, sizeof path, SYSTEM_DEBUG_DIR "%s/%s", rdir, link), sizeof path))
		fd = open_as(path, name);
	return fd;
}

int pd_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	char path[PATH_CAP];
	int n = dwfl_module_build_id(mod, &bits, &vaddr), fd;

	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[strspn(urls, " ")]) {
		/* libdwfl's own search, whose debuginfod client has no server
		 * to ask (with one, it would ask here, on the sample path, even
		 * under --no-debuginfod) */
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink_file, debuglink_crc,
						  debuginfo_file_name);
	} else {
		fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink_file, debuglink_crc,
						  debuginfo_file_name);
		if (fd < 0 && debuglink_file)
			fd = open_debuglink(file_name, debuglink_file, debuginfo_file_name);
	}
	if (fd < 0 && n > 0 && cache_by_id(bits, (size_t)n, "debug", path, sizeof path))
		fd = open_as(path, debuginfo_file_name);
	const char *got = NULL;
	if (fd < 0 && n > 0 &&
	    pd_debuginfod_peek(bits, (size_t)n, PD_DI_DEBUGINFO, &got) == PD_DI_FOUND)
		fd = open_as(got, debuginfo_file_name);
	return fd;
}
