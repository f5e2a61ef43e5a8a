// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: each has its own tables, hooks and extension
 * instances (struct ebpf_net, net_generic()), made on first use and gone
 * with it, as ip_tables' are.
 *
 * The helper knows a namespace by a number the module gives it here, 1
 * for the initial one and never the same twice while the module is
 * loaded (proto.h): a namespace the helper has never heard of is a new
 * one, whatever its struct net's address was before.  When a namespace
 * dies its hooks go in pre_exit (iptable_<name>'s order: before nf_nat's
 * own exit, which a nat table's hooks live in), its tables in exit, and
 * the helper hears of it afterwards (supervisor.c, from a work item: the
 * exit never waits for the helper, which may itself be waiting for a
 * module load that waits for this exit to end).
 */

#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ebpfilter.h"
#include "xt_engine.h"

static unsigned int ebpf_net_id __read_mostly;

/* The namespaces by id, for the control file's lookups. */
static DEFINE_SPINLOCK(nets_lock);
static LIST_HEAD(nets);
static u64 last_id = EBPF_NETNS_INIT;

struct ebpf_net *ebpf_net(const struct net *net)
{
	return net_generic(net, ebpf_net_id);
}

/**
 * ebpf_net_get_by_id() - the namespace numbered @id, if it still lives
 * @id: its number (struct ebpf_sockopt.netns)
 *
 * Return: the namespace with a reference (put_net() it), or NULL.
 */
struct net *ebpf_net_get_by_id(u64 id)
{
	struct net *net = NULL;
	struct ebpf_net *en;

	spin_lock(&nets_lock);
	list_for_each_entry(en, &nets, node) {
		if (en->id == id) {
			net = maybe_get_net(en->net);
			break;
		}
	}
	spin_unlock(&nets_lock);
	return net;
}

/*
 * The budget: each namespace but the initial one may hold at most
 * max_netns_bytes of tables, all of them together max_total_bytes.  A
 * table costs its rule blob and EBPF_TABLE_COST for what it brings beside
 * (its programs, counters map, copies in the helper and here), so that a
 * user making many namespaces with empty tables meets the bound too.
 * Checked and charged at each install (the initial tables made on first
 * use too), checked early at SET_REPLACE (sockopt.c).
 */
#define EBPF_TABLE_COST		(32u << 10)

static DEFINE_SPINLOCK(budget_lock);
static u64 netns_total_bytes;	/* every ebpf_net.rule_bytes but init's */

static u64 table_cost(u32 size)
{
	return size ? (u64)size + EBPF_TABLE_COST : 0;
}

/**
 * ebpf_net_budget_check() - may table @idx of @en hold @size bytes of rules?
 * @en:   the namespace
 * @fam:  the table's family (its tables count beside the other family's)
 * @idx:  the table (EBPF_CTL_TABLE_NAMES order); -1: none, nothing to check
 * @size: its new rule blob's size
 *
 * Return: 0, or -ENOMEM (with a rate-limited line) past either bound.
 */
int ebpf_net_budget_check(const struct ebpf_net *en, enum ebpf_xt_fam fam,
			  int idx, u32 size)
{
	u64 own = table_cost(size), total;
	const char *what = NULL;
	int f, i;

	if (en->id == EBPF_NETNS_INIT || idx < 0 || idx >= EBPF_XT_NTABLES)
		return 0;
	spin_lock(&budget_lock);
	for (f = 0; f < EBPF_XT_NFAMILIES; f++)
		for (i = 0; i < EBPF_XT_NTABLES; i++)
			if (f != fam || i != idx)
				own += table_cost(en->rule_bytes[f][i]);
	total = netns_total_bytes - table_cost(en->rule_bytes[fam][idx]) +
		table_cost(size);
	spin_unlock(&budget_lock);
	if (own > READ_ONCE(max_netns_bytes))
		what = "max_netns_bytes";
	else if (total > READ_ONCE(max_total_bytes))
		what = "max_total_bytes";
	if (!what)
		return 0;
	pr_notice_ratelimited("table of %u bytes refused in a network namespace (pid %d): over %s\n",
			      size, task_pid_nr(current), what);
	return -ENOMEM;
}

/* Table @idx of family @fam of @en now holds @size bytes (an install went
 * live).
 */
void ebpf_net_budget_charge(struct ebpf_net *en, enum ebpf_xt_fam fam,
			    int idx, u32 size)
{
	if (en->id == EBPF_NETNS_INIT)
		return;
	spin_lock(&budget_lock);
	netns_total_bytes += table_cost(size);
	netns_total_bytes -= table_cost(en->rule_bytes[fam][idx]);
	en->rule_bytes[fam][idx] = size;
	spin_unlock(&budget_lock);
}

/* A namespace's tables are gone: so is its share of the budget. */
static void budget_release(struct ebpf_net *en)
{
	int f, i;

	spin_lock(&budget_lock);
	for (f = 0; f < EBPF_XT_NFAMILIES; f++) {
		for (i = 0; i < EBPF_XT_NTABLES; i++) {
			netns_total_bytes -= table_cost(en->rule_bytes[f][i]);
			en->rule_bytes[f][i] = 0;
		}
	}
	spin_unlock(&budget_lock);
}

static int __net_init ebpf_net_init(struct net *net)
{
	struct ebpf_net *en = ebpf_net(net);

	en->net = net;
	ebpf_xt_net_init(en);
	spin_lock(&nets_lock);
	en->id = net_eq(net, &init_net) ? EBPF_NETNS_INIT : ++last_id;
	list_add(&en->node, &nets);
	spin_unlock(&nets_lock);
	return 0;
}

static void __net_exit ebpf_net_pre_exit(struct net *net)
{
	struct ebpf_net *en = ebpf_net(net);

	spin_lock(&nets_lock);
	list_del(&en->node);
	spin_unlock(&nets_lock);
	ebpf_xt_net_unhook(en);
}

static void __net_exit ebpf_net_exit(struct net *net)
{
	struct ebpf_net *en = ebpf_net(net);

	ebpf_xt_net_free(en);
	budget_release(en);
	ebpf_sup_netns_gone(en->id);	/* a no-op at unload: no helper */
}

static struct pernet_operations ebpf_net_ops = {
	.init = ebpf_net_init,
	.pre_exit = ebpf_net_pre_exit,
	.exit = ebpf_net_exit,
	.id = &ebpf_net_id,
	.size = sizeof(struct ebpf_net),
};

int __init ebpf_netns_init(void)
{
	int err = register_pernet_subsys(&ebpf_net_ops);

	if (err)
		pr_err("cannot set up the network namespaces (%d)\n", err);
	return err;
}

/* Every namespace's tables unhooked and freed (module unload). */
void ebpf_netns_exit(void)
{
	unregister_pernet_subsys(&ebpf_net_ops);
}
