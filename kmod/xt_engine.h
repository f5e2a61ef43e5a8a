/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule engine: a table the helper installed (ctl.c -> xt_table.c), run
 * at this module's own netfilter hooks (xt_hook.c) by the helper's BPF
 * program for the hook, or by a walk of the rules that is ipt_do_table()'s
 * own, with the kernel's x_tables extensions.  The built-in extensions
 * that ip_tables.ko itself registers (the standard and ERROR targets, the
 * icmp match) are registered by xt_builtin.c, so that ip_tables never has
 * to be loaded.
 */
#ifndef EBPFILTER_XT_ENGINE_H
#define EBPFILTER_XT_ENGINE_H

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <ebpfilter/ctl.h>

struct bpf_map;
struct bpf_prog;

/**
 * struct ebpf_xt_table - one installed rule set (immutable once live)
 * @entries:    the rules as ip_tables keeps them: u.kernel pointers to the
 *              checked extensions, counters.pcnt the entry's ordinal (its
 *              slot in @counters)
 * @size:       bytes at @entries
 * @number:     entries
 * @stacksize:  user chains: the deepest a walk's jump stack can grow
 * @hook_entry: offsets of the built-in chains, per NF_INET hook
 * @underflow:  offsets of their policies
 * @valid_hooks: the table's hooks
 * @prog:       per NF_INET hook: the helper's program, or NULL (walk)
 * @counters_map: held for @counters
 * @counters:   the value of @counters_map: struct ebpf_counter[@number]
 * @resume_map: per-CPU struct ebpf_resume the programs fill, or NULL
 * @offsets:    each entry's offset, ascending: resume records are checked
 *              against them before the walk follows one
 * @jumpstack:  per CPU, 2 * @stacksize entry pointers (the second half for
 *              a packet TEE duplicated, as ip_tables)
 */
struct ebpf_xt_table {
	void *entries;
	unsigned int size, number, stacksize;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	unsigned int valid_hooks;
	struct bpf_prog *prog[NF_INET_NUMHOOKS];
	struct bpf_map *counters_map;
	struct ebpf_counter *counters;
	struct bpf_map *resume_map;
	unsigned int *offsets;
	struct ipt_entry **jumpstack;
};

/* ip_tables.c's own helper (static there) */
static inline const struct xt_entry_target *
ipt_get_target_c(const struct ipt_entry *e)
{
	return ipt_get_target((struct ipt_entry *)e);
}

static inline struct ipt_entry *ipt_next_entry(const struct ipt_entry *e)
{
	return (void *)e + e->next_offset;
}

/**
 * struct ebpf_xt_slot - one of ip_tables' tables, as this module serves it
 * @name:        "filter", "nat", "mangle", "raw", "security"
 * @valid_hooks: its hooks (iptable_<name>.c)
 * @priority:    its hooks' priority (nat: per hook, see xt_hook.c)
 * @nat:         registered through nf_nat (first packet of a connection)
 * @live:        the installed rule set, or NULL before the first install
 * @ops:         the registered hooks, or NULL
 * @age:         0 until the first install, then 1 + the tables installed
 *               before it (the /proc/net/ip_tables_names order)
 */
struct ebpf_xt_slot {
	const char *name;
	unsigned int valid_hooks;
	int priority;
	bool nat;
	struct ebpf_xt_table __rcu *live;
	struct nf_hook_ops *ops;
	unsigned int age;
};

#define EBPF_XT_NTABLES	EBPF_CTL_NTABLES

/* xt_builtin.c */
int ebpf_xt_builtin_register(void);
void ebpf_xt_builtin_unregister(void);

/* xt_table.c: INSTALL (ctl.c), and everything freed at exit */
int ebpf_xt_install(const struct ebpf_ctl_install *req);

/* xt_hook.c: the tables, their hooks (registered at a table's first
 * install; nat's through nf_nat, loaded then)
 */
extern struct ebpf_xt_slot ebpf_xt_slots[EBPF_XT_NTABLES];
struct ebpf_xt_slot *ebpf_xt_slot_find(const char *name);
int ebpf_xt_hooks_register(struct ebpf_xt_slot *s);
void ebpf_xt_hooks_unregister(struct ebpf_xt_slot *s);
unsigned int ebpf_xt_walk(const struct ebpf_xt_table *t, struct sk_buff *skb,
			  const struct nf_hook_state *state,
			  const struct ebpf_resume *from);

#endif
