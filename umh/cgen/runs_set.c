// SPDX-License-Identifier: GPL-2.0
/*
 * Set-like runs: >= CG_SET_MIN consecutive rules that differ only in the
 * source or destination address (same mask) or in a single exact tcp/udp
 * port, with the same verdict, compiled as the first rule's code without
 * that field plus one hash-map lookup of it, whose value is the rule's
 * index (its counter).  IPv6: the address key is the 16 bytes of the
 * address under the run's mask (ipv6_masked_addr_cmp() ignores the bits
 * outside it, so two rules whose addresses differ only there have one
 * key, and the first wins), looked up from pi's key slot.
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
 * the same, non-zero mask, no inversion, no address bits outside it (such
 * a rule never matches: ip_packet_match() compares the packet's address
 * masked with the rule's as it is)?  Then @xa takes the other's value, so
 * that the rest of the rules compares equal. */
static bool addr_keyable(struct in_addr *xa, struct in_addr ya, __u32 xmask,
			 __u32 ymask, bool inv)
{
	if (xmask != ymask || !xmask || inv ||
	    (xa->s_addr & ~xmask) || (ya.s_addr & ~ymask))
		return false;
	*xa = ya;
	return true;
}

/* The same for an IPv6 address (ir_ip6), masks compared whole. */
static bool addr6_keyable(uint8_t *xa, const uint8_t *ya, const uint8_t *xmask,
			  const uint8_t *ymask, bool inv)
{
	static const uint8_t zero[16];

	if (memcmp(xmask, ymask, 16) || !memcmp(xmask, zero, 16) || inv)
		return false;
	memcpy(xa, ya, 16);
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
	/* IPv6: the addresses, the rest of the IP part in x and y */
	struct ir_ip6 x6 = a->ip6 ? *a->ip6 : (struct ir_ip6){ 0 };
	struct ir_ip6 y6 = b->ip6 ? *b->ip6 : (struct ir_ip6){ 0 };
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
		if (a->ip6 ? !addr6_keyable(x6.src, y6.src, x6.smsk, y6.smsk,
					    x.invflags & IPT_INV_SRCIP) :
		    !addr_keyable(&x.src, y.src, x.smsk.s_addr, y.smsk.s_addr,
				  x.invflags & IPT_INV_SRCIP))
			return false;
		break;
	case SF_DST:
		if (a->ip6 ? !addr6_keyable(x6.dst, y6.dst, x6.dmsk, y6.dmsk,
					    x.invflags & IPT_INV_DSTIP) :
		    !addr_keyable(&x.dst, y.dst, x.dmsk.s_addr, y.dmsk.s_addr,
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
	if (memcmp(&x, &y, sizeof(x)) || memcmp(&x6, &y6, sizeof(x6)))
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

/* @r's IPv6 address under its mask, the key of an SF_SRC/SF_DST run */
static void set_key6(const struct ir_rule *r, enum cg_set_field f, uint8_t *key)
{
	const uint8_t *a = f == SF_SRC ? r->ip6->src : r->ip6->dst;
	const uint8_t *m = f == SF_SRC ? r->ip6->smsk : r->ip6->dmsk;
	unsigned int i;

	for (i = 0; i < 16; i++)
		key[i] = a[i] & m[i];
}

/* r1 = the map, r2 = the key: @f of the packet (an IPv4 address under
 * @r's mask, or a port) on the function's stack */
static void emit_key4(struct cg *c, const struct ir_rule *r,
		      enum cg_set_field f, int map)
{
	int slot;
	__u32 mask = 0;

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
}

/* The same for IPv6: the packet's address under @r's mask, 16 bytes, in
 * pi's key slot as IPv4's 4 (abi.h) */
static void emit_key6(struct cg *c, const struct ir_rule *r,
		      enum cg_set_field f, int map)
{
	const uint8_t *mask = f == SF_SRC ? r->ip6->smsk : r->ip6->dmsk;
	int slot = f == SF_SRC ? PI6_SADDR : PI6_DADDR;
	uint64_t m;
	int w;

	for (w = 0; w < 2; w++) {
		memcpy(&m, mask + 8 * w, sizeof(m));
		if (m) {
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot + 8 * w));
			if (m != ~0ULL) {
				emit_ld64(c, R3, m);
				EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
			}
		} else {
			EM(c, BPF_MOV64_IMM(R2, 0));
		}
		EM(c, BPF_STX_MEM(BPF_DW, R6, R2, PI_KEY + 8 * w));
	}
	emit_ld_map(c, R1, map);
	EM(c, BPF_MOV64_REG(R2, R6));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, PI_KEY));
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
	/* ip_tables tests the addresses before any match: over an address,
	 * a match's hotdrop counts only if the lookup hits */
	bool hd_after = (f == SF_SRC || f == SF_DST) && rule_has_hotdrop(r);
	/* an IPv6 address: a 16-byte key, built in pi (abi.h, PI_KEY) */
	bool key6 = r->ip6 && (f == SF_SRC || f == SF_DST);
	size_t rec;

	if (key6)
		set.key_size = 16;
	rec = set.key_size + set.value_size;
	set.elems = malloc((size_t)len * rec);
	if (!set.elems) {
		cg_fail(c, -ENOMEM, "out of memory");
		return;
	}
	/* in reverse so the first rule (lowest index) wins duplicates */
	for (j = len; j-- > 0;) {
		unsigned char *e = set.elems + (size_t)set.nelems++ * rec;
		__u32 key, idx = i + j;

		if (key6) {
			set_key6(&c->ir->rules[i + j], f, e);
		} else {
			key = set_key(&c->ir->rules[i + j], f);
			memcpy(e, &key, sizeof(key));
		}
		memcpy(e + set.key_size, &idx, sizeof(idx));
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
	if (key6)
		emit_key6(c, r, f, map);
	else
		emit_key4(c, r, f, map);
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
