/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Self-tests of the netfilter context (included by selftest.c): fake
 * kernel objects at offsets of the test's choosing, kfuncs by BTF id.
 */

enum {
	SKB_LEN = 112, SKB_DATA_LEN = 116, SKB_NFCT = 120, SKB_DATA = 200,
	ST_IN = 16, ST_OUT = 24, DEV_NAME = 8, CT_STATUS = 128,
	BTF_IPHDR = 101, BTF_TCPHDR = 102, BTF_STATE = 103,
	KF_FROM_SKB = 201, KF_SLICE = 202, KF_CAST = 203,
};

static unsigned char nf_skb[256], nf_state[48], nf_dev[64], nf_ct[256];

static void nf_world(struct ip_env *e)
{
	__u32 len = 64, dlen = 24;
	__u64 p;

	world(e);
	e->ctx = IP_CTX_NF;
	memset(nf_skb, 0, sizeof(nf_skb));
	memset(nf_state, 0, sizeof(nf_state));
	memcpy(nf_skb + SKB_LEN, &len, 4);
	memcpy(nf_skb + SKB_DATA_LEN, &dlen, 4);
	p = (__u64)(unsigned long)pkt;
	memcpy(nf_skb + SKB_DATA, &p, 8);
	p = (__u64)(unsigned long)nf_ct | 2;	/* ctinfo 2 */
	memcpy(nf_skb + SKB_NFCT, &p, 8);
	p = (__u64)(unsigned long)nf_dev;
	memcpy(nf_state + ST_OUT, &p, 8);	/* in: NULL */
	memset(nf_dev, 0, sizeof(nf_dev));
	memcpy(nf_dev + DEV_NAME, "lo", 3);
	memset(nf_ct, 0, sizeof(nf_ct));
	nf_ct[CT_STATUS] = 0x30;
	e->nf_state = nf_state;
	e->nf_skb = nf_skb;
	e->kobj[0] = (struct ip_kobj){ nf_skb, sizeof(nf_skb), { 0 }, 0 };
	e->kobj[1] = (struct ip_kobj){ nf_state, sizeof(nf_state), { ST_IN, ST_OUT }, 2 };
	e->kobj[2] = (struct ip_kobj){ nf_dev, sizeof(nf_dev), { 0 }, 0 };
	e->kobj[3] = (struct ip_kobj){ nf_ct, sizeof(nf_ct), { 0 }, 0 };
	e->nkobj = 4;
	e->kf_dynptr_from_skb = KF_FROM_SKB;
	e->kf_dynptr_slice = KF_SLICE;
	e->kf_rdonly_cast = KF_CAST;
	e->btf[0] = (struct ip_btf_type){ BTF_IPHDR, 20 };
	e->btf[1] = (struct ip_btf_type){ BTF_TCPHDR, 20 };
	e->btf[2] = (struct ip_btf_type){ BTF_STATE, sizeof(nf_state) };
	e->nbtf = 3;
	e->any_ret = true;	/* the tests return what they read */
}

#define NF(name, want, err, ...) do { \
	struct ip_env e_; nf_world(&e_); \
	check(name, &e_, P(__VA_ARGS__), N(__VA_ARGS__), want, err); } while (0)

/* dynptr at fp-16 from the skb in r7, buffer fp-48 */
#define DYNPTR_INIT \
	BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_MOV64_REG(R1, R7), BPF_MOV64_IMM(R2, 0), \
	BPF_MOV64_REG(R3, FP), BPF_ALU64_IMM(BPF_ADD, R3, -16), BPF_CALL_KFUNC(KF_FROM_SKB)
#define SLICE(OFF, LEN) \
	BPF_MOV64_REG(R1, FP), BPF_ALU64_IMM(BPF_ADD, R1, -16), BPF_MOV64_IMM(R2, OFF), \
	BPF_MOV64_REG(R3, FP), BPF_ALU64_IMM(BPF_ADD, R3, -48), BPF_MOV64_IMM(R4, LEN), \
	BPF_CALL_KFUNC(KF_SLICE)

static void netfilter(void)
{
	NF("nf skb->len", 64, NULL,
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_W, R0, R7, SKB_LEN),
	   BPF_EXIT_INSN());
	NF("nf skb beyond the object", 0, "out of bounds",
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_W, R0, R7, 254),
	   BPF_EXIT_INSN());
	NF("nf ctx is read-only", 0, "read-only",
	   BPF_ST_MEM(BPF_DW, R1, 0, 0), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	NF("nf ctx other field", 0, "only state",
	   BPF_LDX_MEM(BPF_DW, R0, R1, 16), BPF_EXIT_INSN());
	NF("nf kernel objects are read-only", 0, "read-only",
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_ST_MEM(BPF_W, R7, SKB_LEN, 0),
	   BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	NF("nf state->out->name through a cast", 'l' | 'o' << 8, NULL,
	   BPF_LDX_MEM(BPF_DW, R1, R1, 0), BPF_MOV64_IMM(R2, BTF_STATE),
	   BPF_CALL_KFUNC(KF_CAST), BPF_LDX_MEM(BPF_DW, R3, R0, ST_OUT),
	   BPF_LDX_MEM(BPF_DW, R0, R3, DEV_NAME), BPF_EXIT_INSN());
	NF("nf state->in NULL: probe load reads 0", 0, NULL,
	   BPF_LDX_MEM(BPF_DW, R1, R1, 0), BPF_LDX_MEM(BPF_DW, R3, R1, ST_IN),
	   BPF_LDX_MEM(BPF_DW, R0, R3, DEV_NAME), BPF_EXIT_INSN());
	NF("nf skb->data needs a cast", 0, "wild access",
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_DW, R1, R7, SKB_DATA),
	   BPF_LDX_MEM(BPF_B, R0, R1, 9), BPF_EXIT_INSN());
	NF("nf rdonly_cast of skb->data", 9, NULL,
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_DW, R1, R7, SKB_DATA),
	   BPF_MOV64_IMM(R2, BTF_IPHDR), BPF_CALL_KFUNC(KF_CAST),
	   BPF_LDX_MEM(BPF_B, R0, R0, 9), BPF_EXIT_INSN());
	NF("nf rdonly_cast view is the type's size", 0, "out of bounds",
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_DW, R1, R7, SKB_DATA),
	   BPF_MOV64_IMM(R2, BTF_IPHDR), BPF_CALL_KFUNC(KF_CAST),
	   BPF_LDX_MEM(BPF_B, R0, R0, 20), BPF_EXIT_INSN());
	NF("nf rdonly_cast past the linear data", 0, "out of bounds",
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_DW, R1, R7, SKB_DATA),
	   BPF_ALU64_IMM(BPF_ADD, R1, 30),
	   BPF_MOV64_IMM(R2, BTF_TCPHDR), BPF_CALL_KFUNC(KF_CAST),
	   BPF_LDX_MEM(BPF_W, R0, R0, 12), BPF_EXIT_INSN());
	NF("nf rdonly_cast unknown BTF id", 0, "unknown BTF id",
	   BPF_MOV64_IMM(R1, 0), BPF_MOV64_IMM(R2, 5), BPF_CALL_KFUNC(KF_CAST),
	   BPF_EXIT_INSN());
	NF("nf unknown kfunc", 0, "unknown kfunc",
	   BPF_CALL_KFUNC(999), BPF_EXIT_INSN());
	NF("nf dynptr slice in the linear data", 0x13121110, NULL,
	   DYNPTR_INIT, BPF_JMP_IMM(BPF_JNE, R0, 0, 4), SLICE(16, 8),
	   BPF_JMP_IMM(BPF_JEQ, R0, 0, 1), BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	NF("nf dynptr slice copied from the rest", 0x2f2e2d2c, NULL,
	   DYNPTR_INIT, SLICE(44, 8), BPF_JMP_IMM(BPF_JEQ, R0, 0, 1),
	   BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	NF("nf dynptr slice past the end is NULL", 0, NULL,
	   DYNPTR_INIT, SLICE(60, 8), BPF_EXIT_INSN());
	NF("nf dynptr slice bounded by its size", 0, "out of bounds",
	   DYNPTR_INIT, SLICE(0, 8), BPF_JMP_IMM(BPF_JEQ, R0, 0, 1),
	   BPF_LDX_MEM(BPF_W, R0, R0, 6), BPF_EXIT_INSN());
	NF("nf dynptr slice is read-only", 0, "read-only",
	   DYNPTR_INIT, SLICE(0, 8), BPF_JMP_IMM(BPF_JEQ, R0, 0, 1),
	   BPF_ST_MEM(BPF_W, R0, 0, 0), BPF_EXIT_INSN());
	NF("nf dynptr slice used without a NULL test", 0, "not tested against NULL",
	   DYNPTR_INIT, SLICE(0, 8), BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	{
		struct ip_env e;

		nf_world(&e);
		e.any_ret = false;
		RUN_ENV("nf return value out of range", &e, 0, "NF_DROP or NF_ACCEPT",
			BPF_MOV64_IMM(R0, 2), BPF_EXIT_INSN());
		nf_world(&e);
		e.any_ret = false;
		RUN_ENV("nf return value NF_ACCEPT", &e, NF_ACCEPT, NULL,
			BPF_MOV64_IMM(R0, NF_ACCEPT), BPF_EXIT_INSN());
	}
	NF("nf dynptr bytes are not plain stack", 0, "dynptr",
	   DYNPTR_INIT, BPF_LDX_MEM(BPF_DW, R0, FP, -16), BPF_EXIT_INSN());
	NF("nf slice of no dynptr", 0, "not an initialized dynptr",
	   BPF_ST_MEM(BPF_DW, FP, -16, 0), BPF_ST_MEM(BPF_DW, FP, -8, 0), SLICE(0, 8),
	   BPF_EXIT_INSN());
	NF("nf conntrack status via probe_read_kernel", 0x30, NULL,
	   BPF_LDX_MEM(BPF_DW, R7, R1, 8), BPF_LDX_MEM(BPF_DW, R3, R7, SKB_NFCT),
	   BPF_ALU64_IMM(BPF_AND, R3, -8), BPF_ALU64_IMM(BPF_ADD, R3, CT_STATUS),
	   BPF_MOV64_REG(R1, FP), BPF_ALU64_IMM(BPF_ADD, R1, -8), BPF_MOV64_IMM(R2, 8),
	   BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel), BPF_LDX_MEM(BPF_DW, R0, FP, -8),
	   BPF_EXIT_INSN());
	NF("nf probe_read_kernel of nowhere", 0, "no known object",
	   BPF_MOV64_REG(R1, FP), BPF_ALU64_IMM(BPF_ADD, R1, -8), BPF_MOV64_IMM(R2, 8),
	   BPF_MOV64_IMM(R3, 64), BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel),
	   BPF_EXIT_INSN());
	NF("nf skb_load_bytes is tc only", 0, "skb ctx",
	   BPF_MOV64_IMM(R2, 0), BPF_MOV64_REG(R3, FP), BPF_ALU64_IMM(BPF_ADD, R3, -8),
	   BPF_MOV64_IMM(R4, 4), BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes), BPF_EXIT_INSN());
}
