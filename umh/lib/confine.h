/* SPDX-License-Identifier: GPL-2.0 */
#ifndef EBPF_UMH_CONFINE_H
#define EBPF_UMH_CONFINE_H

/*
 * Confining the helper (see confine.c): confine_caps() before any thread
 * exists, confine_syscalls() once the kernel has been probed.
 * 0 or -errno.
 */
int confine_caps(void);
int confine_syscalls(void);

#endif
