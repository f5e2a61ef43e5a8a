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
 * enforce_shutdown() removes them.
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
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_enforce.h"
#include "log.h"

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
	struct cg_ifinfo v;
	__u32 key = ifindex;
	int r, i;

	enf_tc_ifinfo(&v, name, type);
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

static void detach_one(unsigned int ifindex)
{
	int i;

	for (i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = i ? BPF_TC_EGRESS : BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = ENF_TC_HANDLE,
			    .priority = ENF_TC_PRIO);

		bpf_tc_detach(&hook, &o);
	}
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
	static char buf[32768];
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int r = 0;

	if (s < 0)
		return -errno;
	if (send(s, &req, sizeof(req), 0) < 0) {
		r = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
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
			pthread_mutex_lock(&T.lock);
			handle_link(nh, mode, force);
			pthread_mutex_unlock(&T.lock);
		}
	}
out:
	close(s);
	return r;
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
