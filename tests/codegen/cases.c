// SPDX-License-Identifier: GPL-2.0
/* The code-generation test cases and tally (cases.h), moved out of cgtest.c. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

int passed, failed, verbose;

void result(bool ok, const char *mech, const char *name, const char *fmt, ...)
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

#define SET_RUN_HD "-A INPUT -d 10.1.0.1 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.2 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.3 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.4 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.5 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.6 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.7 -p udp -m udp --dport 80:90 -j DROP\n-A INPUT -d 10.1.0.8 -p udp -m udp --dport 80:90 -j DROP\n"

const struct tcase cases[] = {
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
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, ONLY_NF | ONLY_KMOD },
	{ "ctstate new no match", T("-A INPUT -m conntrack --ctstate NEW,ESTABLISHED -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), ACC, NULL, 0, 0, ONLY_NF | ONLY_KMOD },
	{ "ctstate inv", T("-A INPUT -m conntrack ! --ctstate NEW,ESTABLISHED -j DROP\n"), CG_INPUT,
	  UDP("1.1.1.1", "2.2.2.2", 1, 2), DRP, NULL, 0, 0, ONLY_NF | ONLY_KMOD },
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
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc -i eth+", T("-A INPUT -i eth+ -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth12" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc -i eth0 vs eth01", T("-A INPUT -i eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth01" }, ACC, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc -i long name", T("-A INPUT -i verylongname123 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "verylongname123" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc ! -i eth0", T("-A INPUT ! -i eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth1" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc -o at INPUT never", T("-A INPUT -o eth0 -j DROP\n"), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0" }, ACC, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc forward -i -o", T("-A FORWARD -i eth0 -o eth1 -j DROP\n"), CG_FORWARD,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth1" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc forward -o other", T("-A FORWARD -i eth0 -o eth2 -j DROP\n"), CG_FORWARD,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth1" }, ACC, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	{ "tc output -o", T("-A OUTPUT -o eth1 -j DROP\n"), CG_OUTPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .out = "eth1" }, DRP, NULL, 0, 0, ONLY_TC | ONLY_KMOD },
	/* a set-like run over destinations (port ranges: no classified run):
	 * a truncated udp header drops the packet only if a rule's address
	 * matched, as ip_tables tests the addresses before the matches */
	{ "set run hotdrop needs its address", T(SET_RUN_HD), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "10.1.0.200", .l4bytes = 4 }, ACC },
	{ "set run hotdrop on its address", T(SET_RUN_HD), CG_INPUT,
	  { .proto = "udp", .src = "1.1.1.1", .dst = "10.1.0.3", .l4bytes = 4 }, DRP },
	{ "set run hit", T(SET_RUN_HD), CG_INPUT,
	  UDP("1.1.1.1", "10.1.0.3", 1, 85), DRP, "INPUT", 3, 1 },
	{ "set run miss", T(SET_RUN_HD), CG_INPUT,
	  UDP("1.1.1.1", "10.1.0.3", 1, 79), ACC, "INPUT", 3, 0 },
};
const size_t ncases = sizeof(cases) / sizeof(cases[0]);

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
size_t build_pkt(const struct pkt *p, bool eth, unsigned char *buf,
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

unsigned long long rng_state;

unsigned int rnd(unsigned int n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned int)(rng_state % n);
}

#define PICK(a) (a[rnd(sizeof(a) / sizeof(a[0]))])

/* A random INPUT chain, mostly rules a classified run can hold, with values
 * from small pools so that packets match some of them. */
char *random_rules(bool tc)
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

void random_pkt(struct pkt *p)
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

/* tests/ipt/gen-ruleset N, spelled as iptblob wants it (explicit -m tcp,
 * udp, icmp; no quotes); no state/conntrack rules for tc programs */
char *gen_ruleset(int n, bool ct)
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
