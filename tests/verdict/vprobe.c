// SPDX-License-Identifier: GPL-2.0
/*
 * vprobe: traffic for the differential verdict suite (tests/guest/verdict-*.sh),
 * run inside a QEMU guest only.
 *
 *   vprobe serve [-6] PORT...   TCP and UDP listeners on 0.0.0.0:PORT (-6:
 *                               [::]:PORT, IPv6 only) in the current netns:
 *                               UDP datagrams are echoed, TCP
 *                               connections are accepted and closed once the
 *                               peer resets them (the server never sends a
 *                               FIN: the packet count of a probe is fixed)
 *   vprobe run FILE RUN [MS]    every probe of FILE at once, each in its netns;
 *                               prints "NAME RESULT" per probe, in file order
 *
 * FILE lines: NAME NETNS PROTO SRC DST DPORT SPORT [SIZE [OPTS]]
 *   NETNS  "root" or a name in /run/netns
 *   PROTO  tcp | udp | icmp (ICMPv6 echo to an IPv6 DST)
 *   SRC    source address to bind, or "-"; an address with a ':' (SRC or
 *          DST) makes an IPv6 probe
 *   SPORT  0 (ephemeral), a port, or BASE+ (BASE + RUN: a fresh conntrack
 *          tuple in every run, so no entry of an earlier run is reused)
 *   SIZE   udp/icmp payload bytes (default 16; > MTU makes fragments, sent
 *          with DF clear)
 *   OPTS   IPv6 extension headers on every packet of the probe, by the
 *          socket's sticky options: "hbh" (hop-by-hop, a PadN), "dsto"
 *          (destination options, a PadN), "srh" (a segment routing header,
 *          type 4, segments left 0: its receiver needs seg6_enabled), joined
 *          with ","; other words (e.g. local-frag) are tags for the caller
 * Results: ok, refused (RST or ICMP port unreachable), unreach (other ICMP
 * error), timeout (nothing within MS, default 800: below the 1 s SYN RTO so
 * a dropped connect is exactly one SYN), error:...; an ICMPv6 "administratively
 * prohibited" (EACCES) reads unreach too.
 * A TCP probe that connects closes with SO_LINGER 0: SYN, SYN/ACK, ACK, RST.
 * ICMP echo ids are RUN * 64 + line, so each run has fresh conntrack tuples.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXP 256

struct probe {
	char name[64], ns[32], proto[8], src[48], dst[48], sport[16], opts[64];
	int dport, size, fd, done, id, v6;
	char result[64];
};

static struct probe pr[MAXP];
static int np;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned short cksum(const void *p, int n)
{
	const unsigned short *w = p;
	unsigned long s = 0;

	for (; n > 1; n -= 2)
		s += *w++;
	if (n)
		s += *(const unsigned char *)w;
	s = (s >> 16) + (s & 0xffff);
	s += s >> 16;
	return ~s;
}

static int enter_ns(const char *ns)
{
	char path[128];
	int fd, r;

	snprintf(path, sizeof(path), "%s%s", strcmp(ns, "root") ? "/run/netns/" : "",
		 strcmp(ns, "root") ? ns : "/proc/1/ns/net");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	r = setns(fd, CLONE_NEWNET);
	close(fd);
	return r;
}

/* An address and port of either family, for bind, connect and sendto. */
union sockaddr_any {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

static void set_addr(union sockaddr_any *a, int v6, const char *text, int port)
{
	memset(a, 0, sizeof(*a));
	if (v6) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		if (text)
			inet_pton(AF_INET6, text, &a->in6.sin6_addr);
	} else {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons(port);
		if (text)
			inet_pton(AF_INET, text, &a->in.sin_addr);
	}
}

static socklen_t addr_len(int v6)
{
	return v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/*
 * The IPv6 extension headers OPTS asks for, as sticky socket options
 * (RFC 3542): each header 8 bytes, a PadN option filling a hop-by-hop or
 * destination options header; the SRH lists DST as its only segment.
 */
static int set_ext_headers(int fd, const struct probe *p)
{
	unsigned char opt8[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };	/* next, len 0, PadN(4) */
	unsigned char srh[24] = { 0, 2, 4, 0, 0, 0, 0, 0 };	/* len 2, type 4, left 0, last 0 */

	if (strstr(p->opts, "hbh") &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_HOPOPTS, opt8, sizeof(opt8)))
		return -1;
	if (strstr(p->opts, "dsto") &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_DSTOPTS, opt8, sizeof(opt8)))
		return -1;
	if (strstr(p->opts, "srh")) {
		inet_pton(AF_INET6, p->dst, srh + 8);
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, srh, sizeof(srh)))
			return -1;
	}
	return 0;
}

static void start(struct probe *p, int run)
{
	union sockaddr_any sa, da;
	int one = 1, type, proto, pmtu = IP_PMTUDISC_DONT, pmtu6 = IPV6_PMTUDISC_DONT;
	int port = 0;
	char buf[65536];

	if (enter_ns(p->ns)) {
		snprintf(p->result, sizeof(p->result), "error:netns-%s", p->ns);
		p->done = 1;
		return;
	}
	if (!strcmp(p->proto, "tcp"))
		type = SOCK_STREAM, proto = 0;
	else if (!strcmp(p->proto, "udp"))
		type = SOCK_DGRAM, proto = 0;
	else
		type = SOCK_RAW, proto = p->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	p->fd = socket(p->v6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK, proto);
	if (p->fd < 0)
		goto err;
	setsockopt(p->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (p->v6) {
		setsockopt(p->fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu6, sizeof(pmtu6));
		if (set_ext_headers(p->fd, p))
			goto err;
	} else {
		setsockopt(p->fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	}
	if (p->sport[0] && strcmp(p->sport, "0")) {
		port = atoi(p->sport);
		if (p->sport[strlen(p->sport) - 1] == '+')
			port += run;
	}
	set_addr(&sa, p->v6, strcmp(p->src, "-") ? p->src : NULL, port);
	if ((strcmp(p->src, "-") || port) &&
	    bind(p->fd, &sa.sa, addr_len(p->v6)))
		goto err;
	set_addr(&da, p->v6, p->dst, 0);
	if (type == SOCK_RAW) {
		/* ICMP's and ICMPv6's echo headers have the same layout */
		struct icmphdr *ic = (struct icmphdr *)buf;

		memset(buf, 'v', sizeof(struct icmphdr) + p->size);
		/* ICMPv6: the kernel fills in the checksum (RFC 3542 3.1) */
		ic->type = p->v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
		ic->code = 0;
		ic->un.echo.id = htons(p->id);
		ic->un.echo.sequence = htons(1);
		ic->checksum = 0;
		ic->checksum = cksum(buf, sizeof(*ic) + p->size);
		if (sendto(p->fd, buf, sizeof(*ic) + p->size, 0,
			   &da.sa, addr_len(p->v6)) < 0)
			goto err;
	} else {
		set_addr(&da, p->v6, p->dst, p->dport);
		if (connect(p->fd, &da.sa, addr_len(p->v6)) &&
		    errno != EINPROGRESS)
			goto err;
		if (type == SOCK_DGRAM) {
			memset(buf, 'v', p->size);
			if (send(p->fd, buf, p->size, 0) < 0)
				goto err;
		}
	}
	return;
err:
	snprintf(p->result, sizeof(p->result), "error:%s", strerror(errno));
	p->done = 1;
}

static void finish_err(struct probe *p, int e)
{
	snprintf(p->result, sizeof(p->result), "%s",
		 e == ECONNREFUSED ? "refused" :
		 (e == EHOSTUNREACH || e == ENETUNREACH || e == EACCES) ? "unreach" :
		 e == ETIMEDOUT ? "timeout" : strerror(e));
	p->done = 1;
}

/*
 * The probe's echo request quoted by an ICMPv6 error: past the quoted
 * IPv6 header and the extension headers the probe may have sent.
 */
static int quotes_echo6(const unsigned char *q, const unsigned char *end, int id)
{
	const struct ip6_hdr *ip = (const struct ip6_hdr *)q;
	int next;

	if (q + sizeof(*ip) > end)
		return 0;
	next = ip->ip6_nxt;
	q += sizeof(*ip);
	while (next == IPPROTO_HOPOPTS || next == IPPROTO_DSTOPTS ||
	       next == IPPROTO_ROUTING) {
		if (q + 8 > end)
			return 0;
		next = q[0];
		q += (q[1] + 1) * 8;
	}
	if (next != IPPROTO_ICMPV6 || q + 8 > end)
		return 0;
	return ((const struct icmp6_hdr *)q)->icmp6_type == ICMP6_ECHO_REQUEST &&
	       ntohs(((const struct icmp6_hdr *)q)->icmp6_id) == id;
}

/* ICMPv6 raw sockets read from the ICMPv6 header on (no IP header) */
static void icmp6_event(struct probe *p)
{
	unsigned char buf[65536];
	ssize_t n;

	while ((n = recv(p->fd, buf, sizeof(buf), 0)) > 0) {
		const struct icmp6_hdr *ic = (const struct icmp6_hdr *)buf;

		if (n < 8)
			continue;
		if (ic->icmp6_type == ICMP6_ECHO_REPLY && ntohs(ic->icmp6_id) == p->id) {
			strcpy(p->result, "ok");
			p->done = 1;
			return;
		}
		if ((ic->icmp6_type == ICMP6_DST_UNREACH ||
		     ic->icmp6_type == ICMP6_TIME_EXCEEDED) &&
		    quotes_echo6(buf + 8, buf + n, p->id)) {
			strcpy(p->result, "unreach");
			p->done = 1;
			return;
		}
	}
}

static void event(struct probe *p, short rev)
{
	char buf[65536];
	int e = 0;
	socklen_t el = sizeof(e);
	ssize_t n;

	if (!strcmp(p->proto, "tcp")) {
		getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e) {
			finish_err(p, e);
		} else if (rev & POLLOUT) {
			struct linger l = { 1, 0 };

			setsockopt(p->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			strcpy(p->result, "ok");
			p->done = 1;
		}
		return;
	}
	if (!strcmp(p->proto, "udp")) {
		n = recv(p->fd, buf, sizeof(buf), 0);
		if (n >= 0) {
			strcpy(p->result, "ok");
			p->done = 1;
		} else if (errno != EAGAIN) {
			finish_err(p, errno);
		}
		return;
	}
	if (p->v6) {
		icmp6_event(p);
		return;
	}
	while ((n = recv(p->fd, buf, sizeof(buf), 0)) > 0) {
		struct iphdr *ip = (struct iphdr *)buf;
		struct icmphdr *ic = (struct icmphdr *)(buf + ip->ihl * 4);

		if (n < ip->ihl * 4 + 8)
			continue;
		if (ic->type == ICMP_ECHOREPLY && ntohs(ic->un.echo.id) == p->id) {
			strcpy(p->result, "ok");
			p->done = 1;
			return;
		}
		if (ic->type == ICMP_DEST_UNREACH || ic->type == ICMP_TIME_EXCEEDED) {
			struct iphdr *in = (struct iphdr *)(ic + 1);
			struct icmphdr *iic;

			if ((char *)in + sizeof(*in) > buf + n)
				continue;
			iic = (struct icmphdr *)((char *)in + in->ihl * 4);
			if ((char *)iic + 8 <= buf + n &&
			    iic->type == ICMP_ECHO && ntohs(iic->un.echo.id) == p->id) {
				snprintf(p->result, sizeof(p->result), "unreach");
				p->done = 1;
				return;
			}
		}
	}
}

static int run_probes(const char *file, int run, int ms)
{
	FILE *f = fopen(file, "r");
	char line[512];
	struct pollfd pf[MAXP];
	int idx[MAXP];
	long deadline, t0;
	int stalled;

	if (!f) {
		perror(file);
		return 2;
	}
	while (fgets(line, sizeof(line), f) && np < MAXP) {
		struct probe *p = &pr[np];
		int k;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		p->size = 16;
		k = sscanf(line, "%63s %31s %7s %47s %47s %d %15s %d %63s", p->name,
			   p->ns, p->proto, p->src, p->dst, &p->dport, p->sport,
			   &p->size, p->opts);
		if (k < 7) {
			fprintf(stderr, "bad probe line: %s", line);
			return 2;
		}
		p->v6 = strchr(p->src, ':') || strchr(p->dst, ':');
		p->id = (run * 64 + np) & 0xffff;
		p->fd = -1;
		np++;
	}
	fclose(f);
	t0 = now_ms();
	deadline = t0 + ms;
	for (int i = 0; i < np; i++)
		start(&pr[i], run);
	enter_ns("root");
	for (;;) {
		int n = 0;
		long left = deadline - now_ms();

		for (int i = 0; i < np; i++) {
			if (pr[i].done)
				continue;
			pf[n].fd = pr[i].fd;
			pf[n].events = POLLIN | (strcmp(pr[i].proto, "tcp") ? 0 : POLLOUT);
			idx[n++] = i;
		}
		if (!n || left <= 0)
			break;
		if (poll(pf, n, left) < 0)
			break;
		for (int j = 0; j < n; j++)
			if (pf[j].revents)
				event(&pr[idx[j]], pf[j].revents);
	}
	/*
	 * A dropped SYN is retransmitted after 1 s (its counters then differ
	 * from a run without the stall); a stalled guest makes a run
	 * unreliable: exit 3, the caller repeats it with fresh counters.
	 */
	stalled = now_ms() - t0 >= 950;
	for (int i = 0; i < np; i++) {
		if (!pr[i].done)
			strcpy(pr[i].result, "timeout");
		if (pr[i].fd >= 0)
			close(pr[i].fd);
		printf("%s %s\n", pr[i].name, pr[i].result);
	}
	return stalled ? 3 : 0;
}

/* The UDP listener's options: replies unfragmented-or-not as sent, from
 * the address each datagram was sent to (its packet info).
 */
static void serve_udp_opts(int u, int v6)
{
	int one = 1, pmtu = IP_PMTUDISC_DONT, pmtu6 = IPV6_PMTUDISC_DONT;

	if (v6) {
		setsockopt(u, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu6, sizeof(pmtu6));
		setsockopt(u, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
	} else {
		setsockopt(u, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
		setsockopt(u, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	}
}

static int serve(int argc, char **argv)
{
	struct pollfd pf[1024];
	int n = 0, one = 1, v6 = argc > 0 && !strcmp(argv[0], "-6");
	char buf[65536];

	for (int i = v6; i < argc; i++) {
		union sockaddr_any a;
		int t = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
		int u = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);

		set_addr(&a, v6, NULL, atoi(argv[i]));
		setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (v6) {
			setsockopt(t, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
			setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		}
		serve_udp_opts(u, v6);
		if (bind(t, &a.sa, addr_len(v6)) || listen(t, 1024) ||
		    bind(u, &a.sa, addr_len(v6))) {
			perror("vprobe serve: bind");
			return 1;
		}
		pf[n].fd = t, pf[n++].events = POLLIN;
		pf[n].fd = u, pf[n++].events = POLLIN;
	}
	int nlisten = n;

	for (;;) {
		if (poll(pf, n, -1) < 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (!pf[i].revents)
				continue;
			if (i < nlisten && (i & 1) == 0) {
				int c = accept4(pf[i].fd, NULL, NULL, SOCK_NONBLOCK);

				if (c >= 0 && n < 1024)
					pf[n].fd = c, pf[n].events = POLLIN, pf[n++].revents = 0;
				else if (c >= 0)
					close(c);
			} else if (i < nlisten) {
				/* reply from the address the datagram was sent to */
				union sockaddr_any from;
				char cb[CMSG_SPACE(sizeof(struct in6_pktinfo))];
				struct iovec iov = { buf, sizeof(buf) };
				struct msghdr m = { .msg_name = &from,
						    .msg_namelen = sizeof(from),
						    .msg_iov = &iov, .msg_iovlen = 1,
						    .msg_control = cb,
						    .msg_controllen = sizeof(cb) };
				ssize_t r = recvmsg(pf[i].fd, &m, 0);

				if (r >= 0) {
					struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

					if (cm && cm->cmsg_level == IPPROTO_IP &&
					    cm->cmsg_type == IP_PKTINFO)
						((struct in_pktinfo *)CMSG_DATA(cm))->ipi_ifindex = 0;
					else if (cm && cm->cmsg_level == IPPROTO_IPV6 &&
						 cm->cmsg_type == IPV6_PKTINFO)
						((struct in6_pktinfo *)CMSG_DATA(cm))->ipi6_ifindex = 0;
					else
						m.msg_controllen = 0;
					iov.iov_len = r;
					sendmsg(pf[i].fd, &m, 0);
				}
			} else {
				ssize_t r = recv(pf[i].fd, buf, sizeof(buf), 0);

				if (r <= 0 && !(r < 0 && errno == EAGAIN)) {
					close(pf[i].fd);
					pf[i] = pf[--n];
					i--;
				}
			}
		}
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "serve"))
		return serve(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "run"))
		return run_probes(argv[2], atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 800);
	fprintf(stderr, "usage: vprobe serve [-6] PORT... | vprobe run FILE RUN [MS]\n");
	return 2;
}
