// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/ip_tables_names in the initial network namespace, as ip_tables
 * provides it.  libxtables checks for this file to decide whether
 * ip_tables is "loaded"; without it every iptables-legacy command would
 * run `modprobe ip_tables`, which fails (EBUSY, we hold its sockopts) with
 * an error on the terminal.  It lists the tables the helper serves.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "ebpfilter.h"

static int ip_tables_names_show(struct seq_file *m, void *v)
{
	seq_puts(m, "filter\n");
	return 0;
}

int ebpf_procfs_init(void)
{
	if (!proc_create_net_single("ip_tables_names", 0440, init_net.proc_net,
				    ip_tables_names_show, NULL)) {
		pr_err("cannot create /proc/net/ip_tables_names\n");
		return -ENOMEM;
	}
	return 0;
}

void ebpf_procfs_exit(void)
{
	remove_proc_entry("ip_tables_names", init_net.proc_net);
}
