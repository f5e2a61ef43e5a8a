/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code-generation test cases, shared by the in-guest suite (cgtest.c,
 * BPF_PROG_TEST_RUN) and the host suite (cghost.c, the interpreter): rule
 * sets with a packet and the expected verdict and counter, the packet
 * builder, and the random rule sets and packets of the "classified runs vs
 * linear code" comparison.
 */
#ifndef CG_CASES_H
#define CG_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "cgen/codegen.h"

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
	int mech_only;		/* 0 every mechanism, else ONLY_* bits */
};

/* tcase.mech_only: the mechanisms whose world the case is written for */
#define ONLY_NF		1
#define ONLY_TC		2
#define ONLY_KMOD	4

/* does case @c run on mechanism @mech (enum cg_mech)? */
static inline bool case_runs_on(const struct tcase *c, int mech)
{
	static const int bit[] = { ONLY_NF, ONLY_TC, ONLY_KMOD };

	return !c->mech_only || (c->mech_only & bit[mech]);
}

#define T(...) "*filter\n" __VA_ARGS__ "COMMIT\n"
#define TCP(s, d, sp, dp, f) { .proto = "tcp", .src = s, .dst = d, .sport = sp, .dport = dp, .flags = f }
#define UDP(s, d, sp, dp) { .proto = "udp", .src = s, .dst = d, .sport = sp, .dport = dp }
#define ICMP(s, d, t, c) { .proto = "icmp", .src = s, .dst = d, .type = t, .code = c }

extern const struct tcase cases[];
extern const size_t ncases;

/* the tally both suites keep: "PASS/FAIL [mech] name: details" lines (PASS
 * only if @verbose), then "N passed, N failed" */
extern int passed, failed, verbose;
void result(bool ok, const char *mech, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* eth (optional) + IPv4 + transport into @buf (256 bytes); returns the
 * length; *iplen = tot_len */
size_t build_pkt(const struct pkt *p, bool eth, unsigned char *buf,
		 unsigned int *iplen);

/* the random generator of the comparison (xorshift; seed rng_state) */
extern unsigned long long rng_state;
unsigned int rnd(unsigned int n);
/* a random INPUT chain (iptables-save text, malloc'd) and packet */
char *random_rules(bool tc);
void random_pkt(struct pkt *p);
/* tests/ipt/gen-ruleset's shape with @n rules (malloc'd): user chains,
 * jumps, gotos, RETURNs; conntrack rules if @ct */
char *gen_ruleset(int n, bool ct);

#endif
