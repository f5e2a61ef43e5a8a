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

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <ebpfilter/ctl.h>
#include <ebpfilter/proto.h>

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
 * @net:        the namespace its extensions were checked in (and are
 *              destroyed in)
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
	struct net *net;
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
 * struct ebpf_xt_def - one of ip_tables' tables, as iptable_<name>.c has it
 * @name:        "filter", "nat", "mangle", "raw", "security"
 * @valid_hooks: its hooks
 * @priority:    its hooks' priority (nat: per hook, see xt_hook.c)
 * @nat:         registered through nf_nat (first packet of a connection)
 */
struct ebpf_xt_def {
	const char *name;
	unsigned int valid_hooks;
	int priority;
	bool nat;
};

struct ebpf_net;

/**
 * struct ebpf_xt_slot - a table of one network namespace
 * @def:         which table
 * @en:          the namespace
 * @live:        the installed rule set, or NULL before the first install
 * @ops:         the registered hooks, or NULL
 * @nat_unregister: nat: nf_nat's unregister function, held (symbol_get)
 *               while @ops are registered through it
 * @age:         0 until the first install, then 1 + the tables installed
 *               before it in the namespace (the /proc/net/ip_tables_names
 *               order)
 */
struct ebpf_xt_slot {
	const struct ebpf_xt_def *def;
	struct ebpf_net *en;
	struct ebpf_xt_table __rcu *live;
	struct nf_hook_ops *ops;
	void (*nat_unregister)(struct net *net, const struct nf_hook_ops *ops);
	unsigned int age;
};

#define EBPF_XT_NTABLES	EBPF_CTL_NTABLES

/**
 * struct ebpf_net - what this module keeps per network namespace
 *                   (net_generic(), netns.c)
 * @net:         the namespace
 * @id:          its number on the channel and the control file (proto.h)
 * @node:        in netns.c's list of namespaces, for the id lookup
 * @lock:        installs and hook registration of its tables
 * @slots:       its tables, in EBPF_CTL_TABLE_NAMES order
 * @tables_made: tables installed at least once
 * @rule_bytes:  per table: the size of the rule blob in force (the
 *               namespace's budget, netns.c; under its budget lock)
 */
struct ebpf_net {
	struct net *net;
	u64 id;
	struct list_head node;
	struct mutex lock;
	struct ebpf_xt_slot slots[EBPF_XT_NTABLES];
	unsigned int tables_made;
	u32 rule_bytes[EBPF_XT_NTABLES];
};

/* netns.c */
struct ebpf_net *ebpf_net(const struct net *net);
struct net *ebpf_net_get_by_id(u64 id);
int ebpf_net_budget_check(const struct ebpf_net *en, int idx, u32 size);
void ebpf_net_budget_charge(struct ebpf_net *en, int idx, u32 size);

/* xt_builtin.c */
int ebpf_xt_builtin_register(void);
void ebpf_xt_builtin_unregister(void);

/* xt_translate.c: ip_tables' translate_table() checks, the extensions
 * found and checked (on failure nothing is held); their instances
 * destroyed; the entries written back as GET_ENTRIES shows them
 */
int ebpf_xt_translate(struct ebpf_xt_table *t,
		      const struct ebpf_ctl_install *req, const char *name);
void ebpf_xt_cleanup(struct ebpf_xt_table *t);
int ebpf_xt_copy_entries_to_user(const struct ebpf_xt_table *t,
				 void __user *userptr);

/* xt_table.c: INSTALL (ctl.c); a namespace's tables set up and freed
 * (netns.c: init, then pre_exit unhooks them and exit frees them)
 */
int ebpf_xt_install(const struct ebpf_ctl_install *req);
void ebpf_xt_net_init(struct ebpf_net *en);
void ebpf_xt_net_unhook(struct ebpf_net *en);
void ebpf_xt_net_free(struct ebpf_net *en);
const char *ebpf_xt_table_by_age(struct ebpf_net *en, unsigned int n);

/* xt_hook.c: the tables, their hooks (registered at a table's first
 * install; nat's through nf_nat, loaded then)
 */
extern const struct ebpf_xt_def ebpf_xt_defs[EBPF_XT_NTABLES];
int ebpf_xt_table_index(const char *name);
int ebpf_xt_hooks_register(struct ebpf_xt_slot *s);
void ebpf_xt_hooks_unregister(struct ebpf_xt_slot *s);
unsigned int ebpf_xt_walk(const struct ebpf_xt_table *t, struct sk_buff *skb,
			  const struct nf_hook_state *state,
			  const struct ebpf_resume *from);

#endif
