// SPDX-License-Identifier: GPL-2.0
/*
 * Set-like runs: >= CG_SET_MIN consecutive rules that differ only in the
 * source or destination address (same mask) or in a single exact tcp/udp
 * port, with the same verdict, compiled as the first rule's code without
 * that field plus one hash-map lookup of it, whose value is the rule's
 * index (its counter).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "cgen/emit.h"

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

/* Is the address under @xmask (@ymask in the other rule) usable as a key:
 * the same, non-zero mask, no inversion?  Then @xa takes the other's
 * value, so that the rest of the rules compares equal. */
static bool addr_keyable(struct in_addr *xa, struct in_addr ya, __u32 xmask,
			 __u32 ymask, bool inv)
{
	if (xmask != ymask || !xmask || inv)
		return false;
	*xa = ya;
	return true;
}

/* The same for a port range: both exact ports, no inversion. */
static bool port_keyable(uint16_t xp[2], const uint16_t yp[2], bool inv)
{
	if (xp[0] != xp[1] || yp[0] != yp[1] || inv)
		return false;
	xp[0] = xp[1] = yp[0];
	return true;
}

/* Do @a and @b differ only in field @f (and is @f usable as a key)? */
static bool same_but(const struct ir_rule *a, const struct ir_rule *b,
		     enum cg_set_field f)
{
	struct ipt_ip x = a->ip, y = b->ip;
	const struct ir_match *ma, *mb;
	struct ir_match mx, my;

	/* a kernel rule's matches are not all in ->m */
	if (a->kernel || b->kernel ||
	    a->verdict != b->verdict || a->nmatch != b->nmatch ||
	    ((a->verdict == IRV_JUMP || a->verdict == IRV_GOTO) &&
	     a->target != b->target) || b->func_start)
		return false;
	switch (f) {
	case SF_SRC:
		if (!addr_keyable(&x.src, y.src, x.smsk.s_addr, y.smsk.s_addr,
				  x.invflags & IPT_INV_SRCIP))
			return false;
		break;
	case SF_DST:
		if (!addr_keyable(&x.dst, y.dst, x.dmsk.s_addr, y.dmsk.s_addr,
				  x.invflags & IPT_INV_DSTIP))
			return false;
		break;
	case SF_SPORT:
	case SF_DPORT:
		ma = single_l4(a);
		mb = single_l4(b);
		if (!ma || !mb)
			return false;
		mx = *ma;
		my = *mb;
		if (f == SF_SPORT ?
		    !port_keyable(mx.tu.spts, my.tu.spts,
				  mx.tu.invflags & XT_TCP_INV_SRCPT) :
		    !port_keyable(mx.tu.dpts, my.tu.dpts,
				  mx.tu.invflags & XT_TCP_INV_DSTPT))
			return false;
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

static __u32 set_key(const struct ir_rule *r, enum cg_set_field f)
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
unsigned int cg_set_run(const struct ir_table *ir, unsigned int i,
			enum cg_set_field *fp)
{
	static const enum cg_set_field fields[] = { SF_SRC, SF_DST, SF_DPORT,
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

void emit_set_run(struct cg *c, unsigned int func, unsigned int i,
		  unsigned int len, enum cg_set_field f)
{
	const struct ir_rule *r = &c->ir->rules[i];
	struct cg_map set = { .name = "ebpf_set", .type = BPF_MAP_TYPE_HASH,
			      .key_size = sizeof(__u32),
			      .value_size = sizeof(__u32), .max_entries = len,
			      .source = CG_MAP_OWN };
	unsigned int j;
	int map, next = cg_label(c);
	int slot = 0;
	__u32 mask = 0;
	/* ip_tables tests the addresses before any match: over an address,
	 * a match's hotdrop counts only if the lookup hits */
	bool hd_after = (f == SF_SRC || f == SF_DST) && rule_has_hotdrop(r);

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

	if (hd_after) {
		int lookup = cg_label(c);

		EM(c, BPF_MOV64_IMM(R7, 0));
		EM(c, BPF_MOV64_IMM(R8, 0));
		emit_conditions(c, r, f);
		cg_jmp_imm(c, BPF_JNE, R8, 0, lookup);
		cg_jmp_imm(c, BPF_JNE, R7, 0, next);
		cg_place(c, lookup);
	} else {
		emit_rule_test(c, r, f, next);
	}
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
	EM(c, BPF_STX_MEM(BPF_W, R6, R2, PI_KEY));
	emit_ld_map(c, R1, map);
	EM(c, BPF_MOV64_REG(R2, R6));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, PI_KEY));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	cg_jmp_imm(c, BPF_JEQ, R0, 0, next);
	if (hd_after) {	/* r8 survives the call; uncounted, as a hotdrop */
		EM(c, BPF_JMP_IMM(BPF_JEQ, R8, 0, 2));
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		cg_return(c);
	}
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, 0));
	emit_count_reg(c);
	emit_verdict(c, func, r);
	cg_place(c, next);
}
