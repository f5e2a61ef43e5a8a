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

static int __net_init ebpf_net_init(struct net *net)
{
	struct ebpf_net *en = ebpf_net(net);
	int err;

	en->net = net;
	ebpf_xt_net_init(en);
	err = ebpf_procfs_net_init(net);
	if (err)
		return err;
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
	ebpf_sockopt_net_exit(en);
	ebpf_procfs_net_exit(net);
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
