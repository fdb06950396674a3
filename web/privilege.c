/* privilege.c: fp-serve started as root serves as an unprivileged user.
 *
 * The socket is bound first (a port below 1024 needs root), then the
 * process becomes the serving user (--user NAME, default nobody) for good:
 * supplementary groups dropped, gid and uid set (real, effective, saved),
 * no_new_privs so no set-uid program run by a chain can gain any. Every
 * file is then opened, every chain run, with that user's rights only: a
 * file of DIR the user cannot read is neither listed nor served (the
 * kernel refuses the open, docs/fp-serve.md "Privilege"). DIR/uploads is
 * created for that user before the drop when it does not exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "serve.h"

#define DEFAULT_USER "nobody"
#define UPLOAD_DIR "uploads"

/* DIR/uploads for uid:gid (created 0755, or left as it is if it exists). */
static void make_upload_dir(const struct server *srv, uid_t uid, gid_t gid)
{
	int dfd = open(srv->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return; /* said later, as the serving user */
	if (mkdirat(dfd, UPLOAD_DIR, 0755) == 0) {
		if (fchownat(dfd, UPLOAD_DIR, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			fp_warn("cannot give %s/%s to uid %u: %s", srv->dir, UPLOAD_DIR,
				(unsigned)uid, strerror(errno));
	}
	close(dfd);
}

void privilege_drop(const struct server *srv, const char *user)
{
	const char *name = user ? user : DEFAULT_USER;
	struct passwd *pw;

	if (geteuid() != 0 && !user)
		return; /* not root: nothing to drop */
	/* --live: the last stage of a chain `flamepipe live` started; the
	 * runner decides its user (`flamepipe live --user USER`), and its
	 * recording sits in the runner's private 0700 directory, which
	 * nobody could not open */
	if (srv->live && !user)
		return;
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		fp_die(FP_EXIT_USAGE, "--user: no user named '%s'%s", name,
		       user ? "" : " (the default when started as root: give --user NAME)");
	if (geteuid() != 0) {
		if (user && pw->pw_uid != geteuid())
			fp_die(FP_EXIT_USAGE,
			       "--user %s: only root can change user (running as uid %u)", name,
			       (unsigned)geteuid());
		return;
	}
	if (pw->pw_uid == 0)
		return; /* the operator said so: chains read what root reads */
	make_upload_dir(srv, pw->pw_uid, pw->pw_gid);
	if (setgroups(0, NULL) < 0 || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot become user %s", name);
	if (setuid(0) == 0)
		fp_die(FP_EXIT_SYS, "became user %s but could get root back: refusing to serve",
		       name);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot set no_new_privs");
	/* a server that could not run a single chain is refused now, with
	 * the reason, not at every request */
	char stage[4096];
	snprintf(stage, sizeof stage, "%s/fp-read", srv->bin_dir);
	if (access(stage, X_OK) < 0)
		fp_die_sys(FP_EXIT_SYS,
			   "as user %s (%s), cannot run %s: give --user NAME of a "
			   "user who can, or make it reachable",
			   name, user ? "--user" : "the default when started as root", stage);
	if (access(srv->dir, R_OK | X_OK) < 0)
		fp_die_sys(FP_EXIT_SYS, "as user %s (%s), cannot read the profile directory %s",
			   name, user ? "--user" : "the default when started as root", srv->dir);
}
