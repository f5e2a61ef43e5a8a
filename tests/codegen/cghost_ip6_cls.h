/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's IPv6 classifier cases (included by it after cghost_ip6.h,
 * whose p6_build() and p6_run() they use; kmod only): random ip6t_entry
 * tables whose rules test 128-bit addresses under prefixes (/0 to /128,
 * now and then a mask that is not a prefix, an inversion or an address
 * with bits outside its mask, which ip6_tables ignores), exact or ranged tcp/udp ports, "-p" with
 * IP6T_F_PROTO and input interfaces, compiled twice: with classified runs
 * and as linear code (no_classify), whose IPv6 verdicts cghost_ip6.h
 * checks against ip6_packet_match().  Every packet (the rules' own
 * addresses and ports, others, short transport headers for the hotdrop,
 * later fragments, extension headers) must get the same verdict, the same
 * resume record and the same counters from both; and the classified
 * programs must have used hash maps in most tables, or the comparison
 * proves nothing.  ip6_classify_cases() has one such table with each
 * verdict written down from ip6_packet_match().
 */

/* xorshift64*, so a failure can be replayed from its seed */
static __u64 c6_rand(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* 2001:db8:0:@net::@host, the addresses rules and packets draw from */
static void c6_addr(__u8 *a, unsigned int net, unsigned int host)
{
	memset(a, 0, 16);
	a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8;
	a[7] = (__u8)net;
	a[15] = (__u8)host;
}

/* a prefix of @len bits */
static void c6_prefix(__u8 *m, unsigned int len)
{
	memset(m, 0, 16);
	for (unsigned int i = 0; i < len; i++)
		m[i / 8] |= (__u8)(0x80 >> (i % 8));
}

/* a rule's address and mask: mostly a prefix of a pool address (the
 * address masked), sometimes none, a non-prefix mask or stray bits */
static void c6_rule_addr(__u64 *s, __u8 *a, __u8 *m)
{
	static const unsigned int lens[] = { 128, 128, 128, 64, 64, 56, 120, 127 };
	unsigned int k = (unsigned int)(c6_rand(s) % 16);

	c6_addr(a, (unsigned int)(c6_rand(s) % 3), (unsigned int)(c6_rand(s) % 4));
	if (k < 5) {		/* no address */
		memset(a, 0, 16);
		memset(m, 0, 16);
		return;
	}
	if (k == 5) {		/* ::ffff:ffff:ffff:ffff, not a prefix */
		memset(m, 0, 8);
		memset(m + 8, 0xff, 8);
		return;
	}
	c6_prefix(m, lens[c6_rand(s) % 8]);
	if (k == 6)
		return;		/* host bits outside the mask: ignored */
	for (unsigned int i = 0; i < 16; i++)
		a[i] &= m[i];
}

/*
 * one random rule of the table; @dense: mostly few layouts (a source
 * under /128 or /120, at times a destination /64 and a tcp dport), so that
 * runs are long enough to be classified, with now and then any rule at
 * all (which may end a run)
 */
static void c6_rule(struct tb *t, __u64 *s, bool dense)
{
	struct ip6t_ip6 ip;
	unsigned int k = (unsigned int)(c6_rand(s) % 8);
	bool ranged = c6_rand(s) % 5 == 0;
	__u16 port = (__u16)(20 + c6_rand(s) % 3);
	bool stray;

	memset(&ip, 0, sizeof(ip));
	dense = dense && c6_rand(s) % 16;
	if (dense) {
		k = c6_rand(s) % 4 ? 0 : 2;
		ranged = false;
		c6_addr(ip.src.s6_addr, (unsigned int)(c6_rand(s) % 3),
			(unsigned int)(c6_rand(s) % 4));
		c6_prefix(ip.smsk.s6_addr, c6_rand(s) % 4 ? 128 : 120);
		/* now and then the host bits under a /120 stay (ignored) */
		stray = c6_rand(s) % 8 == 0;
		for (unsigned int i = 0; i < 16 && !stray; i++)
			ip.src.s6_addr[i] &= ip.smsk.s6_addr[i];
		if (c6_rand(s) % 16 == 0) {
			c6_addr(ip.dst.s6_addr, (unsigned int)(c6_rand(s) % 3), 0);
			c6_prefix(ip.dmsk.s6_addr, 64);
		}
	} else {
		c6_rule_addr(s, ip.src.s6_addr, ip.smsk.s6_addr);
		c6_rule_addr(s, ip.dst.s6_addr, ip.dmsk.s6_addr);
	}
	if (!dense && c6_rand(s) % 12 == 0)
		ip.invflags |= IP6T_INV_SRCIP;
	if (!dense && c6_rand(s) % 6 == 0) {	/* exact name, or "eth+" */
		bool plus = c6_rand(s) % 2;

		strcpy(ip.iniface, c6_rand(s) % 2 ? "eth0" : "eth1");
		memset(ip.iniface_mask, 0xff, plus ? 3 : 5);
		if (plus)
			ip.iniface[3] = '\0';
	}
	if (k >= 2 && k <= 5) {
		ip.proto = k <= 3 ? IPPROTO_TCP : IPPROTO_UDP;
		ip.flags = IP6T_F_PROTO;
	} else if (k == 6) {
		ip.proto = c6_rand(s) % 2 ? IPPROTO_ICMPV6 : IPPROTO_UDP;
		ip.flags = IP6T_F_PROTO;
		if (c6_rand(s) % 3 == 0)
			ip.invflags |= IP6T_INV_PROTO;
	}
	tb_begin6(t, &ip);
	if (k == 2 || k == 4) {		/* dport */
		struct xt_tcp m = { .spts = { 0, 0xffff },
				    .dpts = { port, (__u16)(port + ranged) } };

		tb_match(t, k == 2 ? "tcp" : "udp", 0, &m,
			 k == 2 ? sizeof(struct xt_tcp) : sizeof(struct xt_udp));
	} else if (k == 3 || k == 5) {	/* sport and dport */
		struct xt_tcp m = { .spts = { port, port },
				    .dpts = { 22, 22 } };

		tb_match(t, k == 3 ? "tcp" : "udp", 0, &m,
			 k == 3 ? sizeof(struct xt_tcp) : sizeof(struct xt_udp));
	}
	tb_std(t, c6_rand(s) % 2 ? V_ACCEPT : V_DROP);
}

/* a random packet into @pkt (its length): pool addresses, the rules'
 * ports, now and then a short header, a later fragment or options */
static unsigned int c6_packet(__u64 *s, unsigned char *pkt)
{
	static const int protos[] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_UDP,
				      IPPROTO_UDP, IPPROTO_ICMPV6, 59 };
	static const int later[] = { P6_FRAG_LATER, 0 }, opts[] = { 60, 0 };
	int proto = protos[c6_rand(s) % 6];
	unsigned int k = (unsigned int)(c6_rand(s) % 10), n, l4len;
	const int *hdrs = k == 0 ? later : k == 1 ? opts : NULL;
	__u16 sport = (__u16)(20 + c6_rand(s) % 4);

	l4len = proto == IPPROTO_TCP ? 20 : proto == 59 ? 0 : 8;
	if (k == 2 && l4len)
		l4len = 4;	/* hotdrop for tcp and udp */
	n = p6_build(pkt, 0, hdrs, proto,
		     c6_rand(s) % 4 ? 22 : (int)(20 + c6_rand(s) % 4), l4len);
	c6_addr(pkt + 8, (unsigned int)(c6_rand(s) % 3), (unsigned int)(c6_rand(s) % 5));
	c6_addr(pkt + 24, (unsigned int)(c6_rand(s) % 3), (unsigned int)(c6_rand(s) % 5));
	if (l4len >= 2 && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)) {
		pkt[n - l4len] = (unsigned char)(sport >> 8);
		pkt[n - l4len + 1] = (unsigned char)sport;
	}
	return n;
}

/* @t compiled for LOCAL_IN, with or without classified runs */
static int c6_compile(const struct flavor *f, struct tb *t, struct ir_table *ir,
		      bool no_classify, struct hprog *h, struct shared *sh,
		      char *err, size_t len)
{
	struct ipt_table_view v;
	struct cg_ifinfo eth0 = { .name = "eth0" };
	__u32 ifindex = 1;
	int r;

	p6_view(t, &v);
	if (ir_build_ext(&v, IR_KERNEL_WALKS, ir, err, len))
		return -EINVAL;
	r = gen_hook(f, ir, CG_INPUT, no_classify, h, sh, "ip6 cls", err, len);
	if (!r)		/* the packets come in through eth0 (p6_run) */
		ip_map_update(&sh->ifinfo, &ifindex, &eth0);
	return r;
}

static void ip6_classify_diff(const struct flavor *f, int sets, int packets)
{
	__u64 seed = 0x1b6c1a55ULL, s = seed;
	int mapped = 0, mismatches = 0;
	char err[1024] = "";

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 classified", filter)))
		return;
	for (int set = 0; set < sets && !mismatches; set++) {
		struct hprog h[2];
		struct shared sh[2];
		struct ir_table ir[2];
		struct tb t;
		int nrules = 24 + (int)(c6_rand(&s) % 56), r = 0;

		memset(h, 0, sizeof(h));
		memset(sh, 0, sizeof(sh));
		memset(ir, 0, sizeof(ir));
		tb_init6(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		for (int i = 0; i < nrules; i++)
			c6_rule(&t, &s, set % 3 != 2);
		tb_policy(&t, NF_INET_LOCAL_IN, set % 2 ? V_ACCEPT : V_DROP);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_finish(&t);
		for (int k = 0; k < 2 && !r; k++)
			r = c6_compile(f, &t, &ir[k], k == 1, &h[k], &sh[k], err, sizeof(err));
		if (r) {
			result(false, f->name, "ip6 classified", "set %d: %s", set, err);
			mismatches++;
		}
		mapped += !r && h[0].cg.nmaps > h[1].cg.nmaps;
		for (int p = 0; !r && p < packets && !mismatches; p++) {
			unsigned char pkt[512];
			unsigned int n = c6_packet(&s, pkt);
			struct ebpf_resume w[2];
			bool walked[2];
			int got[2];

			for (int k = 0; k < 2; k++) {
				shared_zero_counters(&sh[k]);
				got[k] = p6_run(&sh[k], &h[k], pkt, n, 0, err, sizeof(err));
				memset(&w[k], 0, sizeof(w[k]));
				walked[k] = got[k] == P6_WALK && shared_resume(&sh[k], &w[k]);
			}
			if (got[0] != got[1] || got[0] < 0 || walked[0] != walked[1] ||
			    memcmp(&w[0], &w[1], sizeof(w[0]))) {
				result(false, f->name, "ip6 classified",
				       "seed %#llx set %d packet %d: classified %s, linear %s%s%s",
				       (unsigned long long)seed, set, p, verdict_name(got[0]),
				       verdict_name(got[1]), got[0] == -EFAULT ? ": " : "",
				       got[0] == -EFAULT ? err : "");
				mismatches++;
			}
			for (unsigned int k = 0; !mismatches && k < ir[0].nrules; k++) {
				struct cg_counter a = shared_counter(&sh[0], k),
					b = shared_counter(&sh[1], k);

				if (a.pkts != b.pkts || a.bytes != b.bytes) {
					result(false, f->name, "ip6 classified",
					       "seed %#llx set %d packet %d: entry %u counted %llu, linear %llu",
					       (unsigned long long)seed, set, p, k,
					       (unsigned long long)a.pkts,
					       (unsigned long long)b.pkts);
					mismatches++;
				}
			}
		}
		for (int k = 0; k < 2; k++) {
			hprog_free(&h[k]);
			shared_free(&sh[k]);
			ir_free(&ir[k]);
		}
		tb_free(&t);
	}
	if (!mismatches)
		result(mapped >= sets / 3, f->name, "ip6 classified",
		       "seed %#llx: same verdicts and counters; %d of %d tables had classified runs",
		       (unsigned long long)seed, mapped, sets);
}

/* -s 2001:db8:0:@net::@host/@plen [-p tcp --dport @dport] -j @verdict */
static void c6_fixed_rule(struct tb *t, unsigned int net, unsigned int host,
			  unsigned int plen, __u16 dport, int verdict)
{
	struct ip6t_ip6 ip;
	struct xt_tcp m = { .spts = { 0, 0xffff }, .dpts = { dport, dport } };

	memset(&ip, 0, sizeof(ip));
	c6_addr(ip.src.s6_addr, net, host);
	c6_prefix(ip.smsk.s6_addr, plen);
	if (dport) {
		ip.proto = IPPROTO_TCP;
		ip.flags = IP6T_F_PROTO;
	}
	tb_begin6(t, &ip);
	if (dport)
		tb_match(t, "tcp", 0, &m, sizeof(m));
	tb_std(t, verdict);
}

/*
 * One classified run (13 rules, three layouts: /128, /120, /120 with a
 * tcp port; rule 0 has host bits under its /120, which ipv6_masked_addr_cmp()
 * ignores, unlike ip_packet_match()), and packets whose first matching rule, as
 * ip6_packet_match() and tcp_mt() decide it, is written down: duplicate
 * keys (the first rule wins), a /128 shadowed by an earlier /120, the
 * hotdrop of a short tcp header at the first tcp rule its address
 * reaches, a later fragment (no port match).  The ACCEPT policy is
 * entry 13.
 */
static void ip6_classify_cases(const struct flavor *f)
{
	static const struct {
		const char *name;
		unsigned int net, host;
		int proto, port, hdrs;
		unsigned int l4len;
		int want, rule;		/* verdict, the rule counted (-1) */
	} pc[] = {
		{ "ip6 classified: host bits under a /120 are ignored", 6, 1, IPPROTO_TCP, 22, 0, 20, 1, 0 },
		{ "ip6 classified: /120", 1, 7, IPPROTO_TCP, 22, 0, 20, 0, 4 },
		{ "ip6 classified: /128", 1, 1, IPPROTO_TCP, 22, 0, 20, 0, 1 },
		{ "ip6 classified: /128 accept", 1, 2, IPPROTO_UDP, 53, 0, 8, 1, 2 },
		{ "ip6 classified: /120 before its /128", 1, 3, IPPROTO_TCP, 22, 0, 20, 0, 4 },
		{ "ip6 classified: /120 tcp 22", 2, 5, IPPROTO_TCP, 22, 0, 20, 1, 3 },
		{ "ip6 classified: /120 tcp 80", 2, 5, IPPROTO_TCP, 80, 0, 20, 0, 6 },
		{ "ip6 classified: tcp 22 before a later /128", 2, 9, IPPROTO_TCP, 22, 0, 20, 1, 3 },
		{ "ip6 classified: udp reaches the /128", 2, 9, IPPROTO_UDP, 53, 0, 8, 0, 7 },
		{ "ip6 classified: udp 22 is no tcp rule", 2, 5, IPPROTO_UDP, 22, 0, 8, 1, 13 },
		{ "ip6 classified: other /120", 3, 1, IPPROTO_UDP, 53, 0, 8, 1, 8 },
		{ "ip6 classified: /128 before the /120's tcp rule", 4, 1, IPPROTO_TCP, 22, 0, 20, 1, 10 },
		{ "ip6 classified: /120 tcp rule", 4, 2, IPPROTO_TCP, 22, 0, 20, 0, 11 },
		{ "ip6 classified: short tcp header: hotdrop at 11", 4, 2, IPPROTO_TCP, 22, 0, 10, 0, -1 },
		{ "ip6 classified: short tcp header: hotdrop at 3", 2, 5, IPPROTO_TCP, 22, 0, 10, 0, -1 },
		{ "ip6 classified: later tcp fragment: no port", 4, 2, IPPROTO_TCP, 22, 1, 20, 1, 13 },
		{ "ip6 classified: last rule", 5, 1, IPPROTO_UDP, 53, 0, 8, 0, 12 },
		{ "ip6 classified: no rule", 7, 1, IPPROTO_UDP, 53, 0, 8, 1, 13 },
	};
	static const int later[] = { P6_FRAG_LATER, 0 };
	struct hprog h;
	struct shared sh;
	struct ir_table ir;
	struct tb t;
	char err[1024] = "";
	unsigned int cls_maps = 0;
	int r;

	if (f->mech != CG_KMOD || (filter && !strstr("ip6 classified", filter)))
		return;
	memset(&h, 0, sizeof(h));
	memset(&sh, 0, sizeof(sh));
	memset(&ir, 0, sizeof(ir));
	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	c6_fixed_rule(&t, 6, 5, 120, 0, V_ACCEPT);	/* 0: ::5 ignored */
	c6_fixed_rule(&t, 1, 1, 128, 0, V_DROP);
	c6_fixed_rule(&t, 1, 2, 128, 0, V_ACCEPT);
	c6_fixed_rule(&t, 2, 0, 120, 22, V_ACCEPT);
	c6_fixed_rule(&t, 1, 0, 120, 0, V_DROP);
	c6_fixed_rule(&t, 1, 3, 128, 0, V_ACCEPT);	/* 5: shadowed by 4 */
	c6_fixed_rule(&t, 2, 0, 120, 80, V_DROP);
	c6_fixed_rule(&t, 2, 9, 128, 0, V_DROP);
	c6_fixed_rule(&t, 3, 0, 120, 0, V_ACCEPT);
	c6_fixed_rule(&t, 2, 0, 120, 22, V_DROP);	/* 9: the key of 3 */
	c6_fixed_rule(&t, 4, 1, 128, 0, V_ACCEPT);
	c6_fixed_rule(&t, 4, 0, 120, 22, V_DROP);
	c6_fixed_rule(&t, 5, 0, 120, 0, V_DROP);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	r = c6_compile(f, &t, &ir, false, &h, &sh, err, sizeof(err));
	for (unsigned int k = 0; !r && k < h.cg.nmaps; k++)
		cls_maps += !strcmp(h.cg.maps[k].name, "ebpf_cls");
	result(!r && cls_maps == 3, f->name, "ip6 classified: one run, three maps",
	       "%s%u classifier maps", r ? err : "", cls_maps);
	for (size_t i = 0; !r && i < sizeof(pc) / sizeof(pc[0]); i++) {
		unsigned char pkt[512];
		unsigned int n = p6_build(pkt, 0, pc[i].hdrs ? later : NULL, pc[i].proto,
					  pc[i].port, pc[i].l4len);
		__u64 pkts = 0;
		int got, k;

		c6_addr(pkt + 8, pc[i].net, pc[i].host);
		shared_zero_counters(&sh);
		got = p6_run(&sh, &h, pkt, n, 0, err, sizeof(err));
		if (got != pc[i].want) {
			result(false, f->name, pc[i].name, "%s, expected %s", verdict_name(got),
			       verdict_name(pc[i].want));
			continue;
		}
		k = p6_wrong_counter(&sh, &ir, pc[i].rule, n, &pkts);
		result(k < 0, f->name, pc[i].name, k < 0 ? NULL : "entry %d counted %llu",
		       k, (unsigned long long)pkts);
	}
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	tb_free(&t);
}
