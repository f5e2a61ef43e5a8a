/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hook mechanisms: how the dispatchers get in front of the packets.
 *
 * One struct enf_mech_ops per mechanism (mech_netfilter.c, mech_tc.c),
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

#include "cgen/codegen.h"
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
 * @kernel:      fill in the kernel facts its programs need; NULL: none.
 *               0 or -errno with a reason in @err
 * @create_maps: create the maps of its own in @o (beside the generation
 *               and program array); NULL: none.  0 or -errno with @err
 * @attach:      put the dispatchers @o->disp in front of the packets.  0,
 *               or -errno with @err and nothing attached
 * @readopt:     after adopting @o from the vault: what a helper must redo
 *               (the objects stayed attached); NULL: nothing
 * @detach:      take the dispatchers away (unload); the caller closes @o
 */
struct enf_mech_ops {
	const char *name;
	const char *hooks;
	enum cg_mech cg;
	bool conntrack;
	unsigned int dispatchers;
	bool (*available)(void);
	int (*kernel)(struct cg_kernel *k, char *err, size_t len);
	int (*create_maps)(struct vault_objs *o, char *err, size_t len);
	int (*attach)(struct vault_objs *o, char *err, size_t len);
	void (*readopt)(struct vault_objs *o);
	void (*detach)(struct vault_objs *o);
};

extern const struct enf_mech_ops enf_mech_netfilter;	/* mech_netfilter.c */
extern const struct enf_mech_ops enf_mech_tc;		/* mech_tc.c */

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

#endif
