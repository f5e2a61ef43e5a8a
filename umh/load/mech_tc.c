// SPDX-License-Identifier: GPL-2.0
/*
 * The TC mechanism (kernels without BPF_PROG_TYPE_NETFILTER, i.e. 6.1):
 * the ingress and egress dispatchers go on clsact of every interface of the
 * initial network namespace, lo included, and on every interface created
 * later: a thread listens to rtnetlink (RTMGRP_LINK) for the helper's whole
 * life.  It also keeps the ifinfo map (ifindex -> name, L2 header length)
 * that the programs use for -i/-o and to find the IP header.
 *
 * Ingress runs INPUT and FORWARD (the table program decides which with
 * bpf_fib_lookup()), egress OUTPUT for locally generated packets (no input
 * interface).  Conntrack state is not available there, so state/conntrack
 * rules are refused (by the code generator).
 *
 * Filters use handle ENF_TC_HANDLE, priority ENF_TC_PRIO, and are attached
 * with BPF_TC_F_REPLACE, so a restarted helper re-attaching is idempotent.
 * They are netlink-owned: they survive the helper (never fail open) and
 * tc_detach() removes them at unload, and with them each clsact qdisc that
 * ebpfilter created (ENF_IF_OWN_CLSACT in the interface's ifinfo record,
 * which outlives a helper in the vault) once no other filter is on it; a
 * clsact that was there before stays.
 *
 * Known window: an interface created while no helper runs, or in the few
 * milliseconds between its creation and our RTM_NEWLINK handling, is not
 * filtered until then.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/vec.h"
#include "load/mech.h"

#define ENF_TC_HANDLE	0xeb0f
#define ENF_TC_PRIO	1
/* ifinfo map entries: interfaces of the initial netns we can filter */
#define ENF_TC_IFINFO_MAX	4096
/* rtnetlink receive buffer: a dump's batch, or a burst of link events */
#define ENF_NL_BUF_SIZE		32768

/* The largest family header nl_dump() sends (struct tcmsg) */
#define ENF_NL_DUMP_MSG_MAX	32

_Static_assert(sizeof(struct tcmsg) <= ENF_NL_DUMP_MSG_MAX &&
	       sizeof(struct ifinfomsg) <= ENF_NL_DUMP_MSG_MAX,
	       "nl_dump() sends the family headers it is given");

/* The clsact attach points we use; T.disp[] has the dispatcher of each. */
static const enum bpf_tc_attach_point tc_point[] = {
	BPF_TC_INGRESS, BPF_TC_EGRESS,
};
#define TC_NPOINTS	(sizeof(tc_point) / sizeof(tc_point[0]))

/* handle_link(): what to do with a link */
enum link_mode { LINK_ATTACH, LINK_DETACH_ALL };

static struct {
	int disp[TC_NPOINTS], ifinfo_fd;
	int nl;			/* RTMGRP_LINK listener */
	int stop[2];		/* pipe: wake the thread */
	pthread_t thr;
	bool running;
	pthread_mutex_t lock;
	unsigned char *attached;	/* bitmap by ifindex */
	size_t attached_cap;		/* bytes in it (vec.h) */
} T = { .nl = -1, .stop = { -1, -1 }, .lock = PTHREAD_MUTEX_INITIALIZER };

void enf_tc_ifinfo(struct cg_ifinfo *v, const char *name, unsigned int type)
{
	memset(v, 0, sizeof(*v));
	memcpy(v->name, name, strnlen(name, sizeof(v->name) - 1));
	/* Ethernet-like devices (and lo) carry an Ethernet header at TC;
	 * tunnels and L3 devices (tun, wireguard, ipip) none. */
	v->l2len = (type == ARPHRD_ETHER || type == ARPHRD_LOOPBACK) ?
		   ETH_HLEN : 0;
}

/* cg_ifinfo.flags: we created this interface's clsact qdisc */
#define ENF_IF_OWN_CLSACT	0x1

static bool is_attached(unsigned int ifindex)
{
	return ifindex / 8 < T.attached_cap &&
	       (T.attached[ifindex / 8] & (1u << (ifindex % 8)));
}

static void set_attached(unsigned int ifindex, bool on)
{
	size_t old = T.attached_cap;

	if (ifindex / 8 >= old) {
		/* not marked: attached again at the next re-scan */
		if (!on || vec_reserve(&T.attached, &T.attached_cap,
				       ifindex / 8 + 1))
			return;
		memset(T.attached + old, 0, T.attached_cap - old);
	}
	if (on)
		T.attached[ifindex / 8] |= 1u << (ifindex % 8);
	else
		T.attached[ifindex / 8] &= ~(1u << (ifindex % 8));
}

static int attach_one(unsigned int ifindex, const char *name,
		      unsigned int type, bool force)
{
	struct cg_ifinfo v, old;
	__u32 key = ifindex;
	unsigned int i;
	int r;

	enf_tc_ifinfo(&v, name, type);
	if (!bpf_map_lookup_elem(T.ifinfo_fd, &key, &old))
		v.flags = old.flags;	/* a restart or a renamed link */
	/* the record first: the programs read it for every packet */
	if (bpf_map_update_elem(T.ifinfo_fd, &key, &v, BPF_ANY))
		return -errno;
	if (T.disp[0] < 0 || (!force && is_attached(ifindex)))
		return 0;	/* names only (enf_ifinfo_watch()), or done */
	for (i = 0; i < TC_NPOINTS; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = tc_point[i]);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = ENF_TC_HANDLE,
			    .priority = ENF_TC_PRIO,
			    .prog_fd = T.disp[i],
			    .flags = BPF_TC_F_REPLACE);

		r = bpf_tc_hook_create(&hook);
		if (r && r != -EEXIST)
			goto fail;
		if (!r) {	/* ours: remove it at shutdown */
			v.flags |= ENF_IF_OWN_CLSACT;
			if (bpf_map_update_elem(T.ifinfo_fd, &key, &v, BPF_ANY))
				log_warn("tc: cannot note the clsact qdisc of %s as ours: it will stay after unload\n",
					 name);
		}
		r = bpf_tc_attach(&hook, &o);
		if (r)
			goto fail;
	}
	set_attached(ifindex, true);
	log_info("tc: filtering %s (ifindex %u)\n", name, ifindex);
	return 0;
fail:
	log_err("tc: attaching to %s (ifindex %u) failed: %s\n", name, ifindex,
		strerror(-r));
	return r;
}

/*
 * Send an rtnetlink dump request of @type with the @len bytes of @msg (the
 * family header) as its payload; call @fn for each record.  0 or -errno.
 * (Callbacks may dump again: the buffer is per call.)
 */
static int nl_dump(__u16 type, const void *msg, size_t len,
		   void (*fn)(struct nlmsghdr *nh, void *arg), void *arg)
{
	union {
		struct nlmsghdr nh;
		char bytes[NLMSG_SPACE(ENF_NL_DUMP_MSG_MAX)];
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(len), .nlmsg_type = type,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			  .nlmsg_seq = 1 } };
	const size_t cap = ENF_NL_BUF_SIZE;
	char *buf;
	int s, r = 0;

	if (len > ENF_NL_DUMP_MSG_MAX)
		return -EINVAL;
	memcpy(NLMSG_DATA(&req.nh), msg, len);
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0) {
		free(buf);
		return -errno;
	}
	if (send(s, &req, req.nh.nlmsg_len, 0) < 0) {
		r = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(s, buf, cap, 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			r = -errno;
			goto out;
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE)
				goto out;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				r = -EIO;
				goto out;
			}
			fn(nh, arg);
		}
	}
out:
	close(s);
	free(buf);
	return r;
}

static void count_filter(struct nlmsghdr *nh, void *arg)
{
	if (nh->nlmsg_type == RTM_NEWTFILTER)
		++*(int *)arg;
}

/* How many filters does @ifindex have under @parent?  -errno on failure. */
static int count_filters(unsigned int ifindex, __u32 parent)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC,
			    .tcm_ifindex = (int)ifindex, .tcm_parent = parent };
	int n = 0, r = nl_dump(RTM_GETTFILTER, &tc, sizeof(tc), count_filter,
			       &n);

	return r ? r : n;
}

static void detach_one(unsigned int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, both, .ifindex = (int)ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	struct cg_ifinfo v;
	__u32 key = ifindex;
	unsigned int i;

	for (i = 0; i < TC_NPOINTS; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = tc_point[i]);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = ENF_TC_HANDLE,
			    .priority = ENF_TC_PRIO);

		bpf_tc_detach(&hook, &o);
	}
	/* our clsact goes too, unless someone else's filters are on it */
	if (bpf_map_lookup_elem(T.ifinfo_fd, &key, &v) ||
	    !(v.flags & ENF_IF_OWN_CLSACT))
		return;
	if (count_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)) ||
	    count_filters(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)))
		return;
	bpf_tc_hook_destroy(&both);
}

/* Handle one RTM_NEWLINK/RTM_DELLINK */
static void handle_link(struct nlmsghdr *nh, enum link_mode mode, bool force)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	struct rtattr *a;
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	char name[IFNAMSIZ] = "";
	__u32 key;

	if (len < 0)
		return;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_IFNAME)
			snprintf(name, sizeof(name), "%s", (char *)RTA_DATA(a));
	key = (__u32)ifi->ifi_index;
	if (mode == LINK_DETACH_ALL) {
		detach_one(key);
		return;
	}
	if (nh->nlmsg_type == RTM_DELLINK) {
		bpf_map_delete_elem(T.ifinfo_fd, &key);
		set_attached(key, false);
		return;
	}
	if (nh->nlmsg_type == RTM_NEWLINK)
		attach_one(key, name, ifi->ifi_type, force);
}

struct link_walk {
	enum link_mode mode;
	bool force;
};

static void walk_link(struct nlmsghdr *nh, void *arg)
{
	const struct link_walk *w = arg;

	pthread_mutex_lock(&T.lock);
	handle_link(nh, w->mode, w->force);
	pthread_mutex_unlock(&T.lock);
}

/* Dump all links and handle each; 0 or -errno */
static int dump_links(enum link_mode mode, bool force)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct link_walk w = { .mode = mode, .force = force };

	return nl_dump(RTM_GETLINK, &ifi, sizeof(ifi), walk_link, &w);
}

static void *watch(void *arg)
{
	static char buf[ENF_NL_BUF_SIZE];
	struct pollfd p[2] = { { .fd = T.nl, .events = POLLIN },
			       { .fd = T.stop[0], .events = POLLIN } };

	(void)arg;
	for (;;) {
		ssize_t n;
		struct nlmsghdr *nh;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		n = recv(T.nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* lost events: re-scan everything */
				dump_links(LINK_ATTACH, false);
			}
			continue;
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			pthread_mutex_lock(&T.lock);
			handle_link(nh, LINK_ATTACH, false);
			pthread_mutex_unlock(&T.lock);
		}
	}
	return NULL;
}

/*
 * Attach the dispatchers to every interface of the initial netns and keep
 * doing so for new ones (a netlink thread); keep @ifinfo_fd (ifindex ->
 * struct cg_ifinfo) up to date.  0 or -errno.
 */
static int tc_start(int ingress_fd, int egress_fd, int ifinfo_fd)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	int r;

	if (T.running)
		return 0;
	T.disp[0] = ingress_fd;	/* tc_point[] order */
	T.disp[1] = egress_fd;
	T.ifinfo_fd = ifinfo_fd;
	/* subscribe first, so no link created during the scan is missed */
	T.nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (T.nl < 0)
		return -errno;
	if (bind(T.nl, (struct sockaddr *)&sa, sizeof(sa)) ||
	    pipe2(T.stop, O_CLOEXEC)) {
		r = -errno;
		goto fail;
	}
	r = dump_links(LINK_ATTACH, true);
	if (r)
		goto fail;
	r = pthread_create(&T.thr, NULL, watch, NULL);
	if (r) {
		r = -r;
		goto fail;
	}
	T.running = true;
	return 0;
fail:
	if (T.nl >= 0)
		close(T.nl);
	T.nl = -1;
	if (T.stop[0] >= 0) {
		close(T.stop[0]);
		close(T.stop[1]);
	}
	T.stop[0] = T.stop[1] = -1;
	return r;
}

/* Stop the thread; with @detach, remove our filters from every interface. */
static void tc_stop(bool detach)
{
	if (T.running) {
		(void)!write(T.stop[1], "x", 1);
		pthread_join(T.thr, NULL);
		T.running = false;
		close(T.nl);
		close(T.stop[0]);
		close(T.stop[1]);
		T.nl = T.stop[0] = T.stop[1] = -1;
	}
	if (detach)
		dump_links(LINK_DETACH_ALL, false);
	free(T.attached);
	T.attached = NULL;
	T.attached_cap = 0;
}

/*
 * The interface names alone (the kmod mechanism: the module runs the
 * programs, which find the names of cb[]'s ifindexes in @ifinfo_fd): the
 * same thread keeps the map, no filter is attached.  0 or -errno.
 */
int enf_ifinfo_watch(int ifinfo_fd)
{
	return tc_start(-1, -1, ifinfo_fd);
}

void enf_ifinfo_unwatch(void)
{
	tc_stop(false);
}

/* ----- the ops ---------------------------------------------------------------- */

int enf_ifinfo_create(struct vault_objs *o, char *err, size_t len)
{
	o->ifinfo_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ebpf_ifinfo",
				      sizeof(__u32), sizeof(struct cg_ifinfo),
				      ENF_TC_IFINFO_MAX, NULL);
	if (o->ifinfo_fd < 0) {
		int e = -errno;

		o->ifinfo_fd = -1;
		snprintf(err, len, "creating maps: %s", strerror(-e));
		return e;
	}
	return 0;
}

static int tc_attach(struct vault_objs *o, char *err, size_t len)
{
	int r = tc_start(o->disp[CG_INPUT], o->disp[CG_OUTPUT], o->ifinfo_fd);

	if (r)
		snprintf(err, len, "attaching tc filters: %s", strerror(-r));
	return r;
}

/* The filters stayed; attach to the interfaces created meanwhile. */
static void tc_readopt(struct vault_objs *o)
{
	int r = tc_start(o->disp[CG_INPUT], o->disp[CG_OUTPUT], o->ifinfo_fd);

	if (r)
		log_err("tc: re-attaching failed: %s\n", strerror(-r));
}

static void tc_detach(struct vault_objs *o)
{
	(void)o;
	tc_stop(true);
}

const struct enf_mech_ops enf_mech_tc = {
	.name = "tc",
	.hooks = "no netfilter BPF programs on this kernel: tc clsact on every interface",
	.cg = CG_TC,
	.conntrack = false,
	/* ingress runs INPUT and FORWARD */
	.dispatchers = (1u << CG_INPUT) | (1u << CG_OUTPUT),
	.create_maps = enf_ifinfo_create,
	.attach = tc_attach,
	.readopt = tc_readopt,
	.detach = tc_detach,
};
