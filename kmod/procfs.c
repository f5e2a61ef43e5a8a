// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/ip_tables_names, as ip_tables provides it, in every network
 * namespace (and ip6_tables_names, as ip6_tables, with the ipv6
 * parameter).  libxtables checks for this file to decide whether ip_tables
 * is "loaded" (without it every iptables-legacy command would run
 * `modprobe ip_tables`, which is refused while we hold its sockopts), and
 * iptables-legacy-save reads it to know which tables to dump.
 *
 * It lists the tables a namespace has, newest first as x_tables lists
 * them: the tables installed in it so far (in the initial namespace filter
 * from the start, the others from their first use; only filter with the
 * helper's other mechanisms, which install nothing here and serve the
 * initial namespace only), as ip_tables shows them.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include <net/net_namespace.h>

#include "ebpfilter.h"
#include "xt_engine.h"

static unsigned int tables_names_show(struct seq_file *m,
				      enum ebpf_xt_fam fam)
{
	struct net *net = seq_file_single_net(m);
	const char *name;
	unsigned int n;

	for (n = 0; (name = ebpf_xt_table_by_age(ebpf_net(net), fam, n)); n++)
		seq_printf(m, "%s\n", name);
	return n;
}

static int ip_tables_names_show(struct seq_file *m, void *v)
{
	/* the tc and netfilter mechanisms: filter, of the initial namespace */
	if (!tables_names_show(m, EBPF_XT_IPV4) &&
	    net_eq(seq_file_single_net(m), &init_net))
		seq_puts(m, "filter\n");
	return 0;
}

static int ip6_tables_names_show(struct seq_file *m, void *v)
{
	tables_names_show(m, EBPF_XT_IPV6);
	return 0;
}

static int __net_init procfs_net_init(struct net *net)
{
	if (!proc_create_net_single("ip_tables_names", 0440, net->proc_net,
				    ip_tables_names_show, NULL))
		return -ENOMEM;
	if (serve_ipv6 &&
	    !proc_create_net_single("ip6_tables_names", 0440, net->proc_net,
				    ip6_tables_names_show, NULL)) {
		remove_proc_entry("ip_tables_names", net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit procfs_net_exit(struct net *net)
{
	if (serve_ipv6)
		remove_proc_entry("ip6_tables_names", net->proc_net);
	remove_proc_entry("ip_tables_names", net->proc_net);
}

/*
 * Registered only once the module owns the sockopt ranges: while
 * ip_tables (ip6_tables) is loaded the file is its own (a second one
 * would be a kernel warning).
 */
static struct pernet_operations procfs_net_ops = {
	.init = procfs_net_init,
	.exit = procfs_net_exit,
};

int ebpf_procfs_init(void)
{
	int err = register_pernet_subsys(&procfs_net_ops);

	if (err)
		pr_err("cannot create /proc/net/ip_tables_names%s (%d)\n",
		       serve_ipv6 ? " and ip6_tables_names" : "", err);
	return err;
}

void ebpf_procfs_exit(void)
{
	unregister_pernet_subsys(&procfs_net_ops);
}
