/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's IPv6 set-like runs (included after cghost_ip6_ext.h; kmod
 * only): runs of rules that differ only in a 128-bit source or
 * destination address under one mask, or in one exact tcp/udp port, with
 * a verdict a classified run does not take (RETURN, a goto) or matches it
 * cannot key (tcp flags, --ctstate).  ip6_set_cases() has one table of
 * three such runs whose packets' verdicts and counted rules are written
 * down from ip6_packet_match() and the matches; ip6_set_diff() compiles
 * random tables of runs (now and then broken by another rule) with and
 * without classified runs and checks every packet against the reference
 * (ref.c), and that most tables had set-like runs' maps.
 */

/* -s (@dst: -d) 2001:db8:0:@net::@host/@plen, @proto with @dport
 * (tcp/udp; 0: none) and @flags (tcp --tcp-flags 0x17 @flags, 0: none),
 * --ctstate @ct (0: none), -j @verdict or -g @chain */
static void s6_rule(struct tb *t, bool dst, unsigned int net, unsigned int host,
		    unsigned int plen, int proto, __u16 dport, __u8 flags, __u32 ct,
		    int verdict, const char *chain)
{
	struct ip6t_ip6 ip = { .proto = (__u16)proto,
			       .flags = proto ? IP6T_F_PROTO : 0 };
	struct xt_tcp m = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct xt_conntrack_mtinfo3 ci = { .match_flags = XT_CONNTRACK_STATE,
					   .state_mask = (__u16)ct };

	if (plen) {
		c6_addr(dst ? ip.dst.s6_addr : ip.src.s6_addr, net, host);
		c6_prefix(dst ? ip.dmsk.s6_addr : ip.smsk.s6_addr, plen);
	}
	tb_begin6(t, &ip);
	if (dport)
		m.dpts[0] = m.dpts[1] = dport;
	if (flags) {
		m.flg_mask = 0x17;	/* SYN,RST,ACK,FIN */
		m.flg_cmp = flags;
	}
	if (dport || flags)
		tb_match(t, proto == IPPROTO_TCP ? "tcp" : "udp", 0, &m,
			 proto == IPPROTO_TCP ? sizeof(struct xt_tcp) :
			 sizeof(struct xt_udp));
	if (ct)
		tb_match(t, "conntrack", 3, &ci, sizeof(ci));
	if (chain)
		tb_jump(t, chain, true);
	else
		tb_std(t, verdict);
}

static void ip6_set_cases(const struct flavor *f)
{
	static const int later[] = { P6_FRAG_LATER, 0 };
	/* rules 0-8: -s 2001:db8:0:1::{1,2,3,4,3,6,7,8,9} -p tcp --syn
	 * --ctstate NEW DROP (4 repeats 2's key); 9-17: -d
	 * 2001:db8:0:{10..18}::/64 RETURN (11 with host bits, ignored);
	 * 18-26: -p udp --dport {1000..1008} -g X; 27: -p udp DROP; the
	 * ACCEPT policy is 28; X: 32 DROP */
	static const struct p6_case pc[] = {
		{ "source run: the first of two keys", 3, NULL, IPPROTO_TCP, 1, 22, 20,
		  IR_CT_NEW, 0, 2, .snet = 1 },
		{ "source run: its last rule", 9, NULL, IPPROTO_TCP, 1, 22, 20, IR_CT_NEW,
		  0, 8, .snet = 1 },
		{ "source run: not in it", 5, NULL, IPPROTO_TCP, 1, 22, 20, IR_CT_NEW, 1, 28,
		  .snet = 1 },
		{ "source run: its address, established", 3, NULL, IPPROTO_TCP, 1, 22, 20,
		  IR_CT_EST, 1, 28, .snet = 1 },
		{ "source run: its address, short tcp header: hotdrop", 3, NULL,
		  IPPROTO_TCP, 1, 22, 10, IR_CT_NEW, 0, -1, .snet = 1 },
		{ "source run: another address, short tcp header: no hotdrop", 5, NULL,
		  IPPROTO_TCP, 1, 22, 10, IR_CT_NEW, 1, 28, .snet = 1 },
		{ "destination run: RETURN, host bits ignored", 2, NULL, IPPROTO_UDP, 1, 9,
		  8, 0, 1, 11, 29, .dnet = 12, .dst = 0x99 },
		{ "destination run: its last rule", 2, NULL, IPPROTO_UDP, 1, 9, 8, 0, 1, 17,
		  29, .dnet = 18, .dst = 1 },
		{ "destination run: not in it", 2, NULL, IPPROTO_UDP, 1, 9, 8, 0, 0, 27,
		  .dnet = 19, .dst = 1 },
		{ "port run: goto X", 2, NULL, IPPROTO_UDP, 1, 1004, 8, 0, 0, 22, 33 },
		{ "port run: its last rule, from a source run's address", 3, NULL,
		  IPPROTO_UDP, 1, 1008, 8, IR_CT_NEW, 0, 26, 33, .snet = 1 },
		{ "port run: later fragment", 2, later, IPPROTO_UDP, 1, 1004, 8, 0, 0, 27 },
		{ "port run: short udp header: hotdrop", 2, NULL, IPPROTO_UDP, 1, 1004, 4,
		  0, 0, -1 },
		{ "port run: tcp 1004 is no udp rule", 2, NULL, IPPROTO_TCP, 1, 1004, 20, 0,
		  1, 28 },
	};
	struct tb t;
	unsigned int k;

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 set run", filter)))
		return;
	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	for (k = 0; k < 9; k++)
		s6_rule(&t, false, 1, k == 4 ? 3 : k + 1, 128, IPPROTO_TCP, 0, 0x02,
			IR_CT_NEW, V_DROP, NULL);
	for (k = 0; k < 9; k++)
		s6_rule(&t, true, 10 + k, k == 2 ? 5 : 0, 64, 0, 0, 0, 0, XT_RETURN, NULL);
	for (k = 0; k < 9; k++)
		s6_rule(&t, false, 0, 0, 0, IPPROTO_UDP, (__u16)(1000 + k), 0, 0, 0, "X");
	s6_rule(&t, false, 0, 0, 0, IPPROTO_UDP, 0, 0, 0, V_DROP, NULL);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(&t, "X");
	s6_rule(&t, false, 0, 0, 0, 0, 0, 0, 0, V_DROP, NULL);
	tb_chain_end(&t);
	tb_finish(&t);
	p6_table_cases(f, "ip6 set run", &t, pc, sizeof(pc) / sizeof(pc[0]), "ebpf_set", 3);
	tb_free(&t);
}

/* ---- random tables of runs against the reference ------------------------ */

/* what the rules of one run share; @field is what they vary */
struct d6_tmpl {
	int field;		/* 0 source, 1 destination, 2 dport, 3 sport */
	unsigned int plen;	/* of the varied address; 0: ::ffff:ffff:ffff:ffff */
	int proto;		/* 0, tcp, udp */
	__u8 flags;		/* tcp --tcp-flags 0x17 @flags (0: none) */
	bool mport;		/* -m multiport --dports 20:22 */
	__u32 ct;		/* --ctstate (0: none) */
	bool other;		/* the other address: 2001:db8:0:1::/64 */
	int verdict;		/* V_*, XT_RETURN, or 1: -j Y, 2: -g Y */
};

static void d6_mask(__u8 *m, unsigned int plen)
{
	if (plen) {
		c6_prefix(m, plen);
	} else {
		memset(m, 0, 8);
		memset(m + 8, 0xff, 8);
	}
}

/* one rule of run @tp with value @v (an address from the pool, with
 * now and then host bits outside a prefix; or a port 20-24) */
static void d6_rule(struct tb *t, __u64 *s, const struct d6_tmpl *tp, unsigned int v)
{
	struct ip6t_ip6 ip = { .proto = (__u16)tp->proto,
			       .flags = tp->proto ? IP6T_F_PROTO : 0 };
	struct xt_tcp m = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION, .count = 2,
				      .pflags = { 1 }, .ports = { 20, 22 } };
	struct xt_conntrack_mtinfo3 ci = { .match_flags = XT_CONNTRACK_STATE,
					   .state_mask = (__u16)tp->ct };
	__u8 *a = tp->field == 1 ? ip.dst.s6_addr : ip.src.s6_addr;
	__u8 *am = tp->field == 1 ? ip.dmsk.s6_addr : ip.smsk.s6_addr;
	bool l4 = tp->flags || tp->field >= 2;

	if (tp->field < 2) {
		c6_addr(a, v / 8 % 4, v % 8 + 1);
		d6_mask(am, tp->plen);
		if (c6_rand(s) % 6)	/* else host bits stay: ignored */
			for (int i = 0; i < 16; i++)
				a[i] &= am[i];
	}
	if (tp->other) {
		a = tp->field == 1 ? ip.src.s6_addr : ip.dst.s6_addr;
		am = tp->field == 1 ? ip.smsk.s6_addr : ip.dmsk.s6_addr;
		c6_addr(a, 1, 0);
		c6_prefix(am, 64);
	}
	if (tp->field == 2)
		m.dpts[0] = m.dpts[1] = (__u16)(20 + v % 5);
	if (tp->field == 3)
		m.spts[0] = m.spts[1] = (__u16)(20 + v % 5);
	if (tp->flags) {
		m.flg_mask = 0x17;
		m.flg_cmp = tp->flags;
	}
	tb_begin6(t, &ip);
	if (l4)
		tb_match(t, tp->proto == IPPROTO_TCP ? "tcp" : "udp", 0, &m,
			 tp->proto == IPPROTO_TCP ? sizeof(struct xt_tcp) :
			 sizeof(struct xt_udp));
	if (tp->mport)
		tb_match(t, "multiport", 1, &mp, sizeof(mp));
	if (tp->ct)
		tb_match(t, "conntrack", 3, &ci, sizeof(ci));
	if (tp->verdict == 1 || tp->verdict == 2)
		tb_jump(t, "Y", tp->verdict == 2);
	else
		tb_std(t, tp->verdict);
}

/* a run of 6 to 13 rules of a random template (@in_y: in chain Y, whose
 * rules do not jump), or now and then of template @last (the previous
 * run's) under another mask: runs that only a mask tells apart */
static void d6_run(struct tb *t, __u64 *s, bool in_y, struct d6_tmpl *last)
{
	static const unsigned int plens[] = { 128, 128, 120, 64, 0 };
	static const __u32 cts[] = { 0, 0, IR_CT_NEW, IR_CT_EST | IR_CT_REL };
	static const int verdicts[] = { V_ACCEPT, V_DROP, XT_RETURN, XT_RETURN, 2, 2, 1 };
	struct d6_tmpl tp = { .field = (int)(c6_rand(s) % 4),
			      .plen = plens[c6_rand(s) % 5] };
	unsigned int n = 6 + (unsigned int)(c6_rand(s) % 8), base = (unsigned int)c6_rand(s);

	tp.proto = c6_rand(s) % 3 == 0 && tp.field < 2 ? 0 :
		   c6_rand(s) % 2 ? IPPROTO_TCP : IPPROTO_UDP;
	if (tp.field >= 2 && !tp.proto)
		tp.proto = IPPROTO_UDP;
	if (tp.proto == IPPROTO_TCP && c6_rand(s) % 2)
		tp.flags = c6_rand(s) % 2 ? 0x02 : 0x10;	/* SYN; ACK */
	tp.mport = tp.proto && tp.field < 2 && c6_rand(s) % 4 == 0;
	tp.ct = cts[c6_rand(s) % 4];
	tp.other = c6_rand(s) % 4 == 0;
	tp.verdict = verdicts[c6_rand(s) % (in_y ? 4 : 7)];
	if (last->verdict && c6_rand(s) % 3 == 0) {
		tp = *last;
		tp.field = tp.field % 2;	/* an address */
		tp.plen = tp.plen == 128 ? 120 : 128;
	}
	*last = tp;
	for (unsigned int k = 0; k < n; k++)
		d6_rule(t, s, &tp, base + (unsigned int)(c6_rand(s) % 12));
}

/* a random packet for those rules into @pkt, its conntrack state in @ct */
static unsigned int d6_packet(__u64 *s, unsigned char *pkt, __u32 *ct)
{
	static const __u32 cts[] = { IR_CT_NEW, IR_CT_EST, IR_CT_REL, IR_CT_INVALID,
				     IR_CT_UNTRACKED, IR_CT_NEW | IR_CT_DNAT };
	struct p6_case pc = { "", 0, NULL, IPPROTO_TCP, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0 };
	static const int later[] = { P6_FRAG_LATER, 0 }, opts[] = { 60, 0 };
	static const int protos[] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_UDP,
				      IPPROTO_UDP, IPPROTO_ICMPV6 };
	unsigned int k = (unsigned int)(c6_rand(s) % 12), n;

	pc.proto = protos[c6_rand(s) % 5];
	pc.l4len = pc.proto == IPPROTO_TCP ? 20 : 8;
	if (k == 0)
		pc.l4len = 4;	/* a short header: hotdrop */
	pc.hdrs = k == 1 ? later : k == 2 ? opts : NULL;
	pc.sport = (__u16)(20 + c6_rand(s) % 6);
	pc.dport = (__u16)(20 + c6_rand(s) % 6);
	pc.snet = (unsigned char)(c6_rand(s) % 4);
	pc.src = (unsigned char)(c6_rand(s) % 9 + 1);
	pc.dnet = (unsigned char)(c6_rand(s) % 4);
	pc.dst = (unsigned char)(c6_rand(s) % 9 + 1);
	*ct = cts[c6_rand(s) % 6];
	n = p6_case_pkt(&pc, pkt);
	if (pc.proto == IPPROTO_TCP && c6_rand(s) % 3 == 0)
		pkt[n - pc.l4len + 13] = 0x10;	/* ACK, not SYN */
	if (c6_rand(s) % 5 == 0)	/* host bits under a /64 or /120 */
		pkt[8 + 14] = (unsigned char)c6_rand(s);
	return n;
}

/* @t's LOCAL_IN program (@no_classify: set-like runs and linear code
 * only) against the reference; the number of set maps, or -1 (a result
 * written) */
static int d6_check(const struct flavor *f, struct tb *t, bool no_classify, __u64 seed,
		    int set, __u64 *s, int packets)
{
	struct hprog h;
	struct shared sh;
	struct ir_table ir;
	char err[1024] = "";
	int r, maps = 0;

	memset(&h, 0, sizeof(h));
	memset(&sh, 0, sizeof(sh));
	memset(&ir, 0, sizeof(ir));
	r = c6_compile(f, t, &ir, no_classify, &h, &sh, err, sizeof(err));
	if (r)
		result(false, f->name, "ip6 set run random", "set %d: %s", set, err);
	for (unsigned int k = 0; !r && k < h.cg.nmaps; k++)
		maps += !strcmp(h.cg.maps[k].name, "ebpf_set");
	for (int p = 0; !r && p < packets; p++) {
		struct cg_counter *ctr = calloc(ir.nrules, sizeof(*ctr));
		unsigned char pkt[512];
		__u32 ct;
		unsigned int n = d6_packet(s, pkt, &ct);
		struct ebpf_resume w, rw;
		int got, want, e = -1;

		if (!ctr) {
			r = -ENOMEM;
			break;
		}
		want = p6_ref(&ir, pkt, n, ct, ctr, &rw);
		shared_zero_counters(&sh);
		got = p6_run_ct(&sh, &h, pkt, n, 0, ct, err, sizeof(err));
		memset(&w, 0, sizeof(w));
		if (got == P6_WALK && !shared_resume(&sh, &w))
			got = -ERANGE;
		if (got == want && (got != P6_WALK || !memcmp(&w, &rw, sizeof(w))))
			e = host_ref_counters(&sh, ctr, ir.nrules);
		if (got != want || e >= 0 ||
		    (got == P6_WALK && memcmp(&w, &rw, sizeof(w)))) {
			result(false, f->name, "ip6 set run random",
			       "seed %#llx set %d packet %d (%s): %s, the reference %s, entry %d",
			       (unsigned long long)seed, set, p,
			       no_classify ? "no classifier" : "classifier", verdict_name(got),
			       verdict_name(want), e);
			r = -1;
		}
		free(ctr);
	}
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	return r ? -1 : maps;
}

static void ip6_set_diff(const struct flavor *f, int sets, int packets)
{
	__u64 seed = 0x5e7c0de6ULL, s = seed;
	int mapped = 0, bad = 0;

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 set run random", filter)))
		return;
	for (int set = 0; set < sets && !bad; set++) {
		struct tb t;
		struct d6_tmpl last = { .verdict = 0 };
		int nruns = 2 + (int)(c6_rand(&s) % 4), m[2];

		tb_init6(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		for (int k = 0; k < nruns; k++) {
			d6_run(&t, &s, false, &last);
			if (c6_rand(&s) % 3 == 0)	/* a rule between runs */
				c6_rule(&t, &s, false);
		}
		tb_policy(&t, NF_INET_LOCAL_IN, set % 2 ? V_ACCEPT : V_DROP);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_chain(&t, "Y");
		last.verdict = 0;
		d6_run(&t, &s, true, &last);
		tb_chain_end(&t);
		tb_finish(&t);
		for (int k = 0; k < 2; k++)
			m[k] = d6_check(f, &t, k == 1, seed, set, &s, packets);
		bad = m[0] < 0 || m[1] < 0;
		mapped += !bad && m[0] + m[1] > 0;
		tb_free(&t);
	}
	if (!bad)
		result(mapped >= sets / 2, f->name, "ip6 set run random",
		       "seed %#llx: verdicts, records and counters as the reference's; %d of %d tables had set-like runs",
		       (unsigned long long)seed, mapped, sets);
}
