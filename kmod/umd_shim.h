/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backported blob-exec shim: run a program whose image lives in the module,
 * the way kernel/usermode_driver.c (umd_load_blob, fork_usermode_driver)
 * does, built only from symbols Debian's 6.1 and 6.12 kernels export.
 */
#ifndef EBPF_UMD_SHIM_H
#define EBPF_UMD_SHIM_H

#include <linux/types.h>

struct file;
struct pid;
struct socket;
struct task_struct;

/**
 * struct ebpf_umd - one embedded user-mode program and its running instance
 * @name:     process name the helper will give itself (for messages)
 * @image:    private read-only shmem copy of the image; no path reaches it
 * @chan:     kernel end of the request channel (AF_UNIX stream pair)
 * @vault:    both ends of the vault pair (AF_UNIX datagram), kept across
 *            restarts; the helper parks the fds that keep its BPF objects
 *            alive there (see umh/vault/vault.c)
 * @make_ctl: makes a file to install as fd 5 in each helper started, or
 *            NULL; the helper holds the only reference
 * @tgid:     the running helper's pid, or NULL
 * @task:     reference to the running helper's task, for its exit code
 */
struct ebpf_umd {
	const char *name;
	struct file *image;
	struct socket *chan;
	struct file *vault[2];
	struct file *(*make_ctl)(void);
	struct pid *tgid;
	struct task_struct *task;
};

int ebpf_umd_load_blob(struct ebpf_umd *umd, const void *data, size_t len);
void ebpf_umd_unload_blob(struct ebpf_umd *umd);

int ebpf_umd_start(struct ebpf_umd *umd);
bool ebpf_umd_running(struct ebpf_umd *umd);
int ebpf_umd_stop(struct ebpf_umd *umd, int *exit_code);

#endif
