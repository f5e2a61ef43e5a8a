// SPDX-License-Identifier: GPL-2.0
/*
 * Code-generation tests on the host: the cases of cgtest (cases.c) compiled
 * with the real front and back end (umh/ir/, umh/cgen/) and run through the
 * strict user-space interpreter (interp/), on every flavor: netfilter with
 * in-place header reads, netfilter through the dynptr only, tc.  Each case
 * runs with the packet wholly linear and with only part of it linear, so
 * every prologue path is taken; then the random "classified runs vs linear
 * code" comparison, and the dispatchers.  Nothing touches the kernel.
 *
 *   cghost [-v] [-t SUBSTRING]      ends with "N passed, N failed"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/pkt_cls.h>

#include "hostenv.h"
#include <ebpfilter/ctl.h>

#include "ref.h"
#include "iptblob.h"

static const char *filter;

static const struct flavor flavors[] = {
	{ "netfilter", CG_NETFILTER, true },
	{ "netfilter-dynptr", CG_NETFILTER, false },
	{ "tc", CG_TC, false },
	{ "kmod", CG_KMOD, false },
};

/*
 * The program of @hook for @ir into @h, its maps made (shared ones in
 * @sh).  0; codegen's -errno (a refusal; @err); 1: the maps could not be
 * made (@err).
 */
static int gen_hook(const struct flavor *f, const struct ir_table *ir, enum cg_hook hook,
		    bool no_classify, struct hprog *h, struct shared *sh, const char *name,
		    char *err, size_t len)
{
	struct cg_kernel k = host_kernel;
	struct cg_opts o = { .mech = f->mech, .hook = hook,
			     .k = f->mech == CG_NETFILTER ? &k : NULL,
			     .no_classify = no_classify };
	int r;

	k.direct = f->direct;
	sh->ir = ir;
	r = codegen_hook(ir, &o, &h->cg, err, len);
	if (r)
		return r;
	return hprog_build(h, sh, name, err, len) ? 1 : 0;
}

/* the rule set @text as IR */
static int build_ir(const char *text, struct iptblob *b, struct ir_table *ir,
		    char *err, size_t len)
{
	struct ipt_table_view v;

	if (iptblob_build(text, b, err, len))
		return -1;
	iptblob_view(b, &v);
	if (ir_build(&v, ir, err, len)) {
		iptblob_free(b);
		return -1;
	}
	return 0;
}

/* linear bytes of each run of a case: all, the IP header and a little,
 * the link layer only; the verdicts must not depend on it */
static const unsigned int nf_headlens[] = { 0, 24, 8 };
static const unsigned int tc_headlens[] = { 0, 14 + 24, 14 };

static const char *verdict_name(int v)
{
	return v == 1 ? "ACCEPT" : v == 0 ? "DROP" : v == 2 ? "WALK" :
	       v == -ERANGE ? "bad return value" :
	       "interpreter failure";
}

static void run_case(const struct flavor *f, const struct tcase *c)
{
	struct iptblob b;
	struct ir_table ir;
	struct shared sh;
	struct hprog h;
	struct cg_counter *ref = NULL;
	char err[1024] = "";
	int r;

	if (filter && !strstr(c->name, filter))
		return;
	if (!case_runs_on(c, f->mech))
		return;
	if (build_ir(c->table, &b, &ir, err, sizeof(err))) {
		result(false, f->name, c->name, "rules: %s", err);
		return;
	}
	memset(&sh, 0, sizeof(sh));
	memset(&h, 0, sizeof(h));
	ref = calloc(ir.nrules, sizeof(*ref));
	r = ref ? gen_hook(f, &ir, (enum cg_hook)c->hook, false, &h, &sh, c->name, err,
			   sizeof(err)) : -ENOMEM;
	if (c->expect == FAILLOAD) {
		result(r < 0, f->name, c->name, "%s%s", r < 0 ? "refused: " :
		       "compiled, expected a refusal", r < 0 ? err : "");
		goto out;
	}
	if (r) {
		result(false, f->name, c->name, "codegen: %s", err);
		goto out;
	}
	for (size_t v = 0; v < 3; v++) {
		/* kmod: no link layer either, as netfilter */
		unsigned int hl = f->mech == CG_TC ? tc_headlens[v] : nf_headlens[v];
		struct run_opts ro = { .headlen = hl };
		unsigned int iplen = 0;
		__u64 raw = 0;
		int got, want, e;

		shared_zero_counters(&sh);
		memset(ref, 0, ir.nrules * sizeof(*ref));
		want = host_ref(f, &ir, c->hook, &c->p, &ro, ref);
		got = host_run(f, &sh, &h.ip, c->hook, &c->p, &ro, &iplen, &raw,
			       err, sizeof(err));
		if (want != c->expect) {
			result(false, f->name, c->name, "the reference says %s, the case %s",
			       verdict_name(want), verdict_name(c->expect));
			goto out;
		}
		if (got == c->expect && (e = host_ref_counters(&sh, ref, ir.nrules)) >= 0) {
			struct cg_counter cn = shared_counter(&sh, (unsigned int)e);

			result(false, f->name, c->name,
			       "headlen %u: counter of entry %d: %llu/%llu, the reference %llu/%llu",
			       hl, e, (unsigned long long)cn.pkts, (unsigned long long)cn.bytes,
			       (unsigned long long)ref[e].pkts, (unsigned long long)ref[e].bytes);
			goto out;
		}
		if (got != c->expect) {
			result(false, f->name, c->name, "headlen %u: %s (r0 %#llx), expected %s%s%s",
			       hl, verdict_name(got), (unsigned long long)raw,
			       verdict_name(c->expect), got == -EFAULT ? ": " : "",
			       got == -EFAULT ? err : "");
			goto out;
		}
		if (c->count_chain) {
			int idx = iptblob_index(&b, c->count_chain, (unsigned int)c->count_rule);
			struct cg_counter cn = shared_counter(&sh, idx < 0 ? 0 : (unsigned int)idx);

			if (idx < 0 || cn.pkts != (__u64)c->count_pkts ||
			    cn.bytes != (__u64)c->count_pkts * iplen) {
				result(false, f->name, c->name,
				       "headlen %u: counter of entry %d: %llu pkts %llu bytes, expected %d/%u",
				       hl, idx, (unsigned long long)cn.pkts,
				       (unsigned long long)cn.bytes, c->count_pkts,
				       c->count_pkts * iplen);
				goto out;
			}
		}
	}
	result(true, f->name, c->name, NULL);
out:
	free(ref);
	hprog_free(&h);
	shared_free(&sh);
	ir_free(&ir);
	iptblob_free(&b);
}

#include "cghost_more.h"
#include "cghost_kmod.h"
#include "cghost_ip6.h"
#include "cghost_ip6_cls.h"
#include "cghost_ip6_ext.h"
#include "cghost_ip6_set.h"
#include "cghost_layout.h"
#include "cghost_cls_hd.h"
#include "cghost_cost.h"

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "vt:")) != -1) {
		if (opt == 'v')
			verbose = 1;
		else if (opt == 't')
			filter = optarg;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++) {
		const struct flavor *f = &flavors[i];
		int p0 = passed, f0 = failed;

		for (size_t c = 0; c < ncases; c++)
			run_case(f, &cases[c]);
		classify_diff(f, getenv("CG_SETS") ? atoi(getenv("CG_SETS")) : 40, 300);
		scale_case(f, "scale 10000 linear", false, false, 10000);
		scale_case(f, "scale 10000 set-like", true, false, 10000);
		scale_case(f, "scale 10000 set-like, no classifier", true, true, 10000);
		set_run_stray_case(f);
		genrules_diff(f, 300, 400);
		dispatcher_cases(f);
		conntrack_cases(f);
		nf_name_cases(f);
		kernel_walk_cases(f);
		kernel_random_diff(f, 200, 100);
		ip6_cases(f);
		ip6_classify_cases(f);
		ip6_classify_diff(f, 60, 200);
		ip6_multiport_cases(f);
		ip6_ctstate_cases(f);
		ip6_set_cases(f);
		ip6_set_diff(f, 60, 200);
		layout_cases(f);
		cls_hd_cases(f);
		cost_cases(f);
		printf("%s: %d passed, %d failed\n", f->name, passed - p0, failed - f0);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
