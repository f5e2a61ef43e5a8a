// SPDX-License-Identifier: GPL-2.0
/*
 * Back end: rule IR -> BPF instructions.
 *
 * ===================== Generated code: conventions =====================
 *
 * One "table program" per hook (INPUT, FORWARD, OUTPUT), of type NETFILTER
 * (6.12 and later) or SCHED_CLS (TC, 6.1).  It consists of:
 *
 *  main        the context-specific prologue, then the chain evaluation:
 *                r0 = F(hook_entry); if r0 == RETURN: r0 = F(underflow)
 *              and the mapping of the internal verdict to the program's
 *              return value (NF_ACCEPT/NF_DROP, TC_ACT_UNSPEC/TC_ACT_SHOT).
 *  F(s)        one static BPF subprogram per "function start" s reachable
 *              from the hook (the hook entry, the underflow, and every
 *              jump/goto target; see ir.h).  F(s) evaluates entries s, s+1,
 *              ... in blob order, exactly like ipt_do_table():
 *                - a jump is "r0 = F(target); if r0 != RETURN return r0";
 *                - a goto is "return F(target)" (the frame is replaced, so
 *                  a RETURN in the target returns from the goto's caller);
 *                - reaching another function start falls through into it
 *                  ("return F(next)"); an unconditional terminal verdict
 *                  ends the function (the rest is unreachable);
 *                - a RETURN at the top level (F(hook_entry) returns RETURN)
 *                  continues at the underflow (the policy), as ip_tables.
 *              User-chain nesting is thus BPF call depth: the kernel allows
 *              8 frames, main + the hook's function + 6 nested chains.
 *
 * The packet info ("pi"): main's prologue extracts what the hook's
 * reachable rules test (scan_needs(): transport header, device names, or
 * only the length when no rule tests anything) into a fixed block on
 * main's stack (pi at fp + PI_BASE, all fields u64 slots; the fields no
 * rule of the hook reads may be left unset, absent transport fields are
 * 0), so rule code is the same for both hook mechanisms.  Each F gets a
 * pointer to it in r1.  The headers are read where they lie when the skb's
 * linear data holds them (NETFILTER: loads through bpf_rdonly_cast() of
 * skb->data; TC: direct packet access), else through a dynptr (NETFILTER)
 * or skb_load_bytes() (TC).  On TC the ingress dispatcher passes the
 * table program l2len in skb->cb[1] and, for FORWARD, the output ifindex
 * in cb[0].  48 bytes past pi (the prologue's scratch space,
 * dead by then) hold a classifier group's lookup key.
 *
 * Registers inside F:
 *   r6  pointer to pi (callee-saved, set from r1 on entry)
 *   r7  the rule's mismatch accumulator: every condition ORs in a value that
 *       is non-zero iff that condition fails; one "if r7 != 0 goto next"
 *       per rule.  Branch-free matching keeps one conditional jump per rule
 *       (the verifier's 8192-pending-branches limit; see bpf-facts.md).
 *   r8  the rule's hotdrop accumulator (tcp/udp/icmp/multiport on a packet
 *       whose transport header is missing: ip_tables drops it at once)
 *   r9  in a classified run: the smallest map value found so far
 *   r0-r5 scratch.  fp-8: a set map's key.
 *   Return value: CG_V_DROP, CG_V_ACCEPT or CG_V_RETURN.
 *
 * No dead code: the verifier removes every instruction range it never
 * visits (and every branch it proves constant, turned into "ja 0") with one
 * memmove of the rest of the program each: one range per rule made a
 * 10,000-rule load spend most of a minute there (soft lockups).  So nothing
 * the verifier can constant-fold is ever tested: a function's verdict is
 * made opaque (r0 += pi.zero, a slot that is 0 but unknown to the
 * verifier) before the caller tests it, since the verifier follows each
 * call and knows which verdicts a chain returns (an empty chain: always
 * RETURN); a "never matches" condition ORs in pi.zero + 1, not 1.
 *
 * Counters: after a rule matched, counters[idx] (one array value holding a
 * struct cg_counter per entry, atomic adds) gets +1 packet and +pi.len bytes (skb->len at the IP
 * layer on NETFILTER; the IP total length on TC), before the verdict, as
 * ipt_do_table() counts.
 *
 * Set-like runs: a run of >= CG_SET_MIN consecutive rules that differ only
 * in the source or destination address (same mask) or in a single tcp/udp
 * port, with the same verdict, is compiled as one hash-map lookup whose
 * value is the first rule's index (for its counter); see emit_set_run().
 *
 * Classified runs: consecutive ACCEPT/DROP rules testing only masked
 * addresses, interface names, the protocol and exact ports are looked up,
 * one hash map per group of rules with the same masks, and the smallest
 * rule index found wins (tuple-space search; classify.c explains why this
 * is ip_tables' first match, hotdrop included); see emit_cls_run().  They
 * are tried before set-like runs.
 * ======================================================================
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <arpa/inet.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/pkt_cls.h>

#include "cgen/bpf_insn.h"
#include "cgen/classify.h"
#include "cgen/codegen.h"
#include "lib/vec.h"

/* packet-info layout (offsets from pi's base) */
enum {
	PI_SADDR = 0,	/* u32, network order as in the header */
	PI_DADDR = 8,
	PI_SADDR_H = 16,	/* host order */
	PI_DADDR_H = 24,
	PI_PROTO = 32,
	PI_FRAGNZ = 40,	/* fragment offset != 0 */
	PI_LEN = 48,	/* bytes for the counters */
	PI_SPORT = 56,	/* host order */
	PI_DPORT = 64,
	PI_TCPFL = 72,	/* byte 13 of the TCP header */
	PI_ICMPT = 80,
	PI_ICMPC = 88,
	PI_IN = 96,	/* 16 bytes: input device name, zeros if none */
	PI_OUT = 112,	/* 16 bytes */
	PI_CT = 128,	/* IR_CT_* bits of the packet */
	PI_BAD20 = 136,	/* a 20/8/4-byte transport header match is false */
	PI_BAD8 = 144,
	PI_BAD4 = 152,
	PI_HD20 = 160,	/* ... and drops the packet (hotdrop) */
	PI_HD8 = 168,
	PI_HD4 = 176,
	PI_L4LEN = 184,
	PI_FRAGOFF = 192,
	PI_ZERO = 200,	/* always 0, but unknown to the verifier (see below) */
	PI_PL4 = 208,	/* classifier: proto | l4state << 8 (classify.h) */
	PI_PORTS = 216,	/* classifier: sport << 16 | dport if l4state 1 */
	PI_SIZE = 224,
	/* a classifier group's lookup key (48 bytes): beyond pi, over the
	 * prologue's scratch space (FP_TMP2 .. FP_BUF), dead by then; the
	 * stack is tight: main + 7 frames must fit in 512 bytes */
	PI_KEY = 224,
};

/* main's stack */
#define FP_DYNPTR	(-16)	/* struct bpf_dynptr (16 bytes) */
#define FP_BUF		(-48)	/* 32-byte header buffer */
#define FP_TMP		(-56)
#define FP_TMP2		(-64)
#define PI_BASE		(-288)	/* pi: fp-288 .. fp-64 */

#define CG_SET_MIN	8	/* shortest run compiled to a map lookup */
#define CG_MAX_DEPTH	7	/* frames below main */
#define CG_OPAQUE_MIN_INSNS 4096	/* smaller: no opaque copy of pi */

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

/* What the rules reachable from a hook test: the prologue extracts only
 * that (the cost of a hook with no rules is the cost of its prologue). */
struct cg_needs {
	bool cond;	/* some rule has a condition at all */
	bool names;	/* interface names */
	bool l4;	/* transport header fields */
	bool cls;	/* PI_PL4 and PI_PORTS: a classified run may follow */
	unsigned char hdr;	/* NEED_HDR*: which BAD and HD flags */
	unsigned char fields;	/* NEED_F_*: which transport fields */
};

enum {
	NEED_HDR20 = 1, NEED_HDR8 = 2, NEED_HDR4 = 4,	/* tcp; udp, icmp; multiport */
	NEED_F_PORTS = 1, NEED_F_ICMP = 2, NEED_F_TCPFL = 4,
};

struct fixup {
	size_t at;
	int target;	/* label id or function rule index */
	bool call;
};

struct cg {
	struct cg_prog *p;
	const struct ir_table *ir;
	const struct cg_opts *o;
	int *lab;		/* label -> insn index (-1: unplaced) */
	int nlab, caplab;
	struct fixup *fix;
	size_t nfix, capfix;
	int *func_pos;		/* per rule index: insn of F(idx), -1 */
	bool *func_queued;
	unsigned int *queue, nqueue, qhead;
	/* call graph, for the depth check */
	unsigned int *edges_from, *edges_to, nedges, capedges;
	unsigned int cls_checked;	/* rules below: no classified run */
	struct cg_needs needs;		/* of the hook being compiled */
	char *err;
	size_t err_len;
	int rc;
};

static void cg_fail(struct cg *c, int e, const char *fmt, ...)
{
	va_list ap;

	if (c->rc)
		return;
	c->rc = e;
	if (c->err && c->err_len) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->err_len, fmt, ap);
		va_end(ap);
	}
}

static void emit(struct cg_prog *p, struct bpf_insn i)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 1024;
		struct bpf_insn *ni = realloc(p->insns, nc * sizeof(*ni));

		if (!ni) {
			p->failed = true;
			return;
		}
		p->insns = ni;
		p->cap = nc;
	}
	p->insns[p->n++] = i;
}

#define EM(c, insn) emit((c)->p, insn)

static void emit_ld64(struct cg *c, int reg, __u64 v)
{
	struct bpf_insn i[2] = { BPF_LD_IMM64_RAW(reg, 0, v) };

	EM(c, i[0]);
	EM(c, i[1]);
}

/* reg = the map @map (an index into the program's maps[]) */
static void emit_ld_map(struct cg *c, int reg, int map)
{
	struct bpf_insn i[2] = { BPF_LD_IMM64_RAW(reg, BPF_PSEUDO_MAP_IDX,
						  map) };

	EM(c, i[0]);
	EM(c, i[1]);
}

/* reg = &value of map @map at key 0, + @off */
static void emit_ld_map_value(struct cg *c, int reg, int map, __u32 off)
{
	struct bpf_insn i[2] = { BPF_LD_IMM64_RAW(reg, BPF_PSEUDO_MAP_IDX_VALUE,
			(__u32)map | (__u64)off << 32) };

	EM(c, i[0]);
	EM(c, i[1]);
}

int cg_prog_add_map(struct cg_prog *p, const struct cg_map *m)
{
	if (vec_reserve(&p->maps, &p->maps_cap, p->nmaps + 1)) {
		free(m->elems);
		p->failed = true;
		return -1;
	}
	p->maps[p->nmaps] = *m;
	return (int)p->nmaps++;
}

/* The index of the shared map @source in @p's maps, described on first
 * use with the sizes the loader's object has. */
static int shared_map(struct cg_prog *p, enum cg_map_source source,
		      unsigned int nrules)
{
	struct cg_map m = { .source = source, .key_size = sizeof(__u32),
			    .max_entries = 1 };
	unsigned int i;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].source == source)
			return (int)i;
	switch (source) {
	case CG_MAP_COUNTERS:	/* one value: struct cg_counter[nrules] */
		m.name = "ebpf_ctr";
		m.type = BPF_MAP_TYPE_ARRAY;
		m.value_size = (nrules ? nrules : 1) * sizeof(struct cg_counter);
		m.map_flags = BPF_F_MMAPABLE;
		break;
	case CG_MAP_IFINFO:
		m.name = "ebpf_ifinfo";
		m.type = BPF_MAP_TYPE_HASH;
		m.value_size = sizeof(struct cg_ifinfo);
		m.max_entries = CG_IFINFO_MAX;
		break;
	case CG_MAP_GEN:
		m.name = "ebpf_gen";
		m.type = BPF_MAP_TYPE_ARRAY;
		m.value_size = sizeof(__u32);
		break;
	case CG_MAP_PROGS:
		m.name = "ebpf_progs";
		m.type = BPF_MAP_TYPE_PROG_ARRAY;
		m.value_size = sizeof(__u32);
		m.max_entries = CG_PROGS_MAX;
		break;
	default:
		return -1;
	}
	return cg_prog_add_map(p, &m);
}

static int new_label(struct cg *c)
{
	if (c->nlab == c->caplab) {
		int nc = c->caplab ? c->caplab * 2 : 256;
		int *nl = realloc(c->lab, nc * sizeof(*nl));

		if (!nl) {
			cg_fail(c, -ENOMEM, "out of memory");
			return 0;
		}
		c->lab = nl;
		c->caplab = nc;
	}
	c->lab[c->nlab] = -1;
	return c->nlab++;
}

static void place(struct cg *c, int l)
{
	if (l < c->nlab)
		c->lab[l] = (int)c->p->n;
}

static void add_fix(struct cg *c, int target, bool call)
{
	if (c->nfix == c->capfix) {
		size_t nc = c->capfix ? c->capfix * 2 : 1024;
		struct fixup *nf = realloc(c->fix, nc * sizeof(*nf));

		if (!nf) {
			cg_fail(c, -ENOMEM, "out of memory");
			return;
		}
		c->fix = nf;
		c->capfix = nc;
	}
	c->fix[c->nfix].at = c->p->n;
	c->fix[c->nfix].target = target;
	c->fix[c->nfix].call = call;
	c->nfix++;
}

/* conditional jump to a label */
static void jmp_imm(struct cg *c, int op, int reg, int imm, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_IMM(op, reg, imm, 0));
}

static void jmp_reg(struct cg *c, int op, int dst, int src, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_REG(op, dst, src, 0));
}

static void jmp_a(struct cg *c, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_A(0));
}

static void add_edge(struct cg *c, unsigned int from, unsigned int to)
{
	if (c->nedges == c->capedges) {
		unsigned int nc = c->capedges ? c->capedges * 2 : 256;
		unsigned int *a = realloc(c->edges_from, nc * sizeof(*a));
		unsigned int *b;

		if (!a) {
			cg_fail(c, -ENOMEM, "out of memory");
			return;
		}
		c->edges_from = a;
		b = realloc(c->edges_to, nc * sizeof(*b));
		if (!b) {
			cg_fail(c, -ENOMEM, "out of memory");
			return;
		}
		c->edges_to = b;
		c->capedges = nc;
	}
	c->edges_from[c->nedges] = from;
	c->edges_to[c->nedges] = to;
	c->nedges++;
}

/* bpf-to-bpf call of F(target) with r1 = pi */
static void call_func(struct cg *c, unsigned int from, unsigned int target)
{
	if (!c->func_queued[target]) {
		c->func_queued[target] = true;
		c->queue[c->nqueue++] = target;
	}
	add_edge(c, from, target);
	EM(c, BPF_MOV64_REG(R1, R6));
	add_fix(c, (int)target, true);
	EM(c, BPF_CALL_REL(0));
}

/* reg = (reg != 0) as 0/1; clobbers tmp */
static void emit_norm(struct cg *c, int reg, int tmp)
{
	EM(c, BPF_MOV64_REG(tmp, reg));
	EM(c, BPF_NEG64(tmp));
	EM(c, BPF_ALU64_REG(BPF_OR, reg, tmp));
	EM(c, BPF_ALU64_IMM(BPF_RSH, reg, 63));
}

/* Apply an inversion to a mismatch value in reg and OR it into r7. */
static void acc_mismatch(struct cg *c, int reg, bool inv)
{
	if (inv) {
		emit_norm(c, reg, R5);
		EM(c, BPF_ALU64_IMM(BPF_XOR, reg, 1));
	}
	EM(c, BPF_ALU64_REG(BPF_OR, R7, reg));
}

/* r7 |= 1 (the rule never matches), through PI_ZERO: a constant would let
 * the verifier prove the rule's verdict code unreachable, and it removes
 * every dead range with a memmove of the rest of the program. */
static void acc_never(struct cg *c)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_ZERO));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

/* r0 += PI_ZERO (@base + @off addresses it; clobbers r1): a verdict returned
 * by a function, made opaque before it is tested, so that no test of it is
 * decided by the verifier (dead code; see acc_never). */
static void opaque_r0(struct cg *c, int base, int off)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R1, base, off));
	EM(c, BPF_ALU64_REG(BPF_ADD, R0, R1));
}

/* reg = (reg < lo || reg > hi) as 0/1 for values well below 2^62;
 * clobbers R5. */
static void emit_out_of_range(struct cg *c, int reg, __u64 lo, __u64 hi)
{
	__s64 span = (__s64)hi - (__s64)lo;

	if (lo) {
		if (lo <= 0x7fffffff) {
			EM(c, BPF_ALU64_IMM(BPF_SUB, reg, (int)lo));
		} else {
			emit_ld64(c, R5, lo);
			EM(c, BPF_ALU64_REG(BPF_SUB, reg, R5));
		}
	}
	if (span >= -0x80000000LL && span <= 0x7fffffff)
		EM(c, BPF_MOV64_IMM(R5, (int)span));
	else
		emit_ld64(c, R5, (__u64)span);
	EM(c, BPF_ALU64_REG(BPF_SUB, R5, reg));
	EM(c, BPF_ALU64_REG(BPF_OR, R5, reg));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R5, 63));
	EM(c, BPF_MOV64_REG(reg, R5));
}

/* r7 |= port not in [lo, hi] (xor inv) */
static void emit_port(struct cg *c, int slot, __u16 lo, __u16 hi, bool inv)
{
	if (lo == 0 && hi == 0xffff) {
		if (inv)	/* never matches */
			acc_never(c);
		return;
	}
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot));
	if (lo == hi) {
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, lo));
		acc_mismatch(c, R2, inv);
		return;
	}
	emit_out_of_range(c, R2, lo, hi);
	if (inv)
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

/* hotdrop: r8 |= pi[hd] & (r7 == 0) -- only when the conditions so far
 * (ipt_ip and the earlier matches) held */
static void emit_hotdrop(struct cg *c, int hd_slot)
{
	EM(c, BPF_MOV64_REG(R2, R7));
	emit_norm(c, R2, R5);
	EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_LDX_MEM(BPF_DW, R3, R6, hd_slot));
	EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
	EM(c, BPF_ALU64_REG(BPF_OR, R8, R2));
}

static void emit_iface(struct cg *c, int slot, const char *name,
		       const unsigned char *mask, bool inv)
{
	static const unsigned char zero[IFNAMSIZ];
	int w;

	if (!inv && !memcmp(mask, zero, IFNAMSIZ))
		return;
	EM(c, BPF_MOV64_IMM(R4, 0));
	for (w = 0; w < 2; w++) {
		__u64 m = ir_name_word((const char *)mask, w);
		__u64 v = ir_name_word(name, w) & m;

		if (!m)
			continue;
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot + 8 * w));
		emit_ld64(c, R3, m);
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
		emit_ld64(c, R3, v);
		EM(c, BPF_ALU64_REG(BPF_XOR, R2, R3));
		EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
	}
	acc_mismatch(c, R4, inv);
}

/* Which field a set-like run varies (excluded from the common code). */
enum set_field { SF_NONE, SF_SRC, SF_DST, SF_SPORT, SF_DPORT };

static void emit_addr(struct cg *c, int slot, __u32 addr, __u32 mask,
		      bool inv)
{
	if (!mask && !addr && !inv)
		return;
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, slot));
	EM(c, BPF_ALU32_IMM(BPF_AND, R2, (int)mask));
	EM(c, BPF_ALU32_IMM(BPF_XOR, R2, (int)addr));
	acc_mismatch(c, R2, inv);
}

/* Emit the conditions of @r into r7 (and r8); @skip is left out. */
static void emit_conditions(struct cg *c, const struct ir_rule *r,
			    enum set_field skip)
{
	const struct ipt_ip *ip = &r->ip;
	unsigned int i;

	if (skip != SF_SRC)
		emit_addr(c, PI_SADDR, ip->src.s_addr, ip->smsk.s_addr,
			  ip->invflags & IPT_INV_SRCIP);
	if (skip != SF_DST)
		emit_addr(c, PI_DADDR, ip->dst.s_addr, ip->dmsk.s_addr,
			  ip->invflags & IPT_INV_DSTIP);
	emit_iface(c, PI_IN, ip->iniface, ip->iniface_mask,
		   ip->invflags & IPT_INV_VIA_IN);
	emit_iface(c, PI_OUT, ip->outiface, ip->outiface_mask,
		   ip->invflags & IPT_INV_VIA_OUT);
	if (ip->proto) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_PROTO));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, ip->proto));
		acc_mismatch(c, R2, ip->invflags & IPT_INV_PROTO);
	}
	if (ip->flags & IPT_F_FRAG) {
		/* mismatch iff !isfrag (or isfrag when inverted) */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_FRAGNZ));
		if (!(ip->invflags & IPT_INV_FRAG))
			EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
		EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
	} else if (ip->invflags & IPT_INV_FRAG) {
		acc_never(c);	/* never matches */
	}

	for (i = 0; i < r->nmatch; i++) {
		const struct ir_match *m = &r->m[i];

		switch (m->kind) {
		case IRM_TCP:
		case IRM_UDP: {
			bool tcp = m->kind == IRM_TCP;

			emit_hotdrop(c, tcp ? PI_HD20 : PI_HD8);
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6,
					  tcp ? PI_BAD20 : PI_BAD8));
			EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			if (skip != SF_SPORT)
				emit_port(c, PI_SPORT, m->tu.spts[0],
					  m->tu.spts[1],
					  m->tu.invflags & XT_TCP_INV_SRCPT);
			if (skip != SF_DPORT)
				emit_port(c, PI_DPORT, m->tu.dpts[0],
					  m->tu.dpts[1],
					  m->tu.invflags & XT_TCP_INV_DSTPT);
			if (tcp && (m->tu.flg_mask ||
				    (m->tu.invflags & XT_TCP_INV_FLAGS))) {
				EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_TCPFL));
				EM(c, BPF_ALU64_IMM(BPF_AND, R2, m->tu.flg_mask));
				EM(c, BPF_ALU64_IMM(BPF_XOR, R2, m->tu.flg_cmp));
				acc_mismatch(c, R2,
					     m->tu.invflags & XT_TCP_INV_FLAGS);
			}
			break;
		}
		case IRM_ICMP:
			emit_hotdrop(c, PI_HD8);
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_BAD8));
			EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			if (m->icmp.type == 0xff) {
				if (m->icmp.inv)
					acc_never(c);
				break;
			}
			EM(c, BPF_LDX_MEM(BPF_DW, R4, R6, PI_ICMPT));
			EM(c, BPF_ALU64_IMM(BPF_XOR, R4, m->icmp.type));
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_ICMPC));
			emit_out_of_range(c, R2, m->icmp.code_min,
					  m->icmp.code_max);
			EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
			acc_mismatch(c, R4, m->icmp.inv);
			break;
		case IRM_MPORT: {
			unsigned int k;

			emit_hotdrop(c, PI_HD4);
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_BAD4));
			EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			/* r4 = AND over specs of "spec does not match" */
			EM(c, BPF_MOV64_IMM(R4, 1));
			for (k = 0; k < m->mp.count; k++) {
				EM(c, BPF_MOV64_IMM(R3, 1));
				if (m->mp.mode & IR_MP_SRC) {
					EM(c, BPF_LDX_MEM(BPF_DW, R2, R6,
							  PI_SPORT));
					emit_out_of_range(c, R2, m->mp.lo[k],
							  m->mp.hi[k]);
					EM(c, BPF_ALU64_REG(BPF_AND, R3, R2));
				}
				if (m->mp.mode & IR_MP_DST) {
					EM(c, BPF_LDX_MEM(BPF_DW, R2, R6,
							  PI_DPORT));
					emit_out_of_range(c, R2, m->mp.lo[k],
							  m->mp.hi[k]);
					EM(c, BPF_ALU64_REG(BPF_AND, R3, R2));
				}
				EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
			}
			if (m->mp.inv)
				EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
			EM(c, BPF_ALU64_REG(BPF_OR, R7, R4));
			break;
		}
		case IRM_IPRANGE:
			if (m->ipr.src) {
				EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_SADDR_H));
				emit_out_of_range(c, R2, m->ipr.src_min,
						  m->ipr.src_max);
				if (m->ipr.src_inv)
					EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
				EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			}
			if (m->ipr.dst) {
				EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_DADDR_H));
				emit_out_of_range(c, R2, m->ipr.dst_min,
						  m->ipr.dst_max);
				if (m->ipr.dst_inv)
					EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
				EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			}
			break;
		case IRM_CTSTATE:
			/* match iff (mask & statebit) != 0, xor inv */
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_CT));
			EM(c, BPF_ALU64_IMM(BPF_AND, R2, (int)m->ct.mask));
			emit_norm(c, R2, R5);
			if (!m->ct.inv)
				EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
			EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
			break;
		}
	}
}

static bool rule_has_hotdrop(const struct ir_rule *r)
{
	unsigned int i;

	for (i = 0; i < r->nmatch; i++)
		if (r->m[i].kind == IRM_TCP || r->m[i].kind == IRM_UDP ||
		    r->m[i].kind == IRM_ICMP || r->m[i].kind == IRM_MPORT)
			return true;
	return false;
}

/* counters[idx] += {1, pi.len}: the counters are one big array value
 * (struct cg_counter per entry) addressed directly, with atomic adds: no
 * helper call, no branch, nothing for the verifier to patch per rule. */
static void emit_count_const(struct cg *c, unsigned int idx)
{
	emit_ld_map_value(c, R1, shared_map(c->p, CG_MAP_COUNTERS, c->ir->nrules),
			  idx * sizeof(struct cg_counter));
	EM(c, BPF_MOV64_IMM(R2, 1));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, 0));
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_LEN));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, 8));
}

/* the same for an entry index in r2 (< nrules, checked) */
static void emit_count_reg(struct cg *c)
{
	EM(c, BPF_JMP_IMM(BPF_JGE, R2, (int)c->ir->nrules, 8));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R2, 4));	/* * sizeof(struct cg_counter) */
	emit_ld_map_value(c, R1, shared_map(c->p, CG_MAP_COUNTERS, c->ir->nrules),
			  0);
	EM(c, BPF_ALU64_REG(BPF_ADD, R1, R2));
	EM(c, BPF_MOV64_IMM(R2, 1));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, 0));
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_LEN));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, 8));
}

/* The verdict of a matched rule.  Returns true if control never reaches
 * the next rule (an unconditional exit). */
static void emit_verdict(struct cg *c, unsigned int func,
			 const struct ir_rule *r)
{
	switch (r->verdict) {
	case IRV_ACCEPT:
		EM(c, BPF_MOV64_IMM(R0, CG_V_ACCEPT));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_DROP:
	case IRV_ERROR:		/* ipt_error(): NF_DROP */
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_RETURN:
		EM(c, BPF_MOV64_IMM(R0, CG_V_RETURN));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_JUMP:
		call_func(c, func, r->target);
		/* RETURN from the chain: go on with the next rule.  Opaque:
		 * a chain that (as far as the verifier sees) always or never
		 * returns RETURN would leave dead code here, per rule. */
		opaque_r0(c, R6, PI_ZERO);
		EM(c, BPF_JMP_IMM(BPF_JEQ, R0, CG_V_RETURN, 1));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_GOTO:
		call_func(c, func, r->target);
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_CONTINUE:
		break;
	}
}

static bool verdict_terminal(enum ir_verdict v)
{
	return v != IRV_JUMP && v != IRV_CONTINUE;
}

/* one rule; returns true if it ends the function (unconditional exit) */
static bool emit_rule(struct cg *c, unsigned int func, const struct ir_rule *r)
{
	int next = -1;

	if (!r->always) {
		bool hd = rule_has_hotdrop(r);

		next = new_label(c);
		EM(c, BPF_MOV64_IMM(R7, 0));
		if (hd)
			EM(c, BPF_MOV64_IMM(R8, 0));
		emit_conditions(c, r, SF_NONE);
		if (hd) {
			EM(c, BPF_JMP_IMM(BPF_JEQ, R8, 0, 2));
			EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
			EM(c, BPF_EXIT_INSN());
		}
		jmp_imm(c, BPF_JNE, R7, 0, next);
	}
	emit_count_const(c, r->idx);
	emit_verdict(c, func, r);
	if (next >= 0)
		place(c, next);
	return r->always && verdict_terminal(r->verdict);
}

/* ----- set-like runs ------------------------------------------------- */

static const struct ir_match *single_l4(const struct ir_rule *r)
{
	unsigned int i;
	const struct ir_match *m = NULL;

	for (i = 0; i < r->nmatch; i++) {
		if (r->m[i].kind != IRM_TCP && r->m[i].kind != IRM_UDP)
			return NULL;
		if (m)
			return NULL;
		m = &r->m[i];
	}
	return m;
}

/* Do @a and @b differ only in field @f (and is @f usable as a key)? */
static bool same_but(const struct ir_rule *a, const struct ir_rule *b,
		     enum set_field f)
{
	struct ipt_ip x = a->ip, y = b->ip;
	const struct ir_match *ma, *mb;
	struct ir_match mx, my;

	if (a->verdict != b->verdict || a->nmatch != b->nmatch ||
	    ((a->verdict == IRV_JUMP || a->verdict == IRV_GOTO) &&
	     a->target != b->target) || b->func_start)
		return false;
	switch (f) {
	case SF_SRC:
		if (x.smsk.s_addr != y.smsk.s_addr || !x.smsk.s_addr ||
		    (x.invflags & IPT_INV_SRCIP))
			return false;
		x.src = y.src;
		break;
	case SF_DST:
		if (x.dmsk.s_addr != y.dmsk.s_addr || !x.dmsk.s_addr ||
		    (x.invflags & IPT_INV_DSTIP))
			return false;
		x.dst = y.dst;
		break;
	case SF_SPORT:
	case SF_DPORT:
		ma = single_l4(a);
		mb = single_l4(b);
		if (!ma || !mb)
			return false;
		mx = *ma;
		my = *mb;
		if (f == SF_SPORT) {
			if (mx.tu.spts[0] != mx.tu.spts[1] ||
			    my.tu.spts[0] != my.tu.spts[1] ||
			    (mx.tu.invflags & XT_TCP_INV_SRCPT))
				return false;
			mx.tu.spts[0] = mx.tu.spts[1] = my.tu.spts[0];
		} else {
			if (mx.tu.dpts[0] != mx.tu.dpts[1] ||
			    my.tu.dpts[0] != my.tu.dpts[1] ||
			    (mx.tu.invflags & XT_TCP_INV_DSTPT))
				return false;
			mx.tu.dpts[0] = mx.tu.dpts[1] = my.tu.dpts[0];
		}
		if (memcmp(&mx, &my, sizeof(mx)))
			return false;
		break;
	default:
		return false;
	}
	if (memcmp(&x, &y, sizeof(x)))
		return false;
	if (f == SF_SRC || f == SF_DST)
		return !memcmp(a->m, b->m, a->nmatch * sizeof(a->m[0]));
	return true;
}

static __u32 set_key(const struct ir_rule *r, enum set_field f)
{
	switch (f) {
	case SF_SRC:
		return r->ip.src.s_addr & r->ip.smsk.s_addr;
	case SF_DST:
		return r->ip.dst.s_addr & r->ip.dmsk.s_addr;
	case SF_SPORT:
		return single_l4(r)->tu.spts[0];
	case SF_DPORT:
		return single_l4(r)->tu.dpts[0];
	default:
		return 0;
	}
}

/* Length of the set-like run starting at @i, and its field. */
static unsigned int set_run(const struct ir_table *ir, unsigned int i,
			    enum set_field *fp)
{
	static const enum set_field fields[] = { SF_SRC, SF_DST, SF_DPORT,
						  SF_SPORT };
	unsigned int k, j, best = 0;

	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		for (j = i + 1; j < ir->nrules &&
		     same_but(&ir->rules[i], &ir->rules[j], fields[k]); j++)
			;
		if (j - i > best) {
			best = j - i;
			*fp = fields[k];
		}
	}
	return best;
}

static void emit_set_run(struct cg *c, unsigned int func, unsigned int i,
			 unsigned int len, enum set_field f)
{
	const struct ir_rule *r = &c->ir->rules[i];
	struct cg_map set = { .name = "ebpf_set", .type = BPF_MAP_TYPE_HASH,
			      .key_size = sizeof(__u32),
			      .value_size = sizeof(__u32), .max_entries = len,
			      .source = CG_MAP_OWN };
	unsigned int j;
	int map, next = new_label(c);
	bool hd = rule_has_hotdrop(r);
	int slot = 0;
	__u32 mask = 0;

	set.elems = malloc((size_t)len * 2 * sizeof(__u32));
	if (!set.elems) {
		cg_fail(c, -ENOMEM, "out of memory");
		return;
	}
	/* in reverse so the first rule (lowest index) wins duplicates */
	for (j = len; j-- > 0;) {
		__u32 kv[2] = { set_key(&c->ir->rules[i + j], f), i + j };

		memcpy(set.elems + (size_t)set.nelems++ * sizeof(kv), kv,
		       sizeof(kv));
	}
	map = cg_prog_add_map(c->p, &set);
	if (map < 0)
		return;

	EM(c, BPF_MOV64_IMM(R7, 0));
	if (hd)
		EM(c, BPF_MOV64_IMM(R8, 0));
	emit_conditions(c, r, f);
	if (hd) {
		EM(c, BPF_JMP_IMM(BPF_JEQ, R8, 0, 2));
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		EM(c, BPF_EXIT_INSN());
	}
	jmp_imm(c, BPF_JNE, R7, 0, next);
	switch (f) {
	case SF_SRC:
		slot = PI_SADDR;
		mask = r->ip.smsk.s_addr;
		break;
	case SF_DST:
		slot = PI_DADDR;
		mask = r->ip.dmsk.s_addr;
		break;
	case SF_SPORT:
		slot = PI_SPORT;
		break;
	default:
		slot = PI_DPORT;
		break;
	}
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot));
	if (mask && mask != 0xffffffff)
		EM(c, BPF_ALU32_IMM(BPF_AND, R2, (int)mask));
	EM(c, BPF_STX_MEM(BPF_W, FP, R2, -8));
	emit_ld_map(c, R1, map);
	EM(c, BPF_MOV64_REG(R2, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, -8));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	jmp_imm(c, BPF_JEQ, R0, 0, next);
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, 0));
	emit_count_reg(c);
	emit_verdict(c, func, r);
	place(c, next);
}

/* ----- classified runs (tuple space, classify.h) ---------------------- */

static int cls_slot(enum cls_field f)
{
	switch (f) {
	case CLS_IN0:
		return PI_IN;
	case CLS_IN1:
		return PI_IN + 8;
	case CLS_OUT0:
		return PI_OUT;
	case CLS_OUT1:
		return PI_OUT + 8;
	case CLS_SADDR:
		return PI_SADDR;
	case CLS_DADDR:
		return PI_DADDR;
	case CLS_PL4:
		return PI_PL4;
	default:
		return PI_PORTS;
	}
}

/*
 * A run of rules as one hash lookup per group; r9 keeps the smallest value
 * found (rule index << 2 | hotdrop << 1 | accept), starting at ~0 made
 * opaque (from pi.zero: a constant would let the verifier decide the final
 * test on the no-match path).  Then: nothing found -> next rule; hotdrop ->
 * DROP uncounted; else count the rule, return its verdict.
 */
static void emit_cls_run(struct cg *c, struct cls_run *run)
{
	int next = new_label(c), hotdrop = new_label(c);
	unsigned int g, k;
	int r = cls_describe_maps(c->ir, run, c->p, c->err, c->err_len);

	if (r) {
		if (!c->rc)
			c->rc = r;	/* the reason is in c->err */
		return;
	}
	EM(c, BPF_LDX_MEM(BPF_DW, R9, R6, PI_ZERO));
	EM(c, BPF_ALU64_IMM(BPF_SUB, R9, 1));
	for (g = 0; g < run->ngroups; g++) {
		const struct cls_group *gr = &run->g[g];
		int skip = new_label(c);
		int off = PI_KEY;

		for (k = 0; k < gr->nwords; k++) {
			const struct cls_word *w = &gr->w[k];

			if (w->size == 8) {
				EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, cls_slot(w->field)));
				if (w->mask != ~0ULL) {
					emit_ld64(c, R3, w->mask);
					EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
				}
				EM(c, BPF_STX_MEM(BPF_DW, R6, R2, off));
			} else {
				EM(c, BPF_LDX_MEM(BPF_W, R2, R6, cls_slot(w->field)));
				if (w->mask != 0xffffffffULL)
					EM(c, BPF_ALU32_IMM(BPF_AND, R2, (int)w->mask));
				EM(c, BPF_STX_MEM(BPF_W, R6, R2, off));
			}
			off += w->size;
		}
		emit_ld_map(c, R1, gr->map);
		EM(c, BPF_MOV64_REG(R2, R6));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R2, PI_KEY));
		EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		jmp_imm(c, BPF_JEQ, R0, 0, skip);
		EM(c, BPF_LDX_MEM(BPF_W, R1, R0, 0));
		add_fix(c, skip, false);
		EM(c, BPF_JMP_REG(BPF_JGE, R1, R9, 0));
		EM(c, BPF_MOV64_REG(R9, R1));
		place(c, skip);
	}
	jmp_imm(c, BPF_JEQ, R9, -1, next);
	jmp_imm(c, BPF_JSET, R9, CLS_V_HOTDROP, hotdrop);
	EM(c, BPF_MOV64_REG(R2, R9));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 2));
	emit_count_reg(c);
	EM(c, BPF_MOV64_REG(R0, R9));
	EM(c, BPF_ALU64_IMM(BPF_AND, R0, CLS_V_ACCEPT));
	EM(c, BPF_EXIT_INSN());
	place(c, hotdrop);
	EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
	EM(c, BPF_EXIT_INSN());
	place(c, next);
}

/* ----- functions ------------------------------------------------------ */

static void emit_function(struct cg *c, unsigned int start)
{
	const struct ir_table *ir = c->ir;
	unsigned int i;

	c->func_pos[start] = (int)c->p->n;
	EM(c, BPF_MOV64_REG(R6, R1));
	for (i = start; i < ir->nrules && !c->rc; i++) {
		const struct ir_rule *r = &ir->rules[i];
		enum set_field f = SF_NONE;
		unsigned int len;

		if (i != start && r->func_start) {
			call_func(c, start, i);	/* fall into the next one */
			EM(c, BPF_EXIT_INSN());
			return;
		}
		if (!c->o->no_classify && i >= c->cls_checked) {
			struct cls_run run;

			len = cls_scan(ir, i, &run);
			if (cls_worth(&run)) {
				emit_cls_run(c, &run);
				i += len - 1;
				continue;
			}
			/* not worth it; its suffixes are rarely better (fewer
			 * rules per group), and rescanning from each rule
			 * would cost O(n^2) */
			c->cls_checked = i + (len ? len : 1);
		}
		if (!r->always && (r->verdict == IRV_ACCEPT ||
				   r->verdict == IRV_DROP ||
				   r->verdict == IRV_RETURN ||
				   r->verdict == IRV_JUMP ||
				   r->verdict == IRV_GOTO)) {
			len = set_run(ir, i, &f);
			if (len >= CG_SET_MIN) {
				emit_set_run(c, start, i, len, f);
				i += len - 1;
				continue;
			}
		}
		if (emit_rule(c, start, r))
			return;
	}
	/* fell off the end of the blob: cannot happen in a validated table */
	EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
	EM(c, BPF_EXIT_INSN());
}

/* ----- prologues -------------------------------------------------------- */

static void zero_pi(struct cg *c)
{
	int off;

	for (off = 0; off < PI_SIZE; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + off, 0));
	for (off = FP_BUF; off < FP_BUF + 32; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, off, 0));
}

/* Fields of the IP header at r0 (20 bytes readable); thoff -> r8 */
static void read_iphdr(struct cg *c)
{
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, 12));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SADDR));
	EM(c, BPF_ENDIAN_BE(R2, 32));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SADDR_H));
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, 16));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DADDR));
	EM(c, BPF_ENDIAN_BE(R2, 32));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DADDR_H));
	EM(c, BPF_LDX_MEM(BPF_B, R2, R0, 9));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_PROTO));
	EM(c, BPF_LDX_MEM(BPF_H, R2, R0, 6));
	EM(c, BPF_ENDIAN_BE(R2, 16));
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, 0x1fff));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_FRAGOFF));
	EM(c, BPF_LDX_MEM(BPF_B, R8, R0, 0));
	EM(c, BPF_ALU64_IMM(BPF_AND, R8, 0xf));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R8, 2));
}

/* Fields of a transport header at r0 with @n bytes readable: those the
 * hook's rules test (the others stay 0) */
static void read_l4(struct cg *c, int n)
{
	if (c->needs.fields & NEED_F_PORTS) {
		EM(c, BPF_LDX_MEM(BPF_H, R2, R0, 0));
		EM(c, BPF_ENDIAN_BE(R2, 16));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SPORT));
		EM(c, BPF_LDX_MEM(BPF_H, R2, R0, 2));
		EM(c, BPF_ENDIAN_BE(R2, 16));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DPORT));
	}
	if (c->needs.fields & NEED_F_ICMP) {
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, 0));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ICMPT));
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, 1));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ICMPC));
	}
	if (n >= 20 && (c->needs.fields & NEED_F_TCPFL)) {
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, 13));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_TCPFL));
	}
}

/* From PI_FRAGOFF and PI_L4LEN: FRAGNZ, BAD*, HD* (see xt_tcpudp.c:
 * a fragment is never matched, fragoff 1 with tcp and a missing header at
 * offset 0 drop the packet). */
static void compute_flags(struct cg *c)
{
	static const int need[3] = { 20, 8, 4 };
	static const int bad[3] = { PI_BAD20, PI_BAD8, PI_BAD4 };
	static const int hd[3] = { PI_HD20, PI_HD8, PI_HD4 };
	int k;

	EM(c, BPF_LDX_MEM(BPF_DW, R3, FP, PI_BASE + PI_FRAGOFF));
	emit_norm(c, R3, R5);
	EM(c, BPF_STX_MEM(BPF_DW, FP, R3, PI_BASE + PI_FRAGNZ));
	for (k = 0; k < 3; k++) {
		if (!(c->needs.hdr & (1 << k)))	/* NEED_HDR20, 8, 4 */
			continue;
		EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_L4LEN));
		EM(c, BPF_ALU64_IMM(BPF_SUB, R4, need[k]));
		EM(c, BPF_ALU64_IMM(BPF_RSH, R4, 63));	/* l4len < need */
		EM(c, BPF_MOV64_REG(R2, R4));
		EM(c, BPF_ALU64_REG(BPF_OR, R2, R3));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + bad[k]));
		EM(c, BPF_MOV64_REG(R2, R3));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R4));
		if (k == 0) {	/* tcp: fragoff == 1 */
			EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_FRAGOFF));
			EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
			emit_norm(c, R4, R5);
			EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
			EM(c, BPF_ALU64_REG(BPF_OR, R2, R4));
		}
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + hd[k]));
	}
}

/* PI_PL4 and PI_PORTS, the classifier's view of the transport header
 * (classify.h): l4state from the tcp (20 bytes) or udp (8 bytes) flags. */
static void compute_cls_fields(struct cg *c)
{
	int udp = new_label(c), have = new_label(c), store = new_label(c);

	EM(c, BPF_MOV64_IMM(R3, 0));	/* l4state */
	EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_PROTO));
	jmp_imm(c, BPF_JNE, R2, 6, udp);
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_BAD20));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_HD20));
	jmp_a(c, have);
	place(c, udp);
	jmp_imm(c, BPF_JNE, R2, 17, store);
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_BAD8));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_HD8));
	place(c, have);
	/* l4state = 1 - bad + 2 * hotdrop (hotdrop implies bad) */
	EM(c, BPF_MOV64_IMM(R3, 1));
	EM(c, BPF_ALU64_REG(BPF_SUB, R3, R4));
	EM(c, BPF_ALU64_REG(BPF_ADD, R3, R5));
	EM(c, BPF_ALU64_REG(BPF_ADD, R3, R5));
	place(c, store);
	EM(c, BPF_MOV64_REG(R4, R3));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R4, 8));
	EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R4, PI_BASE + PI_PL4));
	/* ports, or 0 unless l4state is 1 */
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_SPORT));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R4, 16));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_DPORT));
	EM(c, BPF_ALU64_REG(BPF_OR, R4, R5));
	EM(c, BPF_ALU64_IMM(BPF_AND, R3, 1));
	EM(c, BPF_NEG64(R3));
	EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R4, PI_BASE + PI_PORTS));
}

static void call_kfunc(struct cg *c, int id)
{
	EM(c, BPF_CALL_KFUNC(id));
}

static void needs_of_rule(struct cg_needs *n, const struct ir_rule *r)
{
	static const unsigned char zero[IFNAMSIZ];
	unsigned int i;

	if (r->always)
		return;
	n->cond = true;
	if (memcmp(r->ip.iniface_mask, zero, IFNAMSIZ) ||
	    memcmp(r->ip.outiface_mask, zero, IFNAMSIZ) ||
	    (r->ip.invflags & (IPT_INV_VIA_IN | IPT_INV_VIA_OUT)))
		n->names = true;
	for (i = 0; i < r->nmatch; i++) {
		switch (r->m[i].kind) {
		case IRM_TCP:
			n->hdr |= NEED_HDR20;
			n->fields |= NEED_F_PORTS | NEED_F_TCPFL;
			break;
		case IRM_UDP:
			n->hdr |= NEED_HDR8;
			n->fields |= NEED_F_PORTS;
			break;
		case IRM_ICMP:
			n->hdr |= NEED_HDR8;
			n->fields |= NEED_F_ICMP;
			break;
		case IRM_MPORT:
			n->hdr |= NEED_HDR4;
			n->fields |= NEED_F_PORTS;
			break;
		default:
			continue;
		}
		n->l4 = true;
	}
}

/* c->needs: what the rules reachable from @entry and @under test (the
 * functions codegen will emit, found the same way). */
static void scan_needs(struct cg *c, unsigned int entry, unsigned int under)
{
	const struct ir_table *ir = c->ir;
	bool *seen = calloc(ir->nrules, sizeof(bool));
	unsigned int *q = malloc(ir->nrules * sizeof(unsigned int));
	unsigned int n = 0, h = 0, i;

	memset(&c->needs, 0, sizeof(c->needs));
	if (!seen || !q) {	/* extract everything */
		c->needs.cond = c->needs.names = c->needs.l4 = true;
		c->needs.cls = !c->o->no_classify;
		c->needs.hdr = NEED_HDR20 | NEED_HDR8 | NEED_HDR4;
		c->needs.fields = NEED_F_PORTS | NEED_F_ICMP | NEED_F_TCPFL;
		goto out;
	}
	seen[entry] = true;
	q[n++] = entry;
	if (!seen[under]) {
		seen[under] = true;
		q[n++] = under;
	}
	while (h < n) {
		unsigned int start = q[h++], run = 0;

		for (i = start; i < ir->nrules; i++) {
			const struct ir_rule *r = &ir->rules[i];
			unsigned int t = r->target;

			if (i != start && r->func_start) {
				t = i;
				if (!seen[t]) {
					seen[t] = true;
					q[n++] = t;
				}
				break;
			}
			needs_of_rule(&c->needs, r);
			/* as many rules as a classified run needs (cls_worth()
			 * may still say no: then the fields go unused) */
			run = cls_rule_ok(r) ? run + 1 : 0;
			if (run >= CLS_MIN_RUN && !c->o->no_classify)
				c->needs.cls = true;
			if ((r->verdict == IRV_JUMP || r->verdict == IRV_GOTO) &&
			    t < ir->nrules && !seen[t]) {
				seen[t] = true;
				q[n++] = t;
			}
			if (r->always && verdict_terminal(r->verdict))
				break;
		}
	}
out:
	if (c->needs.cls) {	/* compute_cls_fields() */
		c->needs.hdr |= NEED_HDR20 | NEED_HDR8;
		c->needs.fields |= NEED_F_PORTS;
	}
	free(seen);
	free(q);
}

/*
 * Zero the bytes after the first NUL of the 16-byte name at fp+@slot:
 * dev->name may keep bytes of an older, longer name there (strscpy does not
 * pad).  Then a whole name is a key: every "-i NAME" rule, whatever the
 * name's length, is in one classifier group.  Rules built by iptables never
 * compare bytes past the NUL of their own name (the mask ends at it), and a
 * device name shorter than the rule's already differs at its own NUL, so
 * linear code gives the same answers on the cleaned name.
 * Branch-free: z = (w - 0x01..) & ~w & 0x80.. has the top bit of the first
 * zero byte as its lowest set bit; keep the bits below it.
 */
static void clean_name(struct cg *c, int slot)
{
	int w;

	EM(c, BPF_MOV64_IMM(R5, -1));	/* word 1 survives: no NUL in word 0 */
	for (w = 0; w < 2; w++) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, slot + 8 * w));
		emit_ld64(c, R3, 0x0101010101010101ULL);
		EM(c, BPF_MOV64_REG(R4, R2));
		EM(c, BPF_ALU64_REG(BPF_SUB, R4, R3));
		EM(c, BPF_MOV64_REG(R3, R2));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R3, -1));
		EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
		emit_ld64(c, R3, 0x8080808080808080ULL);
		EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));	/* z */
		EM(c, BPF_MOV64_REG(R3, R4));
		EM(c, BPF_NEG64(R3));
		EM(c, BPF_ALU64_REG(BPF_AND, R3, R4));	/* lowest bit of z */
		EM(c, BPF_ALU64_IMM(BPF_SUB, R3, 1));	/* bits below; ~0 if none */
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R5));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot + 8 * w));
		if (w == 0) {	/* r5 = z ? 0 : ~0 */
			EM(c, BPF_MOV64_REG(R5, R4));
			EM(c, BPF_NEG64(R5));
			EM(c, BPF_ALU64_REG(BPF_OR, R5, R4));
			EM(c, BPF_ALU64_IMM(BPF_RSH, R5, 63));
			EM(c, BPF_ALU64_IMM(BPF_SUB, R5, 1));
		}
	}
}

/*
 * NETFILTER: pi fields that not every path through prologue_nf() writes
 * (the transport header's, when there is none; names and ct state when no
 * rule needs them) start as 0.  The rest is always written before the
 * rules run.
 */
static void zero_pi_nf(struct cg *c)
{
	static const int slots[] = {
		PI_SPORT, PI_DPORT, PI_TCPFL, PI_ICMPT, PI_ICMPC, PI_CT,
		PI_PL4, PI_PORTS,
	};
	unsigned int i;

	for (i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + slots[i], 0));
	for (i = 0; i < 4 && !c->needs.names; i++)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + PI_IN + 8 * i, 0));
}

/* the most bytes of the transport header any of the hook's matches reads */
static int l4_want(const struct cg *c)
{
	return c->needs.hdr & NEED_HDR20 ? 20 :
	       c->needs.hdr & NEED_HDR8 ? 8 : 4;
}

/* r9 = pi.l4len = skb->len - thoff (r8), at least 0 */
static void emit_l4len(struct cg *c)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R9, FP, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_REG(BPF_SUB, R9, R8));
	EM(c, BPF_JMP_IMM(BPF_JSGE, R9, 0, 1));
	EM(c, BPF_MOV64_IMM(R9, 0));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R9, PI_BASE + PI_L4LEN));
}

/* bpf_dynptr_from_skb(skb (r7), 0, fp + FP_DYNPTR); failing: drop */
static void emit_dynptr_nf(struct cg *c, int drop_exit)
{
	int off;

	for (off = FP_BUF; off < FP_BUF + 32; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, off, 0));
	EM(c, BPF_MOV64_REG(R1, R7));
	EM(c, BPF_MOV64_IMM(R2, 0));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_DYNPTR));
	call_kfunc(c, c->o->k->kf_dynptr_from_skb);
	jmp_imm(c, BPF_JNE, R0, 0, drop_exit);
}

/* The IP header's fields through a new dynptr (thoff -> r8); drop if the
 * kernel gives neither */
static void dynptr_iphdr_nf(struct cg *c, int drop_exit)
{
	emit_dynptr_nf(c, drop_exit);
	EM(c, BPF_MOV64_REG(R1, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_DYNPTR));
	EM(c, BPF_MOV64_IMM(R2, 0));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
	EM(c, BPF_MOV64_IMM(R4, 20));
	call_kfunc(c, c->o->k->kf_dynptr_slice);
	jmp_imm(c, BPF_JEQ, R0, 0, drop_exit);
	read_iphdr(c);
}

/*
 * The transport header through the dynptr, with thoff in r8 and l4len in
 * r9: 20 bytes if there are (tcp's flags), else 8, else 4, else none, as
 * the matches' skb_header_pointer() calls each get what they ask for.
 */
static void l4_slices(struct cg *c, int l4_done)
{
	static const int sizes[3] = { 20, 8, 4 };
	int s, miss[3];

	for (s = 0; s < 3; s++)
		miss[s] = s < 2 ? new_label(c) : l4_done;
	for (s = 0; s < 3; s++) {
		if (s > 0)
			place(c, miss[s - 1]);
		jmp_imm(c, BPF_JLT, R9, sizes[s], miss[s]);
		EM(c, BPF_MOV64_REG(R1, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_DYNPTR));
		EM(c, BPF_MOV64_REG(R2, R8));
		EM(c, BPF_MOV64_REG(R3, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
		EM(c, BPF_MOV64_IMM(R4, sizes[s]));
		call_kfunc(c, c->o->k->kf_dynptr_slice);
		jmp_imm(c, BPF_JEQ, R0, 0, l4_done);
		read_l4(c, sizes[s]);
		if (s < 2)	/* no "ja 0" (the verifier removes it) */
			jmp_a(c, l4_done);
	}
}

/* The IP and transport headers' fields into pi through a dynptr (kernels
 * without bpf_rdonly_cast(); headers not in the skb's linear data). */
static void headers_nf_dynptr(struct cg *c, int drop_exit)
{
	int l4_done = new_label(c);

	dynptr_iphdr_nf(c, drop_exit);
	emit_l4len(c);
	if (c->needs.l4) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
		jmp_imm(c, BPF_JNE, R2, 0, l4_done);
		l4_slices(c, l4_done);
	}
	place(c, l4_done);
}

/* r0 = bpf_rdonly_cast(skb->data + r8 (or + 0 if !@plus_r8), @btf_id): a
 * pointer the program may read through, each load a fault-safe "probe"
 * load; the verifier turns the call into a move */
static void emit_cast_data(struct cg *c, bool plus_r8, int btf_id)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R1, R7, c->o->k->off_skb_data));
	if (plus_r8)
		EM(c, BPF_ALU64_REG(BPF_ADD, R1, R8));
	EM(c, BPF_MOV64_IMM(R2, btf_id));
	call_kfunc(c, c->o->k->kf_rdonly_cast);
}

/*
 * The headers read in place: a dynptr costs three kfunc calls per packet,
 * a third of an empty rule set's whole cost.  The bytes a dynptr slice
 * would copy are in the skb's linear data whenever skb->len - data_len
 * covers them (at these hooks the IP header always is: ip_rcv() pulled it,
 * the output path built it), so they are read there, from skb->data as the
 * dynptr's offsets count; anything else takes the dynptr path.
 */
static void headers_nf_direct(struct cg *c, int drop_exit)
{
	const struct cg_kernel *k = c->o->k;
	int slow_ip = new_label(c), ip_done = new_label(c);
	int slow_l4 = new_label(c), l4_done = new_label(c), tries = -1;
	int want = l4_want(c);

	/* headlen (FP_TMP) = skb->len - skb->data_len */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R7, k->off_skb_len));
	EM(c, BPF_LDX_MEM(BPF_W, R3, R7, k->off_skb_data_len));
	EM(c, BPF_ALU64_REG(BPF_SUB, R2, R3));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, FP_TMP));
	jmp_imm(c, BPF_JLT, R2, 20, slow_ip);
	emit_cast_data(c, false, k->btf_iphdr);
	read_iphdr(c);
	jmp_a(c, ip_done);

	place(c, slow_ip);	/* not linear: all through the dynptr */
	dynptr_iphdr_nf(c, drop_exit);
	emit_l4len(c);
	if (c->needs.l4) {
		tries = new_label(c);
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
		jmp_imm(c, BPF_JNE, R2, 0, l4_done);
		jmp_a(c, tries);
	} else {
		jmp_a(c, l4_done);
	}

	place(c, ip_done);
	emit_l4len(c);
	if (c->needs.l4) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
		jmp_imm(c, BPF_JNE, R2, 0, l4_done);
		/* all there and linear: read in place */
		jmp_imm(c, BPF_JLT, R9, want, slow_l4);
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, FP_TMP));
		EM(c, BPF_MOV64_REG(R3, R8));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, want));
		jmp_reg(c, BPF_JLT, R2, R3, slow_l4);
		emit_cast_data(c, true, k->btf_tcphdr);
		read_l4(c, want);
		jmp_a(c, l4_done);

		place(c, slow_l4);
		emit_dynptr_nf(c, drop_exit);
		place(c, tries);
		l4_slices(c, l4_done);
	}
	place(c, l4_done);
}

/* NETFILTER: r1 = struct bpf_nf_ctx { state; skb; } */
static void prologue_nf(struct cg *c, int drop_exit)
{
	const struct cg_kernel *k = c->o->k;
	int s;

	/* each ctx load costs the verifier a search of the kernel's BTF
	 * (nf_ptr_to_btf_id()): state only where the names are read */
	if (c->needs.names)
		EM(c, BPF_LDX_MEM(BPF_DW, R6, R1, 0));	/* state */
	EM(c, BPF_LDX_MEM(BPF_DW, R7, R1, 8));	/* skb */
	if (!c->needs.cond) {
		/* no rule tests anything: the counters need the length;
		 * pi.zero = -(len >> 31), 0 (an skb is < 2 GiB) but, as
		 * 0 or ~0, no range the verifier can use (see "no dead
		 * code") */
		EM(c, BPF_LDX_MEM(BPF_W, R2, R7, k->off_skb_len));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
		EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));
		EM(c, BPF_NEG64(R2));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));
		return;
	}
	zero_pi_nf(c);
	EM(c, BPF_LDX_MEM(BPF_W, R2, R7, k->off_skb_len));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));	/* pi.zero: see above */
	EM(c, BPF_NEG64(R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));

	/* device names: 16 raw bytes of dev->name, zeros without a device;
	 * plain loads through the BTF pointers (the verifier allows 8-byte
	 * reads inside a char array; a helper call per name cost more than
	 * all the rest of a small program).  First, before the prologue
	 * branches: each BTF pointer walk costs the verifier a search of the
	 * kernel's BTF, once per path that reaches it. */
	if (c->needs.names && k->direct) {
		/* state as an untrusted pointer: walking a trusted one makes
		 * the verifier look its fields up in the kernel's BTF by name
		 * ("nf_hook_state__safe_trusted", ...), a scan of every type
		 * each time, milliseconds per load; the names are read with
		 * probe loads either way */
		EM(c, BPF_MOV64_REG(R1, R6));
		EM(c, BPF_MOV64_IMM(R2, k->btf_nf_hook_state));
		call_kfunc(c, k->kf_rdonly_cast);
		EM(c, BPF_MOV64_REG(R6, R0));
	}
	for (s = 0; s < 2 && c->needs.names; s++) {
		int slot = PI_BASE + (s ? PI_OUT : PI_IN);

		EM(c, BPF_LDX_MEM(BPF_DW, R3, R6,
				  s ? k->off_state_out : k->off_state_in));
		/* no NULL test (a branch would double the paths after it):
		 * a BTF load through NULL is a probed load and reads 0 */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R3, k->off_dev_name));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot));
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R3, k->off_dev_name + 8));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot + 8));
		clean_name(c, slot);
	}

	if (k->direct)
		headers_nf_direct(c, drop_exit);
	else
		headers_nf_dynptr(c, drop_exit);
	compute_flags(c);
	if (c->needs.cls)
		compute_cls_fields(c);

	if (c->ir->uses_ct) {
		int tracked = new_label(c), store = new_label(c);

		/* nf_ct_get(): ctinfo = _nfct & 7, ct = _nfct & ~7 */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R7, k->off_skb_nfct));
		EM(c, BPF_MOV64_REG(R3, R2));
		EM(c, BPF_ALU64_IMM(BPF_AND, R3, 7));
		EM(c, BPF_ALU64_IMM(BPF_AND, R2, -8));
		EM(c, BPF_MOV64_REG(R8, R2));
		jmp_imm(c, BPF_JNE, R2, 0, tracked);
		EM(c, BPF_MOV64_IMM(R9, IR_CT_INVALID));
		jmp_imm(c, BPF_JNE, R3, 7, store);
		EM(c, BPF_MOV64_IMM(R9, IR_CT_UNTRACKED));
		jmp_a(c, store);
		place(c, tracked);
		/* XT_CONNTRACK_STATE_BIT(ctinfo) = 1 << (ctinfo % 3 + 1) */
		EM(c, BPF_ALU64_IMM(BPF_MOD, R3, 3));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, 1));
		EM(c, BPF_MOV64_IMM(R9, 1));
		EM(c, BPF_ALU64_REG(BPF_LSH, R9, R3));
		EM(c, BPF_MOV64_REG(R1, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_TMP));
		EM(c, BPF_MOV64_IMM(R2, 8));
		EM(c, BPF_MOV64_REG(R3, R8));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, k->off_ct_status));
		EM(c, BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel));
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, FP_TMP));
		EM(c, BPF_MOV64_REG(R3, R2));	/* IPS_SRC_NAT_BIT 4 */
		EM(c, BPF_ALU64_IMM(BPF_RSH, R3, 4));
		EM(c, BPF_ALU64_IMM(BPF_AND, R3, 1));
		EM(c, BPF_ALU64_IMM(BPF_LSH, R3, 6));
		EM(c, BPF_ALU64_REG(BPF_OR, R9, R3));
		EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 5));	/* IPS_DST_NAT_BIT 5 */
		EM(c, BPF_ALU64_IMM(BPF_AND, R2, 1));
		EM(c, BPF_ALU64_IMM(BPF_LSH, R2, 7));
		EM(c, BPF_ALU64_REG(BPF_OR, R9, R2));
		place(c, store);
		EM(c, BPF_STX_MEM(BPF_DW, FP, R9, PI_BASE + PI_CT));
	}
}

/* TC: look up struct cg_ifinfo for the ifindex in r2 (scalar); copy the name
 * to pi[@name_slot] if @name_slot >= 0; l2len -> r8 (default 14) */
static void tc_ifinfo(struct cg *c, int name_slot, bool want_l2)
{
	int miss = new_label(c);

	EM(c, BPF_STX_MEM(BPF_W, FP, R2, FP_TMP));
	if (want_l2)
		EM(c, BPF_MOV64_IMM(R8, 14));
	emit_ld_map(c, R1, shared_map(c->p, CG_MAP_IFINFO, 0));
	EM(c, BPF_MOV64_REG(R2, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, FP_TMP));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	jmp_imm(c, BPF_JEQ, R0, 0, miss);
	if (want_l2)
		EM(c, BPF_LDX_MEM(BPF_W, R8, R0, 16));
	if (name_slot >= 0) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R0, 0));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + name_slot));
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R0, 8));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + name_slot + 8));
	}
	place(c, miss);
}

/*
 * TC: copy @n bytes (a multiple of 4) at packet offset @off_reg (bounded,
 * see callers) from the skb's linear data to FP_BUF, or jump to @slow if
 * they are not all there (then skb_load_bytes() gets them).  A helper call
 * per header cost more than a whole empty rule set's program.
 */
static void tc_copy_linear(struct cg *c, int off_reg, int n, int slow)
{
	int i;

	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, data)));
	EM(c, BPF_LDX_MEM(BPF_W, R3, R6, offsetof(struct __sk_buff, data_end)));
	EM(c, BPF_ALU64_REG(BPF_ADD, R2, off_reg));
	EM(c, BPF_MOV64_REG(R4, R2));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R4, n));
	jmp_reg(c, BPF_JGT, R4, R3, slow);
	for (i = 0; i < n; i += 4) {
		EM(c, BPF_LDX_MEM(BPF_W, R4, R2, i));
		EM(c, BPF_STX_MEM(BPF_W, FP, R4, FP_BUF + i));
	}
}

/* TC: the IP header at packet offset l2len (r8) to FP_BUF, from the linear
 * data or with skb_load_bytes(); to @fail if there is none */
static void tc_load_iphdr(struct cg *c, int fail)
{
	int slow = new_label(c), done = new_label(c);

	/* l2len bounded for the verifier: no link layer header is that long */
	jmp_imm(c, BPF_JGT, R8, 255, slow);
	tc_copy_linear(c, R8, 20, slow);
	jmp_a(c, done);
	place(c, slow);
	EM(c, BPF_MOV64_REG(R1, R6));
	EM(c, BPF_MOV64_REG(R2, R8));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
	EM(c, BPF_MOV64_IMM(R4, 20));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes));
	jmp_imm(c, BPF_JNE, R0, 0, fail);
	place(c, done);
}

/* TC: r1 = struct __sk_buff.  Non-IPv4 and packets the IP layer would
 * discard before any hook (bad version/ihl/length) exit with @pass_exit. */
static void prologue_tc(struct cg *c, int pass_exit)
{
	static const int sizes[3] = { 20, 8, 4 };
	int l4_done = new_label(c), try8 = new_label(c), try4 = new_label(c);
	int s;

	EM(c, BPF_MOV64_REG(R6, R1));
	zero_pi(c);
	/* pi.zero: see prologue_nf */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, len)));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));
	EM(c, BPF_NEG64(R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, protocol)));
	jmp_imm(c, BPF_JNE, R2, htons(0x0800), pass_exit);

	if (c->o->hook == CG_OUTPUT) {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
				  offsetof(struct __sk_buff, ifindex)));
		tc_ifinfo(c, PI_OUT, true);
	} else {
		/* the dispatcher found l2len (cb[1]) and, for FORWARD, the
		 * output device (cb[0]); the names only if a rule tests them */
		if (c->needs.names) {
			EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
					  offsetof(struct __sk_buff, ifindex)));
			tc_ifinfo(c, PI_IN, false);
		}
		if (c->needs.names && c->o->hook == CG_FORWARD) {
			EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
					  offsetof(struct __sk_buff, cb[0])));
			tc_ifinfo(c, PI_OUT, false);
		}
		EM(c, BPF_LDX_MEM(BPF_W, R8, R6,
				  offsetof(struct __sk_buff, cb[1])));
	}
	tc_load_iphdr(c, pass_exit);	/* r8 = l2len */
	/* version 4, ihl >= 5 */
	EM(c, BPF_LDX_MEM(BPF_B, R2, FP, FP_BUF));
	EM(c, BPF_MOV64_REG(R3, R2));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R3, 4));
	jmp_imm(c, BPF_JNE, R3, 4, pass_exit);
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, 0xf));
	jmp_imm(c, BPF_JLT, R2, 5, pass_exit);
	/* tot_len: the bytes ip_tables counts (ip_rcv trims to it) */
	EM(c, BPF_LDX_MEM(BPF_H, R2, FP, FP_BUF + 2));
	EM(c, BPF_ENDIAN_BE(R2, 16));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
	EM(c, BPF_MOV64_REG(R9, R8));	/* r9 = l2len */
	EM(c, BPF_MOV64_REG(R0, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
	read_iphdr(c);			/* r8 = thoff */
	/* l4len = tot_len - thoff, at least 0 */
	EM(c, BPF_LDX_MEM(BPF_DW, R7, FP, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_REG(BPF_SUB, R7, R8));
	EM(c, BPF_JMP_IMM(BPF_JSGE, R7, 0, 1));
	EM(c, BPF_MOV64_IMM(R7, 0));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R7, PI_BASE + PI_L4LEN));
	EM(c, BPF_ALU64_REG(BPF_ADD, R8, R9));	/* r8 = l2len + thoff */

	if (c->needs.l4) {
		int want = l4_want(c), l4_slow = new_label(c);

		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
		jmp_imm(c, BPF_JNE, R2, 0, l4_done);
		/* the most any match reads there and linear: copied */
		jmp_imm(c, BPF_JLT, R7, want, l4_slow);
		jmp_imm(c, BPF_JGT, R8, 1024, l4_slow);	/* bounded */
		tc_copy_linear(c, R8, want, l4_slow);
		EM(c, BPF_MOV64_REG(R0, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
		read_l4(c, want);
		jmp_a(c, l4_done);
		place(c, l4_slow);
	}
	for (s = 0; s < 3 && c->needs.l4; s++) {
		int miss = s == 0 ? try8 : s == 1 ? try4 : l4_done;

		if (s == 1)
			place(c, try8);
		if (s == 2)
			place(c, try4);
		jmp_imm(c, BPF_JLT, R7, sizes[s], miss);
		EM(c, BPF_MOV64_REG(R1, R6));
		EM(c, BPF_MOV64_REG(R2, R8));
		EM(c, BPF_MOV64_REG(R3, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
		EM(c, BPF_MOV64_IMM(R4, sizes[s]));
		EM(c, BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes));
		jmp_imm(c, BPF_JNE, R0, 0, l4_done);
		EM(c, BPF_MOV64_REG(R0, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
		read_l4(c, sizes[s]);
		if (s < 2)	/* no "ja 0" (the verifier removes it) */
			jmp_a(c, l4_done);
	}
	place(c, l4_done);
	if (c->needs.cond) {
		compute_flags(c);
		if (c->needs.cls)
			compute_cls_fields(c);
	}
}

/* ----- driver ----------------------------------------------------------- */

static int resolve(struct cg *c)
{
	size_t i;

	for (i = 0; i < c->nfix; i++) {
		struct fixup *f = &c->fix[i];
		long d;

		if (f->call) {
			d = (long)c->func_pos[f->target] - (long)f->at - 1;
			c->p->insns[f->at].imm = (int)d;
			continue;
		}
		if (f->target >= c->nlab || c->lab[f->target] < 0)
			return -EFAULT;
		d = (long)c->lab[f->target] - (long)f->at - 1;
		if (d < -32768 || d > 32767)
			return -E2BIG;
		c->p->insns[f->at].off = (short)d;
	}
	return 0;
}

/* longest chain of calls below F(i); -1 on a cycle */
static int depth_of(struct cg *c, unsigned int i, int *memo)
{
	unsigned int e;
	int best = 1;		/* its own frame */

	if (memo[i] == -2)
		return -1;
	if (memo[i] >= 0)
		return memo[i];
	memo[i] = -2;
	for (e = 0; e < c->nedges; e++) {
		int d;

		if (c->edges_from[e] != i)
			continue;
		d = depth_of(c, c->edges_to[e], memo);
		if (d < 0)
			return -1;
		if (d + 1 > best)
			best = d + 1;
	}
	memo[i] = best;
	return best;
}

int codegen_hook(const struct ir_table *ir, const struct cg_opts *o,
		 struct cg_prog *out, char *err, size_t err_len)
{
	static const unsigned int nfhook[CG_NHOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };
	unsigned int h = nfhook[o->hook], entry, under;
	struct cg c = { .p = out, .ir = ir, .o = o, .err = err,
			.err_len = err_len };
	int drop_exit, pass_exit, ret_label, r;
	int *memo = NULL;
	long opaque_at = -1;

	memset(out, 0, sizeof(*out));
	if (!(ir->valid_hooks & (1u << h))) {
		snprintf(err, err_len, "table has no hook %u", h);
		return -EINVAL;
	}
	if (ir->uses_tcpopt) {
		snprintf(err, err_len, "tcp --tcp-option is not enforced");
		return -EOPNOTSUPP;
	}
	if (ir->uses_ct && (o->mech != CG_NETFILTER || !o->k ||
			    o->k->off_skb_nfct < 0 || o->k->off_ct_status < 0)) {
		snprintf(err, err_len,
			 "state/conntrack matches are not enforced on this kernel (no conntrack state at the %s hook)",
			 o->mech == CG_TC ? "tc" : "netfilter");
		return -EOPNOTSUPP;
	}
	entry = ir->hook_entry[h];
	under = ir->underflow[h];
	c.func_pos = malloc(ir->nrules * sizeof(int));
	c.func_queued = calloc(ir->nrules, sizeof(bool));
	c.queue = malloc(ir->nrules * sizeof(unsigned int));
	memo = malloc(ir->nrules * sizeof(int));
	if (!c.func_pos || !c.func_queued || !c.queue || !memo) {
		r = -ENOMEM;
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < ir->nrules; i++)
		c.func_pos[i] = -1, memo[i] = -1;

	drop_exit = new_label(&c);
	pass_exit = new_label(&c);
	ret_label = new_label(&c);
	scan_needs(&c, entry, under);
	if (o->mech == CG_NETFILTER)
		prologue_nf(&c, drop_exit);
	else
		prologue_tc(&c, pass_exit);

	/*
	 * Make pi opaque to the verifier: copy it onto itself with a helper,
	 * which leaves the slots "unknown".  Otherwise the values the prologue's
	 * different paths (header sizes, fragments) leave there are tracked as
	 * constants, and every rule is verified once per prologue path (with
	 * precision backtracking): 3-5x the work, 10,000 rules did not load.
	 */
	if (c.needs.cond) {
		opaque_at = (long)c.p->n;
		EM(&c, BPF_MOV64_REG(R1, FP));
		EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
		EM(&c, BPF_MOV64_IMM(R2, PI_SIZE));
		EM(&c, BPF_MOV64_REG(R3, R1));
		EM(&c, BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	}
	EM(&c, BPF_MOV64_IMM(R6, 0));
	EM(&c, BPF_MOV64_IMM(R7, 0));
	EM(&c, BPF_MOV64_IMM(R8, 0));
	EM(&c, BPF_MOV64_IMM(R9, 0));

	/* r0 = F(entry); if RETURN: r0 = F(underflow) */
	c.func_queued[entry] = c.func_queued[under] = true;
	c.queue[c.nqueue++] = entry;
	if (under != entry)
		c.queue[c.nqueue++] = under;
	EM(&c, BPF_MOV64_REG(R1, FP));
	EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
	add_fix(&c, (int)entry, true);
	EM(&c, BPF_CALL_REL(0));
	/* the verdicts are tested opaquely (see opaque_r0): a hook whose
	 * chain never returns RETURN, or never accepts, has no dead code */
	opaque_r0(&c, FP, PI_BASE + PI_ZERO);
	jmp_imm(&c, BPF_JNE, R0, CG_V_RETURN, ret_label);
	EM(&c, BPF_MOV64_REG(R1, FP));
	EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
	add_fix(&c, (int)under, true);
	EM(&c, BPF_CALL_REL(0));
	opaque_r0(&c, FP, PI_BASE + PI_ZERO);
	place(&c, ret_label);
	if (o->mech == CG_NETFILTER) {
		EM(&c, BPF_JMP_IMM(BPF_JEQ, R0, CG_V_ACCEPT, 2));
		place(&c, drop_exit);
		place(&c, pass_exit);	/* unused for NETFILTER */
		EM(&c, BPF_MOV64_IMM(R0, NF_DROP));
		EM(&c, BPF_EXIT_INSN());
		EM(&c, BPF_MOV64_IMM(R0, NF_ACCEPT));
		EM(&c, BPF_EXIT_INSN());
	} else {
		EM(&c, BPF_JMP_IMM(BPF_JEQ, R0, CG_V_ACCEPT, 2));
		place(&c, drop_exit);
		EM(&c, BPF_MOV64_IMM(R0, TC_ACT_SHOT));
		EM(&c, BPF_EXIT_INSN());
		place(&c, pass_exit);
		EM(&c, BPF_MOV64_IMM(R0, TC_ACT_UNSPEC));
		EM(&c, BPF_EXIT_INSN());
	}

	while (c.qhead < c.nqueue && !c.rc)
		emit_function(&c, c.queue[c.qhead++]);
	if (c.rc) {
		r = c.rc;
		goto out;
	}
	if (out->failed) {
		r = -ENOMEM;
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	{
		int d1 = depth_of(&c, entry, memo), d2 = depth_of(&c, under, memo);

		if (d1 < 0 || d2 < 0) {
			r = -ELOOP;
			snprintf(err, err_len, "loop in the chain graph");
			goto out;
		}
		if (d1 > CG_MAX_DEPTH || d2 > CG_MAX_DEPTH) {
			r = -E2BIG;
			snprintf(err, err_len,
				 "user chains nested %d deep; BPF allows %d",
				 (d1 > d2 ? d1 : d2) - 1, CG_MAX_DEPTH - 1);
			goto out;
		}
	}
	/* A small program is verified quickly even per prologue path: no
	 * opaque copy (a helper call per packet), five no-ops instead. */
	if (opaque_at >= 0 && out->n < CG_OPAQUE_MIN_INSNS)
		for (long i = opaque_at; i < opaque_at + 5; i++)
			out->insns[i] = BPF_MOV64_IMM(R1, 0);
	r = resolve(&c);
	if (r) {
		snprintf(err, err_len, r == -E2BIG ?
			 "a chain is too long for a 16-bit jump" :
			 "internal error: unresolved label");
		goto out;
	}
out:
	free(c.lab);
	free(c.fix);
	free(c.func_pos);
	free(c.func_queued);
	free(c.queue);
	free(c.edges_from);
	free(c.edges_to);
	free(memo);
	if (r)
		cg_prog_free(out);
	return r;
}

int codegen_dispatcher(enum cg_mech mech, enum cg_hook hook,
		       struct cg_prog *out)
{
	struct cg_opts o = { .mech = mech, .hook = hook };
	struct cg c = { .p = out, .o = &o };
	int pass = 0, input = 0, fwd = 0, tail = 0;

	memset(out, 0, sizeof(*out));
	EM(&c, BPF_MOV64_REG(R6, R1));
	if (mech == CG_TC) {
		pass = new_label(&c);
		input = new_label(&c);
		fwd = new_label(&c);
		tail = new_label(&c);
		EM(&c, BPF_LDX_MEM(BPF_W, R2, R6,
				   offsetof(struct __sk_buff, protocol)));
		jmp_imm(&c, BPF_JNE, R2, htons(0x0800), pass);
		if (hook == CG_OUTPUT) {
			/* only locally generated packets (no input device);
			 * forwarded ones were filtered at ingress */
			EM(&c, BPF_LDX_MEM(BPF_W, R2, R6,
				offsetof(struct __sk_buff, ingress_ifindex)));
			jmp_imm(&c, BPF_JNE, R2, 0, pass);
			EM(&c, BPF_MOV64_IMM(R7, CG_OUTPUT));
			jmp_a(&c, tail);
		} else {
			EM(&c, BPF_LDX_MEM(BPF_W, R2, R6,
				offsetof(struct __sk_buff, ifindex)));
			tc_ifinfo(&c, -1, true);	/* r8 = l2len */
			EM(&c, BPF_STX_MEM(BPF_W, R6, R8,
				offsetof(struct __sk_buff, cb[1])));
			tc_load_iphdr(&c, pass);
			/* struct bpf_fib_lookup at fp-128 (64 bytes) */
			for (int off = -128; off < -64; off += 8)
				EM(&c, BPF_ST_MEM(BPF_DW, FP, off, 0));
			EM(&c, BPF_ST_MEM(BPF_B, FP, -128, 2));	/* AF_INET */
			EM(&c, BPF_LDX_MEM(BPF_B, R2, FP, FP_BUF + 9));
			EM(&c, BPF_STX_MEM(BPF_B, FP, R2, -127));
			EM(&c, BPF_LDX_MEM(BPF_B, R2, FP, FP_BUF + 1));
			EM(&c, BPF_STX_MEM(BPF_B, FP, R2, -128 + 12));
			EM(&c, BPF_LDX_MEM(BPF_W, R2, FP, FP_BUF + 12));
			EM(&c, BPF_STX_MEM(BPF_W, FP, R2, -128 + 16));
			EM(&c, BPF_LDX_MEM(BPF_W, R2, FP, FP_BUF + 16));
			EM(&c, BPF_STX_MEM(BPF_W, FP, R2, -128 + 32));
			EM(&c, BPF_LDX_MEM(BPF_W, R2, R6,
				offsetof(struct __sk_buff, ingress_ifindex)));
			EM(&c, BPF_STX_MEM(BPF_W, FP, R2, -128 + 8));
			EM(&c, BPF_MOV64_REG(R1, R6));
			EM(&c, BPF_MOV64_REG(R2, FP));
			EM(&c, BPF_ALU64_IMM(BPF_ADD, R2, -128));
			EM(&c, BPF_MOV64_IMM(R3, 64));
			EM(&c, BPF_MOV64_IMM(R4, 0));
			EM(&c, BPF_CALL_HELPER(BPF_FUNC_fib_lookup));
			/* local delivery (or forwarding off): INPUT */
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_NOT_FWDED, input);
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_FWD_DISABLED, input);
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_SUCCESS, fwd);
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_NO_NEIGH, fwd);
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_UNSUPP_LWT, fwd);
			jmp_imm(&c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_FRAG_NEEDED, fwd);
			/* blackhole/unreachable/prohibit: the kernel drops it
			 * before any filter hook */
			jmp_a(&c, pass);
			place(&c, fwd);
			EM(&c, BPF_LDX_MEM(BPF_W, R2, FP, -128 + 8));
			EM(&c, BPF_STX_MEM(BPF_W, R6, R2,
				offsetof(struct __sk_buff, cb[0])));
			EM(&c, BPF_MOV64_IMM(R7, CG_FORWARD));
			jmp_a(&c, tail);
			place(&c, input);
			EM(&c, BPF_MOV64_IMM(R7, CG_INPUT));
		}
		place(&c, tail);
	} else {
		EM(&c, BPF_MOV64_IMM(R7, hook));
	}
	emit_ld_map_value(&c, R1, shared_map(out, CG_MAP_GEN, 0), 0);
	EM(&c, BPF_LDX_MEM(BPF_W, R3, R1, 0));
	EM(&c, BPF_ALU64_IMM(BPF_AND, R3, 1));
	EM(&c, BPF_ALU64_IMM(BPF_MUL, R3, CG_NHOOKS));
	EM(&c, BPF_ALU64_REG(BPF_ADD, R3, R7));
	EM(&c, BPF_MOV64_REG(R1, R6));
	emit_ld_map(&c, R2, shared_map(out, CG_MAP_PROGS, 0));
	EM(&c, BPF_CALL_HELPER(BPF_FUNC_tail_call));
	/* no program in the slot: fail closed */
	EM(&c, BPF_MOV64_IMM(R0, mech == CG_TC ? TC_ACT_SHOT : NF_DROP));
	EM(&c, BPF_EXIT_INSN());
	if (mech == CG_TC) {
		place(&c, pass);
		EM(&c, BPF_MOV64_IMM(R0, TC_ACT_UNSPEC));
		EM(&c, BPF_EXIT_INSN());
	}
	if (resolve(&c) || c.rc || out->failed) {
		free(c.lab);
		free(c.fix);
		cg_prog_free(out);
		return -ENOMEM;
	}
	free(c.lab);
	free(c.fix);
	return 0;
}

void cg_prog_free(struct cg_prog *p)
{
	unsigned int i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].elems);
	free(p->maps);
	free(p->insns);
	memset(p, 0, sizeof(*p));
}
