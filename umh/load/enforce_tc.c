// SPDX-License-Identifier: GPL-2.0
/*
 * The TC mechanism (kernels without BPF_PROG_TYPE_NETFILTER, i.e. 6.1):
 * the ingress and egress dispatchers go on clsact of every interface of the
 * initial network namespace, lo included, and on every interface created
 * later: a thread listens to rtnetlink (RTMGRP_LINK) for the helper's whole
 * life.  It also keeps the ifinfo map (ifindex -> name, L2 header length)
 * that the programs use for -i/-o and to find the IP header.
 *
 * Filters use handle ENF_TC_HANDLE, priority ENF_TC_PRIO, and are attached
 * with BPF_TC_F_REPLACE, so a restarted helper re-attaching is idempotent.
 * They are netlink-owned: they survive the helper (never fail open) and
 * enforce_shutdown() removes them, and with them each clsact qdisc that
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
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "load/bpf_enforce.h"
#include "lib/log.h"

static struct {
	int in_fd, out_fd, ifinfo_fd;
	int nl;			/* RTMGRP_LINK listener */
	int stop[2];		/* pipe: wake the thread */
	pthread_t thr;
	bool running;
	pthread_mutex_t lock;
	unsigned char *attached;	/* bitmap by ifindex */
	unsigned int attached_bits;
} T = { .nl = -1, .stop = { -1, -1 }, .lock = PTHREAD_MUTEX_INITIALIZER };

void enf_tc_ifinfo(struct cg_ifinfo *v, const char *name, unsigned int type)
{
	memset(v, 0, sizeof(*v));
	strncpy(v->name, name, sizeof(v->name) - 1);
	/* Ethernet-like devices (and lo) carry a 14-byte header at TC;
	 * tunnels and L3 devices (tun, wireguard, ipip) none. */
	v->l2len = (type == ARPHRD_ETHER || type == ARPHRD_LOOPBACK) ? 14 : 0;
}

/* cg_ifinfo.flags: we created this interface's clsact qdisc */
#define ENF_IF_OWN_CLSACT	0x1

static bool is_attached(unsigned int ifindex)
{
	return ifindex < T.attached_bits &&
	       (T.attached[ifindex / 8] & (1u << (ifindex % 8)));
}

static void set_attached(unsigned int ifindex, bool on)
{
	if (ifindex >= T.attached_bits) {
		unsigned int nb = (ifindex + 1024) & ~1023u;
		unsigned char *a;

		if (!on)
			return;
		a = realloc(T.attached, nb / 8);
		if (!a)
			return;
		memset(a + T.attached_bits / 8, 0, (nb - T.attached_bits) / 8);
		T.attached = a;
		T.attached_bits = nb;
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
	int r, i;

	enf_tc_ifinfo(&v, name, type);
	if (!bpf_map_lookup_elem(T.ifinfo_fd, &key, &old))
		v.flags = old.flags;	/* a restart or a renamed link */
	/* the record first: the programs read it for every packet */
	if (bpf_map_update_elem(T.ifinfo_fd, &key, &v, BPF_ANY))
		return -errno;
	if (!force && is_attached(ifindex))
		return 0;
	for (i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = i ? BPF_TC_EGRESS : BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = ENF_TC_HANDLE,
			    .priority = ENF_TC_PRIO,
			    .prog_fd = i ? T.out_fd : T.in_fd,
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
 * Send the rtnetlink dump request @req; call @fn for each record.  0 or
 * -errno.  (Callbacks may dump again: the buffer is per call.)
 */
static int nl_dump(const struct nlmsghdr *req,
		   void (*fn)(struct nlmsghdr *nh, void *arg), void *arg)
{
	const size_t cap = 32768;
	char *buf = malloc(cap);
	int s, r = 0;

	if (!buf)
		return -ENOMEM;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0) {
		free(buf);
		return -errno;
	}
	if (send(s, req, req->nlmsg_len, 0) < 0) {
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
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETTFILTER,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex,
			.tcm_parent = parent },
	};
	int n = 0, r = nl_dump(&req.nh, count_filter, &n);

	return r ? r : n;
}

static void detach_one(unsigned int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, both, .ifindex = (int)ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	struct cg_ifinfo v;
	__u32 key = ifindex;
	int i;

	for (i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = i ? BPF_TC_EGRESS : BPF_TC_INGRESS);
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

/* Handle one RTM_NEWLINK/RTM_DELLINK; @mode: 0 attach, 1 detach-all */
static void handle_link(struct nlmsghdr *nh, int mode, bool force)
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
	if (mode == 1) {
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
	int mode;
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
static int dump_links(int mode, bool force)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	struct link_walk w = { .mode = mode, .force = force };

	return nl_dump(&req.nh, walk_link, &w);
}

static void *watch(void *arg)
{
	static char buf[32768];
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
				dump_links(0, false);
			}
			continue;
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			pthread_mutex_lock(&T.lock);
			handle_link(nh, 0, false);
			pthread_mutex_unlock(&T.lock);
		}
	}
	return NULL;
}

int enf_tc_start(int ingress_fd, int egress_fd, int ifinfo_fd)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	int r;

	if (T.running)
		return 0;
	T.in_fd = ingress_fd;
	T.out_fd = egress_fd;
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
	r = dump_links(0, true);
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

void enf_tc_stop(bool detach)
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
		dump_links(1, false);
	free(T.attached);
	T.attached = NULL;
	T.attached_bits = 0;
}
