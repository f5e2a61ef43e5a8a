/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule engine: a table the helper installed (ctl.c -> xt_table.c), run
 * at this module's own netfilter hooks (xt_hook.c) by the helper's BPF
 * program for the hook, or by a walk of the rules that is ipt_do_table()'s
 * own, with the kernel's x_tables extensions.  The built-in extensions
 * that ip_tables.ko itself registers (the standard and ERROR targets, the
 * icmp match) are registered by xt_builtin.c, so that ip_tables never has
 * to be loaded.
 *
 * Two families: ip_tables' (NFPROTO_IPV4) and, with the ipv6 parameter,
 * ip6_tables' (NFPROTO_IPV6), whose tables are separate.  What depends on
 * the entry layout is written once (xt_family.h) for both (xt_ipv4.c,
 * xt_ipv6.c) and reached through struct ebpf_xt_family.
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
struct ebpf_xt_family;

/* the index of a family in struct ebpf_net's per-family arrays */
enum ebpf_xt_fam {
	EBPF_XT_IPV4,
	EBPF_XT_IPV6,
	EBPF_XT_NFAMILIES,
};

/**
 * struct ebpf_xt_table - one installed rule set (immutable once live)
 * @fam:        its family (the layout of @entries, its walk)
 * @entries:    the rules as ip_tables (ip6_tables) keeps them: u.kernel pointers to the
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
	const struct ebpf_xt_family *fam;
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
	void **jumpstack;
	struct net *net;
};

/*
 * Add to a rule's counters: the programs and the walk add atomically to
 * the same slots.
 */
static inline void ebpf_counter_add(struct ebpf_counter *c, u64 pkts,
				    u64 bytes)
{
	atomic64_add(pkts, (atomic64_t *)&c->pkts);
	atomic64_add(bytes, (atomic64_t *)&c->bytes);
}

/**
 * struct ebpf_xt_family - what depends on a family's entry layout
 *                         (xt_family.h)
 * @nfproto:    NFPROTO_IPV4 or NFPROTO_IPV6
 * @index:      EBPF_XT_IPV4 or EBPF_XT_IPV6
 * @entry_size: sizeof(struct ipt_entry) or sizeof(struct ip6t_entry)
 * @translate:  translate_table(): the checks, then every extension found
 *              and checked (with @name's table); on failure nothing held
 * @cleanup:    every extension instance of a checked table destroyed
 * @copy_entries_to_user: the entries written back as GET_ENTRIES shows
 *              them (copy_entries_to_user()); with a bitmap, only those
 *              whose bit is set (struct ebpf_ctl_install.writeback)
 * @same_rule:  do two checked entries hold the same rule?
 * @comefrom:   an entry's comefrom (the hooks it is reached from)
 * @walk:       ipt_do_table() / ip6t_do_table()
 */
struct ebpf_xt_family {
	u8 nfproto;
	enum ebpf_xt_fam index;
	unsigned int entry_size;
	int (*translate)(struct ebpf_xt_table *t,
			 const struct ebpf_ctl_install *req, const char *name);
	void (*cleanup)(struct ebpf_xt_table *t);
	int (*copy_entries_to_user)(const struct ebpf_xt_table *t,
				    void __user *userptr, const u8 *which);
	bool (*same_rule)(const void *a, const void *b);
	unsigned int (*comefrom)(const void *e);
	unsigned int (*walk)(const struct ebpf_xt_table *t, struct sk_buff *skb,
			     const struct nf_hook_state *state,
			     const struct ebpf_resume *from);
};

/* xt_ipv4.c, xt_ipv6.c */
extern const struct ebpf_xt_family ebpf_xt_ipv4, ebpf_xt_ipv6;
unsigned int ebpf_xt_walk_ipv4(const struct ebpf_xt_table *t,
			       struct sk_buff *skb,
			       const struct nf_hook_state *state,
			       const struct ebpf_resume *from);
unsigned int ebpf_xt_walk_ipv6(const struct ebpf_xt_table *t,
			       struct sk_buff *skb,
			       const struct nf_hook_state *state,
			       const struct ebpf_resume *from);

/**
 * struct ebpf_xt_def - one of ip_tables' tables, as iptable_<name>.c has it
 *                       (ip6_tables': ip6table_<name>.c)
 * @fam:         its family
 * @name:        "filter", "nat", "mangle", "raw", "security"
 * @valid_hooks: its hooks
 * @priority:    its hooks' priority (nat: per hook, see xt_hook.c)
 * @nat:         registered through nf_nat (first packet of a connection)
 */
struct ebpf_xt_def {
	const struct ebpf_xt_family *fam;
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
 *               of its family before it in the namespace (the
 *               /proc/net/ip_tables_names and ip6_tables_names order)
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
 * @slots:       its tables, per family (enum ebpf_xt_fam), in
 *               EBPF_CTL_TABLE_NAMES order
 * @tables_made: per family: tables installed at least once
 * @rule_bytes:  per table: the size of the rule blob in force (the
 *               namespace's budget, netns.c; under its budget lock)
 */
struct ebpf_net {
	struct net *net;
	u64 id;
	struct list_head node;
	struct mutex lock;	/* installs and hook registration */
	struct ebpf_xt_slot slots[EBPF_XT_NFAMILIES][EBPF_XT_NTABLES];
	unsigned int tables_made[EBPF_XT_NFAMILIES];
	u32 rule_bytes[EBPF_XT_NFAMILIES][EBPF_XT_NTABLES];
};

/* netns.c */
struct ebpf_net *ebpf_net(const struct net *net);
struct net *ebpf_net_get_by_id(u64 id);
int ebpf_net_budget_check(const struct ebpf_net *en, enum ebpf_xt_fam fam,
			  int idx, u32 size);
void ebpf_net_budget_charge(struct ebpf_net *en, enum ebpf_xt_fam fam,
			    int idx, u32 size);

/* xt_builtin.c */
int ebpf_xt_builtin_register(void);
void ebpf_xt_builtin_unregister(void);
void ebpf_xt_builtin_unregister_ipv6(void);

/* xt_table.c: INSTALL (ctl.c); a namespace's tables set up and freed
 * (netns.c: init, then pre_exit unhooks them and exit frees them)
 */
int ebpf_xt_install(const struct ebpf_ctl_install *req);
int ebpf_xt_add_counters(struct ebpf_net *en, enum ebpf_xt_fam fam,
			 const struct xt_counters_info *info,
			 const struct xt_counters *add);
void ebpf_xt_net_init(struct ebpf_net *en);
void ebpf_xt_net_unhook(struct ebpf_net *en);
void ebpf_xt_net_free(struct ebpf_net *en);
const char *ebpf_xt_table_by_age(struct ebpf_net *en, enum ebpf_xt_fam fam,
				 unsigned int n);

/* xt_hook.c: the tables, their hooks (registered at a table's first
 * install; nat's through nf_nat, loaded then)
 */
extern const struct ebpf_xt_def
	ebpf_xt_defs[EBPF_XT_NFAMILIES][EBPF_XT_NTABLES];
int ebpf_xt_table_index(const char *name);
int ebpf_xt_hooks_register(struct ebpf_xt_slot *s);
void ebpf_xt_hooks_unregister(struct ebpf_xt_slot *s);

#endif
