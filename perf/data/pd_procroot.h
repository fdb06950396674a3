/* pd_procroot.h: a live process's mapped files opened as the process sees
 * them, through its own root (/proc/PID/root, the path resolved inside it
 * with openat2's RESOLVE_IN_ROOT: an absolute link a container plants
 * stays in the container), as perf's nsinfo does (setns): a container's
 * binaries live in its own mount namespace, where the host's path names
 * nothing or another file.
 *
 * When a process in a mount namespace not fp-perfdata's maps a file (its
 * MMAP record is read), pd_procroot_attach opens it there at once and keeps
 * the descriptor, so its symbols, its unwinding and its inlined frames can
 * be read after the process has exited (the file is then reached as
 * /proc/self/fd/N). perf's JIT map of such a process is the
 * /tmp/perf-NSPID.map inside it, NSPID its pid in its own pid namespace
 * (NStgid in /proc/PID/status); the dso keeps perf's name,
 * /tmp/perf-PID.map with the host's pid. A file that cannot be opened
 * there is looked for by its host path, then in the build-id cache
 * (pd_symbols.c).
 */
#ifndef PD_PROCROOT_H
#define PD_PROCROOT_H

#include <stddef.h>
#include <stdint.h>

struct pd_dso;

/* The mount namespace of process pid when it is not this process's (its
 * inode, never 0); 0 if it is the same, or the process is gone. */
uint64_t pd_procroot_mntns(int64_t pid);
/* pid as its own pid namespace numbers it (the last NStgid), or pid
 * itself (no NStgid: the same namespace), or -1 if the process is gone. */
int64_t pd_procroot_nstgid(int64_t pid);
/* d (an ELF file or a JIT map, not loaded yet) is mapped by process pid of
 * another mount namespace: opens its file as pid sees it (resolved inside
 * pid's root, openat2 RESOLVE_IN_ROOT) and keeps it, within a budget of
 * open files (past it only pid is kept, and the file is opened when its
 * symbols are read, while pid lives). */
void pd_procroot_attach(struct pd_dso *d, int64_t pid);
/* d (an ELF file of this mount namespace, not loaded yet) was mapped at
 * [start, end) by process pid from the file id names, and the file at
 * its path here is another one now (a binary replaced while recording: a
 * deploy), or none (deleted). While pid lives and still has that map, the mapped file itself
 * is /proc/PID/map_files/START-END (root only; a deleted file too): it is
 * opened, checked to be id's device and inode, and kept as above. Once a
 * dso, at its first map. */
struct pd_file_id;
void pd_procroot_attach_map(struct pd_dso *d, int64_t pid, uint64_t start, uint64_t end,
			    const struct pd_file_id *id);
/* d's file as its process sees it, opened now if it was not (and kept):
 * a path that reopens it (/proc/self/fd/N) in buf, or NULL if d is a
 * host file or it cannot be opened there. */
const char *pd_procroot_open(struct pd_dso *d, char *buf, size_t cap);
/* Closes what pd_procroot_attach kept. */
void pd_procroot_release(struct pd_dso *d);

#endif
