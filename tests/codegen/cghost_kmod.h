/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's cases of the kmod mechanism's split (included by it): which
 * hooks reach a rule no emitter serves (ir_kernel_hooks(): the module
 * walks them, prog_fd -1), and that the other hooks still compile and
 * decide as the reference does.  "kernel:NAME" is an extension the helper
 * has no descriptor for (iptblob.h).
 */

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
	};
	static const unsigned int nfhook[CG_NHOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };

	if (f->mech != CG_KMOD)
		return;
	for (size_t i = 0; i < sizeof(kc) / sizeof(kc[0]); i++) {
		char text[512], err[1024] = "";
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
		/* a walked hook is not compiled, every other one is and
		 * decides a packet as the reference does */
		for (int hook = 0; hook < CG_NHOOKS && ok; hook++) {
			struct pkt p = TCP("1.2.3.4", "2.2.2.2", 1000, 22, "S");
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
			if (got & (1u << nfhook[hook])) {
				ok = r < 0;
				if (!ok)
					result(false, f->name, kc[i].name,
					       "hook %d compiled, the kernel walks it", hook);
			} else if (r || !ref) {
				ok = false;
				result(false, f->name, kc[i].name, "hook %d: %s", hook, err);
			} else {
				want = host_ref(f, &ir, hook, &p, &ro, ref);
				gotv = host_run(f, &sh, &h.ip, hook, &p, &ro, &iplen, &raw,
						err, sizeof(err));
				ok = gotv == want && host_ref_counters(&sh, ref, ir.nrules) < 0;
				if (!ok)
					result(false, f->name, kc[i].name,
					       "hook %d: %s, the reference %s", hook,
					       verdict_name(gotv), verdict_name(want));
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
