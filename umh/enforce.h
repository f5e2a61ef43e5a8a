/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enforcement backend: turns a validated iptables table into BPF that
 * filters packets at the hooks ip_tables uses (implemented in enforce*.c,
 * with the rule IR and code generator beside it).
 */
#ifndef UMH_ENFORCE_H
#define UMH_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netfilter/x_tables.h>

/**
 * struct ipt_table_view - a validated table, in ip_tables' own blob layout
 * @name:        table name ("filter")
 * @entries:     the struct ipt_entry array exactly as SET_REPLACE gave it
 *               (validated: offsets, jumps, extension payloads all checked)
 * @size:        bytes in @entries
 * @num_entries: number of entries
 * @valid_hooks: bitmask of NF_INET_* hooks
 * @hook_entry:  offset of each hook's first rule
 * @underflow:   offset of each hook's policy rule
 */
struct ipt_table_view {
	const char *name;
	const void *entries;
	size_t size;
	unsigned int num_entries;
	unsigned int valid_hooks;
	unsigned int hook_entry[5];
	unsigned int underflow[5];
};

/* Pick and prepare the hook mechanism for the running kernel; @mech gets
 * its name ("netfilter" or "tc").  Re-adopts objects a previous helper left
 * in force.  0 or -errno. */
int enforce_init(char *mech, size_t mech_len);

/**
 * enforce_commit() - build, verify, load and atomically switch to @t
 * @err, @err_len: on failure, a one-line reason for dmesg
 *
 * Return: 0, or -errno with the previous rules still in force.  Counters of
 * the new table start at zero.
 */
int enforce_commit(const struct ipt_table_view *t, char *err, size_t err_len);

/* Add the packet/byte counts matched since the last commit, per entry in
 * blob order, to @c[0..n-1].  0 or -errno. */
int enforce_read_counters(struct xt_counters *c, unsigned int n);

/*
 * Connection tracking (see EBPF_F_CONNTRACK_ON in proto.h): whether the
 * module currently has it enabled, set by main.c from each request.  A
 * table that needs it while it is off is not committed: enforce_commit()
 * returns -ENFORCE_NEED_CONNTRACK and main.c asks the module for it.
 */
#define ENFORCE_NEED_CONNTRACK	4096
extern bool enforce_conntrack_on;
/* Do the rules in force use state/conntrack matches? */
bool enforce_uses_conntrack(void);

/*
 * Saved table states (state_store.c) live in the vault beside the objects.
 * enforce_keep_state() takes @fd, a memfd whose first @len bytes are the
 * state committed by request @id, and keeps it with the previous one
 * (@only: alone); *@released gets a state fd the vault no longer holds (or
 * -1), for the caller to reuse or close.  0, or -errno with the vault
 * unchanged (and @fd in *@released unless it was kept already).
 * enforce_kept_state() returns the fd of the state kept under @id, the
 * vault's until the next enforce_keep_state(), and its length (*@latest:
 * whether it is the newest one kept), or -ENOENT.
 */
int enforce_keep_state(int fd, __u32 id, __u32 len, bool only,
		       int *released);
int enforce_kept_state(__u32 id, __u32 *len, bool *latest);

/* Remove every program, link, filter and map (module unload). */
void enforce_shutdown(void);

#endif
