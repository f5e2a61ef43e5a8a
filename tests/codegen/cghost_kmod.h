/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's cases of the kmod mechanism's split (included by it): which
 * hooks reach a rule no emitter serves (ir_kernel_hooks()), and that every
 * hook still compiles and decides each packet as the reference does: a
 * packet that reaches such a rule stops there with the resume record the
 * reference makes (the rule's offset, the jumps taken), every other one
 * gets the reference's verdict and counters.  "kernel:NAME" is an
 * extension the helper has no descriptor for (iptblob.h).
 */

/* the run's resume record is the reference's (host_ref_walk) */
static bool same_resume(const struct shared *sh, char *why, size_t len)
{
	struct ebpf_resume got;

	if (!shared_resume(sh, &got)) {
		snprintf(why, len, "no resume map");
		return false;
	}
	if (got.entry != host_ref_walk.entry || got.depth != host_ref_walk.depth) {
		snprintf(why, len, "resume at %u depth %u, the reference %u depth %u",
			 got.entry, got.depth, host_ref_walk.entry, host_ref_walk.depth);
		return false;
	}
	for (unsigned int k = 0; k < got.depth && k < EBPF_RESUME_MAX_DEPTH; k++)
		if (got.stack[k] != host_ref_walk.stack[k]) {
			snprintf(why, len, "resume stack[%u] %u, the reference %u", k,
				 got.stack[k], host_ref_walk.stack[k]);
			return false;
		}
	return true;
}

static void kernel_walk_cases(const struct flavor *f)
{
	static const unsigned int IN = 1u << NF_INET_LOCAL_IN,
		FWD = 1u << NF_INET_FORWARD, OUT = 1u << NF_INET_LOCAL_OUT;
	static const struct {
		const char *name, *rules;
		unsigned int walked;	/* the hooks ir_kernel_hooks() names */
	} kc[] = {
		{ "walk: known extensions only", "-A INPUT -p tcp -m tcp --dport 22 -j DROP\n", 0 },
		{ "walk: unknown target", "-A INPUT -p tcp -j kernel:LOG\n", IN },
		{ "walk: unknown match", "-A OUTPUT -m kernel:limit -j ACCEPT\n", OUT },
		{ "walk: conntrack --ctproto", "-A INPUT -m conntrack --ctproto 6 -j DROP\n", IN },
		{ "walk: --tcp-option", "-A FORWARD -p tcp -m tcp --tcp-option 2 -j DROP\n", FWD },
		{ "walk: behind an unconditional DROP", "-A INPUT -j DROP\n-A INPUT -j kernel:LOG\n", 0 },
		{ "walk: behind a conditional DROP", "-A INPUT -s 1.2.3.4 -j DROP\n-A INPUT -j kernel:LOG\n", IN },
		{ "walk: in a chain no hook reaches", ":C -\n-A C -j kernel:REJECT\n", 0 },
		{ "walk: in a jumped-to chain", ":C -\n-A FORWARD -p udp -j C\n-A C -j kernel:REJECT\n", FWD },
		{ "walk: in a goto chain", ":C -\n-A OUTPUT -g C\n-A C -m kernel:limit -j DROP\n", OUT },
		{ "walk: a chain shared by two hooks",
		  ":C -\n-A INPUT -j C\n-A OUTPUT -j C\n-A C -j kernel:LOG\n", IN | OUT },
		{ "walk: nested chains", ":A -\n:B -\n-A INPUT -j A\n-A A -j B\n-A B -j kernel:LOG\n", IN },
		{ "walk: more matches than IR_MAX_MATCH", "-A INPUT -p tcp"
		  " -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp"
		  " -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -m tcp -j DROP\n", IN },
		{ "walk: after a chain's RETURN",
		  ":C -\n-A FORWARD -j C\n-A C -j RETURN\n-A C -j kernel:LOG\n", 0 },
		{ "walk: conditional, two chains deep",
		  ":A -\n:B -\n-A INPUT -s 9.9.9.9 -j DROP\n-A INPUT -p tcp -j A\n"
		  "-A INPUT -p udp -j A\n-A A -d 3.3.3.3 -j ACCEPT\n-A A -j B\n"
		  "-A B -p udp -j kernel:LOG\n-A B -p tcp -m tcp --dport 22 -j kernel:REJECT\n"
		  "-A B -j RETURN\n-A A -p icmp -j DROP\n", IN },
		{ "walk: through a goto (no push)",
		  ":A -\n:B -\n-A OUTPUT -p tcp -j A\n-A OUTPUT -j ACCEPT\n-A A -g B\n"
		  "-A B -p tcp -m kernel:limit -j ACCEPT\n", OUT },
		{ "walk: after a RETURN, from the hook's chain",
		  ":A -\n-A INPUT -j A\n-A INPUT -i eth0 -j kernel:LOG\n"
		  "-A INPUT -p udp -j kernel:LOG\n-A A -p tcp -j RETURN\n-A A -j DROP\n", IN },
		{ "walk: a kernel rule in a set-like run",
		  "-A INPUT -s 10.0.0.1 -j DROP\n-A INPUT -s 10.0.0.2 -j DROP\n"
		  "-A INPUT -s 10.0.0.3 -j DROP\n-A INPUT -s 10.0.0.4 -j DROP\n"
		  "-A INPUT -s 1.2.3.4 -m kernel:limit -j DROP\n-A INPUT -s 10.0.0.6 -j DROP\n"
		  "-A INPUT -s 10.0.0.7 -j DROP\n-A INPUT -s 10.0.0.8 -j DROP\n"
		  "-A INPUT -s 10.0.0.9 -j DROP\n-A INPUT -s 1.2.3.4 -j ACCEPT\n", IN },
		{ "walk: jumps of a set-like run",
		  ":C -\n-A INPUT -s 10.0.0.1 -j C\n-A INPUT -s 10.0.0.2 -j C\n"
		  "-A INPUT -s 10.0.0.3 -j C\n-A INPUT -s 10.0.0.4 -j C\n"
		  "-A INPUT -s 1.2.3.4 -j C\n-A INPUT -s 10.0.0.6 -j C\n"
		  "-A INPUT -s 10.0.0.7 -j C\n-A INPUT -s 10.0.0.8 -j C\n"
		  "-A INPUT -s 10.0.0.9 -j C\n-A C -p tcp -j kernel:LOG\n", IN },
		/* kube-proxy's KUBE-SERVICES in filter: REJECT per service
		 * without endpoints, a classified run handed over at the rule
		 * whose every condition holds (3.3.3.3:22 fails the port) */
		{ "walk: a classified run of kernel rules",
		  "-A INPUT -d 3.3.3.1 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.3 -p tcp -m tcp --dport 22 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.2 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.3 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.4 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.5 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 2.2.2.2 -p udp -m udp --dport 53 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.6 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.7 -p tcp -m tcp --dport 80 -j kernel:REJECT\n"
		  "-A INPUT -d 3.3.3.3 -j DROP\n", IN },
		/* kube-proxy's nat KUBE-SERVICES: jumps into chains of kernel
		 * rules only (KUBE-SVC/SEP: statistic, DNAT), which the module
		 * walks whole; the jumps become a classified run */
		{ "walk: jumps into chains the kernel walks",
		  ":A -\n:B -\n:E -\n-A A -m kernel:statistic -j B\n-A A -j B\n"
		  "-A B -j kernel:DNAT\n"
		  "-A OUTPUT -d 3.3.3.1 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.2 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.3 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.4 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.5 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 2.2.2.2 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.6 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.7 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -d 3.3.3.8 -p tcp -m tcp --dport 80 -j A\n"
		  "-A OUTPUT -j E\n-A OUTPUT -d 2.2.2.2 -j DROP\n", OUT },
	};
	if (f->mech != CG_KMOD)
		return;
	for (size_t i = 0; i < sizeof(kc) / sizeof(kc[0]); i++) {
		char text[2048], err[1024] = "";
		struct ipt_table_view v;
		struct iptblob b;
		struct ir_table ir;
		unsigned int got;
		bool ok = true;

		if (filter && !strstr(kc[i].name, filter))
			continue;
		snprintf(text, sizeof(text), "*filter\n%sCOMMIT\n", kc[i].rules);
		if (iptblob_build(text, &b, err, sizeof(err))) {
			result(false, f->name, kc[i].name, "rules: %s", err);
			continue;
		}
		iptblob_view(&b, &v);
		/* without the kernel's walk, such a table is refused (by
		 * ir_build(), or for --tcp-option by codegen_hook()) */
		if (kc[i].walked && !ir_build(&v, &ir, err, sizeof(err))) {
			bool refused = ir.uses_tcpopt;

			ir_free(&ir);
			if (!refused) {
				result(false, f->name, kc[i].name,
				       "accepted without IR_KERNEL_WALKS");
				iptblob_free(&b);
				continue;
			}
		}
		if (ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, sizeof(err))) {
			result(false, f->name, kc[i].name, "rules: %s", err);
			iptblob_free(&b);
			continue;
		}
		got = ir_kernel_hooks(&ir);
		if (got != kc[i].walked) {
			result(false, f->name, kc[i].name, "walked hooks %#x, expected %#x",
			       got, kc[i].walked);
			ok = false;
		}
		/* every hook compiles and decides as the reference, a
		 * walked one stopping where the reference stops */
		for (int hook = 0; hook < CG_NHOOKS && ok; hook++) {
			const struct pkt pk[] = {
				TCP("1.2.3.4", "2.2.2.2", 1000, 22, "S"),
				TCP("1.2.3.4", "3.3.3.3", 1000, 80, "A"),
				UDP("1.2.3.4", "2.2.2.2", 1000, 53),
				ICMP("9.9.9.9", "2.2.2.2", 8, 0),
				ICMP("1.2.3.4", "2.2.2.2", 8, 0),
			};
			struct cg_counter *ref = calloc(ir.nrules, sizeof(*ref));
			struct run_opts ro = { 0 };
			struct shared sh;
			struct hprog h;
			unsigned int iplen;
			__u64 raw = 0;
			int r, want, gotv;

			memset(&sh, 0, sizeof(sh));
			memset(&h, 0, sizeof(h));
			r = gen_hook(f, &ir, (enum cg_hook)hook, false, &h, &sh, kc[i].name,
				     err, sizeof(err));
			if (r || !ref) {
				ok = false;
				result(false, f->name, kc[i].name, "hook %d: %s", hook, err);
			}
			for (size_t k = 0; ok && k < sizeof(pk) / sizeof(pk[0]); k++) {
				char why[160] = "";

				shared_zero_counters(&sh);
				memset(ref, 0, ir.nrules * sizeof(*ref));
				want = host_ref(f, &ir, hook, &pk[k], &ro, ref);
				gotv = host_run(f, &sh, &h.ip, hook, &pk[k], &ro, &iplen, &raw,
						err, sizeof(err));
				ok = gotv == want && host_ref_counters(&sh, ref, ir.nrules) < 0 &&
				     (want != 2 || same_resume(&sh, why, sizeof(why)));
				if (!ok)
					result(false, f->name, kc[i].name,
					       "hook %d packet %zu: %s, the reference %s%s%s%s", hook,
					       k, verdict_name(gotv), verdict_name(want),
					       why[0] ? ": " : "", why, gotv == -EFAULT ? err : "");
			}
			free(ref);
			hprog_free(&h);
			shared_free(&sh);
		}
		if (ok)
			result(true, f->name, kc[i].name, NULL);
		ir_free(&ir);
		iptblob_free(&b);
	}
}

/*
 * A random table of user chains (c0..c5; a chain jumps or goes only to
 * later ones, so no loops, nesting up to 6 deep from INPUT/FORWARD/OUTPUT)
 * whose rules test what random_pkt() varies, with ACCEPT/DROP/RETURN,
 * jumps, gotos and rules only the kernel runs ("kernel:LOG", "-m
 * kernel:limit"), malloc'd.
 */
static char *kernel_ruleset(void)
{
	static const char *const cond[] = { "", "-p tcp", "-p udp", "-s 10.0.0.0/24",
		"-d 10.1.0.0/16", "-p tcp -m tcp --dport 1:60", "-p udp -m udp --sport 53",
		"-i eth1", "! -s 10.0.0.1", "-f", "-p icmp" };
	static const char *const hooks[] = { "INPUT", "FORWARD", "OUTPUT" };
	size_t cap = 16384, len = 0;
	char *t = malloc(cap);

#define P(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	if (!t)
		return NULL;
	P("*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n");
	for (int c = 0; c < 6; c++)
		P(":c%d - [0:0]\n", c);
	for (int c = -3; c < 6; c++) {
		int n = 2 + (int)rnd(6);

		for (int i = 0; i < n; i++) {
			const char *ch = c < 0 ? hooks[c + 3] : NULL;
			char name[16];
			int to = c < 0 ? (int)rnd(6) : c + 1 + (int)rnd(5 - c > 0 ? 5 - c : 1);

			snprintf(name, sizeof(name), "c%d", c);
			P("-A %s %s ", ch ? ch : name, cond[rnd(sizeof(cond) / sizeof(cond[0]))]);
			switch (rnd(c >= 5 ? 5 : 7)) {
			case 0: P("-j ACCEPT\n"); break;
			case 1: P("-j DROP\n"); break;
			case 2: P(c < 0 ? "-j DROP\n" : "-j RETURN\n"); break;
			case 3: P("-j kernel:LOG\n"); break;
			case 4: P("-m kernel:limit -j ACCEPT\n"); break;
			case 5: P("-j c%d\n", to < 6 ? to : 5); break;
			case 6: P("-g c%d\n", to < 6 ? to : 5); break;
			}
		}
	}
	P("COMMIT\n");
#undef P
	return t;
}

/*
 * kernel_ruleset()'s tables on every hook: classified and linear programs
 * decide random packets as the reference, stopping where it stops with its
 * resume record, counting what it counts.
 */
static void kernel_random_diff(const struct flavor *f, int nsets, int npkts)
{
	int walks = 0, nested = 0, bad = 0;

	if (f->mech != CG_KMOD || (filter && !strstr("random kernel rules", filter)))
		return;
	rng_state = 0x6b65726eULL;
	for (int set = 0; set < nsets && !bad; set++) {
		char *text = kernel_ruleset(), err[1024] = "";
		struct ipt_table_view v;
		struct iptblob b;
		struct ir_table ir;

		if (!text || iptblob_build(text, &b, err, sizeof(err))) {
			result(false, f->name, "random kernel rules", "set %d: rules: %s", set, err);
			free(text);
			return;
		}
		iptblob_view(&b, &v);
		if (ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, sizeof(err))) {
			result(false, f->name, "random kernel rules", "set %d: rules: %s", set, err);
			iptblob_free(&b);
			free(text);
			return;
		}
		for (int hook = 0; hook < CG_NHOOKS && !bad; hook++) {
			struct hprog h[2];
			struct shared sh[2];
			char why[160] = "";
			struct cg_counter c[2], *refc = calloc(ir.nrules, sizeof(*refc));
			int e;

			memset(h, 0, sizeof(h));
			memset(sh, 0, sizeof(sh));
			if (!refc || build_pair(f, &ir, (enum cg_hook)hook, h, sh, err, sizeof(err))) {
				result(false, f->name, "random kernel rules", "set %d hook %d: %s",
				       set, hook, err);
				bad = 1;
			}
			for (int i = 0; i < npkts && !bad; i++) {
				struct pkt p;
				struct run_opts ro = { 0 };
				unsigned int iplen;
				__u64 raw;
				int vv, want;

				random_pkt(&p);
				p.out = rnd(2) ? "eth1" : "eth0";
				want = host_ref(f, &ir, hook, &p, &ro, refc);
				for (int m = 0; m < 2 && !bad; m++) {
					vv = host_run(f, &sh[m], &h[m].ip, hook, &p, &ro, &iplen, &raw,
						      err, sizeof(err));
					if (vv != want ||
					    (want == 2 && !same_resume(&sh[m], why, sizeof(why)))) {
						bad = 1;
						result(false, f->name, "random kernel rules",
						       "set %d hook %d packet %d (%s %s:%d -> %s:%d) %s: %s, the reference %s%s%s\n%s",
						       set, hook, i, p.proto, p.src, p.sport, p.dst, p.dport,
						       m ? "linear" : "classified", verdict_name(vv),
						       verdict_name(want), why[0] ? ": " : "",
						       vv == -EFAULT ? err : why, text);
					}
				}
				walks += want == 2;
				nested += want == 2 && host_ref_walk.depth;
			}
			if (!bad && (e = host_ref_counters(&sh[0], refc, ir.nrules)) >= 0) {
				bad = 1;
				result(false, f->name, "random kernel rules",
				       "set %d hook %d: counters of entry %d differ from the reference\n%s",
				       set, hook, e, text);
			}
			if (!bad && (e = counters_differ(sh, ir.nrules, c)) >= 0) {
				bad = 1;
				result(false, f->name, "random kernel rules",
				       "set %d hook %d: classified and linear counters of entry %d differ",
				       set, hook, e);
			}
			free(refc);
			pair_free(h, sh);
		}
		ir_free(&ir);
		iptblob_free(&b);
		free(text);
	}
	if (!bad)
		result(true, f->name, "random kernel rules",
		       "%d sets x 3 hooks x %d packets: %d walked, %d of them from a user chain",
		       nsets, npkts, walks, nested);
}
