/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enforcement backend, load/'s entry points (commit.c): turns a
 * validated iptables table into BPF that filters packets at the hooks
 * ip_tables uses.  main.c hands enforce_commit() and
 * enforce_read_counters() to ipt/ as its backend (ipt/backend.h).
 */
#ifndef UMH_ENFORCE_H
#define UMH_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netfilter/x_tables.h>

#include "ipt/backend.h"
#include "ipt/table_view.h"

/* First thing in main(), before the helper opens a file: which of the
 * module's extra fds it was given (the kmod control file). */
void enforce_note_fds(void);

/*
 * Probe the running kernel once: which mechanisms it can do, and what
 * their programs need from the kernel's BTF (files, and CAP_SYS_ADMIN for
 * module BTF).  main.c calls it before confining the helper;
 * enforce_init() chooses from the result.
 */
void enforce_probe(void);

/* Pick and prepare the hook mechanism: @want, as the module's HELLO names
 * it ("kmod", "netfilter", "tc"; "" or "auto": the first available of
 * those); @mech gets its name.  Re-adopts objects a previous helper left
 * in force.  0 or -errno (logged: the mechanism cannot be had). */
int enforce_init(const char *want, char *mech, size_t mech_len);

/* Does the mechanism's kernel side check every extension (kmod)?  Then
 * ipt/ accepts those it does not know (ipt_backend_ops.kernel_checks). */
bool enforce_kernel_checks(void);

/* The tables the mechanism enforces, a bit per ipt_table_view.index: all
 * of ip_tables' with kmod (the module runs every table's hooks), filter
 * alone with the others. */
unsigned int enforce_tables(void);

/*
 * Connection tracking (see EBPF_F_CONNTRACK_ON in proto.h): a table that
 * needs it while the module has it off is not committed: enforce_commit()
 * returns -ENFORCE_NEED_CONNTRACK, ipt/ hands that on, and main.c asks the
 * module for conntrack.
 */
#define ENFORCE_NEED_CONNTRACK	IPT_BACKEND_NEED_CONNTRACK

/**
 * enforce_commit() - build, verify, load and atomically switch to @t
 * @conntrack_on: the module has conntrack enabled (the request's
 *                EBPF_F_CONNTRACK_ON)
 * @park_state:   not 0: park the replaced rules' counters map in the vault
 *                as the counts of saved state @park_state's rules, in case
 *                the caller is never answered (commit.c, "Parked
 *                counters"); 0: leave what is parked
 * @err, @err_len: on failure, a one-line reason for dmesg
 *
 * Return: 0, or -errno with the previous rules still in force.  Counters of
 * the new table start at zero.
 */
int enforce_commit(const struct ipt_table_view *t, bool conntrack_on,
		   uint32_t park_state, char *err, size_t err_len);

/* Add the packet/byte counts matched since the last commit of table
 * @index (ipt_table_view.index) of @family (NFPROTO_*) of @netns, per
 * entry in blob order, to @c[0..n-1].  0 or -errno. */
int enforce_read_counters(uint64_t netns, unsigned int family,
			  unsigned int index, struct xt_counters *c,
			  unsigned int n);
/* the counts of the rules table @index's last commit replaced (once) */
int enforce_read_retired_counters(uint64_t netns, unsigned int family,
				  unsigned int index, struct xt_counters *c,
				  unsigned int n);
/*
 * In the restore of saved state @state: if the parked counters are of
 * its table @index of @family of @netns (of @n entries), add them to
 * @c[0..n-1]; kmod: hand them to the module with the table's install
 * instead (commit.c, "Parked counters").
 * 1 if added, 0 if not, -errno.
 */
int enforce_read_parked_counters(uint64_t netns, unsigned int family,
				 unsigned int index, uint32_t state,
				 struct xt_counters *c, unsigned int n);
/*
 * Let go of the parked counters: the caller of the change that parked them
 * was answered, or a restore is done.  The vault lets go of them at its
 * next store.  Returns whether any were parked; *@read (if not NULL):
 * whether a restore added them (enforce_read_parked_counters()).
 */
bool enforce_unpark(bool *read);

/* Namespace @netns is gone: close what was kept for its tables. */
void enforce_forget(uint64_t netns);

/* Do the rules in force use state/conntrack matches? */
bool enforce_uses_conntrack(void);

/* Remove every program, link, filter and map (module unload). */
void enforce_shutdown(void);

#endif
