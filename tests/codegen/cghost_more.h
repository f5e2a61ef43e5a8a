/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's larger cases (included by it, a split for size): classified
 * runs vs linear code, large and set-like rule sets, the dispatchers,
 * conntrack state.
 */

/* @ir's @hook compiled with (m = 0) and without (m = 1) classified runs */
static int build_pair(const struct flavor *f, struct ir_table *ir, enum cg_hook hook,
		      struct hprog h[2], struct shared sh[2], char *err, size_t len)
{
	for (int m = 0; m < 2; m++)
		if (gen_hook(f, ir, hook, m == 1, &h[m], &sh[m],
			     m ? "linear" : "classified", err, len))
			return -1;
	return 0;
}

static void pair_free(struct hprog h[2], struct shared sh[2])
{
	for (int m = 0; m < 2; m++) {
		hprog_free(&h[m]);
		shared_free(&sh[m]);
	}
}

/* the first of @n entries whose counters differ between @sh[0] and
 * @sh[1] (both in @c), or -1 */
static int counters_differ(const struct shared sh[2], unsigned int n,
			   struct cg_counter c[2])
{
	for (unsigned int e = 0; e < n; e++) {
		c[0] = shared_counter(&sh[0], e);
		c[1] = shared_counter(&sh[1], e);
		if (c[0].pkts != c[1].pkts || c[0].bytes != c[1].bytes)
			return (int)e;
	}
	return -1;
}

static void classify_diff(const struct flavor *f, int nsets, int npkts)
{
	unsigned long long seed = getenv("CG_SEED") ? strtoull(getenv("CG_SEED"), NULL, 0)
						   : 0x5eed1234ULL;
	int mismatches = 0, sets = 0, shrunk = 0;
	char name[64], err[1024] = "";

	snprintf(name, sizeof(name), "classify-diff %d sets x %d packets", nsets, npkts);
	if (filter && !strstr(name, filter))
		return;
	rng_state = seed + (f->mech == CG_TC);
	for (int s = 0; s < nsets && !mismatches; s++) {
		char *text = random_rules(f->mech != CG_NETFILTER);	/* -i names */
		struct iptblob b;
		struct ir_table ir;
		struct hprog h[2];
		struct shared sh[2];
		struct cg_counter c[2], *refc;
		int e;

		memset(h, 0, sizeof(h));
		memset(sh, 0, sizeof(sh));
		if (!text || build_ir(text, &b, &ir, err, sizeof(err))) {
			result(false, f->name, name, "set %d: %s\n%s", s, err, text ? text : "");
			free(text);
			return;
		}
		if (build_pair(f, &ir, CG_INPUT, h, sh, err, sizeof(err))) {
			mismatches++;
			result(false, f->name, name, "set %d: codegen: %s\n%s", s, err, text);
		}
		sets++;
		shrunk += h[0].cg.n < h[1].cg.n;
		refc = calloc(ir.nrules, sizeof(*refc));
		for (int i = 0; i < npkts && !mismatches; i++) {
			struct pkt p;
			int v[2];
			__u64 raw;
			unsigned int iplen;
			/* a third of the packets only partly linear */
			struct run_opts ro = { .headlen = rnd(3) ? 0 : f->mech == CG_TC ? 14 + 24 : 24 };

			int want;

			random_pkt(&p);
			for (int m = 0; m < 2 && !mismatches; m++) {
				v[m] = host_run(f, &sh[m], &h[m].ip, CG_INPUT, &p, &ro, &iplen,
						&raw, err, sizeof(err));
				if (v[m] < 0) {
					mismatches++;
					result(false, f->name, name, "set %d packet %d, %s: %s: %s\n%s",
					       s, i, m ? "linear" : "classified",
					       verdict_name(v[m]), err, text);
				}
			}
			want = refc ? host_ref(f, &ir, CG_INPUT, &p, &ro, refc) : -1;
			if (!mismatches && (v[0] != v[1] || v[0] != want)) {
				mismatches++;
				result(false, f->name, name,
				       "set %d packet %d (%s %s:%d -> %s:%d in %s l4bytes %d fragoff %d): classified %d, linear %d, reference %d\n%s",
				       s, i, p.proto, p.src, p.sport, p.dst, p.dport, p.in,
				       p.l4bytes, p.fragoff, v[0], v[1], want, text);
			}
		}
		if (!mismatches && (e = host_ref_counters(&sh[0], refc, ir.nrules)) >= 0) {
			mismatches++;
			result(false, f->name, name, "set %d: counters of entry %d differ from the reference\n%s",
			       s, e, text);
		}
		free(refc);
		if (!mismatches && (e = counters_differ(sh, ir.nrules, c)) >= 0) {
			mismatches++;
			result(false, f->name, name,
			       "set %d: counters of entry %d: classified %llu/%llu, linear %llu/%llu\n%s",
			       s, e, (unsigned long long)c[0].pkts,
			       (unsigned long long)c[0].bytes, (unsigned long long)c[1].pkts,
			       (unsigned long long)c[1].bytes, text);
		}
		pair_free(h, sh);
		ir_free(&ir);
		iptblob_free(&b);
		free(text);
	}
	if (!mismatches)
		result(shrunk >= sets / 4, f->name, name,
		       "seed %#llx: same verdicts and counters; %d of %d sets had classified runs",
		       seed, shrunk, sets);
}

/*
 * Large rule sets: @n rules, set-like (one address or port per rule:
 * classified runs, or set-like runs' hash maps with @no_classify) or varied
 * (linear code, classified runs); a packet that hits
 * the last rule and one that misses all (set-like: then one that hits the
 * address run), with the counters of the hits.
 */
static void scale_case(const struct flavor *f, const char *name, bool setlike,
		       bool no_classify, int n)
{
	size_t cap = (size_t)n * 96 + 256, len = 0;
	char *text = malloc(cap), err[1024] = "";
	struct pkt hit = TCP("10.200.0.1", "2.2.2.2", 1000, 22, "S");
	struct pkt miss = TCP("10.201.0.1", "2.2.2.2", 1000, 23, "S");
	struct iptblob b;
	struct ir_table ir;
	struct hprog h;
	struct shared sh;
	unsigned int iplen;
	__u64 raw;
	int v[2] = { -1, -1 };

	if (!text || (filter && !strstr(name, filter))) {
		free(text);
		return;
	}
	len += (size_t)snprintf(text + len, cap - len, "*filter\n");
	for (int i = 0; i < n - 1; i++) {
		if (setlike && i < n / 2)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.%d.%d.%d/32 -j DROP\n",
				100 + i / 65536, (i / 256) % 256, i % 256);
		else if (setlike)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -p udp -m udp --dport %d -j ACCEPT\n", i % 60000 + 1);
		else
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -d 10.%d.%d.0/24 -p tcp -m tcp --sport %d:%d -j %s\n",
				i / 256 % 256, i % 256, i % 60000 + 1, i % 60000 + 5,
				i % 2 ? "ACCEPT" : "DROP");
	}
	len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.200.0.1 -p tcp -m tcp --dport 22 -j DROP\nCOMMIT\n");
	memset(&h, 0, sizeof(h));
	memset(&sh, 0, sizeof(sh));
	if (build_ir(text, &b, &ir, err, sizeof(err))) {
		result(false, f->name, name, "rules: %s", err);
		free(text);
		return;
	}
	free(text);
	if (gen_hook(f, &ir, CG_INPUT, no_classify, &h, &sh, name, err, sizeof(err))) {
		result(false, f->name, name, "codegen: %s", err);
	} else {
		struct cg_counter c;

		v[0] = host_run(f, &sh, &h.ip, CG_INPUT, &hit, NULL, &iplen, &raw,
				err, sizeof(err));
		if (v[0] >= 0)
			v[1] = host_run(f, &sh, &h.ip, CG_INPUT, &miss, NULL, &iplen, &raw,
					err, sizeof(err));
		c = shared_counter(&sh, (unsigned int)iptblob_index(&b, "INPUT",
							 (unsigned int)n));
		if (setlike && v[1] == 1) {
			/* inside the address run: rule 4 is -s 10.100.0.3 */
			struct pkt in_set = TCP("10.100.0.3", "2.2.2.2", 1000, 23, "S");
			struct cg_counter c4;

			v[1] = host_run(f, &sh, &h.ip, CG_INPUT, &in_set, NULL, &iplen,
					&raw, err, sizeof(err));
			c4 = shared_counter(&sh, (unsigned int)iptblob_index(&b, "INPUT", 4));
			v[1] = v[1] == 0 && c4.pkts == 1 && c4.bytes == iplen ? 1 : v[1] < 0 ? v[1] : 2;
		}
		result(v[0] == 0 && v[1] == 1 && c.pkts == 1, f->name, name,
		       "%zu insns, %u maps: verdicts %d/%d, last rule counted %llu%s%s",
		       h.cg.n, h.cg.nmaps, v[0], v[1], (unsigned long long)c.pkts,
		       v[0] == -EFAULT || v[1] == -EFAULT ? ": " : "",
		       v[0] == -EFAULT || v[1] == -EFAULT ? err : "");
	}
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	iptblob_free(&b);
}

/*
 * The dispatchers: generation 1's table programs in slots 3..5 of the
 * program array, slots 0..2 empty.  INPUT drops; FORWARD drops what goes
 * out through eth1; OUTPUT drops 9.9.9.9.
 */
static void dispatcher_cases(const struct flavor *f)
{
	static const char table[] = "*filter\n:INPUT DROP\n:FORWARD ACCEPT\n:OUTPUT ACCEPT\n"
		"-A FORWARD -o eth1 -j DROP\n-A OUTPUT -d 9.9.9.9 -j DROP\nCOMMIT\n";
	struct dcase {
		const char *name;
		int hook;	/* the dispatcher's */
		__u32 gen;
		struct pkt p;
		struct run_opts ro;
		int expect;
		int mech_only;	/* 1 netfilter, 2 tc */
	} dc[] = {
		{ "dispatch INPUT", CG_INPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2), { 0 }, 0, 1 },
		{ "dispatch FORWARD", CG_FORWARD, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2), { 0 }, 1, 1 },
		{ "dispatch OUTPUT", CG_OUTPUT, 1, UDP("1.1.1.1", "9.9.9.9", 1, 2), { 0 }, 0, 1 },
		{ "dispatch OUTPUT accept", CG_OUTPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2), { 0 }, 1, 1 },
		{ "dispatch empty slot drops", CG_OUTPUT, 0, UDP("1.1.1.1", "2.2.2.2", 1, 2), { 0 }, 0, 1 },
		{ "ingress local: INPUT", CG_INPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2),
		  { .fib_ret = BPF_FIB_LKUP_RET_NOT_FWDED }, 0, 2 },
		{ "ingress forwarding off: INPUT", CG_INPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2),
		  { .fib_ret = BPF_FIB_LKUP_RET_FWD_DISABLED }, 0, 2 },
		{ "ingress forwarded to eth1: FORWARD", CG_INPUT, 1,
		  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth1" },
		  { .fib_ret = BPF_FIB_LKUP_RET_SUCCESS, .fib_ifindex = 2 }, 0, 2 },
		{ "ingress forwarded to eth2: FORWARD", CG_INPUT, 1,
		  { .proto = "udp", .src = "1.1.1.1", .dst = "2.2.2.2", .in = "eth0", .out = "eth2" },
		  { .fib_ret = BPF_FIB_LKUP_RET_NO_NEIGH, .fib_ifindex = 2 }, 1, 2 },
		{ "ingress blackhole: passed", CG_INPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2),
		  { .fib_ret = BPF_FIB_LKUP_RET_BLACKHOLE }, 1, 2 },
		{ "ingress not linear", CG_INPUT, 1, UDP("1.1.1.1", "2.2.2.2", 1, 2),
		  { .fib_ret = BPF_FIB_LKUP_RET_NOT_FWDED, .headlen = 14 }, 0, 2 },
		{ "ingress empty slot drops", CG_INPUT, 0, UDP("1.1.1.1", "2.2.2.2", 1, 2),
		  { .fib_ret = BPF_FIB_LKUP_RET_SUCCESS, .fib_ifindex = 2 }, 0, 2 },
		{ "egress local: OUTPUT", CG_OUTPUT, 1,
		  { .proto = "udp", .src = "1.1.1.1", .dst = "9.9.9.9", .out = "eth1" }, { 0 }, 0, 2 },
		{ "egress forwarded: passed", CG_OUTPUT, 1,
		  { .proto = "udp", .src = "1.1.1.1", .dst = "9.9.9.9", .out = "eth1" },
		  { .ingress_ifindex = 5 }, 1, 2 },
	};
	struct hprog t[CG_NHOOKS], d;
	struct shared sh;
	struct iptblob b;
	struct ir_table ir;
	char err[1024] = "";
	int hook;

	if (filter && !strstr("dispatch ingress egress", filter))
		return;
	if (f->mech == CG_KMOD)
		return;		/* no dispatcher: the module runs the programs */
	memset(t, 0, sizeof(t));
	memset(&sh, 0, sizeof(sh));
	if (build_ir(table, &b, &ir, err, sizeof(err))) {
		result(false, f->name, "dispatchers", "rules: %s", err);
		return;
	}
	for (hook = 0; hook < CG_NHOOKS; hook++) {
		if (gen_hook(f, &ir, (enum cg_hook)hook, false, &t[hook], &sh, "table",
			     err, sizeof(err))) {
			result(false, f->name, "dispatchers", "table %d: %s", hook, err);
			goto out;
		}
	}
	for (size_t i = 0; i < sizeof(dc) / sizeof(dc[0]); i++) {
		const struct dcase *c = &dc[i];
		struct run_opts ro;
		unsigned int iplen;
		__u64 raw = 0;
		__u32 key = 0;
		int got;

		if (c->mech_only != (f->mech == CG_TC ? 2 : 1))
			continue;
		memset(&d, 0, sizeof(d));
		if (codegen_dispatcher(f->mech, (enum cg_hook)c->hook, &d.cg) ||
		    hprog_build(&d, &sh, "dispatcher", err, sizeof(err))) {
			result(false, f->name, c->name, "dispatcher: %s", err);
			hprog_free(&d);
			continue;
		}
		if (!sh.have[2] || !sh.have[3]) {
			result(false, f->name, c->name, "dispatcher uses no generation or program array");
			hprog_free(&d);
			continue;
		}
		ip_map_update(&sh.gen, &key, &c->gen);
		for (hook = 0; hook < CG_NHOOKS; hook++)
			sh.progs.progs[CG_NHOOKS + hook] = &t[hook].ip;
		ro = c->ro;
		ro.clear_cb = true;
		got = host_run(f, &sh, &d.ip, c->hook, &c->p, &ro, &iplen, &raw,
			       err, sizeof(err));
		result(got == c->expect, f->name, c->name, "%s (r0 %#llx), expected %s%s%s",
		       verdict_name(got), (unsigned long long)raw, verdict_name(c->expect),
		       got == -EFAULT ? ": " : "", got == -EFAULT ? err : "");
		hprog_free(&d);
	}
out:
	for (hook = 0; hook < CG_NHOOKS; hook++)
		hprog_free(&t[hook]);
	shared_free(&sh);
	ir_free(&ir);
	iptblob_free(&b);
}

/*
 * Conntrack state, which test runs in guests cannot give (no entry): here
 * skb->_nfct and the entry's status are the test's.
 */
static void conntrack_cases(const struct flavor *f)
{
	static const struct {
		const char *name, *rule;
		struct run_opts ro;
		int expect;
	} cc[] = {
		{ "ct established", "--ctstate ESTABLISHED", { .ct = true, .ctinfo = 0 }, 0 },
		{ "ct established reply", "--ctstate ESTABLISHED", { .ct = true, .ctinfo = 3 }, 0 },
		{ "ct new is not established", "--ctstate ESTABLISHED", { .ct = true, .ctinfo = 2 }, 1 },
		{ "ct related", "--ctstate RELATED", { .ct = true, .ctinfo = 1 }, 0 },
		{ "ct related reply", "--ctstate RELATED", { .ct = true, .ctinfo = 4 }, 0 },
		{ "ct new", "--ctstate NEW", { .ct = true, .ctinfo = 2 }, 0 },
		{ "ct untracked", "--ctstate UNTRACKED", { .ctinfo = 7 }, 0 },
		{ "ct untracked is not invalid", "--ctstate INVALID", { .ctinfo = 7 }, 1 },
		{ "ct no entry is invalid", "--ctstate INVALID", { 0 }, 0 },
		{ "ct dnat", "--ctstate DNAT", { .ct = true, .ct_status = 1 << 5 }, 0 },
		{ "ct snat is not dnat", "--ctstate DNAT", { .ct = true, .ct_status = 1 << 4 }, 1 },
		{ "ct snat", "--ctstate SNAT", { .ct = true, .ct_status = 1 << 4 }, 0 },
		{ "ct not new or established", "! --ctstate NEW,ESTABLISHED",
		  { .ct = true, .ctinfo = 1 }, 0 },
	};
	struct pkt p = UDP("1.1.1.1", "2.2.2.2", 1, 2);

	if (f->mech == CG_TC)
		return;		/* no conntrack state at tc */
	for (size_t i = 0; i < sizeof(cc) / sizeof(cc[0]); i++) {
		char text[256], err[1024] = "";
		struct iptblob b;
		struct ir_table ir;
		struct hprog h;
		struct shared sh;
		unsigned int iplen;
		__u64 raw = 0;
		int got = -1;

		if (filter && !strstr(cc[i].name, filter))
			continue;
		snprintf(text, sizeof(text), "*filter\n-A INPUT -m conntrack %s -j DROP\nCOMMIT\n",
			 cc[i].rule);
		memset(&h, 0, sizeof(h));
		memset(&sh, 0, sizeof(sh));
		if (build_ir(text, &b, &ir, err, sizeof(err))) {
			result(false, f->name, cc[i].name, "rules: %s", err);
			continue;
		}
		if (gen_hook(f, &ir, CG_INPUT, false, &h, &sh, cc[i].name, err, sizeof(err)))
			result(false, f->name, cc[i].name, "codegen: %s", err);
		else
			got = host_run(f, &sh, &h.ip, CG_INPUT, &p, &cc[i].ro, &iplen, &raw,
				       err, sizeof(err));
		if (got != -1)
			result(got == cc[i].expect, f->name, cc[i].name,
			       "%s (r0 %#llx), expected %s%s%s", verdict_name(got),
			       (unsigned long long)raw, verdict_name(cc[i].expect),
			       got == -EFAULT ? ": " : "", got == -EFAULT ? err : "");
		hprog_free(&h);
		shared_free(&sh);
		ir_free(&ir);
		iptblob_free(&b);
	}
}

/* a packet aimed at a rule of gen_ruleset(300) (addresses in @bufs), or
 * random_pkt()'s; on netfilter, some conntrack state */
static void gen_pkt(struct pkt *p, char bufs[2][20], struct run_opts *ro, bool nf)
{
	int i = (int)rnd(300), a = i % 250 + 1, b = i / 250 % 250 + 1;

	random_pkt(p);
	memset(ro, 0, sizeof(*ro));
	switch (rnd(6)) {
	case 0:		/* INPUT -s 10.b.a.0/24 -p tcp --dport: a jump */
		snprintf(bufs[0], 20, "10.%d.%d.%u", b, a, 1 + rnd(200));
		p->src = bufs[0];
		p->proto = "tcp";
		p->dport = i % 60000 + 1;
		break;
	case 1:		/* the chains' udp multiport */
		p->proto = "udp";
		p->dport = i % 1000 + (rnd(2) ? 1 : 2500);
		break;
	case 2:		/* the chains' iprange RETURN */
		snprintf(bufs[0], 20, "172.16.%d.%u", a, 1 + rnd(250));
		p->src = bufs[0];
		break;
	case 3:		/* OUTPUT icmp */
		snprintf(bufs[1], 20, "192.168.%d.%d", b, a);
		p->dst = bufs[1];
		p->proto = "icmp";
		p->type = i % 16;
		break;
	case 4:		/* INPUT ! -s 100.64.b.a, SYN, --sport range */
		p->proto = "tcp";
		p->flags = "S";
		p->sport = i % 1000 + (int)rnd(120);
		snprintf(bufs[0], 20, "100.64.%d.%d", b, a);
		if (rnd(2))
			p->src = bufs[0];
		break;
	}
	if (nf && rnd(2)) {
		ro->ct = rnd(4) != 0;
		ro->ctinfo = (__u8)(ro->ct ? rnd(5) : 7);
	}
}

/*
 * tests/ipt/gen-ruleset's shape (user chains, jumps, gotos, RETURNs,
 * conntrack on netfilter), every hook, classified runs against linear code
 * on packets aimed at its rules.
 */
static void genrules_diff(const struct flavor *f, int n, int npkts)
{
	char *text = gen_ruleset(n, f->mech != CG_TC), err[1024] = "";
	struct iptblob b;
	struct ir_table ir;

	if (filter && !strstr("gen-ruleset", filter)) {
		free(text);
		return;
	}
	if (!text || build_ir(text, &b, &ir, err, sizeof(err))) {
		result(false, f->name, "gen-ruleset", "rules: %s", err);
		free(text);
		return;
	}
	rng_state = (getenv("CG_SEED") ? strtoull(getenv("CG_SEED"), NULL, 0) : 0x9e4e7a7eULL) +
		    (unsigned long long)f->mech;
	for (int hook = 0; hook < CG_NHOOKS; hook++) {
		struct hprog h[2];
		struct shared sh[2];
		char name[64], bufs[2][20];
		struct cg_counter c[2], *refc = calloc(ir.nrules, sizeof(*refc));
		int acc = 0, bad = 0, e;

		snprintf(name, sizeof(name), "gen-ruleset %d hook %d: classified vs linear", n, hook);
		memset(h, 0, sizeof(h));
		memset(sh, 0, sizeof(sh));
		if (build_pair(f, &ir, (enum cg_hook)hook, h, sh, err, sizeof(err))) {
			result(false, f->name, name, "codegen: %s", err);
			bad = 1;
		}
		for (int i = 0; i < npkts && !bad; i++) {
			struct pkt p;
			struct run_opts ro;
			unsigned int iplen;
			__u64 raw;
			int v[2], want;

			gen_pkt(&p, bufs, &ro, f->mech != CG_TC);
			for (int m = 0; m < 2; m++)
				v[m] = host_run(f, &sh[m], &h[m].ip, hook, &p, &ro, &iplen, &raw,
						err, sizeof(err));
			want = refc ? host_ref(f, &ir, hook, &p, &ro, refc) : -1;
			if (v[0] < 0 || v[1] < 0 || v[0] != v[1] || v[0] != want) {
				bad = 1;
				result(false, f->name, name,
				       "packet %d (%s %s:%d -> %s:%d ctinfo %d): classified %s, linear %s, reference %s%s%s",
				       i, p.proto, p.src, p.sport, p.dst, p.dport,
				       ro.ct || ro.ctinfo ? ro.ctinfo : -1, verdict_name(v[0]),
				       verdict_name(v[1]), verdict_name(want),
				       v[0] == -EFAULT || v[1] == -EFAULT ? ": " : "",
				       v[0] == -EFAULT || v[1] == -EFAULT ? err : "");
			}
			acc += v[0] == 1;
		}
		if (!bad && refc && (e = host_ref_counters(&sh[0], refc, ir.nrules)) >= 0) {
			bad = 1;
			result(false, f->name, name, "counters of entry %d differ from the reference", e);
		}
		free(refc);
		if (!bad && (e = counters_differ(sh, ir.nrules, c)) >= 0) {
			bad = 1;
			result(false, f->name, name, "counters of entry %d: %llu/%llu vs %llu/%llu",
			       e, (unsigned long long)c[0].pkts, (unsigned long long)c[0].bytes,
			       (unsigned long long)c[1].pkts, (unsigned long long)c[1].bytes);
		}
		if (!bad)
			result(true, f->name, name, "%zu/%zu insns, %d of %d packets accepted",
			       h[0].cg.n, h[1].cg.n, acc, npkts);
		pair_free(h, sh);
	}
	ir_free(&ir);
	iptblob_free(&b);
	free(text);
}

/* Input devices on netfilter (a test run has none), names with an older
 * name's bytes after the NUL, linear and classified. */
static void nf_name_cases(const struct flavor *f)
{
	static const struct {
		const char *name, *rule, *in, *out;
		int expect;
	} nc[] = {
		{ "input device: -i eth0", "-i eth0", "eth0", NULL, 0 },
		{ "input device: -i eth0 vs eth01", "-i eth0", "eth01", NULL, 1 },
		{ "input device: -i eth0 vs eth", "-i eth0", "eth", NULL, 1 },
		{ "input device: -i eth+", "-i eth+", "eth12", NULL, 0 },
		{ "input device: -i eth+ vs et", "-i eth+", "et", NULL, 1 },
		{ "input device: ! -i eth0", "! -i eth0", "eth1", NULL, 0 },
		{ "input device: -i long name", "-i verylongname123", "verylongname123", NULL, 0 },
		{ "input device: -i long name prefix", "-i verylongname12", "verylongname123", NULL, 1 },
		{ "input device: -i without a device", "-i eth0", "-", NULL, 1 },
		{ "input device: -i -o", "-i eth0 -o eth1", "eth0", "eth1", 0 },
		{ "output device: -o without a device", "-o lo", NULL, "-", 1 },
	};
	struct pkt p = UDP("1.1.1.1", "2.2.2.2", 1, 2);

	if (f->mech != CG_NETFILTER)
		return;
	for (size_t i = 0; i < sizeof(nc) / sizeof(nc[0]); i++) {
		struct run_opts ro = { .nf_in = nc[i].in, .nf_out = nc[i].out };
		char text[2048], err[1024] = "", name[96];
		size_t len = 0;
		struct iptblob b;
		struct ir_table ir;

		/* once alone (linear code), once in a run the classifier
		 * takes (the same rule among others with other names) */
		for (int cls = 0; cls < 2; cls++) {
			struct hprog h[2];
			struct shared sh[2];
			unsigned int iplen;
			__u64 raw = 0;
			int got[2] = { -1, -1 };

			snprintf(name, sizeof(name), "%s%s", nc[i].name, cls ? " (classified)" : "");
			if (filter && !strstr(name, filter))
				continue;
			len = (size_t)snprintf(text, sizeof(text), "*filter\n");
			for (int k = 0; cls && k < 12; k++)
				len += (size_t)snprintf(text + len, sizeof(text) - len,
					"-A INPUT -i dummy%d -s 10.9.%d.0/24 -j DROP\n", k, k);
			snprintf(text + len, sizeof(text) - len,
				 "-A INPUT %s -j DROP\n-A INPUT -i nomatch -j DROP\nCOMMIT\n",
				 nc[i].rule);
			memset(h, 0, sizeof(h));
			memset(sh, 0, sizeof(sh));
			if (build_ir(text, &b, &ir, err, sizeof(err))) {
				result(false, f->name, name, "rules: %s", err);
				continue;
			}
			if (build_pair(f, &ir, CG_INPUT, h, sh, err, sizeof(err))) {
				result(false, f->name, name, "codegen: %s", err);
			} else {
				for (int m = 0; m < 2; m++)
					got[m] = host_run(f, &sh[m], &h[m].ip, CG_INPUT, &p, &ro,
							  &iplen, &raw, err, sizeof(err));
				result(got[0] == nc[i].expect && got[1] == nc[i].expect &&
				       (!cls || h[0].cg.n < h[1].cg.n), f->name, name,
				       "%s / %s linear, expected %s%s%s%s", verdict_name(got[0]),
				       verdict_name(got[1]), verdict_name(nc[i].expect),
				       cls && h[0].cg.n >= h[1].cg.n ? " (no classified run)" : "",
				       got[0] == -EFAULT || got[1] == -EFAULT ? ": " : "",
				       got[0] == -EFAULT || got[1] == -EFAULT ? err : "");
			}
			pair_free(h, sh);
			ir_free(&ir);
			iptblob_free(&b);
		}
	}
}

/*
 * A set-like run whose rule has address bits outside its mask, which only
 * a blob can say (iptables masks them): ip_packet_match() compares
 * (saddr & smsk) with src, so such a rule never matches, and it must not
 * join a run whose key is the address masked.  Rule 2 is made
 * -s 10.0.3.5/24 in the IR; 10.0.3.7 must reach the DROP after the run.
 */
static void set_run_stray_case(const struct flavor *f)
{
	static const char *name = "set run: address bits outside the mask";
	struct pkt p = TCP("10.0.3.7", "2.2.2.2", 1000, 22, "S");
	char text[1024], err[1024] = "";
	size_t len = 0;
	struct iptblob b;
	struct ir_table ir;
	struct hprog h;
	struct shared sh;
	struct cg_counter *ref;
	unsigned int iplen;
	__u64 raw;
	int got, want;

	if (filter && !strstr(name, filter))
		return;
	len += (size_t)snprintf(text + len, sizeof(text) - len, "*filter\n");
	for (int i = 1; i <= 9; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"-A INPUT -s 10.0.%d.0/24 -j RETURN\n", i);
	snprintf(text + len, sizeof(text) - len, "-A INPUT -j DROP\nCOMMIT\n");
	if (build_ir(text, &b, &ir, err, sizeof(err))) {
		result(false, f->name, name, "rules: %s", err);
		return;
	}
	ir.rules[2].ip.src.s_addr |= htonl(5);
	memset(&h, 0, sizeof(h));
	memset(&sh, 0, sizeof(sh));
	ref = calloc(ir.nrules, sizeof(*ref));
	if (!ref || gen_hook(f, &ir, CG_INPUT, false, &h, &sh, name, err, sizeof(err))) {
		result(false, f->name, name, "codegen: %s", ref ? err : "out of memory");
	} else {
		want = host_ref(f, &ir, CG_INPUT, &p, NULL, ref);
		got = host_run(f, &sh, &h.ip, CG_INPUT, &p, NULL, &iplen, &raw, err,
			       sizeof(err));
		result(want == 0 && got == want && host_ref_counters(&sh, ref, ir.nrules) < 0,
		       f->name, name, "%s, the reference %s", verdict_name(got),
		       verdict_name(want));
	}
	free(ref);
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	iptblob_free(&b);
}
