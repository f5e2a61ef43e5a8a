/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's cases of a classified run's hotdrop (included by it;
 * cgen/classify.c, "Hotdrop"): on kmod a packet whose tcp/udp header a
 * match would find missing (l4state 2) is handed to the module's walk at
 * the run's first rule, and the run's maps hold one element per key, no
 * hotdrop twins (issue 17: half of every map of tcp/udp rules); the other
 * flavors keep the twins.  Each layout the hand-over takes: main's inline
 * chain with no other hand-over (the record written into the resume map
 * there), main's chain with a kernel rule (the function's walk tail), a
 * user chain reached by a jump, with a kernel rule (the jump pushed) and
 * without (no walk: twins).  The verdicts and counters are the
 * reference's, the module's part walked by the reference from the
 * program's record (shared_module_walk()).
 */

/* elements in @p's classifier maps */
static unsigned int cls_elems(const struct cg_prog *p)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < p->nmaps; k++)
		if (p->maps[k].name && !strcmp(p->maps[k].name, "ebpf_cls"))
			n += p->maps[k].nelems;
	return n;
}

static bool uses_resume(const struct cg_prog *p)
{
	for (unsigned int k = 0; k < p->nmaps; k++)
		if (p->maps[k].source == CG_MAP_RESUME)
			return true;
	return false;
}

/* the run: its first rule tests only the source (no header needed), then
 * 12 tcp/udp rules of two groups */
#define HD_RUN \
	"-A %s -s 10.9.0.1 -j DROP\n" \
	"-A %s -d 3.3.3.1 -p tcp -m tcp --dport 80 -j ACCEPT\n" \
	"-A %s -d 3.3.3.2 -p tcp -m tcp --dport 80 -j ACCEPT\n" \
	"-A %s -d 3.3.3.3 -p tcp -m tcp --dport 80 -j ACCEPT\n" \
	"-A %s -d 3.3.3.4 -p tcp -m tcp --dport 80 -j DROP\n" \
	"-A %s -d 3.3.3.5 -p tcp -m tcp --dport 80 -j ACCEPT\n" \
	"-A %s -d 3.3.3.6 -p tcp -m tcp --dport 80 -j ACCEPT\n" \
	"-A %s -d 3.3.3.1 -p udp -m udp --dport 53 -j ACCEPT\n" \
	"-A %s -d 3.3.3.2 -p udp -m udp --dport 53 -j ACCEPT\n" \
	"-A %s -d 3.3.3.3 -p udp -m udp --dport 53 -j DROP\n" \
	"-A %s -d 3.3.3.4 -p udp -m udp --dport 53 -j ACCEPT\n" \
	"-A %s -d 3.3.3.5 -p udp -m udp --dport 53 -j ACCEPT\n" \
	"-A %s -d 3.3.3.6 -p udp -m udp --dport 53 -j ACCEPT\n"
#define HD_RUN_L4	12

static void cls_hd_cases(const struct flavor *f)
{
	static const struct {
		const char *name, *head, *chain, *tail;
		bool kernel;	/* kernel: rules (kmod only) */
		bool handed;	/* kmod hands hotdrop packets over (no twins) */
	} hc[] = {
		{ "cls hotdrop: main, no other hand-over", "", "INPUT", "", false, true },
		{ "cls hotdrop: main with a kernel rule", "", "INPUT",
		  "-A INPUT -p tcp -j kernel:LOG\n", true, true },
		{ "cls hotdrop: a user chain with a kernel rule",
		  ":USR -\n-A INPUT -s 10.7.0.0/16 -j DROP\n-A INPUT -j USR\n", "USR",
		  "-A USR -p udp -j kernel:LOG\n", true, true },
		{ "cls hotdrop: a user chain, nothing walked",
		  ":USR -\n-A INPUT -j USR\n-A INPUT -p udp -j DROP\n", "USR", "", false,
		  false },
	};
	static const struct pkt pk[] = {
		/* rule 0 matches first: DROP, counted */
		{ .proto = "tcp", .src = "10.9.0.1", .dst = "3.3.3.3", .dport = 80, .l4bytes = 10 },
		/* the tcp rule of 3.3.3.3: hotdrop */
		{ .proto = "tcp", .src = "1.1.1.1", .dst = "3.3.3.3", .dport = 80, .l4bytes = 10 },
		{ .proto = "tcp", .src = "1.1.1.1", .dst = "3.3.3.5", .fragoff = 1 },
		{ .proto = "udp", .src = "1.1.1.1", .dst = "3.3.3.6", .dport = 53, .l4bytes = 6 },
		/* no rule's address: on past the run */
		{ .proto = "tcp", .src = "1.1.1.1", .dst = "4.4.4.4", .dport = 80, .l4bytes = 10 },
		{ .proto = "udp", .src = "1.1.1.1", .dst = "4.4.4.4", .dport = 53, .l4bytes = 6 },
		/* later fragments match no tcp/udp rule and drop nothing */
		{ .proto = "tcp", .src = "1.1.1.1", .dst = "3.3.3.3", .fragoff = 2 },
		/* whole headers */
		TCP("1.1.1.1", "3.3.3.3", 1000, 80, "S"),
		TCP("1.1.1.1", "3.3.3.4", 1000, 80, "S"),
		UDP("1.1.1.1", "3.3.3.3", 1000, 53),
		UDP("1.1.1.1", "3.3.3.9", 1000, 53),
		TCP("10.9.0.1", "3.3.3.3", 1000, 80, "S"),
	};

	for (size_t i = 0; i < sizeof(hc) / sizeof(hc[0]); i++) {
		char text[4096], run[2048], err[1024] = "";
		const char *c = hc[i].chain;
		struct cg_counter *ref = NULL;
		struct ipt_table_view v;
		struct iptblob b;
		struct ir_table ir;
		struct shared sh;
		struct hprog h;
		bool handed = f->mech == CG_KMOD && hc[i].handed, ok = true;
		/* in maps: the 12 tcp/udp rules' group (and their twins); the
		 * source rule's group and the tail's kernel rule's (which
		 * joins the run) have one key each: compared inline
		 * (CLS_INLINE_MAX), no map */
		unsigned int want_elems = HD_RUN_L4 + (handed ? 0 : HD_RUN_L4);

		if ((filter && !strstr(hc[i].name, filter)) ||
		    (hc[i].kernel && f->mech != CG_KMOD))
			continue;
		snprintf(run, sizeof(run), HD_RUN, c, c, c, c, c, c, c, c, c, c, c, c, c);
		snprintf(text, sizeof(text), "*filter\n%s%s%sCOMMIT\n", hc[i].head, run,
			 hc[i].tail);
		if (iptblob_build(text, &b, err, sizeof(err))) {
			result(false, f->name, hc[i].name, "rules: %s", err);
			continue;
		}
		iptblob_view(&b, &v);
		if (ir_build_ext(&v, hc[i].kernel ? IR_KERNEL_WALKS : 0, &ir, err,
				 sizeof(err))) {
			result(false, f->name, hc[i].name, "rules: %s", err);
			iptblob_free(&b);
			continue;
		}
		memset(&sh, 0, sizeof(sh));
		memset(&h, 0, sizeof(h));
		ref = calloc(ir.nrules, sizeof(*ref));
		if (!ref || gen_hook(f, &ir, CG_INPUT, false, &h, &sh, hc[i].name, err,
				     sizeof(err))) {
			result(false, f->name, hc[i].name, "codegen: %s", err);
			ok = false;
		} else if (cls_elems(&h.cg) != want_elems ||
			   (!hc[i].kernel && uses_resume(&h.cg) != handed)) {
			result(false, f->name, hc[i].name,
			       "%u classifier elements, expected %u; resume map %s",
			       cls_elems(&h.cg), want_elems, uses_resume(&h.cg) ? "used" : "unused");
			ok = false;
		}
		for (size_t k = 0; ok && k < sizeof(pk) / sizeof(pk[0]); k++) {
			struct run_opts ro = { 0 };
			unsigned int iplen;
			__u64 raw = 0;
			int want, got, e;

			shared_zero_counters(&sh);
			memset(ref, 0, ir.nrules * sizeof(*ref));
			want = host_ref(f, &ir, CG_INPUT, &pk[k], &ro, ref);
			got = host_run(f, &sh, &h.ip, CG_INPUT, &pk[k], &ro, &iplen, &raw, err,
				       sizeof(err));
			e = got == want ? host_ref_counters(&sh, ref, ir.nrules) : -1;
			if (got != want || e >= 0 ||
			    (want == 2 && !same_resume(&sh, err, sizeof(err)))) {
				result(false, f->name, hc[i].name,
				       "packet %zu: %s, the reference %s (counter %d) %s", k,
				       verdict_name(got), verdict_name(want), e,
				       got == -EFAULT || want == 2 ? err : "");
				ok = false;
			}
		}
		if (ok)
			result(true, f->name, hc[i].name, NULL);
		free(ref);
		hprog_free(&h);
		shared_free(&sh);
		ir_free(&ir);
		iptblob_free(&b);
	}
}
