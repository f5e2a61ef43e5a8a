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

#include "ipt/table_view.h"

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
 * Saved table states (state_store.c) live in the vault beside the objects,
 * the latest two: each is ENF_STATE_PARTS memfds (parts may be shared
 * between the two) and the id of the request that committed it.
 *
 * enforce_keep_state() keeps @st as the latest, with the previous one
 * (@only: alone).  @released gets the fds the vault no longer holds (-1
 * padded), for the caller to reuse or close.  0, or -errno with the vault
 * unchanged (and @st's own new fds in @released).
 * enforce_kept_state() returns the state kept under @id (*@latest: whether
 * it is the newest one), enforce_latest_state() the newest; NULL if none.
 * Their fds are the vault's until the next enforce_keep_state().
 */
#define ENF_STATE_PARTS		2
#define ENF_STATE_RELEASED	(2 * ENF_STATE_PARTS)
struct enf_state {
	int fd[ENF_STATE_PARTS];
	__u32 len[ENF_STATE_PARTS];	/* bytes of each that hold the state */
	__u32 id;
};
int enforce_keep_state(const struct enf_state *st, bool only,
		       int released[ENF_STATE_RELEASED]);
const struct enf_state *enforce_kept_state(__u32 id, bool *latest);
const struct enf_state *enforce_latest_state(void);

/* Remove every program, link, filter and map (module unload). */
void enforce_shutdown(void);

#endif
