// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter (interp.h).  Memory model: BPF addresses are host
 * addresses; every pointer a program holds carries its provenance, the
 * region it was derived from (a frame's stack, the ctx, the linear packet,
 * one map value, a fake kernel object, a dynptr slice, a bpf_rdonly_cast()
 * view), and an access through it must lie inside that region with the
 * region's permissions.  A pointer derived from one region never reaches
 * another by arithmetic, as the verifier's per-register types guarantee.
 * Scalars are not pointers: dereferencing one fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <linux/netfilter.h>

#include "interp.h"

#define STACK 512		/* MAX_BPF_STACK */
#define FRAMES 8		/* MAX_CALL_FRAMES */
#define TAIL_MAX 33		/* MAX_TAIL_CALL_CNT */
#define NREG 256		/* regions per run */

/* register/slot tags: >= 0 a region index, else */
enum { T_SCALAR = -1, T_MAP = -2, T_PKTEND = -3, T_BTFNULL = -4 };

enum { RF_R = 1, RF_W = 2, RF_STACK = 4, RF_CTX = 8, RF_KOBJ = 16 };

/* stack byte states */
enum { SB_UNINIT, SB_INIT, SB_DYNPTR, SB_DYNPTR0 /* first byte */ };

struct region {
	unsigned char *base;
	size_t size;
	unsigned int flags;
	int kobj;		/* RF_KOBJ: index in env->kobj */
	const char *what;
};

struct reg {
	__u64 v;
	int t;
	bool init;
	int null_id;	/* a helper's result not yet tested against NULL */
};

struct frame {
	struct reg saved[4];	/* the caller's r6-r9 */
	size_t ret_pc;
	size_t entry;
};

struct st {
	struct ip_env *e;
	const struct ip_prog *p;
	unsigned char *half;	/* second halves of LD_IMM64 */
	int *depth;		/* per subprogram entry: deepest stack use */
	struct reg r[11];
	struct frame fr[FRAMES];
	int nfr;
	unsigned char stack[FRAMES][STACK];
	unsigned char sb[FRAMES][STACK];
	int spill[FRAMES][STACK / 8];
	unsigned char ctxbuf[sizeof(struct __sk_buff)];
	struct region rg[NREG];
	int nrg;
	int null_ids;
	__u64 pkt_proven;	/* packet bytes proven below data_end */
	size_t pc;
	jmp_buf jb;
};

enum { RG_CTX = FRAMES, RG_PKT, RG_KOBJ };

static void fail(struct st *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void fail(struct st *s, const char *fmt, ...)
{
	char dis[96] = "";
	va_list ap;
	int n;

	if (s->pc < s->p->n)
		ip_disasm(&s->p->insns[s->pc], dis, sizeof(dis));
	n = snprintf(s->e->err, sizeof(s->e->err), "%s pc %zu (frame %d): %s: ",
		     s->p->name ? s->p->name : "prog", s->pc, s->nfr - 1, dis);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(s->e->err))
		vsnprintf(s->e->err + n, sizeof(s->e->err) - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(s->jb, 1);
}

static int add_region(struct st *s, void *base, size_t size, unsigned int flags,
		      int kobj, const char *what)
{
	for (int i = RG_KOBJ; i < s->nrg; i++)
		if (s->rg[i].base == base && s->rg[i].size == size &&
		    s->rg[i].flags == flags && s->rg[i].kobj == kobj)
			return i;
	if (s->nrg == NREG)
		fail(s, "more than %d memory regions in one run", NREG);
	s->rg[s->nrg] = (struct region){ base, size, flags, kobj, what };
	return s->nrg++;
}

/* the region holding [a, a + n), any provenance; -1 if none */
static int region_at(struct st *s, __u64 a, size_t n)
{
	for (int i = 0; i < s->nrg; i++) {
		__u64 b = (__u64)(unsigned long)s->rg[i].base;

		if (i < FRAMES && i >= s->nfr)
			continue;	/* a dead frame */
		if (a >= b && a - b + n <= s->rg[i].size)
			return i;
	}
	return -1;
}

static struct reg *rd(struct st *s, int r)
{
	if (r > 10)
		fail(s, "bad register r%d", r);
	if (!s->r[r].init)
		fail(s, "r%d read before it was written", r);
	return &s->r[r];
}

static void set_scalar(struct st *s, int r, __u64 v)
{
	s->r[r] = (struct reg){ v, T_SCALAR, true, 0 };
}

static void clobber_args(struct st *s)
{
	for (int i = 1; i <= 5; i++)
		s->r[i].init = false;
}

/* the verifier's limit on the stack of a call chain: each frame's depth
 * rounded up to 32 (at least 32), all of them at most 512 */
static void check_depth(struct st *s)
{
	int sum = 0;

	for (int f = 0; f < s->nfr; f++) {
		int d = s->depth[s->fr[f].entry];

		sum += ((d > 1 ? d : 1) + 31) / 32 * 32;
	}
	if (sum > STACK)
		fail(s, "combined stack of %d frames is %d bytes (> %d)",
		     s->nfr, sum, STACK);
}

static unsigned char *mem_x(struct st *s, const struct reg *base, long off,
			    size_t n, bool write, bool insn, int *rid);

/*
 * Check an access of @n bytes at @base + @off by an instruction (@insn:
 * aligned on the stack) or a helper; returns the host address, or NULL for
 * a probe load through a NULL kernel pointer (reads 0).
 */
static unsigned char *mem(struct st *s, const struct reg *base, long off,
			  size_t n, bool write, int *rid)
{
	return mem_x(s, base, off, n, write, true, rid);
}

static unsigned char *mem_x(struct st *s, const struct reg *base, long off,
			    size_t n, bool write, bool insn, int *rid)
{
	const struct region *g;
	__u64 a = base->v + (__u64)off, b;

	*rid = base->t;
	if (base->null_id)
		fail(s, "dereference of a pointer not tested against NULL");
	if (base->t == T_BTFNULL) {
		if (!write && a < 4096)
			return NULL;
		fail(s, "access through a NULL kernel pointer");
	}
	if (base->t < 0)
		fail(s, "dereference of a %s", base->t == T_SCALAR ? "scalar (wild access)" :
		     base->t == T_MAP ? "map pointer" : "data_end pointer");
	g = &s->rg[base->t];
	if (base->t < FRAMES && base->t >= s->nfr)
		fail(s, "access to the stack of a returned frame");
	b = (__u64)(unsigned long)g->base;
	if (a < b || a - b + n > g->size)
		fail(s, "%zu-byte %s at offset %lld of %s (%zu bytes): out of bounds",
		     n, write ? "write" : "read", (long long)(a - b), g->what, g->size);
	if (!(g->flags & (write ? RF_W : RF_R)))
		fail(s, "%s of read-only %s", write ? "write" : "read", g->what);
	if (base->t == RG_PKT && a - b + n > s->pkt_proven)
		fail(s, "packet bytes %llu..%llu: only %llu proven below data_end",
		     (unsigned long long)(a - b), (unsigned long long)(a - b + n - 1),
		     (unsigned long long)s->pkt_proven);
	if (g->flags & RF_STACK) {
		size_t o = a - b;
		int f = base->t, d = STACK - (int)o;

		if (insn && o % n)
			fail(s, "misaligned stack access (fp%+d, %zu bytes)", -d, n);
		if (d > s->depth[s->fr[f].entry]) {
			s->depth[s->fr[f].entry] = d;
			check_depth(s);
		}
		for (size_t i = o; i < o + n; i++) {
			if (s->sb[f][i] >= SB_DYNPTR)
				fail(s, "direct access to a dynptr (fp%+d)",
				     (int)i - STACK);
			if (!write && s->sb[f][i] != SB_INIT)
				fail(s, "read of uninitialized stack fp%+d",
				     (int)i - STACK);
		}
	}
	return (unsigned char *)(unsigned long)a;
}

/* a helper's memory argument: @n bytes at register @r */
static unsigned char *arg_mem(struct st *s, int r, size_t n, bool write)
{
	int rid;
	unsigned char *p;

	if (!n)
		fail(s, "zero-sized memory argument r%d", r);
	p = mem_x(s, rd(s, r), 0, n, write, false, &rid);
	if (!p)
		fail(s, "NULL memory argument r%d", r);
	return p;
}

/* the bytes of a stack region became initialized (or not) */
static void mark_stack(struct st *s, unsigned char *p, size_t n, unsigned char st)
{
	for (int f = 0; f < s->nfr; f++) {
		if (p >= s->stack[f] && p < s->stack[f] + STACK) {
			size_t o = (size_t)(p - s->stack[f]);

			memset(&s->sb[f][o], st, n);
			for (size_t i = o / 8; i < (o + n + 7) / 8; i++)
				s->spill[f][i] = T_SCALAR;
		}
	}
}

static __u64 load_n(const unsigned char *p, size_t n)
{
	__u8 b;
	__u16 h;
	__u32 w;
	__u64 d;

	if (!p)
		return 0;
	switch (n) {
	case 1: memcpy(&b, p, 1); return b;
	case 2: memcpy(&h, p, 2); return h;
	case 4: memcpy(&w, p, 4); return w;
	default: memcpy(&d, p, 8); return d;
	}
}

static void store_n(unsigned char *p, size_t n, __u64 v)
{
	__u8 b = (__u8)v;
	__u16 h = (__u16)v;
	__u32 w = (__u32)v;

	switch (n) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &h, 2); break;
	case 4: memcpy(p, &w, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

#include "ctx.h"

/* ----- memory instructions ---------------------------------------------- */

static const size_t sizes[4] = { 4, 2, 1, 8 };

static void do_ldx(struct st *s, const struct bpf_insn *i)
{
	size_t n = sizes[BPF_SIZE(i->code) >> 3];
	const struct reg *b = rd(s, i->src_reg);
	unsigned char *p;
	int rid;

	if (BPF_MODE(i->code) != BPF_MEM)
		fail(s, "unsupported load mode");
	if (i->dst_reg >= 10)
		fail(s, "write to r%d", i->dst_reg);
	if (b->t == RG_CTX) {
		ctx_load(s, i->dst_reg, b, i->off, n);
		return;
	}
	p = mem(s, b, i->off, n, false, &rid);
	s->r[i->dst_reg] = (struct reg){ load_n(p, n), T_SCALAR, true, 0 };
	if (rid >= 0 && (s->rg[rid].flags & RF_STACK) && n == 8) {
		size_t o = (size_t)(p - s->stack[rid]);

		s->r[i->dst_reg].t = s->spill[rid][o / 8];
	} else if (rid >= 0 && (s->rg[rid].flags & RF_KOBJ) && n == 8) {
		/* a pointer field: a pointer to another object, or NULL */
		const struct ip_kobj *k = &s->e->kobj[s->rg[rid].kobj];
		long fo = (long)(p - (unsigned char *)k->p);
		__u64 v = s->r[i->dst_reg].v;

		for (int f = 0; f < k->nptr; f++) {
			if (k->ptr_offs[f] != fo)
				continue;
			s->r[i->dst_reg].t = v ? region_at(s, v, 1) : T_BTFNULL;
			if (s->r[i->dst_reg].t < 0 && v)
				fail(s, "pointer field %ld points to no known object", fo);
		}
	}
}

static void do_store(struct st *s, const struct bpf_insn *i, const struct reg *val)
{
	size_t n = sizes[BPF_SIZE(i->code) >> 3];
	const struct reg *b = rd(s, i->dst_reg);
	unsigned char *p;
	int rid;

	if (b->t == RG_CTX) {
		ctx_store(s, b, i->off, n, val);
		return;
	}
	p = mem(s, b, i->off, n, true, &rid);
	if (rid >= 0 && (s->rg[rid].flags & RF_STACK)) {
		mark_stack(s, p, n, SB_INIT);
		if (val->t != T_SCALAR) {
			if (n != 8)
				fail(s, "partial spill of a pointer");
			s->spill[rid][(p - s->stack[rid]) / 8] = val->t;
		}
	} else if (val->t != T_SCALAR) {
		fail(s, "storing a pointer outside the stack");
	}
	if (val->null_id)
		fail(s, "spilling a pointer not tested against NULL");
	store_n(p, n, val->v);
}

static void do_atomic(struct st *s, const struct bpf_insn *i)
{
	size_t n = sizes[BPF_SIZE(i->code) >> 3];
	const struct reg *b = rd(s, i->dst_reg), *v = rd(s, i->src_reg);
	unsigned char *p;
	int rid;

	if (i->imm != BPF_ADD || (n != 8 && n != 4))
		fail(s, "unsupported atomic op %#x", i->imm);
	if (v->t != T_SCALAR)
		fail(s, "atomic add of a pointer");
	if (b->t == RG_CTX)
		fail(s, "atomic op on the ctx");
	p = mem(s, b, i->off, n, false, &rid);
	mem(s, b, i->off, n, true, &rid);
	if ((unsigned long)p % n)
		fail(s, "misaligned atomic access");
	store_n(p, n, load_n(p, n) + v->v);
}

/* ----- ALU ---------------------------------------------------------------- */

static __u64 bswap(__u64 v, int bits)
{
	switch (bits) {
	case 16: return __builtin_bswap16((__u16)v);
	case 32: return __builtin_bswap32((__u32)v);
	default: return __builtin_bswap64(v);
	}
}

static void do_alu(struct st *s, const struct bpf_insn *i)
{
	bool is64 = BPF_CLASS(i->code) == BPF_ALU64;
	int op = BPF_OP(i->code), d = i->dst_reg;
	struct reg src = { (__u64)(__s64)i->imm, T_SCALAR, true, 0 }, dst;
	__u64 a, b, r;

	if (d >= 10)
		fail(s, "write to r%d", d);
	if (i->off && op != BPF_END)
		fail(s, "unsupported ALU variant (off %d)", i->off);
	if (BPF_SRC(i->code) == BPF_X && op != BPF_END) {	/* END: X = TO_BE */
		if (op == BPF_NEG)
			fail(s, "bad source for neg");
		src = *rd(s, i->src_reg);
	}
	if (op == BPF_MOV) {
		if (src.t != T_SCALAR && !is64)
			fail(s, "32-bit move of a pointer");
		s->r[d] = src;
		if (!is64)
			s->r[d].v = (__u32)src.v;
		return;
	}
	dst = *rd(s, d);
	if (op == BPF_END) {
		if (is64 || (i->imm != 16 && i->imm != 32 && i->imm != 64) ||
		    dst.t != T_SCALAR)
			fail(s, "unsupported byte swap");
		r = BPF_SRC(i->code) == BPF_TO_BE ? bswap(dst.v, i->imm) : dst.v;
		if (i->imm < 64)
			r &= (1ULL << i->imm) - 1;
		set_scalar(s, d, r);
		return;
	}
	if (dst.t != T_SCALAR || src.t != T_SCALAR) {
		/* pointer arithmetic: ptr +- scalar, scalar + ptr,
		 * ptr - ptr of one region */
		if (!is64)
			fail(s, "32-bit arithmetic on a pointer");
		if (dst.null_id || src.null_id)
			fail(s, "arithmetic on a pointer not tested against NULL");
		if (op == BPF_ADD && dst.t >= 0 && src.t == T_SCALAR)
			s->r[d].v = dst.v + src.v;
		else if (op == BPF_SUB && dst.t >= 0 && src.t == T_SCALAR)
			s->r[d].v = dst.v - src.v;
		else if (op == BPF_ADD && dst.t == T_SCALAR && src.t >= 0)
			s->r[d] = (struct reg){ dst.v + src.v, src.t, true, 0 };
		else if (op == BPF_SUB && dst.t >= 0 && dst.t == src.t)
			set_scalar(s, d, dst.v - src.v);
		else
			fail(s, "prohibited pointer arithmetic");
		if (s->r[d].t == RG_CTX)
			fail(s, "arithmetic on the ctx pointer");
		return;
	}
	a = is64 ? dst.v : (__u32)dst.v;
	b = is64 ? src.v : (__u32)src.v;
	switch (op) {
	case BPF_ADD: r = a + b; break;
	case BPF_SUB: r = a - b; break;
	case BPF_MUL: r = a * b; break;
	case BPF_OR: r = a | b; break;
	case BPF_AND: r = a & b; break;
	case BPF_XOR: r = a ^ b; break;
	case BPF_NEG: r = -a; break;
	case BPF_DIV:
	case BPF_MOD:
		if (!b)
			fail(s, "division by zero");
		r = op == BPF_DIV ? a / b : a % b;
		break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (b >= (is64 ? 64u : 32u))
			fail(s, "shift by %llu", (unsigned long long)b);
		if (op == BPF_LSH)
			r = a << b;
		else if (op == BPF_RSH)
			r = a >> b;
		else
			r = is64 ? (__u64)((__s64)a >> b) : (__u32)((__s32)a >> b);
		break;
	default:
		fail(s, "unknown ALU op %#x", op);
	}
	set_scalar(s, d, is64 ? r : (__u32)r);
}

/*
 * The packet pointer @p was compared with data_end (@op: "p op end", or
 * -op: "end op p") and the branch went @taken: if that proves p <= end,
 * the bytes below p may be read (as the verifier's range).
 */
static void prove_pkt(struct st *s, int op, bool taken, __u64 p)
{
	bool le;
	__u64 off = p - (__u64)(unsigned long)s->e->pkt;

	switch (op) {
	case BPF_JGT: case BPF_JGE: case BPF_JSGT: case BPF_JSGE:
	case -BPF_JLT: case -BPF_JLE: case -BPF_JSLT: case -BPF_JSLE:
		le = !taken;
		break;
	case BPF_JLT: case BPF_JLE: case BPF_JSLT: case BPF_JSLE:
	case -BPF_JGT: case -BPF_JGE: case -BPF_JSGT: case -BPF_JSGE:
		le = taken;
		break;
	default:
		le = false;
	}
	if (le && off > s->pkt_proven)
		s->pkt_proven = off;
}

static bool do_cond(struct st *s, const struct bpf_insn *i)
{
	bool is64 = BPF_CLASS(i->code) == BPF_JMP;
	const struct reg *dr = rd(s, i->dst_reg);
	struct reg sr = { (__u64)(__s64)i->imm, T_SCALAR, true, 0 };
	__u64 a, b;
	__s64 sa, sb;
	bool taken;

	if (BPF_SRC(i->code) == BPF_X)
		sr = *rd(s, i->src_reg);
	if ((dr->t != T_SCALAR || sr.t != T_SCALAR) && !is64)
		fail(s, "32-bit comparison of a pointer");
	if (dr->t != T_SCALAR && sr.t != T_SCALAR && dr->t != sr.t &&
	    !(dr->t == RG_PKT && sr.t == T_PKTEND) &&
	    !(dr->t == T_PKTEND && sr.t == RG_PKT))
		fail(s, "comparison of unrelated pointers");
	a = is64 ? dr->v : (__u32)dr->v;
	b = is64 ? sr.v : (__u32)sr.v;
	sa = is64 ? (__s64)a : (__s32)a;
	sb = is64 ? (__s64)b : (__s32)b;
	switch (BPF_OP(i->code)) {
	case BPF_JEQ: taken = a == b; break;
	case BPF_JNE: taken = a != b; break;
	case BPF_JGT: taken = a > b; break;
	case BPF_JGE: taken = a >= b; break;
	case BPF_JLT: taken = a < b; break;
	case BPF_JLE: taken = a <= b; break;
	case BPF_JSET: taken = a & b; break;
	case BPF_JSGT: taken = sa > sb; break;
	case BPF_JSGE: taken = sa >= sb; break;
	case BPF_JSLT: taken = sa < sb; break;
	case BPF_JSLE: taken = sa <= sb; break;
	default:
		fail(s, "unknown jump op %#x", BPF_OP(i->code));
	}
	/* "ptr == 0" / "ptr != 0": the helper's result is checked (every
	 * copy of it, as the verifier marks them by id) */
	if (dr->null_id && sr.t == T_SCALAR && !sr.v &&
	    (BPF_OP(i->code) == BPF_JEQ || BPF_OP(i->code) == BPF_JNE)) {
		int id = dr->null_id;

		for (int r = 0; r < 10; r++)
			if (s->r[r].null_id == id)
				s->r[r].null_id = 0;
	}
	if (dr->t == RG_PKT && sr.t == T_PKTEND)
		prove_pkt(s, BPF_OP(i->code), taken, dr->v);
	else if (dr->t == T_PKTEND && sr.t == RG_PKT)
		prove_pkt(s, -(int)BPF_OP(i->code), taken, sr.v);
	return taken;
}

/* ----- program entry, LD_IMM64 ------------------------------------------- */

static void enter_prog(struct st *s, const struct ip_prog *p)
{
	s->p = p;
	free(s->half);
	free(s->depth);
	s->half = calloc(p->n + 1, 1);
	s->depth = calloc(p->n + 1, sizeof(int));
	if (!s->half || !s->depth)
		fail(s, "out of memory");
	for (size_t k = 0; k < p->n; k++) {
		if (p->insns[k].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (k + 1 >= p->n || p->insns[k + 1].code || p->insns[k + 1].dst_reg ||
		    p->insns[k + 1].src_reg || p->insns[k + 1].off) {
			s->pc = k;
			fail(s, "malformed LD_IMM64");
		}
		s->half[++k] = 1;
	}
	s->nfr = 1;
	s->fr[0].entry = 0;
	s->pkt_proven = 0;
	memset(s->sb[0], SB_UNINIT, STACK);
	for (int k = 0; k < STACK / 8; k++)
		s->spill[0][k] = T_SCALAR;
	for (int r = 0; r < 11; r++)
		s->r[r].init = false;
	s->r[1] = (struct reg){ (__u64)(unsigned long)s->ctxbuf, RG_CTX, true, 0 };
	s->r[10] = (struct reg){ (__u64)(unsigned long)(s->stack[0] + STACK), 0, true, 0 };
	s->pc = 0;
}

static struct ip_map *map_ref(struct st *s, int src, __s32 imm)
{
	if (src == BPF_PSEUDO_MAP_IDX || src == BPF_PSEUDO_MAP_IDX_VALUE) {
		if (imm < 0 || (unsigned int)imm >= s->p->nmaps || !s->p->maps[imm])
			fail(s, "map index %d out of range (%u maps)", imm, s->p->nmaps);
		return s->p->maps[imm];
	}
	if (imm < 0 || imm >= s->e->nfd || !s->e->fd_maps[imm])
		fail(s, "unknown map fd %d", imm);
	return s->e->fd_maps[imm];
}

static int map_value_region(struct st *s, const struct ip_map *m, unsigned char *v)
{
	unsigned int fl = RF_R | (m->map_flags & BPF_F_RDONLY_PROG ? 0 : RF_W);

	return add_region(s, v, m->value_size, fl, -1, m->name ? m->name : "map value");
}

static void do_ld_imm64(struct st *s, const struct bpf_insn *i)
{
	__u64 v = (__u32)i->imm | ((__u64)(__u32)i[1].imm << 32);
	struct ip_map *m;

	if (i->dst_reg >= 10)
		fail(s, "write to r%d", i->dst_reg);
	switch (i->src_reg) {
	case 0:
		set_scalar(s, i->dst_reg, v);
		return;
	case BPF_PSEUDO_MAP_FD:
	case BPF_PSEUDO_MAP_IDX:
		if (i[1].imm)
			fail(s, "map reference with a second imm");
		m = map_ref(s, i->src_reg, i->imm);
		s->r[i->dst_reg] = (struct reg){ (__u64)(unsigned long)m, T_MAP, true, 0 };
		return;
	case BPF_PSEUDO_MAP_VALUE:
	case BPF_PSEUDO_MAP_IDX_VALUE: {
		__u32 off = (__u32)i[1].imm;

		m = map_ref(s, i->src_reg, i->imm);
		if (m->type != BPF_MAP_TYPE_ARRAY && m->type != BPF_MAP_TYPE_PERCPU_ARRAY)
			fail(s, "direct value access to a non-array map");
		if (m->type == BPF_MAP_TYPE_PERCPU_ARRAY)
			fail(s, "direct value access to a per-CPU array (the verifier refuses it)");
		if (off >= m->value_size)
			fail(s, "direct value offset %u beyond the value (%u bytes)",
			     off, m->value_size);
		s->r[i->dst_reg] = (struct reg){ (__u64)(unsigned long)(m->vals + off),
			map_value_region(s, m, m->vals), true, 0 };
		return;
	}
	}
	fail(s, "unsupported LD_IMM64 source %d", i->src_reg);
}

#include "calls.h"

int ip_run(struct ip_env *e, const struct ip_prog *p, __u64 *ret)
{
	struct st *s = calloc(1, sizeof(*s));
	unsigned long budget = e->budget ? e->budget : 1000000;
	int rc = -1;

	if (!s) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return -1;
	}
	s->e = e;
	s->p = p;
	e->err[0] = 0;
	e->insns_run = 0;
	memset(e->calls, 0, sizeof(e->calls));
	e->tail_calls = 0;
	e->max_frames = 1;
	if (setjmp(s->jb))
		goto out;
	for (int f = 0; f < FRAMES; f++)
		s->rg[f] = (struct region){ s->stack[f], STACK, RF_R | RF_W | RF_STACK,
					    -1, "stack" };
	s->rg[RG_CTX] = (struct region){ s->ctxbuf, sizeof(s->ctxbuf), 0, -1, "ctx" };
	s->rg[RG_PKT] = (struct region){ e->pkt, e->pkt ? e->headlen : 0,
					 RF_R | (e->ctx == IP_CTX_TC ? RF_W : 0), -1,
					 "packet (linear)" };
	s->nrg = RG_KOBJ;
	for (int k = 0; k < e->nkobj; k++)
		s->rg[s->nrg++] = (struct region){ e->kobj[k].p, e->kobj[k].size,
						   RF_R | RF_KOBJ, k, "kernel object" };
	if (e->headlen > e->pkt_len)
		fail(s, "test error: headlen %u > packet length %u", e->headlen, e->pkt_len);
	enter_prog(s, p);
	for (;;) {
		const struct bpf_insn *i;

		if (s->pc >= s->p->n)
			fail(s, "fell off the end of the program");
		if (s->half[s->pc])
			fail(s, "jump into the middle of an LD_IMM64");
		if (++e->insns_run > budget)
			fail(s, "instruction budget of %lu exceeded", budget);
		i = &s->p->insns[s->pc];
		switch (BPF_CLASS(i->code)) {
		case BPF_ALU:
		case BPF_ALU64:
			do_alu(s, i);
			break;
		case BPF_LDX:
			do_ldx(s, i);
			break;
		case BPF_ST: {
			struct reg v = { (__u64)(__s64)i->imm, T_SCALAR, true, 0 };

			if (BPF_MODE(i->code) != BPF_MEM)
				fail(s, "unsupported store mode");
			do_store(s, i, &v);
			break;
		}
		case BPF_STX:
			if (BPF_MODE(i->code) == BPF_ATOMIC)
				do_atomic(s, i);
			else if (BPF_MODE(i->code) == BPF_MEM)
				do_store(s, i, rd(s, i->src_reg));
			else
				fail(s, "unsupported store mode");
			break;
		case BPF_LD:
			if (i->code != (BPF_LD | BPF_DW | BPF_IMM))
				fail(s, "unsupported LD (legacy packet access?)");
			do_ld_imm64(s, i);
			s->pc += 2;
			continue;
		case BPF_JMP:
		case BPF_JMP32: {
			int op = BPF_OP(i->code);

			if (op == BPF_CALL || op == BPF_EXIT) {
				if (BPF_CLASS(i->code) != BPF_JMP)
					fail(s, "bad call/exit class");
				if (op == BPF_EXIT) {
					if (do_exit(s, ret)) {
						rc = 0;
						goto out;
					}
				} else {
					if (i->src_reg == 0 && i->imm > 0 &&
					    i->imm < __BPF_FUNC_MAX_ID)
						s->e->calls[i->imm]++;
					do_call(s, i);
				}
				continue;
			}
			if (op == BPF_JA) {
				if (BPF_CLASS(i->code) != BPF_JMP || i->imm)
					fail(s, "unsupported jump variant");
				s->pc += (long)i->off;
			} else if (do_cond(s, i)) {
				s->pc += (long)i->off;
			}
			if ((long)s->pc + 1 < 0 || s->pc + 1 >= s->p->n)
				fail(s, "jump out of the program");
			break;
		}
		default:
			fail(s, "unknown opcode %#x", i->code);
		}
		s->pc++;
	}
out:
	free(s->half);
	free(s->depth);
	free(s);
	return rc;
}
