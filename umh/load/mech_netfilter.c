// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter mechanism (6.4+; here 6.12): BPF_PROG_TYPE_NETFILTER
 * dispatchers linked at NF_INET_LOCAL_IN, FORWARD and LOCAL_OUT with the
 * filter table's priority (NF_IP_PRI_FILTER): the hook points of
 * ip_tables, after conntrack (so state/conntrack matches see real state).
 * The links are objects like the programs: the vault keeps them, and with
 * them the dispatchers attached, while no helper runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "load/bpf_enforce.h"
#include "load/mech.h"

static int nf_attach(struct vault_objs *o, char *err, size_t len)
{
	static const unsigned int nfhook[CG_NHOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };
	int i;

	for (i = 0; i < CG_NHOOKS; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, lo);

		lo.netfilter.pf = NFPROTO_IPV4;
		lo.netfilter.hooknum = nfhook[i];
		lo.netfilter.priority = NF_IP_PRI_FILTER;
		o->link[i] = bpf_link_create(o->disp[i], 0, BPF_NETFILTER, &lo);
		if (o->link[i] < 0) {
			int e = -errno;

			snprintf(err, len,
				 "netfilter link at hook %u priority %d: %s%s",
				 nfhook[i], NF_IP_PRI_FILTER, strerror(-e),
				 e == -EBUSY ? " (ip_tables' filter table or another program holds it)" : "");
			o->link[i] = -1;
			while (i-- > 0) {
				close(o->link[i]);
				o->link[i] = -1;
			}
			return e;
		}
	}
	return 0;
}

/* Detach now: the files may live on a while (the vault's last message). */
static void nf_detach(struct vault_objs *o)
{
	int i;

	for (i = 0; i < CG_NHOOKS; i++)
		if (o->link[i] >= 0)
			bpf_link_detach(o->link[i]);
}

const struct enf_mech_ops enf_mech_netfilter = {
	.name = "netfilter",
	.hooks = "BPF_PROG_TYPE_NETFILTER links at LOCAL_IN/FORWARD/LOCAL_OUT, priority 0",
	.cg = CG_NETFILTER,
	.conntrack = true,
	.dispatchers = ENF_ALL_HOOKS,
	.available = probe_netfilter_progs,
	.needs = "BPF_PROG_TYPE_NETFILTER programs (Linux 6.4 and later)",
	.kernel = probe_netfilter_btf,
	.attach = nf_attach,
	.detach = nf_detach,
};
