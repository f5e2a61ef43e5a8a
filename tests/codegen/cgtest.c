// SPDX-License-Identifier: GPL-2.0
/*
 * Code-generation tests: compile rule sets with ebpfilter's own front and
 * back end (umh/ir/, umh/cgen/, umh/load/), load them, and run
 * crafted packets through them with BPF_PROG_TEST_RUN.  Static musl binary,
 * run inside a guest (never on the build machine's kernel).
 *
 *   cgtest [-v] [-t SUBSTRING]
 *
 * Runs every case on every mechanism the kernel has (6.12: netfilter and
 * tc programs; 6.1: tc), then prints "N passed, N failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>
#include <linux/netfilter.h>

#include "load/bpf_enforce.h"
#include "iptblob.h"

static int passed, failed, verbose;
static const char *filter;

struct pkt {
	const char *proto;	/* "tcp" "udp" "icmp" or a number */
	const char *src, *dst;
	int sport, dport;
	const char *flags;	/* tcp: letters S A F R P U */
	int type, code;		/* icmp */
	int fragoff, mf;
	int l4bytes;		/* bytes of transport header+data; 0 = full */
	const char *in, *out;	/* tc: device names (ifindex 1 and 2) */
};

enum { ACC = 1, DRP = 0, FAILLOAD = 2 };

struct tcase {
	const char *name;
	const char *table;
	int hook;		/* CG_INPUT... */
	struct pkt p;
	int expect;		/* ACC, DRP, FAILLOAD */
	const char *count_chain;	/* optional counter check */
	int count_rule;
	int count_pkts;
	int mech_only;		/* 0 both, 1 netfilter only, 2 tc only */
};

#define T(...) "*filter\n" __VA_ARGS__ "COMMIT\n"
#define TCP(s, d, sp, dp, f) { .proto = "tcp", .src = s, .dst = d, .sport = sp, .dport = dp, .flags = f }
#define UDP(s, d, sp, dp) { .proto = "udp", .src = s, .dst = d, .sport = sp, .dport = dp }
#define ICMP(s, d, t, c) { .proto = "icmp", .src = s, .dst = d, .type = t, .code = c }

static const struct tcase cases[] = {
	{ "policy accept", T(":INPUT ACCEPT\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 80, "S"), ACC, "INPUT", 0, 1 },
	{ "policy drop", T(":INPUT DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 80, "S"), DRP, "INPUT", 0, 1 },
	{ "forward policy", T(":FORWARD DROP\n"), CG_FORWARD,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "output policy", T(":OUTPUT DROP\n"), CG_OUTPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "output accept", T(":OUTPUT ACCEPT\n:INPUT DROP\n"), CG_OUTPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC },
	{ "src match", T("-A INPUT -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  UDP("10.1.2.3", "2.2.2.2", 1, 2), DRP, "INPUT", 1, 1 },
	{ "src nomatch", T("-A INPUT -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  UDP("11.1.2.3", "2.2.2.2", 1, 2), ACC, "INPUT", 1, 0 },
	{ "src inv", T("-A INPUT ! -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  UDP("11.1.2.3", "2.2.2.2", 1, 2), DRP },
	{ "src inv nomatch", T("-A INPUT ! -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  UDP("10.1.2.3", "2.2.2.2", 1, 2), ACC },
	{ "dst host", T("-A INPUT -d 192.168.1.1 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "192.168.1.1", 1, 2), DRP },
	{ "dst host other", T("-A INPUT -d 192.168.1.1 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "192.168.1.2", 1, 2), ACC },
	{ "proto", T("-A INPUT -p tcp -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1, 2, "A"), DRP },
	{ "proto other", T("-A INPUT -p tcp -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC },
	{ "proto inv", T("-A INPUT ! -p tcp -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "proto num", T("-A INPUT -p 47 -j DROP\n"), CG_INPUT,
	  { .proto = "47", .src = "1.1.1.1", .dst = "2.2.2.2" }, DRP },
	{ "tcp dport", T("-A INPUT -p tcp -m tcp --dport 22 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "S"), DRP },
	{ "tcp dport other", T("-A INPUT -p tcp -m tcp --dport 22 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 23, "S"), ACC },
	{ "tcp dport range", T("-A INPUT -p tcp -m tcp --dport 20:30 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 30, "S"), DRP },
	{ "tcp dport range low", T("-A INPUT -p tcp -m tcp --dport 20:30 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 19, "S"), ACC },
	{ "tcp dport range high", T("-A INPUT -p tcp -m tcp --dport 20:30 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 31, "S"), ACC },
	{ "tcp dport inv", T("-A INPUT -p tcp -m tcp ! --dport 22 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 23, "S"), DRP },
	{ "tcp dport inv2", T("-A INPUT -p tcp -m tcp ! --dport 22 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "S"), ACC },
	{ "tcp sport", T("-A INPUT -p tcp -m tcp --sport 1024:65535 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 40000, 22, "S"), DRP },
	{ "tcp sport low", T("-A INPUT -p tcp -m tcp --sport 1024:65535 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 80, 22, "S"), ACC },
	{ "tcp syn", T("-A INPUT -p tcp -m tcp --syn -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "S"), DRP },
	{ "tcp syn-ack", T("-A INPUT -p tcp -m tcp --syn -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "SA"), ACC },
	{ "tcp !syn", T("-A INPUT -p tcp -m tcp ! --syn -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "A"), DRP },
	{ "tcp flags", T("-A INPUT -p tcp -m tcp --tcp-flags ALL FIN,PSH,URG -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "FPU"), DRP },
	{ "tcp flags no", T("-A INPUT -p tcp -m tcp --tcp-flags ALL FIN,PSH,URG -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1000, 22, "FPUA"), ACC },
	{ "udp dport", T("-A INPUT -p udp -m udp --dport 53 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 5000, 53), DRP },
	{ "udp sport inv", T("-A INPUT -p udp -m udp ! --sport 53 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 53, 5000), ACC },
	{ "icmp type", T("-A INPUT -p icmp -m icmp --icmp-type 8 -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 8, 0), DRP },
	{ "icmp type other", T("-A INPUT -p icmp -m icmp --icmp-type 8 -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 0, 0), ACC },
	{ "icmp type/code", T("-A INPUT -p icmp -m icmp --icmp-type 3/1 -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 3, 1), DRP },
	{ "icmp type/code other", T("-A INPUT -p icmp -m icmp --icmp-type 3/1 -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 3, 2), ACC },
	{ "icmp inv", T("-A INPUT -p icmp -m icmp ! --icmp-type 8 -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 0, 0), DRP },
	{ "icmp any", T("-A INPUT -p icmp -m icmp --icmp-type any -j DROP\n"), CG_INPUT,
	  ICMP("1.1.1.1", "2.2.2.2", 13, 0), DRP },
	{ "multiport", T("-A INPUT -p tcp -m multiport --dports 22,80,1000:2000 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 5, 80, "S"), DRP },
	{ "multiport range", T("-A INPUT -p tcp -m multiport --dports 22,80,1000:2000 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 5, 1500, "S"), DRP },
	{ "multiport miss", T("-A INPUT -p tcp -m multiport --dports 22,80,1000:2000 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 80, 81, "S"), ACC },
	{ "multiport inv", T("-A INPUT -p udp -m multiport ! --dports 22,80 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 5, 81), DRP },
	{ "multiport either", T("-A INPUT -p udp -m multiport --ports 53 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 53, 9999), DRP },
	{ "multiport sports", T("-A INPUT -p udp -m multiport --sports 53 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 9999, 53), ACC },
	{ "iprange", T("-A INPUT -m iprange --src-range 10.0.0.5-10.0.0.10 -j DROP\n"), CG_INPUT,
	  UDP("10.0.0.7", "2.2.2.2", 1, 2), DRP },
	{ "iprange out", T("-A INPUT -m iprange --src-range 10.0.0.5-10.0.0.10 -j DROP\n"), CG_INPUT,
	  UDP("10.0.0.11", "2.2.2.2", 1, 2), ACC },
	{ "iprange edge", T("-A INPUT -m iprange --src-range 10.0.0.5-10.0.0.10 -j DROP\n"), CG_INPUT,
	  UDP("10.0.0.5", "2.2.2.2", 1, 2), DRP },
	{ "iprange inv", T("-A INPUT -m iprange ! --dst-range 128.0.0.0-255.255.255.255 -j DROP\n"), CG_INPUT,
	  UDP("10.0.0.1", "2.2.2.2", 1, 2), DRP },
	{ "iprange high", T("-A INPUT -m iprange --dst-range 128.0.0.0-255.255.255.255 -j DROP\n"), CG_INPUT,
	  UDP("10.0.0.1", "200.2.2.2", 1, 2), DRP },
	{ "comment", T("-A INPUT -p udp -m comment --comment hello -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "fragment", T("-A INPUT -f -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .fragoff = 10 }, DRP },
	{ "fragment first", T("-A INPUT -f -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .mf = 1, .dport = 5 }, ACC },
	{ "fragment inv", T("-A INPUT ! -f -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .fragoff = 10 }, ACC },
	{ "frag tcp no match", T(":INPUT ACCEPT\n-A INPUT -p tcp -m tcp --dport 0:65535 -j DROP\n"), CG_INPUT,
	  { .proto = "tcp", .src = "1.1.1.1", .dst = "2.2.2.2", .fragoff = 5 }, ACC },
	{ "hotdrop tcp short", T("-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"), CG_INPUT,
	  { .proto = "tcp", .src = "1.1.1.1", .dst = "2.2.2.2", .dport = 22, .l4bytes = 10 }, DRP },
	{ "hotdrop needs ipt_ip match", T("-A INPUT -s 9.9.9.9 -p tcp -m tcp --dport 22 -j ACCEPT\n"), CG_INPUT,
	  { .proto = "tcp", .src = "1.1.1.1", .dst = "2.2.2.2", .dport = 22, .l4bytes = 10 }, ACC },
	{ "hotdrop tcp fragoff 1", T("-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"), CG_INPUT,
	  { .proto = "tcp", .src = "1.1.1.1", .dst = "2.2.2.2", .fragoff = 1 }, DRP },
	{ "udp fragoff 1 no hotdrop", T("-A INPUT -p udp -m udp --dport 22 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .fragoff = 1 }, ACC },
	{ "hotdrop udp short", T("-A INPUT -p udp -m udp --dport 22 -j ACCEPT\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .l4bytes = 6 }, DRP },
	{ "user chain drop", T(":USR -\n-A INPUT -p tcp -j USR\n-A USR -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  TCP("10.0.0.1", "2.2.2.2", 1, 2, "S"), DRP, "USR", 1, 1 },
	{ "user chain return", T(":INPUT DROP\n:USR -\n-A INPUT -p tcp -j USR\n-A INPUT -s 11.0.0.1 -j ACCEPT\n-A USR -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  TCP("11.0.0.1", "2.2.2.2", 1, 2, "S"), ACC, "USR", 0, 1 },
	{ "user chain policy", T(":INPUT DROP\n:USR -\n-A INPUT -p tcp -j USR\n-A INPUT -s 11.0.0.1 -j ACCEPT\n-A USR -s 10.0.0.0/8 -j DROP\n"), CG_INPUT,
	  TCP("12.0.0.1", "2.2.2.2", 1, 2, "S"), DRP, "INPUT", 0, 1 },
	{ "explicit return", T(":USR -\n-A INPUT -j USR\n-A INPUT -j DROP\n-A USR -j RETURN\n-A USR -j ACCEPT\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "goto returns to caller of caller", T(":A -\n:B -\n-A INPUT -j A\n-A INPUT -j DROP\n-A A -g B\n-A A -j ACCEPT\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "jump returns to caller", T(":A -\n:B -\n-A INPUT -j A\n-A INPUT -j DROP\n-A A -j B\n-A A -j ACCEPT\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC },
	{ "goto from top then return = policy", T(":INPUT DROP\n:A -\n-A INPUT -g A\n-A INPUT -j ACCEPT\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "top-level return = policy", T(":INPUT ACCEPT\n-A INPUT -j RETURN\n-A INPUT -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, "INPUT", 0, 1 },
	{ "count only rule", T(":INPUT DROP\n-A INPUT -p udp\n-A INPUT -p udp -j ACCEPT\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, "INPUT", 1, 1 },
	{ "shared chain", T(":C -\n-A INPUT -p udp -j C\n-A FORWARD -p udp -j C\n-A OUTPUT -p udp -j C\n-A C -d 2.2.2.2 -j DROP\n"), CG_FORWARD,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "nested 5 ok", T(":A -\n:B -\n:C -\n:D -\n:E -\n-A INPUT -j A\n-A A -j B\n-A B -j C\n-A C -j D\n-A D -j E\n-A E -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP },
	{ "nested too deep", T(":A -\n:B -\n:C -\n:D -\n:E -\n:F -\n:G -\n-A INPUT -j A\n-A A -j B\n-A B -j C\n-A C -j D\n-A D -j E\n-A E -j F\n-A F -j G\n-A G -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), FAILLOAD },
	{ "state invalid (no conntrack in test run)", T("-A INPUT -m state --state INVALID -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, 1 },
	{ "ctstate new no match", T("-A INPUT -m conntrack --ctstate NEW,ESTABLISHED -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, NULL, 0, 0, 1 },
	{ "ctstate inv", T("-A INPUT -m conntrack ! --ctstate NEW,ESTABLISHED -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, 1 },
	{ "state refused on tc", T("-A INPUT -m state --state INVALID -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), FAILLOAD, NULL, 0, 0, 2 },
	{ "tcp-option refused", T("-A INPUT -p tcp -m tcp --tcp-option 2 -j DROP\n"), CG_INPUT,
	  TCP("1.1.1.1", "2.2.2.2", 1, 2, "S"), FAILLOAD },
	/* interfaces: netfilter test runs have in = NULL, out = lo */
	{ "nf -o lo", T("-A INPUT -o lo -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, 1 },
	{ "nf -o l+", T("-A INPUT -o l+ -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, 1 },
	{ "nf -o lox", T("-A INPUT -o lox -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, NULL, 0, 0, 1 },
	{ "nf -i eth0", T("-A INPUT -i eth0 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, NULL, 0, 0, 1 },
	{ "nf ! -i eth0", T("-A INPUT ! -i eth0 -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, 1 },
	{ "tc -i eth0", T("-A INPUT -i eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0" }, DRP, NULL, 0, 0, 2 },
	{ "tc -i eth+", T("-A INPUT -i eth+ -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth12" }, DRP, NULL, 0, 0, 2 },
	{ "tc -i eth0 vs eth01", T("-A INPUT -i eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth01" }, ACC, NULL, 0, 0, 2 },
	{ "tc -i long name", T("-A INPUT -i verylongname123 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "verylongname123" }, DRP, NULL, 0, 0, 2 },
	{ "tc ! -i eth0", T("-A INPUT ! -i eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth1" }, DRP, NULL, 0, 0, 2 },
	{ "tc -o at INPUT never", T("-A INPUT -o eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0" }, ACC, NULL, 0, 0, 2 },
	{ "tc forward -i -o", T("-A FORWARD -i eth0 -o eth1 -j DROP\n"), CG_FORWARD,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth1" }, DRP, NULL, 0, 0, 2 },
	{ "tc forward -o other", T("-A FORWARD -i eth0 -o eth2 -j DROP\n"), CG_FORWARD,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth1" }, ACC, NULL, 0, 0, 2 },
	{ "tc output -o", T("-A OUTPUT -o eth1 -j DROP\n"), CG_OUTPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .out = "eth1" }, DRP, NULL, 0, 0, 2 },
};

/* ---------------------------------------------------------------------- */

static __u16 csum(const void *p, size_t n)
{
	const __u8 *b = p;
	__u32 s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (b[i] << 8) | b[i + 1];
	if (n & 1)
		s += b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((__u16)~s);
}

/* eth (optional) + IPv4 + transport; returns the length; *iplen = tot_len */
static size_t build_pkt(const struct pkt *p, bool eth, unsigned char *buf,
			unsigned int *iplen)
{
	unsigned char *ip = buf + (eth ? 14 : 0), *l4 = ip + 20;
	int proto = !strcmp(p->proto, "tcp") ? 6 : !strcmp(p->proto, "udp") ? 17 :
		    !strcmp(p->proto, "icmp") ? 1 : atoi(p->proto);
	size_t l4len = proto == 6 ? 20 + 8 : proto == 17 ? 8 + 8 : proto == 1 ? 8 + 8 : 16;
	struct in_addr a;

	memset(buf, 0, 14 + 20 + 64);
	if (eth) {
		memset(buf, 0x02, 12);
		buf[12] = 0x08;
		buf[13] = 0x00;
	}
	if (p->fragoff)
		l4len = 16;	/* some payload of a later fragment */
	if (p->l4bytes)
		l4len = (size_t)p->l4bytes;
	ip[0] = 0x45;
	ip[2] = (unsigned char)((20 + l4len) >> 8);
	ip[3] = (unsigned char)(20 + l4len);
	ip[6] = (unsigned char)(((p->fragoff >> 8) & 0x1f) | (p->mf ? 0x20 : 0));
	ip[7] = (unsigned char)p->fragoff;
	ip[8] = 64;
	ip[9] = (unsigned char)proto;
	inet_pton(AF_INET, p->src, &a);
	memcpy(ip + 12, &a, 4);
	inet_pton(AF_INET, p->dst, &a);
	memcpy(ip + 16, &a, 4);
	memcpy(ip + 10, &(__u16){ csum(ip, 20) }, 2);
	if (!p->fragoff) {
		unsigned char full[64] = { 0 };

		if (proto == 6 || proto == 17) {
			full[0] = (unsigned char)(p->sport >> 8);
			full[1] = (unsigned char)p->sport;
			full[2] = (unsigned char)(p->dport >> 8);
			full[3] = (unsigned char)p->dport;
		}
		if (proto == 6) {
			unsigned char f = 0;

			for (const char *c = p->flags ? p->flags : ""; *c; c++)
				f |= *c == 'F' ? 1 : *c == 'S' ? 2 : *c == 'R' ? 4 :
				     *c == 'P' ? 8 : *c == 'A' ? 16 : *c == 'U' ? 32 : 0;
			full[12] = 5 << 4;
			full[13] = f;
		}
		if (proto == 17) {
			full[4] = 0;
			full[5] = (unsigned char)l4len;
		}
		if (proto == 1) {
			full[0] = (unsigned char)p->type;
			full[1] = (unsigned char)p->code;
		}
		memcpy(l4, full, l4len < sizeof(full) ? l4len : sizeof(full));
	}
	*iplen = (unsigned int)(20 + l4len);
	return (size_t)(l4 - buf) + l4len;
}

struct nf_state_ctx {	/* struct nf_hook_state as test_run reads it */
	__u8 hook, pf;
	__u8 pad[6];
	__u64 in, out, sk, net, okfn;
};

static int ifinfo_fd = -1;

static void set_ifname(__u32 ifindex, const char *name)
{
	struct cg_ifinfo v;

	enf_tc_ifinfo(&v, name ? name : "", 1 /* ARPHRD_ETHER */);
	bpf_map_update_elem(ifinfo_fd, &ifindex, &v, BPF_ANY);
}

/* run @p through the program; 1 accept, 0 drop, -errno */
static int run_pkt(const struct enf_kernel *ek, int fd, int hook,
		   const struct pkt *p, unsigned int *iplen)
{
	static const __u8 nfhook[3] = { NF_INET_LOCAL_IN, NF_INET_FORWARD,
					NF_INET_LOCAL_OUT };
	unsigned char buf[256];
	bool eth = ek->mech == CG_TC || hook != CG_OUTPUT;
	size_t n = build_pkt(p, eth, buf, iplen);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = (__u32)n,
		    .repeat = 1);
	struct nf_state_ctx nctx = { .hook = nfhook[hook], .pf = NFPROTO_IPV4 };
	struct __sk_buff sctx;

	if (ek->mech == CG_NETFILTER) {
		o.ctx_in = &nctx;
		o.ctx_size_in = sizeof(nctx);
	} else {
		memset(&sctx, 0, sizeof(sctx));
		/* ifindex 1 (lo) is the device; its name comes from ifinfo */
		set_ifname(1, hook == CG_OUTPUT ? p->out : p->in);
		set_ifname(2, p->out);
		sctx.ifindex = 1;
		sctx.cb[0] = 2;		/* what the dispatcher passes: */
		sctx.cb[1] = 14;	/* output device, l2len */
		o.ctx_in = &sctx;
		o.ctx_size_in = sizeof(sctx);
	}
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if (ek->mech == CG_NETFILTER)
		return o.retval == NF_ACCEPT ? 1 : o.retval == NF_DROP ? 0 : -ERANGE;
	if ((int)o.retval == TC_ACT_UNSPEC)
		return 1;
	if (o.retval == TC_ACT_SHOT)
		return 0;
	fprintf(stderr, "tc retval %u\n", o.retval);
	return -ERANGE;
}

static void result(bool ok, const char *mech, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void result(bool ok, const char *mech, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		passed++;
	else
		failed++;
	if (ok && !verbose)
		return;
	printf("%s [%s] %s", ok ? "PASS" : "FAIL", mech, name);
	va_start(ap, fmt);
	if (fmt && *fmt) {
		printf(": ");
		vprintf(fmt, ap);
	}
	va_end(ap);
	printf("\n");
}

static void run_case(const struct enf_kernel *ek, const struct tcase *c)
{
	const char *mech = cg_flavor(ek->mech)->name;
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	char err[256] = "";
	int ctr = -1, fd = -1, r, got;
	unsigned int iplen = 0;

	if (filter && !strstr(c->name, filter))
		return;
	if ((c->mech_only == 1 && ek->mech != CG_NETFILTER) ||
	    (c->mech_only == 2 && ek->mech != CG_TC))
		return;
	if (iptblob_build(c->table, &b, err, sizeof(err))) {
		result(false, mech, c->name, "blob: %s", err);
		return;
	}
	iptblob_view(&b, &v);
	r = ir_build(&v, &ir, err, sizeof(err));
	if (!r) {
		ctr = enf_counters_create(ir.nrules);
		r = enf_load_hook(&ir, ek, (enum cg_hook)c->hook, ctr, ifinfo_fd,
				  &fd, err, sizeof(err));
	}
	if (c->expect == FAILLOAD) {
		result(r < 0, mech, c->name, "%s%s", r < 0 ? "refused: " : "loaded, expected a refusal",
		       r < 0 ? err : "");
		goto out;
	}
	if (r) {
		result(false, mech, c->name, "load: %s", err);
		goto out;
	}
	got = run_pkt(ek, fd, c->hook, &c->p, &iplen);
	if (got != c->expect) {
		result(false, mech, c->name, "verdict %s, expected %s",
		       got == 1 ? "ACCEPT" : got == 0 ? "DROP" : strerror(-got),
		       c->expect ? "ACCEPT" : "DROP");
		goto out;
	}
	if (c->count_chain) {
		struct xt_counters *cn = calloc(ir.nrules, sizeof(*cn));
		int idx = iptblob_index(&b, c->count_chain, (unsigned int)c->count_rule);

		enf_counters_add(ctr, cn, ir.nrules);
		if (idx < 0 || cn[idx].pcnt != (__u64)c->count_pkts ||
		    cn[idx].bcnt != (__u64)c->count_pkts * iplen) {
			result(false, mech, c->name, "counter of entry %d: %llu pkts %llu bytes, expected %d/%u",
			       idx, idx < 0 ? 0ULL : (unsigned long long)cn[idx].pcnt,
			       idx < 0 ? 0ULL : (unsigned long long)cn[idx].bcnt,
			       c->count_pkts, c->count_pkts * iplen);
			free(cn);
			goto out;
		}
		free(cn);
	}
	result(true, mech, c->name, NULL);
out:
	if (fd >= 0)
		close(fd);
	if (ctr >= 0)
		close(ctr);
	if (!r || c->expect != FAILLOAD)
		ir_free(&ir);
	iptblob_free(&b);
}

/* ---- scale: 10,000 rules, linear and set-like --------------------------- */

static void scale_case(const struct enf_kernel *ek, const char *name, bool setlike,
		       int nrules)
{
	const char *mech = cg_flavor(ek->mech)->name;
	size_t cap = (size_t)nrules * 80 + 256, len = 0;
	char *text = malloc(cap), err[256] = "";
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	int ctr = -1, fd = -1, r, got;
	unsigned int iplen;
	struct timespec t0, t1;
	struct pkt hit = TCP("10.200.0.1", "2.2.2.2", 1000, 22, "S");
	struct pkt miss = TCP("10.201.0.1", "2.2.2.2", 1000, 22, "S");

	if (filter && !strstr(name, filter)) {
		free(text);
		return;
	}
	len += (size_t)snprintf(text + len, cap - len, "*filter\n");
	for (int i = 0; i < nrules - 1; i++) {
		if (setlike)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.%d.%d.%d/32 -j DROP\n",
				100 + i / 65536, (i / 256) % 256, i % 256);
		else if (i % 3 == 0)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.%d.%d.0/24 -p tcp -m tcp --dport %d -j DROP\n",
				i / 256 % 256, i % 256, i % 60000 + 1);
		else if (i % 3 == 1)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -d 10.%d.%d.1 -p udp -m udp --sport %d -j ACCEPT\n",
				i / 256 % 256, i % 256, i % 60000 + 1);
		else
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -m iprange --src-range 11.0.%d.1-11.0.%d.9 -j DROP\n",
				i % 256, i % 256);
	}
	len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.200.0.1 -p tcp -m tcp --dport 22 -j DROP\nCOMMIT\n");
	if (iptblob_build(text, &b, err, sizeof(err))) {
		result(false, mech, name, "blob: %s", err);
		free(text);
		return;
	}
	free(text);
	iptblob_view(&b, &v);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = ir_build(&v, &ir, err, sizeof(err));
	if (!r) {
		struct cg_opts o = { .mech = ek->mech, .hook = CG_INPUT,
				     .k = ek->have_btf ? &ek->k : NULL };
		struct cg_prog p;
		struct timespec t2;

		ctr = enf_counters_create(ir.nrules);
		r = codegen_hook(&ir, &o, &p, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t2);
		if (verbose)
			printf("  codegen %.2f s\n", (double)(t2.tv_sec - t0.tv_sec) + (t2.tv_nsec - t0.tv_nsec) / 1e9);
		if (!r) {
			r = enf_load(ek->mech, &p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1 },
				     "ebpf_input", &fd, err, sizeof(err));
			cg_prog_free(&p);
		}
		ir_free(&ir);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r) {
		result(false, mech, name, "load: %s", err);
		goto out;
	}
	got = run_pkt(ek, fd, CG_INPUT, &hit, &iplen);
	r = run_pkt(ek, fd, CG_INPUT, &miss, &iplen);
	{
		struct bpf_prog_info info;
		__u32 il = sizeof(info);

		memset(&info, 0, sizeof(info));
		bpf_prog_get_info_by_fd(fd, &info, &il);
		result(got == 0 && r == 1, mech, name,
		       "%d rules loaded in %.2f s (%u insns, %u verified), verdicts %d/%d",
		       nrules, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       info.xlated_prog_len / 8, info.verified_insns, got, r);
	}
out:
	if (fd >= 0)
		close(fd);
	if (ctr >= 0)
		close(ctr);
	iptblob_free(&b);
}

/* ---- a rule file (CG_RULES_FILE): load time per hook; with CG_DEADLOG=1
 * also the instructions the verifier never visited (verifier log level 1) */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* instructions of @p the verifier never visits (it removes each such range
 * with a memmove of the rest of the program: the generated code must have
 * none); -1 if the log could not be had */
static long dead_report(const struct enf_kernel *ek, const struct cg_prog *p,
			int ctr, bool print)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	size_t sz = (size_t)256 << 20, i, nr = 0, nd = 0;
	char *log = malloc(sz), *s, err[256];
	unsigned char *seen = calloc(p->n, 1);
	struct enf_resolved res;
	int fd;

	if (!log || !seen ||
	    enf_resolve(p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1 }, &res,
			err, sizeof(err))) {
		free(log);
		free(seen);
		return -1;
	}
	log[0] = 0;
	o.log_buf = log;
	o.log_size = (__u32)sz;
	o.log_level = 2;
	o.expected_attach_type = cg_flavor(ek->mech)->expected_attach_type;
	fd = bpf_prog_load(cg_flavor(ek->mech)->prog_type, "ebpf_dead", "GPL",
			   res.insns, p->n, &o);
	enf_resolved_free(&res);
	if (fd < 0) {
		printf("  deadlog load: %s\n", strerror(errno));
		free(log);
		free(seen);
		return -1;
	}
	close(fd);
	if (getenv("CG_DEADLOG_HEAD"))
		printf("%.*s\n", atoi(getenv("CG_DEADLOG_HEAD")), log);
	for (s = log; *s; ) {
		char *e = strchr(s, '\n');
		unsigned long k;
		char *q;

		k = strtoul(s, &q, 10);
		if (q != s && q[0] == ':' && q[1] == ' ' && q[2] == '(' && k < p->n)
			seen[k] = 1;
		if (!e)
			break;
		s = e + 1;
	}
	/* the second half of a ld_imm64 is never printed */
	for (i = 0; i + 1 < p->n; i++)
		if (seen[i] && p->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			seen[i + 1] = 1;
	for (i = 0; i < p->n; i++) {
		size_t j;

		if (seen[i])
			continue;
		for (j = i; j < p->n && !seen[j]; j++)
			;
		nr++;
		nd += j - i;
		if (print && nr <= 12) {
			printf("  dead %zu..%zu:", i, j - 1);
			for (size_t k = i > 3 ? i - 3 : 0; k < j + 2 && k < p->n && k < i + 12; k++)
				printf(" %s%zu:%02x/%d/%d/%d/%d", k == i ? "[" : "", k,
				       p->insns[k].code, p->insns[k].dst_reg,
				       p->insns[k].src_reg, p->insns[k].off,
				       p->insns[k].imm);
			printf("\n");
		}
		i = j - 1;
	}
	if (print)
		printf("  %zu insns, %zu never visited in %zu ranges\n", p->n, nd, nr);
	free(seen);
	free(log);
	return (long)nd;
}

/* load every hook of the table @text; @dead: also require that the
 * verifier visits every instruction */
static void table_case(const struct enf_kernel *ek, const char *path,
		       char *text, bool dead)
{
	const char *mech = cg_flavor(ek->mech)->name;
	char err[256] = "";
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	int h;

	if (iptblob_build(text, &b, err, sizeof(err))) {
		result(false, mech, path, "blob: %s", err);
		free(text);
		return;
	}
	free(text);
	iptblob_view(&b, &v);
	if (ir_build(&v, &ir, err, sizeof(err))) {
		result(false, mech, path, "ir: %s", err);
		iptblob_free(&b);
		return;
	}
	for (h = 0; h < CG_NHOOKS; h++) {
		struct cg_opts o = { .mech = ek->mech, .hook = (enum cg_hook)h,
				     .k = ek->have_btf ? &ek->k : NULL };
		struct cg_prog p;
		struct timespec t0, t1;
		struct bpf_prog_info info;
		__u32 il = sizeof(info);
		int ctr = enf_counters_create(ir.nrules), fd = -1, r;
		char name[64], deadmsg[48] = "";
		long nd = 0;

		snprintf(name, sizeof(name), "%s hook %d", path, h);
		r = codegen_hook(&ir, &o, &p, err, sizeof(err));
		if (r) {
			result(false, mech, name, "codegen: %s", err);
			close(ctr);
			continue;
		}
		if (dead) {
			nd = dead_report(ek, &p, ctr, verbose);
			snprintf(deadmsg, sizeof(deadmsg), ", %ld never visited", nd);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = enf_load(ek->mech, &p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1 },
			     "ebpf_file", &fd, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		memset(&info, 0, sizeof(info));
		if (!r)
			bpf_prog_get_info_by_fd(fd, &info, &il);
		result(!r && nd == 0, mech, name, "%u rules: %zu insns, load %.2f s (%u xlated, %u verified%s)%s%s",
		       ir.nrules, p.n, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       info.xlated_prog_len / 8, info.verified_insns,
		       deadmsg, r ? ": " : "", r ? err : "");
		cg_prog_free(&p);
		if (fd >= 0)
			close(fd);
		close(ctr);
	}
	ir_free(&ir);
	iptblob_free(&b);
}

static void file_case(const struct enf_kernel *ek, const char *path)
{
	char *text = read_file(path);

	if (!text) {
		result(false, "-", path, "cannot read");
		return;
	}
	table_case(ek, path, text, getenv("CG_DEADLOG") != NULL);
}

/* tests/ipt/gen-ruleset N, spelled as iptblob wants it (explicit -m tcp,
 * udp, icmp; no quotes); no state/conntrack rules for tc programs */
static char *gen_ruleset(int n, bool ct)
{
	size_t cap = (size_t)n * 160 + 4096, len = 0;
	char *t = malloc(cap);

#define P(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	if (!t)
		return NULL;
	P("*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n");
	for (int c = 0; c < 50; c++)
		P(":chain%d - [0:0]\n", c);
	for (int i = 0; i < n; i++) {
		int a = i % 250 + 1, b = i / 250 % 250 + 1;

		switch (i % 10) {
		case 0: P("-A INPUT -s 10.%d.%d.0/24 -p tcp -m tcp --dport %d -j chain%d\n", b, a, i % 60000 + 1, i % 50); break;
		case 1: P("-A chain%d -p udp -m multiport --dports %d,%d:%d -j ACCEPT\n", i % 50, i % 1000 + 1, i % 1000 + 2000, i % 1000 + 3000); break;
		case 2: P("-A chain%d -m iprange --src-range 172.16.%d.1-172.16.%d.200 -j RETURN\n", i % 50, a, a); break;
		case 3: if (ct) P("-A FORWARD -i eth%d -o veth+ -m conntrack --ctstate NEW,ESTABLISHED -j chain%d\n", i % 4, i % 50); break;
		case 4: P("-A OUTPUT -d 192.168.%d.%d -p icmp -m icmp --icmp-type %d -j DROP\n", b, a, i % 16); break;
		case 5: if (ct) P("-A chain%d -m state --state RELATED -m comment --comment rule%d -j ACCEPT\n", i % 50, i); break;
		case 6: P("-A INPUT ! -s 100.64.%d.%d -p tcp -m tcp --tcp-flags SYN,RST SYN --sport %d:%d -j DROP\n", b, a, i % 1000, i % 1000 + 100); break;
		case 7: P("-A chain%d -f -j DROP\n", i % 50); break;
		case 8: P("-A OUTPUT -p udp -m udp ! --dport %d -g chain%d\n", i % 65535 + 1, (i + 1) % 50); break;
		case 9: P("-A INPUT -p tcp -m multiport ! --ports %d,%d -j ACCEPT\n", i % 100 + 1, i % 100 + 200); break;
		}
	}
	P("COMMIT\n");
#undef P
	return t;
}

/* the gen-ruleset shape: small, every instruction visited; large, the
 * load time (the helper's request timeout is 60 s) */
static void genrules_case(const struct enf_kernel *ek, int n, bool dead)
{
	char name[64];
	char *text;

	snprintf(name, sizeof(name), "gen-ruleset %d", n);
	if (filter && !strstr(name, filter))
		return;
	text = gen_ruleset(n, ek->mech == CG_NETFILTER && ek->have_btf);
	if (!text) {
		result(false, "-", name, "out of memory");
		return;
	}
	table_case(ek, name, text, dead);
}

/* ---- classified runs vs linear code ------------------------------------ */

static unsigned long long rng_state;

static unsigned int rnd(unsigned int n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned int)(rng_state % n);
}

#define PICK(a) (a[rnd(sizeof(a) / sizeof(a[0]))])

/* A random INPUT chain, mostly rules a classified run can hold, with values
 * from small pools so that packets match some of them. */
static char *random_rules(bool tc)
{
	static const char *const src[] = { "", "", "-s 10.0.0.1 ", "-s 10.0.0.2 ",
		"-s 10.0.1.0/24 ", "-s 10.0.0.0/16 " };
	static const char *const dst[] = { "", "", "", "-d 10.1.0.1 ",
		"-d 10.1.0.0/24 " };
	static const char *const ifc_tc[] = { "", "", "", "-i eth0 ", "-i eth1 ",
		"-i eth+ " };
	static const char *const ifc_nf[] = { "", "", "", "-o lo ", "-o l+ ",
		"-o eth0 " };
	static const char *const l4[] = { "", "", "-p tcp ", "-p udp ", "-p icmp ",
		"-p tcp -m tcp --dport 22 ", "-p udp -m udp --dport 53 ",
		"-p udp -m udp --sport 53 --dport 53 ", "-p tcp -m tcp --sport 1000 ",
		"-p tcp -m tcp --dport 0:65535 ", "-p udp -m udp --dport 80 " };
	static const char *const odd[] = { "-p tcp -m tcp --dport 20:30 ",
		"-p tcp -m tcp --syn ", "! -s 10.0.0.1 ", "-f ", "-p udp -m udp ! --dport 53 " };
	static const char *const verdict[] = { "-j ACCEPT", "-j DROP", "-j DROP" };
	size_t cap = 64 * 1024, len = 0;
	char *t = malloc(cap);
	int n = 40 + (int)rnd(160), i;

	if (!t)
		return NULL;
	/* each set draws from two choices per field: few layouts (groups),
	 * as in real rule sets, else no run would be worth classifying */
	const char *cs[2] = { PICK(src), PICK(src) }, *cd[2] = { PICK(dst), PICK(dst) };
	const char *ci[2] = { tc ? PICK(ifc_tc) : PICK(ifc_nf), tc ? PICK(ifc_tc) : PICK(ifc_nf) };
	const char *cl[2] = { PICK(l4), PICK(l4) };

	len += (size_t)snprintf(t, cap, "*filter\n:INPUT %s\n:U -\n",
				rnd(2) ? "ACCEPT" : "DROP");
	for (i = 0; i < n; i++) {
		const char *v = PICK(verdict);
		const char *o = "";

		if (rnd(25) == 0)
			o = PICK(odd);
		if (rnd(40) == 0)
			v = "";		/* counting only */
		else if (rnd(40) == 0)
			v = "-j U";
		len += (size_t)snprintf(t + len, cap - len, "-A INPUT %s%s%s%s%s%s\n",
					cs[rnd(2)], cd[rnd(2)], ci[rnd(2)],
					o, o[0] == '-' && o[1] == 'p' ? "" : cl[rnd(2)], v);
	}
	len += (size_t)snprintf(t + len, cap - len,
				"-A U -s 10.0.0.2 -j ACCEPT\n-A U -p udp -j DROP\nCOMMIT\n");
	return t;
}

static void random_pkt(struct pkt *p)
{
	static const char *const proto[] = { "tcp", "tcp", "udp", "udp", "icmp" };
	static const char *const src[] = { "10.0.0.1", "10.0.0.2", "10.0.1.5",
		"10.0.9.9", "11.0.0.1" };
	static const char *const dst[] = { "10.1.0.1", "10.1.0.7", "10.2.0.1" };
	static const int sport[] = { 1000, 53, 22, 5555 };
	static const int dport[] = { 22, 53, 80, 25 };
	static const char *const ifn[] = { "eth0", "eth1", "eth12", "lo" };
	static const char *const flags[] = { "S", "A", "SA" };

	memset(p, 0, sizeof(*p));
	p->proto = PICK(proto);
	p->src = PICK(src);
	p->dst = PICK(dst);
	p->sport = PICK(sport);
	p->dport = PICK(dport);
	p->flags = PICK(flags);
	p->in = PICK(ifn);
	switch (rnd(12)) {
	case 0:
		p->l4bytes = 4 + (int)rnd(12);	/* truncated header */
		break;
	case 1:
		p->fragoff = 1;
		break;
	case 2:
		p->fragoff = 5;
		break;
	}
}

/* load @text with and without classified runs */
static int load_pair(const struct enf_kernel *ek, const char *text, struct iptblob *b,
		     struct ir_table *ir, int fd[2], int ctr[2], unsigned int ninsn[2],
		     char *err, size_t errlen)
{
	struct ipt_table_view v;
	struct enf_kernel k2 = *ek;

	if (iptblob_build(text, b, err, errlen))
		return -EINVAL;
	iptblob_view(b, &v);
	if (ir_build(&v, ir, err, errlen)) {
		iptblob_free(b);
		return -EINVAL;
	}
	for (int m = 0; m < 2; m++) {
		struct bpf_prog_info info;
		__u32 il = sizeof(info);

		k2.no_classify = m == 1;
		ctr[m] = enf_counters_create(ir->nrules);
		if (enf_load_hook(ir, &k2, CG_INPUT, ctr[m], ifinfo_fd, &fd[m], err, errlen))
			return -EINVAL;
		memset(&info, 0, sizeof(info));
		bpf_prog_get_info_by_fd(fd[m], &info, &il);
		ninsn[m] = info.xlated_prog_len / 8;
	}
	return 0;
}

static void classify_diff(const struct enf_kernel *ek, int nsets, int npkts)
{
	const char *mech = cg_flavor(ek->mech)->name;
	unsigned long long seed = getenv("CG_SEED") ? strtoull(getenv("CG_SEED"), NULL, 0)
						   : 0x5eed1234ULL;
	int mismatches = 0, sets = 0, shrunk = 0;
	char name[64], err[256] = "";

	snprintf(name, sizeof(name), "classify-diff %d sets x %d packets", nsets, npkts);
	if (filter && !strstr(name, filter))
		return;
	rng_state = seed + (ek->mech == CG_TC);
	for (int s = 0; s < nsets && !mismatches; s++) {
		char *text = random_rules(ek->mech == CG_TC);
		struct iptblob b;
		struct ir_table ir;
		int fd[2] = { -1, -1 }, ctr[2] = { -1, -1 };
		unsigned int ninsn[2] = { 0, 0 }, iplen;

		if (!text || load_pair(ek, text, &b, &ir, fd, ctr, ninsn, err, sizeof(err))) {
			result(false, mech, name, "set %d: %s\n%s", s, err, text ? text : "");
			free(text);
			return;
		}
		sets++;
		shrunk += ninsn[0] < ninsn[1];
		for (int i = 0; i < npkts && !mismatches; i++) {
			struct pkt p;
			int v[2];

			random_pkt(&p);
			for (int m = 0; m < 2; m++)
				v[m] = run_pkt(ek, fd[m], CG_INPUT, &p, &iplen);
			if (v[0] != v[1]) {
				mismatches++;
				result(false, mech, name,
				       "set %d packet %d (%s %s:%d -> %s:%d in %s l4bytes %d fragoff %d): classified %d, linear %d\n%s",
				       s, i, p.proto, p.src, p.sport, p.dst, p.dport, p.in,
				       p.l4bytes, p.fragoff, v[0], v[1], text);
			}
		}
		if (!mismatches) {
			struct xt_counters *c0 = calloc(ir.nrules, sizeof(*c0));
			struct xt_counters *c1 = calloc(ir.nrules, sizeof(*c1));

			enf_counters_add(ctr[0], c0, ir.nrules);
			enf_counters_add(ctr[1], c1, ir.nrules);
			for (unsigned int e = 0; e < ir.nrules && !mismatches; e++)
				if (c0[e].pcnt != c1[e].pcnt || c0[e].bcnt != c1[e].bcnt) {
					mismatches++;
					result(false, mech, name,
					       "set %d: counters of entry %u: classified %llu/%llu, linear %llu/%llu\n%s",
					       s, e, (unsigned long long)c0[e].pcnt,
					       (unsigned long long)c0[e].bcnt,
					       (unsigned long long)c1[e].pcnt,
					       (unsigned long long)c1[e].bcnt, text);
				}
			free(c0);
			free(c1);
		}
		for (int m = 0; m < 2; m++) {
			close(fd[m]);
			close(ctr[m]);
		}
		ir_free(&ir);
		iptblob_free(&b);
		free(text);
	}
	if (!mismatches)
		result(shrunk >= sets / 4, mech, name,
		       "seed %#llx: same verdicts and counters; %d of %d sets had classified runs",
		       seed, shrunk, sets);
}

static void run_all(const struct enf_kernel *ek)
{
	if (getenv("CG_RULES_FILE")) {
		file_case(ek, getenv("CG_RULES_FILE"));
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(ek, &cases[i]);
	if (getenv("CG_SCALE_N"))
		scale_case(ek, "scale N linear", false, atoi(getenv("CG_SCALE_N")));
	classify_diff(ek, getenv("CG_SETS") ? atoi(getenv("CG_SETS")) : 40, 300);
	scale_case(ek, "scale 10000 linear", false, 10000);
	scale_case(ek, "scale 10000 set-like", true, 10000);
	genrules_case(ek, 300, true);
	genrules_case(ek, 10000, false);
}

int main(int argc, char **argv)
{
	struct enf_kernel ek;
	char err[256] = "";
	int opt;

	while ((opt = getopt(argc, argv, "vt:")) != -1) {
		if (opt == 'v')
			verbose = 1;
		else if (opt == 't')
			filter = optarg;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ifinfo_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ebpf_ifinfo", 4,
				   sizeof(struct cg_ifinfo), 64, NULL);
	if (ifinfo_fd < 0) {
		printf("FAIL cannot create maps: %s\n", strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (enf_probe(&ek, false, err, sizeof(err))) {
		printf("FAIL probe: %s\n", err);
		failed++;
	} else {
		printf("mechanism: %s\n", cg_flavor(ek.mech)->name);
		run_all(&ek);
		if (ek.mech == CG_NETFILTER && ek.k.direct) {
			/* headers read in place (above) or, where they are
			 * not linear, through the dynptr: test that path
			 * whole too */
			ek.k.direct = false;
			printf("mechanism: netfilter, headers through the dynptr\n");
			run_all(&ek);
		}
		if (ek.mech == CG_NETFILTER) {
			/* tc programs work on 6.12 as well: test them too */
			enf_probe(&ek, true, err, sizeof(err));
			run_all(&ek);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
