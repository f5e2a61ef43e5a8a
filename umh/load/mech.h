/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hook mechanisms: how the dispatchers get in front of the packets.
 *
 * One struct enf_mech_ops per mechanism (mech_netfilter.c, mech_tc.c,
 * mech_kmod.c),
 * after facebook/bpfilter's struct bf_flavor_ops: the rest of load/ and
 * the vault ask the table instead of testing which mechanism is in use.
 * The code generator has its own per-mechanism table (the prologue, the
 * verdicts, the program type), keyed by @cg.  Adding a mechanism: one
 * file with its ops, one line in probe.c's preference list.
 */
#ifndef UMH_LOAD_MECH_H
#define UMH_LOAD_MECH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netfilter/x_tables.h>

#include "cgen/codegen.h"
#include "ipt/table_view.h"
#include "vault/vault.h"

/**
 * struct enf_mech_ops - one hook mechanism
 * @name:        as dmesg, the HELLO reply and the tests print it
 * @hooks:       dmesg, after "enforcement: NAME hooks": where they are
 * @cg:          what the code generator makes for it; also the id the
 *               vault keeps with the objects (vault wire format: the
 *               values of enum cg_mech)
 * @conntrack:   packets carry conntrack state at its hooks, so state and
 *               conntrack matches work once the module enabled conntrack
 *               (else the code generator refuses them)
 * @dispatchers: mask of the hooks (1 << enum cg_hook) with a dispatcher of
 *               their own; the others are run by one of them
 * @available:   can the running kernel do it?  NULL: always
 * @needs:       what @available looks for, for the log line when the
 *               module asks for it in vain
 * @kernel:      fill in the kernel facts its programs need; NULL: none.
 *               0 or -errno with a reason in @err
 * @create_maps: create the maps of its own in @o (beside the generation
 *               and program array); NULL: none.  0 or -errno with @err
 * @attach:      put the dispatchers @o->disp in front of the packets.  0,
 *               or -errno with @err and nothing attached
 * @readopt:     after adopting @o from the vault: what a helper must redo
 *               (the objects stayed attached); NULL: nothing
 * @detach:      take the dispatchers away (unload); the caller closes @o
 * @install:     a mechanism without dispatchers (kmod): hand the kernel
 *               the validated table @t with a program per hook (-1: the
 *               kernel walks the hook's rules), the counters map and the
 *               map programs leave their resume records in (-1: none), and
 *               in a restore (@t->adopt) the parked counters map of these
 *               rules (-1: none; the kernel moves its counts to the new
 *               ones if the change that parked it went live); the
 *               kernel checks every extension and makes it all live at
 *               once.  0 (@t's entries rewritten as GET_ENTRIES shows
 *               them), or the kernel's -errno with @err and nothing
 *               changed.  NULL: the generation switch (commit.c)
 */
struct enf_mech_ops {
	const char *name;
	const char *hooks;
	enum cg_mech cg;
	bool conntrack;
	unsigned int dispatchers;
	bool (*available)(void);
	const char *needs;
	int (*kernel)(struct cg_kernel *k, char *err, size_t len);
	int (*create_maps)(struct vault_objs *o, char *err, size_t len);
	int (*attach)(struct vault_objs *o, char *err, size_t len);
	void (*readopt)(struct vault_objs *o);
	void (*detach)(struct vault_objs *o);
	int (*install)(const struct ipt_table_view *t,
		       const int prog_fd[CG_ALL_HOOKS], int counters_fd,
		       int resume_fd, int parked_fd, char *err, size_t len);
};

extern const struct enf_mech_ops enf_mech_netfilter;	/* mech_netfilter.c */
extern const struct enf_mech_ops enf_mech_tc;		/* mech_tc.c */
extern const struct enf_mech_ops enf_mech_kmod;		/* mech_kmod.c */

/* The dispatchers run at every hook. */
#define ENF_ALL_HOOKS	((1u << CG_NHOOKS) - 1)

/*
 * Kernel probes (probe.c): can the kernel load BPF_PROG_TYPE_NETFILTER
 * programs; the BTF facts their prologue needs (0 or -ENOENT with @err).
 */
bool probe_netfilter_progs(void);
int probe_netfilter_btf(struct cg_kernel *k, char *err, size_t len);

/* TC: the ifinfo record for a link (ARPHRD type -> l2len). */
void enf_tc_ifinfo(struct cg_ifinfo *v, const char *name, unsigned int type);

/*
 * The ifinfo map (mech_tc.c): create it into @o->ifinfo_fd (a
 * create_maps op); keep it filled with every link's name from rtnetlink,
 * without attaching anything (kmod), until enf_ifinfo_unwatch().
 */
int enf_ifinfo_create(struct vault_objs *o, char *err, size_t len);
int enf_ifinfo_watch(int ifinfo_fd);
void enf_ifinfo_unwatch(void);

/* KMOD: note whether the module gave us its control file (mech_kmod.c);
 * before the helper opens any file, which could take its number. */
void enf_kmod_note_ctl_fd(void);
/* KMOD: does the module take programs for IPv6 tables (its ipv6_bpf
 * parameter)? */
bool enf_kmod_ip6_progs(void);

#endif
