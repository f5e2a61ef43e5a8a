/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cghost.c's cases of the program's layout (included by it; abi.h,
 * "main"): a hook whose reachable rules need no frame (no jump, goto or
 * RETURN; a kernel rule's jump hands over) is one BPF function, its rule
 * code inline in main; any other keeps a subprogram per function start.
 * The kernel keeps a bpf_prog per function (issue 17: the memory of a
 * namespace), so the count is the point, and each program must still
 * decide as the reference does.
 */

/* the BPF functions of @p as the verifier splits them: main and each
 * distinct target of a bpf-to-bpf call */
static unsigned int prog_functions(const struct cg_prog *p)
{
	unsigned int n = 1;

	for (size_t i = 0; i < p->n; i++) {
		const struct bpf_insn *c = &p->insns[i];
		size_t t;
		bool seen = false;

		if (c->code != (BPF_JMP | BPF_CALL) || c->src_reg != BPF_PSEUDO_CALL)
			continue;
		t = i + 1 + (size_t)(long)c->imm;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->insns[j].code == (BPF_JMP | BPF_CALL) &&
			       p->insns[j].src_reg == BPF_PSEUDO_CALL &&
			       j + 1 + (size_t)(long)p->insns[j].imm == t;
		n += !seen;
	}
	return n;
}

/* @hook of @ir compiled: one function iff @one, and the reference's
 * verdicts and counters for a few packets; false after a FAIL line */
static bool layout_hook(const struct flavor *f, const char *name, struct ir_table *ir,
			int hook, bool one, const struct pkt *pk, size_t npk)
{
	struct cg_counter *ref = calloc(ir->nrules, sizeof(*ref));
	struct run_opts ro = { 0 };
	struct shared sh;
	struct hprog h;
	char err[1024] = "";
	bool ok = false;
	unsigned int nf;

	memset(&sh, 0, sizeof(sh));
	memset(&h, 0, sizeof(h));
	if (!ref || gen_hook(f, ir, (enum cg_hook)hook, false, &h, &sh, name, err,
			     sizeof(err))) {
		result(false, f->name, name, "hook %d: codegen: %s", hook, err);
		goto out;
	}
	nf = prog_functions(&h.cg);
	if ((nf == 1) != one) {
		result(false, f->name, name, "hook %d: %u BPF functions, expected %s", hook,
		       nf, one ? "1 (main only)" : "more (main and the chains')");
		goto out;
	}
	for (size_t k = 0; k < npk; k++) {
		unsigned int iplen;
		__u64 raw = 0;
		int want, got, e;

		shared_zero_counters(&sh);
		memset(ref, 0, ir->nrules * sizeof(*ref));
		want = host_ref(f, ir, hook, &pk[k], &ro, ref);
		got = host_run(f, &sh, &h.ip, hook, &pk[k], &ro, &iplen, &raw, err,
			       sizeof(err));
		e = got == want ? host_ref_counters(&sh, ref, ir->nrules) : -1;
		if (got != want || e >= 0) {
			result(false, f->name, name,
			       "hook %d packet %zu: %s, the reference %s%s%s (counter %d)", hook,
			       k, verdict_name(got), verdict_name(want),
			       got == -EFAULT ? ": " : "", got == -EFAULT ? err : "", e);
			goto out;
		}
		if (want == 2 && !same_resume(&sh, err, sizeof(err))) {
			result(false, f->name, name, "hook %d packet %zu: %s", hook, k, err);
			goto out;
		}
	}
	ok = true;
out:
	free(ref);
	hprog_free(&h);
	shared_free(&sh);
	return ok;
}

/* a chain-less INPUT of @n linear rules (a jump's reach is 32767
 * instructions: its returns must hop back to main's mapping) */
static char *long_chain(int n)
{
	size_t cap = (size_t)n * 96 + 256, len = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	len += (size_t)snprintf(t + len, cap - len, "*filter\n:INPUT ACCEPT\n");
	for (int i = 0; i < n - 1; i++)
		len += (size_t)snprintf(t + len, cap - len,
			"-A INPUT -d 10.%d.%d.0/24 -p tcp -m tcp --sport %d:%d -j %s\n",
			i / 256 % 256, i % 256, i % 60000 + 1, i % 60000 + 5,
			i % 2 ? "ACCEPT" : "DROP");
	snprintf(t + len, cap - len,
		 "-A INPUT -s 10.200.0.1 -p tcp -m tcp --dport 22 -j DROP\nCOMMIT\n");
	return t;
}

static void layout_cases(const struct flavor *f)
{
	enum { IN = 1, FW = 2, OUT = 4, ALL = IN | FW | OUT };
	static const struct {
		const char *name, *rules;
		int one;	/* the hooks expected as one function */
		bool kernel;	/* kernel: rules (kmod only) */
	} lc[] = {
		{ "layout: built-in chains only",
		  ":INPUT DROP\n-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
		  "-A INPUT -s 10.9.0.1 -j DROP\n-A INPUT -s 10.9.0.2 -j DROP\n"
		  "-A INPUT -s 10.9.0.3 -j DROP\n-A INPUT -s 10.9.0.4 -j DROP\n"
		  "-A INPUT -s 10.9.0.5 -j DROP\n-A INPUT -s 10.9.0.6 -j DROP\n"
		  "-A INPUT -s 10.9.0.7 -j DROP\n-A INPUT -s 10.9.0.8 -j DROP\n"
		  "-A INPUT -d 3.3.3.1 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.2 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.3 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.4 -p udp -m udp --dport 53 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.5 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.6 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.7 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -d 3.3.3.8 -p tcp -m tcp --dport 80 -j ACCEPT\n"
		  "-A INPUT -p udp -m udp --dport 50:60 -j DROP\n"
		  "-A OUTPUT -d 2.2.2.2 -j DROP\n", ALL },
		{ "layout: a user chain",
		  ":USR -\n-A INPUT -p tcp -j USR\n-A INPUT -j DROP\n-A USR -j ACCEPT\n"
		  "-A OUTPUT -d 2.2.2.2 -j DROP\n", FW | OUT },
		{ "layout: a goto", ":USR -\n-A FORWARD -p udp -g USR\n-A USR -j DROP\n",
		  IN | OUT },
		{ "layout: a RETURN at the top",
		  ":INPUT DROP\n-A INPUT -s 1.2.3.4 -j RETURN\n-A INPUT -j ACCEPT\n", FW | OUT },
		{ "layout: a RETURN behind an unconditional verdict",
		  "-A INPUT -j ACCEPT\n-A INPUT -j RETURN\n", ALL },
		{ "layout: a kernel rule", "-A INPUT -p tcp -j kernel:LOG\n-A INPUT -j DROP\n",
		  ALL, true },
		{ "layout: a jump into a chain the kernel walks",
		  ":B -\n-A INPUT -p tcp -j B\n-A INPUT -j DROP\n-A B -j kernel:DNAT\n", ALL,
		  true },
	};
	static const struct pkt pk[] = {
		TCP("1.2.3.4", "2.2.2.2", 1000, 22, "S"),
		TCP("1.2.3.4", "3.3.3.3", 1000, 80, "A"),
		UDP("10.9.0.5", "3.3.3.4", 1000, 53),
		UDP("1.2.3.4", "2.2.2.2", 1000, 55),
		ICMP("9.9.9.9", "2.2.2.2", 8, 0),
	};
	static const struct pkt lpk[] = {
		TCP("10.200.0.1", "2.2.2.2", 1000, 22, "S"),	/* the last rule */
		TCP("10.201.0.1", "2.2.2.2", 1000, 23, "S"),	/* the policy */
		TCP("1.1.1.1", "10.0.0.9", 3, 23, "S"),		/* the first */
	};
	const char *lname = "layout: 3000 rules in main";

	for (size_t i = 0; i < sizeof(lc) / sizeof(lc[0]); i++) {
		char text[2048], err[1024] = "";
		struct ipt_table_view v;
		struct iptblob b;
		struct ir_table ir;
		bool ok = true;

		if ((filter && !strstr(lc[i].name, filter)) ||
		    (lc[i].kernel && f->mech != CG_KMOD))
			continue;
		snprintf(text, sizeof(text), "*filter\n%sCOMMIT\n", lc[i].rules);
		if (iptblob_build(text, &b, err, sizeof(err))) {
			result(false, f->name, lc[i].name, "rules: %s", err);
			continue;
		}
		iptblob_view(&b, &v);
		if (ir_build_ext(&v, lc[i].kernel ? IR_KERNEL_WALKS : 0, &ir, err,
				 sizeof(err))) {
			result(false, f->name, lc[i].name, "rules: %s", err);
			iptblob_free(&b);
			continue;
		}
		for (int hook = 0; hook < CG_NHOOKS && ok; hook++)
			ok = layout_hook(f, lc[i].name, &ir, hook, lc[i].one & (1 << hook), pk,
					 sizeof(pk) / sizeof(pk[0]));
		if (ok)
			result(true, f->name, lc[i].name, NULL);
		ir_free(&ir);
		iptblob_free(&b);
	}
	if (!filter || strstr(lname, filter)) {
		char *text = long_chain(3000), err[1024] = "";
		struct iptblob b;
		struct ir_table ir;

		if (!text || build_ir(text, &b, &ir, err, sizeof(err))) {
			result(false, f->name, lname, "rules: %s", err);
		} else {
			if (layout_hook(f, lname, &ir, CG_INPUT, true, lpk,
					sizeof(lpk) / sizeof(lpk[0])))
				result(true, f->name, lname, NULL);
			ir_free(&ir);
			iptblob_free(&b);
		}
		free(text);
	}
}
