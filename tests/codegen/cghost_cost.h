/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's per-packet cost cases (included by it): the benchmark's
 * FORWARD rule sets (bench/gen-rules ipt linear|set 1000, as iptables-save
 * prints them) and its flow (UDP 10.0.2.2:7777 -> 10.0.4.2:9000, which the
 * last rule accepts), compiled for kmod and tc: the verdict and counters
 * are the reference's, and the packet costs at most the map lookups the
 * shape needs (bench/README.md, "Per packet"): the set-like run one (its
 * source group; the accepting rule's one-key group is compared inline,
 * CLS_INLINE_MAX), the linear run one per group of its 1,000 rules (four:
 * tcp/udp destination ports with the accepting rule, input names, sources,
 * destinations with udp source ports) and the input device's name (the
 * only name its rules test: no lookup of the output device's).  The
 * instructions run are printed beside.
 */

/* rule @i of bench/gen-rules' linear shape, into @s */
static int cost_linear_rule(char *s, size_t n, unsigned int i)
{
	unsigned int a = i / 256 % 256, b = i % 256, p = 20000 + i % 40000;

	switch (i % 5) {
	case 0:
		return snprintf(s, n, "-A FORWARD -p tcp -m tcp --dport %u -j DROP\n",
				1000 + i % 8000);
	case 1:
		return snprintf(s, n, "-A FORWARD -p udp -m udp --dport %u -j DROP\n", p);
	case 2:
		return snprintf(s, n, "-A FORWARD -i ethx%u -j DROP\n", i % 100);
	case 3:
		return snprintf(s, n, "-A FORWARD -s 192.168.%u.%u -j DROP\n", a, b);
	default:
		return snprintf(s, n, "-A FORWARD -d 10.9.%u.%u -p udp -m udp --sport %u -j DROP\n",
				a, b, p);
	}
}

static void cost_cases(const struct flavor *f)
{
	static const struct {
		const char *name;
		bool linear;
		unsigned long lookups;
	} cc[] = {
		{ "cost: set-like 1,000 rules, one lookup per packet", false, 1 },
		{ "cost: linear 1,000 rules, one lookup per group and the input name", true, 5 },
	};
	const struct pkt pk = { .proto = "udp", .src = "10.0.2.2", .dst = "10.0.4.2",
				.sport = 7777, .dport = 9000, .in = "fwa", .out = "sink0" };
	size_t cap = 128 * 1024;

	if (f->mech != CG_KMOD && f->mech != CG_TC)
		return;
	for (size_t i = 0; i < sizeof(cc) / sizeof(cc[0]); i++) {
		char *text = malloc(cap), err[1024] = "";
		struct cg_counter *ref = NULL;
		struct run_opts ro = { 0 };
		struct iptblob b;
		struct ir_table ir;
		struct shared sh;
		struct hprog h;
		unsigned int iplen;
		size_t n;
		__u64 raw = 0;
		int want, got, e, r;

		if (filter && !strstr(cc[i].name, filter)) {
			free(text);
			continue;
		}
		if (!text) {
			result(false, f->name, cc[i].name, "out of memory");
			continue;
		}
		n = (size_t)snprintf(text, cap, "*filter\n:INPUT ACCEPT [0:0]\n"
				     ":FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n");
		for (unsigned int k = 0; k < 1000; k++)
			n += (size_t)(cc[i].linear ?
				      cost_linear_rule(text + n, cap - n, k) :
				      snprintf(text + n, cap - n,
					       "-A FORWARD -s 172.16.%u.%u -j DROP\n",
					       k / 256, k % 256));
		snprintf(text + n, cap - n,
			 "-A FORWARD -p udp -m udp --dport 9000 -j ACCEPT\nCOMMIT\n");
		r = build_ir(text, &b, &ir, err, sizeof(err));
		free(text);
		if (r) {
			result(false, f->name, cc[i].name, "rules: %s", err);
			continue;
		}
		memset(&sh, 0, sizeof(sh));
		memset(&h, 0, sizeof(h));
		ref = calloc(ir.nrules, sizeof(*ref));
		if (!ref || gen_hook(f, &ir, CG_FORWARD, false, &h, &sh, cc[i].name, err,
				     sizeof(err))) {
			result(false, f->name, cc[i].name, "codegen: %s", err);
		} else {
			shared_zero_counters(&sh);
			want = host_ref(f, &ir, CG_FORWARD, &pk, &ro, ref);
			got = host_run(f, &sh, &h.ip, CG_FORWARD, &pk, &ro, &iplen, &raw,
				       err, sizeof(err));
			e = got == want ? host_ref_counters(&sh, ref, ir.nrules) : -1;
			if (got != 1 || want != 1 || e >= 0)
				result(false, f->name, cc[i].name,
				       "%s, the reference %s (counter %d) %s",
				       verdict_name(got), verdict_name(want), e,
				       got == -EFAULT ? err : "");
			else
				result(host_last_lookups <= cc[i].lookups, f->name,
				       cc[i].name, "%lu map lookups, at most %lu wanted",
				       host_last_lookups, cc[i].lookups);
			printf("cost [%s] %s: %lu instructions, %lu map lookups\n",
			       f->name, cc[i].name, host_last_insns, host_last_lookups);
		}
		free(ref);
		hprog_free(&h);
		shared_free(&sh);
		ir_free(&ir);
		iptblob_free(&b);
	}
}
