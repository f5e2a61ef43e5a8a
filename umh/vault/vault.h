/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vault: what keeps the rules in force while no helper runs (see
 * vault.c).  It parks the BPF objects load/ creates and the table states
 * state_store.c saves; it knows nothing of what either means.
 */
#ifndef UMH_VAULT_H
#define UMH_VAULT_H

#include <stdbool.h>
#include <linux/types.h>

/* Hooks with a dispatcher and a link (load/: CG_NHOOKS). */
#define VAULT_HOOKS		3

/* Tables with a counters map (ipt/: IPT_NTABLES). */
#define VAULT_TABLES		5

/**
 * struct vault_objs - the BPF objects in force, as the vault parks them
 * @mech:     the mechanism that made them (load/'s enum cg_mech); a helper
 *            on another mechanism does not adopt them
 * @gen:      the live generation (0/1)
 * @nentries: per table: entries counted in @ctr_fd
 * @gen_fd, @progs_fd, @ifinfo_fd: maps (load/commit.c); -1: none
 * @ctr_fd:   per table (ipt/'s index): its counters map; -1: none
 * @disp:     dispatcher programs, per hook; -1: none
 * @link:     their links, per hook; -1: none
 * @retired_fd: the counters map of the rules a change replaced, parked
 *            until its caller is known to have been answered (load/
 *            commit.c, "Parked counters"); -1: none
 * @retired_state: the id of the saved state whose rules it counted
 * @retired_netns, @retired_family, @retired_table, @retired_n: their
 *            namespace, family (NFPROTO_*), table index and number of
 *            entries
 *
 * The fds belong to load/; the vault sends what they are when it stores.
 */
struct vault_objs {
	__u32 mech, gen, nentries[VAULT_TABLES];
	int gen_fd, progs_fd, ctr_fd[VAULT_TABLES], ifinfo_fd;
	int disp[VAULT_HOOKS];
	int link[VAULT_HOOKS];
	int retired_fd;
	__u32 retired_state, retired_table, retired_n, retired_family;
	__u64 retired_netns;
};

#define VAULT_OBJS_NONE { .gen_fd = -1, .progs_fd = -1,		\
			  .ctr_fd = { -1, -1, -1, -1, -1 },		\
			  .ifinfo_fd = -1, .disp = { -1, -1, -1 },	\
			  .link = { -1, -1, -1 }, .retired_fd = -1 }

/**
 * vault_open() - find the vault on fds 3/4 and take @objs as the objects
 * @objs: load/'s live objects, sent with every vault_store() from now on
 *
 * Return: whether fds 3/4 are the vault (else a warning went to dmesg and
 * nothing outlives this helper).
 */
bool vault_open(struct vault_objs *objs);

/**
 * vault_adopt() - take over what a previous helper left in the vault
 *
 * The saved states are always adopted; the objects only if they are of
 * the mechanism in @objs->mech (of vault_open()), into @objs.
 *
 * Return: 1 if objects were adopted (they are in force), else 0.
 */
int vault_adopt(void);

/* Park the objects and states as they are now.  0 or -errno (logged). */
int vault_store(void);

/* Drop what the vault holds and close every saved state (shutdown). */
void vault_empty(void);

/*
 * Saved table states (state_store.c) live in the vault beside the objects,
 * the latest VAULT_STATES: each is VAULT_STATE_PARTS memfds (parts may be
 * shared between the two) and the id of the request that committed it.
 *
 * vault_keep_state() keeps @st as the latest, with the previous one
 * (@only: alone).  @released gets the fds the vault no longer holds (-1
 * padded), for the caller to reuse or close.  0, or -errno with the vault
 * unchanged (and @st's own new fds in @released).
 * vault_kept_state() returns the state kept under @id (*@latest: whether
 * it is the newest one), vault_latest_state() the newest, vault_state_at()
 * the one in place @i; NULL if none.
 * Their fds are the vault's until the next vault_keep_state().
 */
#define VAULT_STATES		2
#define VAULT_STATE_PARTS	2
#define VAULT_STATE_RELEASED	(VAULT_STATES * VAULT_STATE_PARTS)
struct vault_state {
	int fd[VAULT_STATE_PARTS];
	__u32 len[VAULT_STATE_PARTS];	/* bytes of each that hold the state */
	__u32 id;
};
int vault_keep_state(const struct vault_state *st, bool only,
		     int released[VAULT_STATE_RELEASED]);
const struct vault_state *vault_kept_state(__u32 id, bool *latest);
const struct vault_state *vault_latest_state(void);
const struct vault_state *vault_state_at(int i);

#endif
