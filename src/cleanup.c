/* SPDX-License-Identifier: MIT */
#include "cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The registry is read by a signal handler: a slot's path or pid is written before its flag is
 * set and the flag cleared before the slot is reused, so the handler sees only whole entries.
 * Only the main thread registers.
 */
static struct {
	char path[4096 + 16];
	int tree; /* a directory to empty first (cleanup_add_tree) */
	atomic_int used;
} files[CLEANUP_SLOTS];

static struct {
	pid_t pgid;
	atomic_int used;
} children[CLEANUP_SLOTS];

static volatile sig_atomic_t stopping;
static pid_t mmsim_pid;

/* Async-signal-safe: TERM the group, give it 2 s to go, then KILL it; reap the leader. */
static void kill_children(void)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++) {
		pid_t pg;
		int gone = 0;

		if (!atomic_load(&children[i].used))
			continue;
		pg = children[i].pgid;
		kill(-pg, SIGTERM);
		for (int k = 0; k < 200 && !gone; k++) {
			struct timespec ts = {0, 10 * 1000 * 1000};
			pid_t r = waitpid(pg, NULL, WNOHANG);

			gone = r == pg || (r < 0 && errno == ECHILD);
			if (!gone)
				nanosleep(&ts, NULL);
		}
		kill(-pg, SIGKILL); /* the rest of the group, and the leader if it held out */
		if (!gone)
			waitpid(pg, NULL, 0);
		atomic_store(&children[i].used, 0);
	}
}

/* Async-signal-safe: unlink every plain entry of the directory @path (getdents64 is a bare system
 * call; opendir would allocate). */
static void empty_dir(const char *path)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			const char *nm = d->d_name;

			if (!(nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2]))))
				unlinkat(fd, nm, 0);
			off += d->d_reclen;
		}
	close(fd);
}

/* Newest slots first, so that a directory registered before its files is empty when its turn comes. */
static void remove_files(void)
{
	for (int i = CLEANUP_SLOTS - 1; i >= 0; i--)
		if (atomic_load(&files[i].used)) {
			if (files[i].tree)
				empty_dir(files[i].path);
			if (unlink(files[i].path) && (errno == EISDIR || errno == EPERM))
				rmdir(files[i].path);
			atomic_store(&files[i].used, 0);
		}
}

/* cleanup_hold(): a signal that comes meanwhile is kept here and acted on at cleanup_release() */
static volatile sig_atomic_t held, held_sig;

static void on_signal(int sig)
{
	int saved = errno;

	stopping = sig;
	if (held) { /* whichever thread took it: the holder acts on it when it lets go */
		held_sig = sig;
		return;
	}
	kill_children();
	remove_files();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when this returns: mmsim ends as the signal would have ended it */
	errno = saved;
}

void cleanup_hold(void)
{
	held = 1;
}

void cleanup_release(void)
{
	held = 0;
	if (held_sig)
		on_signal(held_sig);
}

static void on_exit_hook(void)
{
	if (getpid() != mmsim_pid) /* a forked child that returned instead of exec'ing */
		return;
	kill_children();
	remove_files();
}

void cleanup_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	mmsim_pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask); /* one handler at a time */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* a signal ignored by whoever started mmsim (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(on_exit_hook);
}

static int add_file(const char *path, int tree)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (!atomic_load(&files[i].used)) {
			size_t n = strlen(path);

			if (n >= sizeof(files[i].path))
				return -1;
			memcpy(files[i].path, path, n + 1);
			files[i].tree = tree;
			atomic_store(&files[i].used, 1);
			return i;
		}
	return -1;
}

int cleanup_add_file(const char *path)
{
	return add_file(path, 0);
}

int cleanup_add_tree(const char *dir)
{
	return add_file(dir, 1);
}

void cleanup_forget_file(int slot)
{
	if (slot >= 0 && slot < CLEANUP_SLOTS)
		atomic_store(&files[slot].used, 0);
}

int cleanup_add_child(pid_t pgid)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (!atomic_load(&children[i].used)) {
			children[i].pgid = pgid;
			atomic_store(&children[i].used, 1);
			return i;
		}
	return -1;
}

void cleanup_forget_child(int slot)
{
	if (slot >= 0 && slot < CLEANUP_SLOTS)
		atomic_store(&children[slot].used, 0);
}

void cleanup_child_setup(void)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (mmsim_pid && getppid() != mmsim_pid) /* mmsim died before the prctl */
		_exit(127);
}

int cleanup_signal(void)
{
	return stopping;
}

/* ---- results written whole, or not at all -------------------------------- */

int outfile_check(const char *path, int force, const char *what, struct mm_error *err)
{
	struct stat st;

	if (!force && stat(path, &st) == 0)
		return mm_fail(err, MM_EINVAL, "%s %s exists: not overwritten (--force to replace it)", what, path);
	return 0;
}

int outdir_check(const char *dir, const char *what, struct mm_error *err)
{
	struct stat st;
	char parent[4096];
	const char *slash;
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!stat(dir, &st))
		return !S_ISDIR(st.st_mode) ? mm_fail(err, MM_EINVAL, "%s %s: not a directory", what, dir)
		       : access(dir, W_OK | X_OK)
			   ? mm_fail(err, MM_EINVAL, "%s %s: cannot write in it: %s", what, dir, strerror(errno))
			   : 0;
	/* to be made at the end: its parent must take it (said now, not after the work) */
	slash = memrchr(dir, '/', n);
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == dir)
		snprintf(parent, sizeof(parent), "/");
	else if ((size_t)(slash - dir) < sizeof(parent))
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	else
		return mm_fail(err, MM_EINVAL, "%s %s: a path too long", what, dir);
	if (stat(parent, &st) || !S_ISDIR(st.st_mode))
		return mm_fail(err, MM_EINVAL, "%s %s: no directory %s to make it in", what, dir, parent);
	if (access(parent, W_OK | X_OK))
		return mm_fail(err, MM_EINVAL, "%s %s: cannot make it in %s: %s", what, dir, parent, strerror(errno));
	return 0;
}

int outfile_reserve(struct outfile *o, const char *path, int force, const char *what, struct mm_error *err)
{
	int fd, rc;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->force = force;
	if (strlen(path) >= sizeof(o->path))
		return mm_fail(err, MM_EINVAL, "%s: a file name of %zu bytes is too long", what, strlen(path));
	if ((rc = outfile_check(path, force, what, err)))
		return rc;
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return mm_fail(err, MM_EIO, "%s %s: cannot create a file beside it: %s", what, path, strerror(errno));
	{
		mode_t mask = umask(0); /* mkstemp makes 0600; a result gets what fopen would give it */

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	close(fd);
	o->slot = cleanup_add_file(o->tmp);
	if (o->slot < 0) {
		unlink(o->tmp);
		return mm_fail(err, MM_ENOMEM, "%s %s: too many files open for writing", what, path);
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, int force, const char *what, struct mm_error *err)
{
	int rc = outfile_reserve(o, path, force, what, err);

	if (rc)
		return rc;
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		rc = mm_fail(err, MM_EIO, "%s %s: %s", what, path, strerror(errno));
		outfile_abort(o);
	}
	return rc;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->slot >= 0) {
		unlink(o->tmp);
		cleanup_forget_file(o->slot);
	}
	o->slot = -1;
}

int outfile_commit(struct outfile *o, struct mm_error *err)
{
	int bad = 0;

	if (o->f) {
		bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f));
		bad |= fclose(o->f) != 0;
		o->f = NULL;
		if (bad) {
			int e = errno;

			outfile_abort(o);
			return mm_fail(err, MM_EIO, "%s: writing failed: %s", o->path, strerror(e));
		}
	}
	if (o->force) {
		bad = rename(o->tmp, o->path);
	} else {
		/* link() does not replace: a file that appeared since the check is kept */
		struct stat st;

		bad = link(o->tmp, o->path);
		if (bad && errno != EEXIST) /* a file system without hard links: check, then rename */
			bad = stat(o->path, &st) == 0 ? (errno = EEXIST, -1) : rename(o->tmp, o->path);
		else if (!bad)
			unlink(o->tmp);
	}
	if (bad) {
		int e = errno;

		outfile_abort(o);
		return e == EEXIST ? mm_fail(err, MM_EINVAL,
					     "%s appeared while mmsim worked: not overwritten "
					     "(--force to replace it)",
					     o->path)
				   : mm_fail(err, MM_EIO, "%s: %s", o->path, strerror(e));
	}
	cleanup_forget_file(o->slot);
	o->slot = -1;
	return 0;
}
