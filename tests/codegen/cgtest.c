// SPDX-License-Identifier: GPL-2.0
/*
 * Code-generation tests: compile rule sets with ebpfilter's own front and
 * back end (umh/ir/, umh/cgen/, umh/load/), load them, and run
 * crafted packets through them with BPF_PROG_TEST_RUN.  Static musl binary,
 * run inside a guest (never on the build machine's kernel).
 *
 *   cgtest [-v] [-t SUBSTRING]
 *
 * Runs every case on every mechanism the kernel has (6.12: netfilter and
 * tc programs; 6.1: tc), then prints "N passed, N failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>
#include <linux/netfilter.h>

#include "load/bpf_enforce.h"
#include "cases.h"
#include "iptblob.h"

static const char *filter;

/* the cases, the packet builder and the random rule sets: cases.c */

struct nf_state_ctx {	/* struct nf_hook_state as test_run reads it */
	__u8 hook, pf;
	__u8 pad[6];
	__u64 in, out, sk, net, okfn;
};

static int ifinfo_fd = -1;
/* kmod: where a program that stops at a kernel rule leaves its record */
static int resume_fd = -1;

static void set_ifname(__u32 ifindex, const char *name)
{
	struct cg_ifinfo v;

	enf_tc_ifinfo(&v, name ? name : "", 1 /* ARPHRD_ETHER */);
	bpf_map_update_elem(ifinfo_fd, &ifindex, &v, BPF_ANY);
}

/* run @p through the program; 1 accept, 0 drop, -errno */
static int run_pkt(const struct enf_kernel *ek, int fd, int hook,
		   const struct pkt *p, unsigned int *iplen)
{
	static const __u8 nfhook[3] = { NF_INET_LOCAL_IN, NF_INET_FORWARD,
					NF_INET_LOCAL_OUT };
	unsigned char buf[256];
	bool eth = ek->mech == CG_TC || hook != CG_OUTPUT;
	size_t n = build_pkt(p, eth, buf, iplen);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = (__u32)n,
		    .repeat = 1);
	struct nf_state_ctx nctx = { .hook = nfhook[hook], .pf = NFPROTO_IPV4 };
	struct __sk_buff sctx;

	if (ek->mech == CG_NETFILTER) {
		o.ctx_in = &nctx;
		o.ctx_size_in = sizeof(nctx);
	} else {
		memset(&sctx, 0, sizeof(sctx));
		/* ifindex 1 (lo) is the device; its name comes from ifinfo */
		set_ifname(1, hook == CG_OUTPUT ? p->out : p->in);
		set_ifname(2, p->out);
		sctx.ifindex = 1;
		sctx.cb[0] = 2;		/* what the dispatcher passes: */
		sctx.cb[1] = 14;	/* output device, l2len */
		o.ctx_in = &sctx;
		o.ctx_size_in = sizeof(sctx);
	}
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	if (ek->mech == CG_NETFILTER)
		return o.retval == NF_ACCEPT ? 1 : o.retval == NF_DROP ? 0 : -ERANGE;
	if ((int)o.retval == TC_ACT_UNSPEC)
		return 1;
	if (o.retval == TC_ACT_SHOT)
		return 0;
	fprintf(stderr, "tc retval %u\n", o.retval);
	return -ERANGE;
}

static void run_case(const struct enf_kernel *ek, const struct tcase *c)
{
	const char *mech = cg_flavor(ek->mech)->name;
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	char err[256] = "";
	int ctr = -1, fd = -1, r, got;
	unsigned int iplen = 0;

	if (filter && !strstr(c->name, filter))
		return;
	if (!case_runs_on(c, ek->mech))
		return;
	if (iptblob_build(c->table, &b, err, sizeof(err))) {
		result(false, mech, c->name, "blob: %s", err);
		return;
	}
	iptblob_view(&b, &v);
	r = ir_build(&v, &ir, err, sizeof(err));
	if (!r) {
		ctr = enf_counters_create(ir.nrules);
		r = enf_load_hook(&ir, ek, (enum cg_hook)c->hook, ctr, ifinfo_fd,
				  &fd, err, sizeof(err));
	}
	if (c->expect == FAILLOAD) {
		result(r < 0, mech, c->name, "%s%s", r < 0 ? "refused: " : "loaded, expected a refusal",
		       r < 0 ? err : "");
		goto out;
	}
	if (r) {
		result(false, mech, c->name, "load: %s", err);
		goto out;
	}
	got = run_pkt(ek, fd, c->hook, &c->p, &iplen);
	if (got != c->expect) {
		result(false, mech, c->name, "verdict %s, expected %s",
		       got == 1 ? "ACCEPT" : got == 0 ? "DROP" : strerror(-got),
		       c->expect ? "ACCEPT" : "DROP");
		goto out;
	}
	if (c->count_chain) {
		struct xt_counters *cn = calloc(ir.nrules, sizeof(*cn));
		int idx = iptblob_index(&b, c->count_chain, (unsigned int)c->count_rule);

		enf_counters_add(ctr, cn, ir.nrules);
		if (idx < 0 || cn[idx].pcnt != (__u64)c->count_pkts ||
		    cn[idx].bcnt != (__u64)c->count_pkts * iplen) {
			result(false, mech, c->name, "counter of entry %d: %llu pkts %llu bytes, expected %d/%u",
			       idx, idx < 0 ? 0ULL : (unsigned long long)cn[idx].pcnt,
			       idx < 0 ? 0ULL : (unsigned long long)cn[idx].bcnt,
			       c->count_pkts, c->count_pkts * iplen);
			free(cn);
			goto out;
		}
		free(cn);
	}
	result(true, mech, c->name, NULL);
out:
	if (fd >= 0)
		close(fd);
	if (ctr >= 0)
		close(ctr);
	if (!r || c->expect != FAILLOAD)
		ir_free(&ir);
	iptblob_free(&b);
}

/* ---- scale: 10,000 rules, linear and set-like --------------------------- */

static void scale_case(const struct enf_kernel *ek, const char *name, bool setlike,
		       int nrules)
{
	const char *mech = cg_flavor(ek->mech)->name;
	size_t cap = (size_t)nrules * 80 + 256, len = 0;
	char *text = malloc(cap), err[256] = "";
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	int ctr = -1, fd = -1, r, got;
	unsigned int iplen;
	struct timespec t0, t1;
	struct pkt hit = TCP("10.200.0.1", "2.2.2.2", 1000, 22, "S");
	struct pkt miss = TCP("10.201.0.1", "2.2.2.2", 1000, 22, "S");

	if (filter && !strstr(name, filter)) {
		free(text);
		return;
	}
	len += (size_t)snprintf(text + len, cap - len, "*filter\n");
	for (int i = 0; i < nrules - 1; i++) {
		if (setlike)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.%d.%d.%d/32 -j DROP\n",
				100 + i / 65536, (i / 256) % 256, i % 256);
		else if (i % 3 == 0)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.%d.%d.0/24 -p tcp -m tcp --dport %d -j DROP\n",
				i / 256 % 256, i % 256, i % 60000 + 1);
		else if (i % 3 == 1)
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -d 10.%d.%d.1 -p udp -m udp --sport %d -j ACCEPT\n",
				i / 256 % 256, i % 256, i % 60000 + 1);
		else
			len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -m iprange --src-range 11.0.%d.1-11.0.%d.9 -j DROP\n",
				i % 256, i % 256);
	}
	len += (size_t)snprintf(text + len, cap - len,
				"-A INPUT -s 10.200.0.1 -p tcp -m tcp --dport 22 -j DROP\nCOMMIT\n");
	if (iptblob_build(text, &b, err, sizeof(err))) {
		result(false, mech, name, "blob: %s", err);
		free(text);
		return;
	}
	free(text);
	iptblob_view(&b, &v);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = ir_build(&v, &ir, err, sizeof(err));
	if (!r) {
		struct cg_opts o = { .mech = ek->mech, .hook = CG_INPUT,
				     .k = ek->have_btf ? &ek->k : NULL };
		struct cg_prog p;
		struct timespec t2;

		ctr = enf_counters_create(ir.nrules);
		r = codegen_hook(&ir, &o, &p, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t2);
		if (verbose)
			printf("  codegen %.2f s\n", (double)(t2.tv_sec - t0.tv_sec) + (t2.tv_nsec - t0.tv_nsec) / 1e9);
		if (!r) {
			r = enf_load(ek->mech, &p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1, resume_fd },
				     "ebpf_input", &fd, err, sizeof(err));
			cg_prog_free(&p);
		}
		ir_free(&ir);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r) {
		result(false, mech, name, "load: %s", err);
		goto out;
	}
	got = run_pkt(ek, fd, CG_INPUT, &hit, &iplen);
	r = run_pkt(ek, fd, CG_INPUT, &miss, &iplen);
	{
		struct bpf_prog_info info;
		__u32 il = sizeof(info);

		memset(&info, 0, sizeof(info));
		bpf_prog_get_info_by_fd(fd, &info, &il);
		result(got == 0 && r == 1, mech, name,
		       "%d rules loaded in %.2f s (%u insns, %u verified), verdicts %d/%d",
		       nrules, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       info.xlated_prog_len / 8, info.verified_insns, got, r);
	}
out:
	if (fd >= 0)
		close(fd);
	if (ctr >= 0)
		close(ctr);
	iptblob_free(&b);
}

/* ---- a rule file (CG_RULES_FILE): load time per hook; with CG_DEADLOG=1
 * also the instructions the verifier never visited (verifier log level 1) */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* instructions of @p the verifier never visits (it removes each such range
 * with a memmove of the rest of the program: the generated code must have
 * none); -1 if the log could not be had */
static long dead_report(const struct enf_kernel *ek, const struct cg_prog *p,
			int ctr, bool print)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	size_t sz = (size_t)256 << 20, i, nr = 0, nd = 0;
	char *log = malloc(sz), *s, err[256];
	unsigned char *seen = calloc(p->n, 1);
	struct enf_resolved res;
	int fd;

	if (!log || !seen ||
	    enf_resolve(p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1, resume_fd }, &res,
			err, sizeof(err))) {
		free(log);
		free(seen);
		return -1;
	}
	log[0] = 0;
	o.log_buf = log;
	o.log_size = (__u32)sz;
	o.log_level = 2;
	o.expected_attach_type = cg_flavor(ek->mech)->expected_attach_type;
	fd = bpf_prog_load(cg_flavor(ek->mech)->prog_type, "ebpf_dead", "GPL",
			   res.insns, p->n, &o);
	enf_resolved_free(&res);
	if (fd < 0) {
		printf("  deadlog load: %s\n", strerror(errno));
		free(log);
		free(seen);
		return -1;
	}
	close(fd);
	if (getenv("CG_DEADLOG_HEAD"))
		printf("%.*s\n", atoi(getenv("CG_DEADLOG_HEAD")), log);
	for (s = log; *s; ) {
		char *e = strchr(s, '\n');
		unsigned long k;
		char *q;

		k = strtoul(s, &q, 10);
		if (q != s && q[0] == ':' && q[1] == ' ' && q[2] == '(' && k < p->n)
			seen[k] = 1;
		if (!e)
			break;
		s = e + 1;
	}
	/* the second half of a ld_imm64 is never printed */
	for (i = 0; i + 1 < p->n; i++)
		if (seen[i] && p->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			seen[i + 1] = 1;
	for (i = 0; i < p->n; i++) {
		size_t j;

		if (seen[i])
			continue;
		for (j = i; j < p->n && !seen[j]; j++)
			;
		nr++;
		nd += j - i;
		if (print && nr <= 12) {
			printf("  dead %zu..%zu:", i, j - 1);
			for (size_t k = i > 3 ? i - 3 : 0; k < j + 2 && k < p->n && k < i + 12; k++)
				printf(" %s%zu:%02x/%d/%d/%d/%d", k == i ? "[" : "", k,
				       p->insns[k].code, p->insns[k].dst_reg,
				       p->insns[k].src_reg, p->insns[k].off,
				       p->insns[k].imm);
			printf("\n");
		}
		i = j - 1;
	}
	if (print)
		printf("  %zu insns, %zu never visited in %zu ranges\n", p->n, nd, nr);
	free(seen);
	free(log);
	return (long)nd;
}

/* load every hook of the table @text (IR built with @ir_flags); @dead:
 * also require that the verifier visits every instruction */
static void table_case_ext(const struct enf_kernel *ek, const char *path,
			   char *text, bool dead, unsigned int ir_flags)
{
	const char *mech = cg_flavor(ek->mech)->name;
	char err[256] = "";
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	int h;

	if (iptblob_build(text, &b, err, sizeof(err))) {
		result(false, mech, path, "blob: %s", err);
		free(text);
		return;
	}
	free(text);
	iptblob_view(&b, &v);
	if (ir_build_ext(&v, ir_flags, &ir, err, sizeof(err))) {
		result(false, mech, path, "ir: %s", err);
		iptblob_free(&b);
		return;
	}
	for (h = 0; h < CG_NHOOKS; h++) {
		struct cg_opts o = { .mech = ek->mech, .hook = (enum cg_hook)h,
				     .k = ek->have_btf ? &ek->k : NULL };
		struct cg_prog p;
		struct timespec t0, t1;
		struct bpf_prog_info info;
		__u32 il = sizeof(info);
		int ctr = enf_counters_create(ir.nrules), fd = -1, r;
		char name[64], deadmsg[48] = "";
		long nd = 0;

		snprintf(name, sizeof(name), "%s hook %d", path, h);
		r = codegen_hook(&ir, &o, &p, err, sizeof(err));
		if (r) {
			result(false, mech, name, "codegen: %s", err);
			close(ctr);
			continue;
		}
		if (dead) {
			nd = dead_report(ek, &p, ctr, verbose);
			snprintf(deadmsg, sizeof(deadmsg), ", %ld never visited", nd);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = enf_load(ek->mech, &p, &(struct enf_maps){ ctr, ifinfo_fd, -1, -1, resume_fd },
			     "ebpf_file", &fd, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		memset(&info, 0, sizeof(info));
		if (!r)
			bpf_prog_get_info_by_fd(fd, &info, &il);
		result(!r && nd == 0, mech, name, "%u rules: %zu insns, load %.2f s (%u xlated, %u verified%s)%s%s",
		       ir.nrules, p.n, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       info.xlated_prog_len / 8, info.verified_insns,
		       deadmsg, r ? ": " : "", r ? err : "");
		cg_prog_free(&p);
		if (fd >= 0)
			close(fd);
		close(ctr);
	}
	ir_free(&ir);
	iptblob_free(&b);
}

static void table_case(const struct enf_kernel *ek, const char *path,
		       char *text, bool dead)
{
	table_case_ext(ek, path, text, dead, 0);
}

static void file_case(const struct enf_kernel *ek, const char *path)
{
	char *text = read_file(path);

	if (!text) {
		result(false, "-", path, "cannot read");
		return;
	}
	table_case(ek, path, text, getenv("CG_DEADLOG") != NULL);
}

/* the gen-ruleset shape: small, every instruction visited; large, the
 * load time (the helper's request timeout is 60 s) */
static void genrules_case(const struct enf_kernel *ek, int n, bool dead)
{
	char name[64];
	char *text;

	snprintf(name, sizeof(name), "gen-ruleset %d", n);
	if (filter && !strstr(name, filter))
		return;
	text = gen_ruleset(n, ek->mech == CG_NETFILTER && ek->have_btf);
	if (!text) {
		result(false, "-", name, "out of memory");
		return;
	}
	table_case(ek, name, text, dead);
}

/*
 * kmod programs that stop at rules only the kernel runs (LOG, limit: names
 * the helper does not know): user chains nested as deep as BPF calls go
 * with such rules at every level, every instruction visited; and the
 * 10,000-rule gen-ruleset with 300 of them after its rules, the load time.
 * Only the verifier's part: the host suite (cghost) checks the records.
 */
static void kmod_walk_cases(const struct enf_kernel *ek)
{
	struct enf_kernel k = *ek;
	size_t cap = 1 << 16, len = 0;
	char *t, *g;

	if (filter && !strstr("kmod walk", filter))
		return;
	k.mech = CG_KMOD;
	t = malloc(cap);
	if (!t)
		return;
#define P(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	P("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n");
	for (int c = 1; c <= 6; c++)
		P(":c%d - [0:0]\n", c);
	P("-A INPUT -p tcp -m tcp --dport 22 -j kernel:LOG\n-A INPUT -j c1\n");
	P("-A FORWARD -g c3\n-A OUTPUT -p udp -j c2\n-A OUTPUT -j kernel:REJECT\n");
	for (int c = 1; c <= 6; c++) {
		P("-A c%d -s 10.%d.0.0/16 -m kernel:limit -j ACCEPT\n", c, c);
		P("-A c%d -p udp -m udp --dport %d -j kernel:LOG\n", c, c);
		if (c < 6)
			P("-A c%d -p tcp -j c%d\n", c, c + 1);
		P("-A c%d -d 10.%d.0.0/16 -j DROP\n-A c%d -j kernel:LOG\n", c, c, c);
	}
	P("COMMIT\n");
	table_case_ext(&k, "kmod walk: chains 6 deep", t, true, IR_KERNEL_WALKS);

	g = gen_ruleset(10000, true);
	t = g ? malloc(strlen(g) + 300 * 96) : NULL;
	if (!t) {
		free(g);
		return;
	}
	len = strlen(g) - strlen("COMMIT\n");
	cap = len + 300 * 96;
	memcpy(t, g, len);
	free(g);
	for (int i = 0; i < 300; i++)
		P("-A %s -s 10.%d.%d.0/24 %s\n", i % 3 ? "INPUT" : "OUTPUT", i / 250 + 1,
		  i % 250 + 1, i % 2 ? "-j kernel:LOG" : "-m kernel:limit -j ACCEPT");
	P("COMMIT\n");
#undef P
	table_case_ext(&k, "kmod walk: gen-ruleset 10000 + 300", t, false, IR_KERNEL_WALKS);
}

/* ---- classified runs vs linear code (random_rules(): cases.c) --------- */

/* load @text with and without classified runs */
static int load_pair(const struct enf_kernel *ek, const char *text, struct iptblob *b,
		     struct ir_table *ir, int fd[2], int ctr[2], unsigned int ninsn[2],
		     char *err, size_t errlen)
{
	struct ipt_table_view v;
	struct enf_kernel k2 = *ek;

	if (iptblob_build(text, b, err, errlen))
		return -EINVAL;
	iptblob_view(b, &v);
	if (ir_build(&v, ir, err, errlen)) {
		iptblob_free(b);
		return -EINVAL;
	}
	for (int m = 0; m < 2; m++) {
		struct bpf_prog_info info;
		__u32 il = sizeof(info);

		k2.no_classify = m == 1;
		ctr[m] = enf_counters_create(ir->nrules);
		if (enf_load_hook(ir, &k2, CG_INPUT, ctr[m], ifinfo_fd, &fd[m], err, errlen))
			return -EINVAL;
		memset(&info, 0, sizeof(info));
		bpf_prog_get_info_by_fd(fd[m], &info, &il);
		ninsn[m] = info.xlated_prog_len / 8;
	}
	return 0;
}

static void classify_diff(const struct enf_kernel *ek, int nsets, int npkts)
{
	const char *mech = cg_flavor(ek->mech)->name;
	unsigned long long seed = getenv("CG_SEED") ? strtoull(getenv("CG_SEED"), NULL, 0)
						   : 0x5eed1234ULL;
	int mismatches = 0, sets = 0, shrunk = 0;
	char name[64], err[256] = "";

	snprintf(name, sizeof(name), "classify-diff %d sets x %d packets", nsets, npkts);
	if (filter && !strstr(name, filter))
		return;
	rng_state = seed + (ek->mech == CG_TC);
	for (int s = 0; s < nsets && !mismatches; s++) {
		char *text = random_rules(ek->mech == CG_TC);
		struct iptblob b;
		struct ir_table ir;
		int fd[2] = { -1, -1 }, ctr[2] = { -1, -1 };
		unsigned int ninsn[2] = { 0, 0 }, iplen;

		if (!text || load_pair(ek, text, &b, &ir, fd, ctr, ninsn, err, sizeof(err))) {
			result(false, mech, name, "set %d: %s\n%s", s, err, text ? text : "");
			free(text);
			return;
		}
		sets++;
		shrunk += ninsn[0] < ninsn[1];
		for (int i = 0; i < npkts && !mismatches; i++) {
			struct pkt p;
			int v[2];

			random_pkt(&p);
			for (int m = 0; m < 2; m++)
				v[m] = run_pkt(ek, fd[m], CG_INPUT, &p, &iplen);
			if (v[0] != v[1]) {
				mismatches++;
				result(false, mech, name,
				       "set %d packet %d (%s %s:%d -> %s:%d in %s l4bytes %d fragoff %d): classified %d, linear %d\n%s",
				       s, i, p.proto, p.src, p.sport, p.dst, p.dport, p.in,
				       p.l4bytes, p.fragoff, v[0], v[1], text);
			}
		}
		if (!mismatches) {
			struct xt_counters *c0 = calloc(ir.nrules, sizeof(*c0));
			struct xt_counters *c1 = calloc(ir.nrules, sizeof(*c1));

			enf_counters_add(ctr[0], c0, ir.nrules);
			enf_counters_add(ctr[1], c1, ir.nrules);
			for (unsigned int e = 0; e < ir.nrules && !mismatches; e++)
				if (c0[e].pcnt != c1[e].pcnt || c0[e].bcnt != c1[e].bcnt) {
					mismatches++;
					result(false, mech, name,
					       "set %d: counters of entry %u: classified %llu/%llu, linear %llu/%llu\n%s",
					       s, e, (unsigned long long)c0[e].pcnt,
					       (unsigned long long)c0[e].bcnt,
					       (unsigned long long)c1[e].pcnt,
					       (unsigned long long)c1[e].bcnt, text);
				}
			free(c0);
			free(c1);
		}
		for (int m = 0; m < 2; m++) {
			close(fd[m]);
			close(ctr[m]);
		}
		ir_free(&ir);
		iptblob_free(&b);
		free(text);
	}
	if (!mismatches)
		result(shrunk >= sets / 4, mech, name,
		       "seed %#llx: same verdicts and counters; %d of %d sets had classified runs",
		       seed, shrunk, sets);
}

static void run_all(const struct enf_kernel *ek)
{
	if (getenv("CG_RULES_FILE")) {
		file_case(ek, getenv("CG_RULES_FILE"));
		return;
	}
	for (size_t i = 0; i < ncases; i++)
		run_case(ek, &cases[i]);
	if (getenv("CG_SCALE_N"))
		scale_case(ek, "scale N linear", false, atoi(getenv("CG_SCALE_N")));
	classify_diff(ek, getenv("CG_SETS") ? atoi(getenv("CG_SETS")) : 40, 300);
	scale_case(ek, "scale 10000 linear", false, 10000);
	scale_case(ek, "scale 10000 set-like", true, 10000);
	genrules_case(ek, 300, true);
	genrules_case(ek, 10000, false);
}

/* @text's table program for @hook, of the kmod flavor, through the
 * verifier: 0, or -errno with @err */
static int kmod_load(const struct enf_kernel *ek, const char *text, int hook,
		     char *err, size_t len)
{
	struct iptblob b;
	struct ipt_table_view v;
	struct ir_table ir;
	int ctr, fd = -1, r;

	err[0] = 0;
	if (iptblob_build(text, &b, err, len))
		return -EINVAL;
	iptblob_view(&b, &v);
	r = ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, len);
	if (!r) {
		ctr = enf_counters_create(ir.nrules);
		r = enf_load_hook(&ir, ek, (enum cg_hook)hook, ctr, ifinfo_fd,
				  &fd, err, len);
		if (fd >= 0)
			close(fd);
		if (ctr >= 0)
			close(ctr);
		ir_free(&ir);
	}
	iptblob_free(&b);
	return r;
}

/*
 * kmod: ebpfilter.ko runs SCHED_CLS programs on the skb at its own
 * netfilter hooks, data at the IP header, which BPF_PROG_TEST_RUN cannot
 * give a tc program (it pushes a link-layer header): here the verifier's
 * verdict on them only; the host suite (cghost) runs them.
 */
static void kmod_verify(void)
{
	const struct enf_kernel ek = { .ops = &enf_mech_kmod, .mech = CG_KMOD };
	const char *mech = "kmod (verifier only)";
	char err[256] = "", *text;

	for (size_t i = 0; i < ncases; i++) {
		const struct tcase *c = &cases[i];

		if ((filter && !strstr(c->name, filter)) ||
		    !case_runs_on(c, CG_KMOD) || c->expect == FAILLOAD)
			continue;
		result(!kmod_load(&ek, c->table, c->hook, err, sizeof(err)), mech,
		       c->name, "%s", err);
	}
	if (filter && !strstr("gen-ruleset", filter))
		return;
	text = gen_ruleset(10000, true);
	for (int hook = 0; text && hook < CG_NHOOKS; hook++) {
		char name[64];

		snprintf(name, sizeof(name), "gen-ruleset 10000 hook %d", hook);
		result(!kmod_load(&ek, text, hook, err, sizeof(err)), mech, name,
		       "%s", err);
	}
	free(text);
}

int main(int argc, char **argv)
{
	struct enf_kernel ek;
	char err[256] = "";
	int opt;

	while ((opt = getopt(argc, argv, "vt:")) != -1) {
		if (opt == 'v')
			verbose = 1;
		else if (opt == 't')
			filter = optarg;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ifinfo_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ebpf_ifinfo", 4,
				   sizeof(struct cg_ifinfo), 64, NULL);
	resume_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ebpf_resume", 4,
				   CG_RESUME_SIZE, 1, NULL);
	if (ifinfo_fd < 0 || resume_fd < 0) {
		printf("FAIL cannot create maps: %s\n", strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (enf_probe(&ek, NULL, err, sizeof(err))) {
		printf("FAIL probe: %s\n", err);
		failed++;
	} else {
		printf("mechanism: %s\n", cg_flavor(ek.mech)->name);
		run_all(&ek);
		if (ek.mech == CG_NETFILTER && ek.k.direct) {
			/* headers read in place (above) or, where they are
			 * not linear, through the dynptr: test that path
			 * whole too */
			ek.k.direct = false;
			printf("mechanism: netfilter, headers through the dynptr\n");
			run_all(&ek);
		}
		if (ek.mech == CG_NETFILTER) {
			/* tc programs work on 6.12 as well: test them too */
			enf_probe(&ek, "tc", err, sizeof(err));
			run_all(&ek);
		}
		kmod_verify();
		if (!getenv("CG_RULES_FILE"))
			kmod_walk_cases(&ek);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
