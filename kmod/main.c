// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfilter: iptables-legacy's control ABI served by a user-space helper
 * that travels inside this module and compiles the rules to BPF.
 *
 * Load order: the built-in extensions (IPv6's dropped again if the
 * helper's handshake says it serves no IPv6), the namespaces' state (the
 * helper's first table goes into the initial one's), then start the
 * helper and wait for its handshake,
 * then register the sockopt range.  Registering last means no request can reach a
 * module whose init may still fail (a failed init frees the module
 * without waiting for callers).  If ip_tables holds the range, the helper
 * is stopped again and the load fails with -EBUSY.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ebpfilter.h"

unsigned int handshake_timeout_ms = 10000;
module_param(handshake_timeout_ms, uint, 0444);
MODULE_PARM_DESC(handshake_timeout_ms,
		 "How long the helper may take to start and answer the handshake (ms)");

unsigned int request_timeout_ms = 60000;
module_param(request_timeout_ms, uint, 0644);
MODULE_PARM_DESC(request_timeout_ms,
		 "How long the helper may take to answer one request before it is killed (ms)");

unsigned int max_table_bytes = 32 << 20;
module_param(max_table_bytes, uint, 0644);
MODULE_PARM_DESC(max_table_bytes,
		 "Largest rule blob accepted from iptables (bytes; at most 60 MiB)");

unsigned int max_netns_bytes = 8 << 20;
module_param(max_netns_bytes, uint, 0644);
MODULE_PARM_DESC(max_netns_bytes,
		 "Most rule bytes the tables of one network namespace other than the initial one may hold together");

unsigned int max_total_bytes = 256 << 20;
module_param(max_total_bytes, uint, 0644);
MODULE_PARM_DESC(max_total_bytes,
		 "Most rule bytes the tables of all network namespaces but the initial one may hold together");

bool init_userns_only;
module_param(init_userns_only, bool, 0644);
MODULE_PARM_DESC(init_userns_only,
		 "Refuse (EPERM) requests from network namespaces not owned by the initial user namespace (containers' own root)");

bool phase_timing;
module_param(phase_timing, bool, 0444);
MODULE_PARM_DESC(phase_timing,
		 "Have the helper log where its requests' time goes (bench/README.md); off: no clock is read");

/*
 * IPv6 is served by default, as IPv4 is, where the helper can: its
 * handshake says whether its mechanism has IPv6 tables (the tc and
 * netfilter ones have none).  Where it has not, a load that says nothing
 * of ipv6 serves IPv4 only and ipv6=1 is refused (supervisor.c).
 * ipv6_given tells the two apart; the parameter reads Y or N as a bool's
 * (packaging/modprobe.d greps it).
 */
bool serve_ipv6 = true;
bool ipv6_given;

static int ipv6_param_set(const char *val, const struct kernel_param *kp)
{
	ipv6_given = true;
	return param_set_bool(val, kp);
}

static const struct kernel_param_ops ipv6_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = ipv6_param_set,
	.get = param_get_bool,
};

module_param_cb(ipv6, &ipv6_param_ops, &serve_ipv6, 0444);
__MODULE_PARM_TYPE(ipv6, "bool");
MODULE_PARM_DESC(ipv6,
		 "Serve ip6tables-legacy too: ip6_tables' sockopts and tables (default Y; N with mechanism tc or netfilter, which have no IPv6 tables)");

bool compile_ipv6 = true;
module_param_named(ipv6_bpf, compile_ipv6, bool, 0444);
MODULE_PARM_DESC(ipv6_bpf,
		 "With ipv6: let the helper's BPF programs decide IPv6 hooks where it compiles them (default Y); N: the module walks every IPv6 rule");

char *mechanism = "auto";
module_param(mechanism, charp, 0444);
MODULE_PARM_DESC(mechanism,
		 "How rules meet packets: auto (kmod if the helper can), kmod (this module's own netfilter hooks), netfilter (BPF netfilter links, 6.4+), tc (clsact)");

static int __init ebpfilter_init(void)
{
	int err;

	if (max_table_bytes > EBPF_MAX_TABLE_BYTES_CEILING ||
	    !handshake_timeout_ms || !request_timeout_ms) {
		pr_err("invalid module parameters\n");
		return -EINVAL;
	}
	err = ebpf_xt_init();
	if (err) {
		pr_err("not loaded: cannot register the built-in extensions (%d)\n", err);
		return err;
	}
	err = ebpf_netns_init();
	if (err)
		goto xt_exit;
	err = ebpf_sup_init();
	if (err) {
		pr_err("not loaded: the helper did not come up (%d)\n", err);
		goto netns_exit;
	}
	err = ebpf_sockopt_register();
	if (err)
		goto stop_helper;
	err = ebpf_procfs_init();
	if (err)
		goto unregister;
	pr_info("loaded (module %s, blob-exec %s, helper pid %d, IPv6 %s)\n",
		EBPFILTER_VERSION, EBPF_UMD_MECHANISM, ebpf_sup_helper_pid(),
		serve_ipv6 ? "served (ip6tables-legacy)" :
		ipv6_given ? "not served (ipv6=0)" : "not served (mechanism has no IPv6 tables)");
	return 0;

unregister:
	ebpf_sockopt_unregister();
stop_helper:
	ebpf_sup_exit();
netns_exit:
	ebpf_netns_exit();
xt_exit:
	ebpf_xt_exit();
	pr_err("not loaded (%d)\n", err);
	return err;
}

static void __exit ebpfilter_exit(void)
{
	ebpf_procfs_exit();
	ebpf_sockopt_unregister();
	ebpf_sup_exit();
	ebpf_netns_exit();	/* the tables hold their programs and maps */
	ebpf_xt_exit();
	pr_info("unloaded\n");
}

module_init(ebpfilter_init);
module_exit(ebpfilter_exit);

MODULE_DESCRIPTION("iptables-legacy control ABI served by an embedded helper that compiles rules to BPF");
MODULE_AUTHOR("The ebpfilter developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(EBPFILTER_VERSION);
