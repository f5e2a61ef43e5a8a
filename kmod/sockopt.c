// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables control ABI: the IPv4 sockopt range ip_tables owns
 * (IPT_SO_SET_* and IPT_SO_GET_* at SOL_IP), proxied to the helper; with
 * the ipv6 parameter ip6_tables' too (IP6T_SO_* at SOL_IPV6: the same
 * numbers, and structures of the same layout around the entries), proxied
 * with family NFPROTO_IPV6.
 *
 * The length and copy checks ip_tables makes before it looks at a table
 * are made here, in the same order, so that callers get the same errno
 * (EINVAL before EFAULT, and so on); the helper then validates the
 * contents like translate_table().  Replies are checked against the sizes
 * the request allows before they reach user memory.
 *
 * Network namespaces: each has its own tables, as under ip_tables; a
 * request names its caller's namespace to the helper (netns.c's ids).
 * Who may ask is who may ask ip_tables: CAP_NET_ADMIN in the user
 * namespace that owns the network namespace, so the root of a user
 * namespace (any user, on Debian) reaches the helper and the kernel's
 * extension checks with tables of its own.  Hence the bounds (netns.c's
 * budget) and init_userns_only, which keeps every namespace not owned by
 * the initial user namespace out.
 */

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/kmod.h>
#include <linux/mm.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/sockptr.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "channel.h"
#include "ebpfilter.h"
#include "xt_engine.h"

static int check_caller(struct net *net)
{
	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (READ_ONCE(init_userns_only) && net->user_ns != &init_user_ns) {
		pr_notice_ratelimited("request from a network namespace of another user namespace refused (pid %d): init_userns_only is set\n",
				      task_pid_nr(current));
		return -EPERM;
	}
	if (in_compat_syscall()) {
		pr_notice_ratelimited("32-bit iptables is not supported (pid %d)\n",
				      task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The name dmesg gives a request the helper died serving (@optname: the
 * IPT_SO_* of it, ipt_optname(); the SET and GET numbers overlap).
 */
static const char *sockopt_name(u8 pf, bool set, int optname)
{
	bool v6 = pf == NFPROTO_IPV6;

	if (set)
		return optname == IPT_SO_SET_REPLACE ?
			(v6 ? "IP6T_SO_SET_REPLACE" : "IPT_SO_SET_REPLACE") :
			(v6 ? "IP6T_SO_SET_ADD_COUNTERS" : "IPT_SO_SET_ADD_COUNTERS");
	if (optname == IPT_SO_GET_INFO)
		return v6 ? "IP6T_SO_GET_INFO" : "IPT_SO_GET_INFO";
	if (optname == IPT_SO_GET_ENTRIES)
		return v6 ? "IP6T_SO_GET_ENTRIES" : "IPT_SO_GET_ENTRIES";
	return v6 ? "an ip6tables revision query" : "an iptables revision query";
}

/* Send a sockopt to the helper; @x->iov[1] is the caller's data. */
static int proxy(struct ebpf_exchange *x, const struct ebpf_net *en, u8 pf,
		 bool set, int optname, unsigned int user_len)
{
	struct ebpf_sockopt so = {
		.optname = optname,
		.user_len = user_len,
		.in_len = x->iov[1].iov_len,
		.family = pf,
		.netns = en->id,
	};
	int err;

	x->type = set ? EBPF_MSG_SOCKOPT_SET : EBPF_MSG_SOCKOPT_GET;
	x->what = sockopt_name(pf, set, optname);
	x->iov[0].iov_base = &so;
	x->iov[0].iov_len = sizeof(so);
	x->niov = 2;
	x->timeout_ms = request_timeout_ms;

	err = ebpf_sup_call(x);
	if (err)
		return err == -EINTR || err == -EAGAIN ? err : -EIO;
	if (x->status > 0)
		return -EIO;
	return x->status;
}

/* struct ebpf_net's index of family @pf */
static enum ebpf_xt_fam fam_index(u8 pf)
{
	return pf == NFPROTO_IPV6 ? EBPF_XT_IPV6 : EBPF_XT_IPV4;
}

/* ip6t_replace is ipt_replace, field for field: one code for both */
static_assert(sizeof(struct ip6t_replace) == sizeof(struct ipt_replace) &&
	      offsetof(struct ip6t_replace, counters) ==
	      offsetof(struct ipt_replace, counters));
static_assert(sizeof(struct ip6t_get_entries) ==
	      sizeof(struct ipt_get_entries) &&
	      sizeof(struct ip6t_getinfo) == sizeof(struct ipt_getinfo));

static int replace_table(struct ebpf_net *en, u8 pf, sockptr_t arg,
			 unsigned int len)
{
	struct ebpf_exchange x = { };
	struct ipt_replace repl;
	void *blob;
	int ret;

	/* do_replace(): header first, then exactly repl.size bytes. */
	if (len < sizeof(repl))
		return -EINVAL;
	if (copy_from_sockptr(&repl, arg, sizeof(repl)))
		return -EFAULT;
	if (repl.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (repl.num_counters == 0)
		return -EINVAL;
	if ((u64)len < (u64)repl.size + sizeof(repl))
		return -EINVAL;
	if (repl.size > max_table_bytes) {
		pr_notice_ratelimited("table of %u bytes refused: max_table_bytes is %u\n",
				      repl.size, max_table_bytes);
		return -ENOMEM;
	}
	repl.name[sizeof(repl.name) - 1] = '\0';
	/* early, before the helper's work; the install checks again */
	ret = ebpf_net_budget_check(en, fam_index(pf),
				    ebpf_xt_table_index(repl.name), repl.size);
	if (ret)
		return ret;
	blob = kvmalloc(sizeof(repl) + repl.size, GFP_KERNEL_ACCOUNT);
	if (!blob)
		return -ENOMEM;
	memcpy(blob, &repl, sizeof(repl));
	if (copy_from_sockptr_offset(blob + sizeof(repl), arg, sizeof(repl),
				     repl.size)) {
		ret = -EFAULT;
		goto out;
	}

	x.iov[1].iov_base = blob;
	x.iov[1].iov_len = sizeof(repl) + repl.size;
	/* The old counters come back: one per old entry, each >= 112 bytes. */
	x.max_data = min_t(size_t, (size_t)repl.num_counters *
			   sizeof(struct xt_counters), max_table_bytes);
	ret = proxy(&x, en, pf, true, IPT_SO_SET_REPLACE, len);
	if (ret)
		goto out;
	if (x.data_len != (size_t)repl.num_counters * sizeof(struct xt_counters)) {
		pr_err("helper returned %zu bytes of counters for %u entries\n",
		       x.data_len, repl.num_counters);
		ret = -EIO;
		goto out;
	}
	/* As ip_tables: the new table is live, so this cannot fail. */
	if (copy_to_user(repl.counters, x.data, x.data_len))
		net_warn_ratelimited("iptables: counters copy to user failed while replacing table\n");
out:
	ebpf_exchange_free(&x);
	kvfree(blob);
	return ret;
}

static int add_counters(struct ebpf_net *en, u8 pf, sockptr_t arg,
			unsigned int len)
{
	struct ebpf_exchange x = { };
	struct xt_counters_info info;
	void *blob;
	int ret;

	/* xt_copy_counters() */
	if (len < sizeof(info))
		return -EINVAL;
	if (copy_from_sockptr(&info, arg, sizeof(info)))
		return -EFAULT;
	if ((u64)info.num_counters * sizeof(struct xt_counters) !=
	    (u64)len - sizeof(info))
		return -EINVAL;
	if (len > max_table_bytes)
		return -ENOMEM;
	blob = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!blob)
		return -ENOMEM;
	memcpy(blob, &info, sizeof(info));
	if (copy_from_sockptr_offset(blob + sizeof(info), arg, sizeof(info),
				     len - sizeof(info))) {
		ret = -EFAULT;
		goto out;
	}
	/* a table this module holds: added here, no helper involved */
	if (len > sizeof(info)) {
		((struct xt_counters_info *)blob)->name[XT_TABLE_MAXNAMELEN - 1] = '\0';
		ret = ebpf_xt_add_counters(en, fam_index(pf), blob,
					   blob + sizeof(info));
		if (!ret)
			goto out;
	}
	x.iov[1].iov_base = blob;
	x.iov[1].iov_len = len;
	ret = proxy(&x, en, pf, true, IPT_SO_SET_ADD_COUNTERS, len);
out:
	ebpf_exchange_free(&x);
	kvfree(blob);
	return ret;
}

/*
 * An IP6T_SO_* as the IPT_SO_* of the same meaning, or -1: the revision
 * queries have other numbers in ip6_tables' range (IPT_BASE_CTL + 4 and
 * + 5; + 2 and + 3 are not ip6_tables' options at all).
 */
static int ipt_optname(u8 pf, bool set, int optval)
{
	if (pf != NFPROTO_IPV6)
		return optval;
	if (set) {
		switch (optval) {
		case IP6T_SO_SET_REPLACE:
			return IPT_SO_SET_REPLACE;
		case IP6T_SO_SET_ADD_COUNTERS:
			return IPT_SO_SET_ADD_COUNTERS;
		}
		return -1;
	}
	switch (optval) {
	case IP6T_SO_GET_INFO:
		return IPT_SO_GET_INFO;
	case IP6T_SO_GET_ENTRIES:
		return IPT_SO_GET_ENTRIES;
	case IP6T_SO_GET_REVISION_MATCH:
		return IPT_SO_GET_REVISION_MATCH;
	case IP6T_SO_GET_REVISION_TARGET:
		return IPT_SO_GET_REVISION_TARGET;
	}
	return -1;
}

/* do_ipt_set_ctl() / do_ip6t_set_ctl() */
static int set_ctl(struct sock *sk, u8 pf, int optval, sockptr_t arg,
		   unsigned int len)
{
	struct net *net = sock_net(sk);
	int err = check_caller(net);

	if (err)
		return err;
	switch (ipt_optname(pf, true, optval)) {
	case IPT_SO_SET_REPLACE:
		return replace_table(ebpf_net(net), pf, arg, len);
	case IPT_SO_SET_ADD_COUNTERS:
		return add_counters(ebpf_net(net), pf, arg, len);
	default:
		return -EINVAL;
	}
}

/*
 * A GET: @in_len bytes of the caller's buffer go to the helper, and the
 * reply, exactly @out_len bytes, is copied to user + @out_off.
 */
static int get(const struct ebpf_net *en, u8 pf, int optval,
	       void __user *user, unsigned int user_len, const void *in,
	       size_t in_len, size_t out_off, size_t out_len)
{
	struct ebpf_exchange x = {
		.iov[1] = { .iov_base = (void *)in, .iov_len = in_len },
		.max_data = out_len,
	};
	int ret;

	ret = proxy(&x, en, pf, false, optval, user_len);
	if (ret == 0 && x.data_len != out_len) {
		pr_err("helper returned %zu bytes for a %zu-byte answer\n",
		       x.data_len, out_len);
		ret = -EIO;
	}
	if (ret == 0 && out_len && copy_to_user(user + out_off, x.data, out_len))
		ret = -EFAULT;
	ebpf_exchange_free(&x);
	return ret;
}

/* do_ipt_get_ctl() / do_ip6t_get_ctl() */
static int get_ctl(struct sock *sk, u8 pf, int optval, void __user *user,
		   int *len)
{
	union {
		char name[XT_TABLE_MAXNAMELEN];
		struct ipt_get_entries entries;
		struct xt_get_revision rev;
	} in;
	struct net *net = sock_net(sk);
	const struct ebpf_net *en = ebpf_net(net);
	int opt = ipt_optname(pf, false, optval);
	int err;

	err = check_caller(net);
	if (err)
		return err;

	/* do_ipt_get_ctl(): the same checks, in the same order. */
	switch (opt) {
	case IPT_SO_GET_INFO:
		if (*len != sizeof(struct ipt_getinfo))
			return -EINVAL;
		if (copy_from_user(in.name, user, sizeof(in.name)))
			return -EFAULT;
		return get(en, pf, optval, user, *len, in.name,
			   sizeof(in.name), 0, sizeof(struct ipt_getinfo));
	case IPT_SO_GET_ENTRIES:
		if (*len < sizeof(in.entries))
			return -EINVAL;
		if (copy_from_user(&in.entries, user, sizeof(in.entries)))
			return -EFAULT;
		if (*len != sizeof(in.entries) + in.entries.size)
			return -EINVAL;
		if (in.entries.size > max_table_bytes)
			return -EAGAIN;	/* cannot be our table's size */
		return get(en, pf, optval, user, *len, &in.entries,
			   sizeof(in.entries), sizeof(in.entries),
			   in.entries.size);
	case IPT_SO_GET_REVISION_MATCH:
	case IPT_SO_GET_REVISION_TARGET:
		if (*len != sizeof(in.rev))
			return -EINVAL;
		if (copy_from_user(&in.rev, user, sizeof(in.rev)))
			return -EFAULT;
		in.rev.name[sizeof(in.rev.name) - 1] = 0;
		/* x_tables knows every extension this kernel has (and loads
		 * it by the alias ip_tables asks for); answered as
		 * do_ipt_get_ctl() answers, a positive value the best
		 * revision (ip6_tables: its own family, ip6t_NAME)
		 */
		try_then_request_module(xt_find_revision(pf, in.rev.name,
							 in.rev.revision,
							 opt == IPT_SO_GET_REVISION_TARGET,
							 &err),
					"%st_%s",
					pf == NFPROTO_IPV6 ? "ip6" : "ip",
					in.rev.name);
		return err;
	default:
		return -EINVAL;
	}
}

static int ebpf_set(struct sock *sk, int optval, sockptr_t arg,
		    unsigned int len)
{
	return set_ctl(sk, NFPROTO_IPV4, optval, arg, len);
}

static int ebpf_get(struct sock *sk, int optval, void __user *user, int *len)
{
	return get_ctl(sk, NFPROTO_IPV4, optval, user, len);
}

static int ebpf_set6(struct sock *sk, int optval, sockptr_t arg,
		     unsigned int len)
{
	return set_ctl(sk, NFPROTO_IPV6, optval, arg, len);
}

static int ebpf_get6(struct sock *sk, int optval, void __user *user, int *len)
{
	return get_ctl(sk, NFPROTO_IPV6, optval, user, len);
}

static struct nf_sockopt_ops ebpf_sockopts = {
	.pf		= PF_INET,
	.set_optmin	= IPT_BASE_CTL,
	.set_optmax	= IPT_SO_SET_MAX + 1,
	.set		= ebpf_set,
	.get_optmin	= IPT_BASE_CTL,
	.get_optmax	= IPT_SO_GET_MAX + 1,
	.get		= ebpf_get,
	.owner		= THIS_MODULE,
};

/* ip6_tables' range (ipv6=1) */
static struct nf_sockopt_ops ebpf_sockopts6 = {
	.pf		= PF_INET6,
	.set_optmin	= IP6T_BASE_CTL,
	.set_optmax	= IP6T_SO_SET_MAX + 1,
	.set		= ebpf_set6,
	.get_optmin	= IP6T_BASE_CTL,
	.get_optmax	= IP6T_SO_GET_MAX + 1,
	.get		= ebpf_get6,
	.owner		= THIS_MODULE,
};

int ebpf_sockopt_register(void)
{
	int err = nf_register_sockopt(&ebpf_sockopts);

	if (err == -EBUSY) {
		pr_err("the iptables sockopts are taken, most likely by ip_tables: unload it first (modprobe -r iptable_filter ip_tables) and keep it from auto-loading (see README, \"Coexistence\")\n");
		return err;
	}
	if (err) {
		pr_err("cannot register the iptables sockopts (%d)\n", err);
		return err;
	}
	if (!serve_ipv6)
		return 0;
	err = nf_register_sockopt(&ebpf_sockopts6);
	if (err == -EBUSY)
		pr_err("the ip6tables sockopts are taken, most likely by ip6_tables: unload it first (modprobe -r ip6table_filter ip6_tables) and keep it from auto-loading, or load ebpfilter with ipv6=0 (IPv4 only)\n");
	else if (err)
		pr_err("cannot register the ip6tables sockopts (%d)\n", err);
	if (err)
		nf_unregister_sockopt(&ebpf_sockopts);
	return err;
}

void ebpf_sockopt_unregister(void)
{
	if (serve_ipv6)
		nf_unregister_sockopt(&ebpf_sockopts6);
	nf_unregister_sockopt(&ebpf_sockopts);
}
