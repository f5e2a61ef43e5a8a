// SPDX-License-Identifier: GPL-2.0
/*
 * Backported blob-exec shim.
 *
 * Upstream (v4.18 fork_usermode_blob, v5.9 kernel/usermode_driver.c) ran an
 * image embedded in a module by copying it into a private tmpfs and
 * starting it with pipes on fds 0/1.  Neither Debian 12 kernel builds that
 * code, and the pieces it used (create_pipe_files, replace_fd, set_fs_pwd)
 * are not exported.  This file rebuilds the mechanism from exported
 * symbols only:
 *
 *  - the image is copied into an unlinked shmem file (shmem_file_setup),
 *    reopened read-only so that nothing, the module included, can write to
 *    it while it runs; no path in any mount namespace reaches it;
 *  - the channel is a connected AF_UNIX stream pair (create_pipe_files is
 *    not exported; a socket pair is bidirectional anyway);
 *  - call_usermodehelper_setup()'s init callback runs in the new task
 *    before exec, with an empty fd table: it installs the channel as fds
 *    0 and 1, the image as fd 2 (close-on-exec), the vault pair as fds
 *    3 and 4 and a new control file of the caller's, if any, as fd 5, and
 *    the task then execs "/proc/self/fd/2", i.e. the image.
 *
 * The helper is a child of kthreadd, which reaps it at exit; its exit code
 * is read from the task_struct we hold a reference on.
 */

#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>
#include <linux/umh.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "umd_shim.h"

/* The helper's fd table at exec; umh/main.c and umh/vault/vault.c rely on it. */
enum {
	HELPER_FD_CHAN_IN,
	HELPER_FD_CHAN_OUT,
	HELPER_FD_IMAGE,
	HELPER_FD_VAULT_TX,
	HELPER_FD_VAULT_RX,
	HELPER_FD_CTL,		/* = EBPF_CTL_FD (include/ebpfilter/ctl.h) */
};

#define HELPER_EXEC_PATH "/proc/self/fd/2"

/* How long a killed helper may take to be reaped before we give up. */
#define HELPER_REAP_TIMEOUT_MS 5000

static int socketpair_kern(int type, struct socket **a, struct socket **b)
{
	int err;

	err = sock_create_kern(&init_net, AF_UNIX, type, 0, a);
	if (err)
		return err;
	err = sock_create_kern(&init_net, AF_UNIX, type, 0, b);
	if (err)
		goto release_a;
	err = (*a)->ops->socketpair(*a, *b);
	if (err)
		goto release_b;
	return 0;

release_b:
	sock_release(*b);
release_a:
	sock_release(*a);
	return err;
}

/**
 * ebpf_umd_load_blob() - prepare an embedded image for running
 * @umd:  the program; @umd->name must be set
 * @data: the image
 * @len:  its size
 *
 * Copies the image into a private read-only shmem file and creates the
 * vault socket pair that outlives individual helper processes.  Call once
 * at module load; every later start executes the private copy, so @data
 * may be freed afterwards (it lives in init data).
 */
int ebpf_umd_load_blob(struct ebpf_umd *umd, const void *data, size_t len)
{
	struct socket *va, *vb;
	struct file *w, *ro;
	loff_t pos = 0;
	ssize_t n;
	int err;

	w = shmem_file_setup(umd->name, len, EBPF_SHMEM_NORESERVE);
	if (IS_ERR(w))
		return PTR_ERR(w);
	n = kernel_write(w, data, len, &pos);
	if (n != len) {
		fput(w);
		return n < 0 ? n : -ENOSPC;
	}
	/* Drop the only writable handle: the running image stays as built. */
	ro = dentry_open(&w->f_path, O_RDONLY, current_cred());
	fput(w);
	if (IS_ERR(ro))
		return PTR_ERR(ro);

	err = socketpair_kern(SOCK_DGRAM, &va, &vb);
	if (err)
		goto put_image;
	umd->vault[0] = sock_alloc_file(va, 0, NULL);
	if (IS_ERR(umd->vault[0])) {
		err = PTR_ERR(umd->vault[0]);	/* va was released */
		sock_release(vb);
		goto put_image;
	}
	umd->vault[1] = sock_alloc_file(vb, 0, NULL);
	if (IS_ERR(umd->vault[1])) {
		err = PTR_ERR(umd->vault[1]);
		fput(umd->vault[0]);
		goto put_image;
	}
	umd->image = ro;
	return 0;

put_image:
	fput(ro);
	return err;
}

/*
 * Release the image and the vault; with the vault go the BPF objects the
 * helper parked there.  The helper must be stopped first.
 */
void ebpf_umd_unload_blob(struct ebpf_umd *umd)
{
	if (umd->vault[0])
		fput(umd->vault[0]);
	if (umd->vault[1])
		fput(umd->vault[1]);
	if (umd->image)
		fput(umd->image);
	umd->vault[0] = NULL;
	umd->vault[1] = NULL;
	umd->image = NULL;
}

struct umd_start {
	struct ebpf_umd *umd;
	struct file *chan_file;
};

static int install_fd(struct file *file, unsigned int flags, int expect)
{
	int fd = get_unused_fd_flags(flags);

	if (fd < 0)
		return fd;
	if (fd != expect) {
		/* Not the empty fd table we rely on: refuse, don't guess. */
		put_unused_fd(fd);
		return -EBADF;
	}
	fd_install(fd, get_file(file));
	return 0;
}

/* Runs in the new task, before exec. */
static int umd_setup(struct subprocess_info *info, struct cred *new)
{
	struct umd_start *st = info->data;
	struct ebpf_umd *umd = st->umd;
	int err;

	err = install_fd(st->chan_file, 0, HELPER_FD_CHAN_IN);
	if (!err)
		err = install_fd(st->chan_file, 0, HELPER_FD_CHAN_OUT);
	if (!err)
		err = install_fd(umd->image, O_CLOEXEC, HELPER_FD_IMAGE);
	if (!err)
		err = install_fd(umd->vault[0], 0, HELPER_FD_VAULT_TX);
	if (!err)
		err = install_fd(umd->vault[1], 0, HELPER_FD_VAULT_RX);
	if (!err && umd->make_ctl) {
		/*
		 * Made per helper, and held by it alone: its last fput then
		 * happens when the reaped helper's files are closed, never
		 * deferred past the exit of the module whose fops it uses.
		 */
		struct file *ctl = umd->make_ctl();

		if (IS_ERR(ctl))
			return PTR_ERR(ctl);
		err = install_fd(ctl, 0, HELPER_FD_CTL);
		fput(ctl);	/* the fd table's reference remains */
	}
	if (err)
		return err;	/* the task exits; its fd table goes with it */

	umd->tgid = get_pid(task_tgid(current));
	get_task_struct(current);
	umd->task = current;
	return 0;
}

static void umd_forget_task(struct ebpf_umd *umd)
{
	put_task_struct(umd->task);
	put_pid(umd->tgid);
	umd->task = NULL;
	umd->tgid = NULL;
}

static bool umd_task_alive(struct ebpf_umd *umd)
{
	bool alive;

	rcu_read_lock();
	alive = !!pid_task(umd->tgid, PIDTYPE_PID);
	rcu_read_unlock();
	return alive;
}

/* How often umd_wait_reaped() looks again. */
#define UMD_REAP_POLL_MS	20

/* Wait until kthreadd has reaped the helper; false if it is still there. */
static bool umd_wait_reaped(struct ebpf_umd *umd, unsigned int ms)
{
	while (umd_task_alive(umd)) {
		if (ms < UMD_REAP_POLL_MS)
			return false;
		msleep(UMD_REAP_POLL_MS);
		ms -= UMD_REAP_POLL_MS;
	}
	return true;
}

/**
 * ebpf_umd_start() - start the helper from the private image
 *
 * Return: 0 once the helper has exec'd (it may not be ready to talk yet),
 * with @umd->chan connected to it and @umd->tgid set; else -errno and
 * nothing left behind.
 */
int ebpf_umd_start(struct ebpf_umd *umd)
{
	/* Read before call_usermodehelper_exec(UMH_WAIT_EXEC) returns. */
	char *argv[2] = { "ebpfilter-umh", NULL };
	char *envp[2] = { "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	struct subprocess_info *info;
	struct socket *mine, *theirs;
	struct umd_start st = { .umd = umd };
	int err;

	if (WARN_ON_ONCE(umd->tgid || !umd->image))
		return -EINVAL;

	err = socketpair_kern(SOCK_STREAM, &mine, &theirs);
	if (err)
		return err;
	st.chan_file = sock_alloc_file(theirs, 0, NULL);
	if (IS_ERR(st.chan_file)) {
		sock_release(mine);
		return PTR_ERR(st.chan_file);
	}

	info = call_usermodehelper_setup(HELPER_EXEC_PATH, argv, envp,
					 GFP_KERNEL, umd_setup, NULL, &st);
	if (!info) {
		err = -ENOMEM;
		goto out;
	}
	err = call_usermodehelper_exec(info, UMH_WAIT_EXEC | UMH_KILLABLE);
	if (err && umd->tgid) {
		/* fds were installed but exec failed: the task is exiting. */
		umd_wait_reaped(umd, HELPER_REAP_TIMEOUT_MS);
		umd_forget_task(umd);
	}
	if (!err && !umd->tgid)
		err = -ECHILD;
	if (!err) {
		umd->chan = mine;
		mine = NULL;
	}
out:
	fput(st.chan_file);	/* the helper holds its own references */
	if (mine)
		sock_release(mine);
	return err;
}

/* Is the started helper still there (not yet reaped)? */
bool ebpf_umd_running(struct ebpf_umd *umd)
{
	return umd->tgid && umd_task_alive(umd);
}

/**
 * ebpf_umd_stop() - kill the helper (if alive), reap it, drop the channel
 * @exit_code: set to the helper's exit code (wait(2) status encoding)
 *
 * Return: 0, or -ETIMEDOUT if the helper was not reaped in time; its
 * references are kept then, and a later call retries.
 */
int ebpf_umd_stop(struct ebpf_umd *umd, int *exit_code)
{
	if (umd->chan) {
		sock_release(umd->chan);
		umd->chan = NULL;
	}
	if (!umd->tgid)
		return 0;
	kill_pid(umd->tgid, SIGKILL, 1);
	if (!umd_wait_reaped(umd, HELPER_REAP_TIMEOUT_MS))
		return -ETIMEDOUT;
	*exit_code = READ_ONCE(umd->task->exit_code);
	umd_forget_task(umd);
	return 0;
}
