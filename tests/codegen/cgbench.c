// SPDX-License-Identifier: GPL-2.0
/*
 * cgbench: the helper's per-commit CPU work on the host (issue 20), with
 * the helper's own code: an iptables-save "filter" file (tests/lib/iptblob.c)
 * becomes the ipt_replace blob iptables would send, then
 *   validate  ipt_translate() (umh/ipt/validate.c, ext.c)
 *   IR        ir_build_ext(IR_KERNEL_WALKS) (umh/ir/), as commit_install()
 *   codegen   codegen_hook() for INPUT, FORWARD, OUTPUT, kmod mechanism
 * each timed alone, best of REPS (host CPU time, not the guest's).
 *
 *   cgbench [-r REPS] FILE...   one line per file: best us per phase
 *   cgbench -d FILE             dump what each stage produced: translate's
 *                               errno, the IR's refusal, every program's
 *                               instructions and maps, byte for byte (to
 *                               compare a change's output with the old)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgen/codegen.h"
#include "ipt/table.h"
#include "ir/ir.h"
#include "fake_kernel.h"
#include "iptblob.h"

/* the kmod backend's answer (ipt/table.c asks the backend): the module
 * checks the extensions the helper has no descriptor for */
bool ipt_backend_kernel_checks(void)
{
	return true;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 1 << 16, got;
	char *s = malloc(cap);

	if (!f || !s) {
		perror(path);
		exit(2);
	}
	while ((got = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len < 2 && !(s = realloc(s, cap *= 2)))
			exit(2);
	}
	s[len] = 0;
	fclose(f);
	return s;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* the SET_REPLACE request iptables would send for @b */
static struct ipt_replace *replace_of(const struct iptblob *b)
{
	struct ipt_replace *r = calloc(1, sizeof(*r));

	snprintf(r->name, sizeof(r->name), "filter");
	r->valid_hooks = (1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) |
			 (1 << NF_INET_LOCAL_OUT);
	r->num_entries = b->num_entries;
	r->size = b->size;
	memcpy(r->hook_entry, b->hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, b->underflow, sizeof(r->underflow));
	return r;
}

static void dump_prog(const struct cg_prog *p)
{
	size_t i;
	unsigned int m;
	__u32 e, k;

	printf("insns %zu\n", p->n);
	for (i = 0; i < p->n; i++) {
		const struct bpf_insn *x = &p->insns[i];

		printf("%02x %x %x %d %d\n", x->code, x->dst_reg, x->src_reg,
		       x->off, x->imm);
	}
	for (m = 0; m < p->nmaps; m++) {
		const struct cg_map *c = &p->maps[m];
		size_t rec = c->key_size + c->value_size;

		printf("map %s type %d key %u value %u max %u flags %u src %d n %u\n",
		       c->name, c->type, c->key_size, c->value_size,
		       c->max_entries, c->map_flags, c->source, c->nelems);
		for (e = 0; e < c->nelems; e++) {
			for (k = 0; k < rec; k++)
				printf("%02x", c->elems[e * rec + k]);
			printf("\n");
		}
	}
}

/*
 * The flavors a dump has, kmod first (the one timed, and the dump's order
 * before the others were added); netfilter's with the fake kernel's
 * layout (fake_kernel.h), headers read in place and through the dynptr.
 */
static const struct dump_flavor {
	enum cg_mech mech;
	bool direct;
} dump_flavors[] = {
	{ CG_KMOD, false },
	{ CG_TC, false },
	{ CG_NETFILTER, true },
	{ CG_NETFILTER, false },
};
#define DUMP_FLAVORS (sizeof(dump_flavors) / sizeof(dump_flavors[0]))

/* one pass over the three stages; the time of each added to @us */
static int pipeline(const struct ipt_replace *r, const struct iptblob *src,
		    bool dump, double us[3])
{
	struct ipt_table_view v;
	struct ipt_blob b;
	struct ir_table ir;
	char err[256] = "";
	double t0, t1;
	int h, ret;

	t0 = now_us();
	ret = ipt_translate(r, src->data, &b);
	t1 = now_us();
	us[0] += t1 - t0;
	if (dump)
		printf("translate %d\n", ret);
	if (ret)
		return ret;
	if (dump) {	/* what GET_ENTRIES will serve, normalized */
		uint64_t fnv = 14695981039346656037ULL;
		unsigned int i;

		for (i = 0; i < b.size; i++)
			fnv = (fnv ^ b.entries[i]) * 1099511628211ULL;
		printf("blob %u entries %u stack %u fnv %016llx\n", b.size,
		       b.num_entries, b.stacksize, (unsigned long long)fnv);
	}
	iptblob_view(src, &v);
	v.entries = b.entries;
	t0 = now_us();
	ret = ir_build_ext(&v, IR_KERNEL_WALKS, &ir, err, sizeof(err));
	t1 = now_us();
	us[1] += t1 - t0;
	if (dump)
		printf("ir %d %s nrules %u\n", ret, ret ? err : "",
		       ret ? 0 : ir.nrules);
	if (ret)
		goto out_blob;
	/* kmod is what is timed; the dump has the other flavors' too */
	for (h = 0; h < (dump ? DUMP_FLAVORS : 1) * CG_NHOOKS; h++) {
		const struct dump_flavor *f = &dump_flavors[h / CG_NHOOKS];
		struct cg_kernel k = host_kernel;
		struct cg_opts o = { .mech = f->mech, .hook = h % CG_NHOOKS,
				     .k = f->mech == CG_NETFILTER ? &k : NULL };
		struct cg_prog p;

		k.direct = f->direct;

		t0 = now_us();
		ret = codegen_hook(&ir, &o, &p, err, sizeof(err));
		t1 = now_us();
		us[2] += t1 - t0;
		if (dump) {
			printf("mech %d%s hook %d codegen %d %s\n", o.mech,
			       f->mech == CG_NETFILTER && !f->direct ? " dynptr" : "",
			       o.hook, ret, ret ? err : "");
			if (!ret)
				dump_prog(&p);
		}
		if (!ret)
			cg_prog_free(&p);
	}
	ret = 0;
	ir_free(&ir);
out_blob:
	ipt_blob_free(&b);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int reps = 20, i;
	bool dump = false;
	int opt, a;

	while ((opt = getopt(argc, argv, "dr:")) != -1) {
		if (opt == 'd')
			dump = true;
		else if (opt == 'r')
			reps = atoi(optarg);
		else
			return 2;
	}
	if (!dump)
		printf("%-28s %10s %10s %10s  (host us, best of %u)\n", "file",
		       "validate", "IR", "codegen", reps);
	for (a = optind; a < argc; a++) {
		static struct iptblob b;
		char *text = read_all(argv[a]), err[256];
		double best[3] = { 1e18, 1e18, 1e18 };
		struct ipt_replace *r;

		if (iptblob_build(text, &b, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[a], err);
			return 2;
		}
		r = replace_of(&b);
		if (dump) {
			double us[3] = { 0 };

			printf("== %s\n", argv[a]);
			pipeline(r, &b, true, us);
		}
		for (i = 0; !dump && i < reps; i++) {
			double us[3] = { 0 };
			int k;

			pipeline(r, &b, false, us);
			for (k = 0; k < 3; k++)
				if (us[k] < best[k])
					best[k] = us[k];
		}
		if (!dump)
			printf("%-28s %10.0f %10.0f %10.0f\n",
			       strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a],
			       best[0], best[1], best[2]);
		free(r);
		iptblob_free(&b);
		free(text);
	}
	return 0;
}
