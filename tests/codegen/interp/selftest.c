// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of the interpreter: hand-assembled programs for each
 * instruction class, calls, helpers, kfuncs, and the failures it must
 * report (the checks that stand in for the verifier).  Ends with
 * "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "cgen/bpf_insn.h"
#include "interp.h"

static int passed, failed;

#define P(...) ((const struct bpf_insn[]){ __VA_ARGS__ })
#define N(...) (sizeof((const struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn))
#define MAP_IDX_VALUE(DST, IDX, OFF) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_IDX_VALUE, \
	(__u32)(IDX) | ((__u64)(OFF) << 32))
#define MAP_IDX(DST, IDX) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_IDX, IDX)
#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define FP BPF_REG_10

/* the world most tests run in: a tc skb with a 64-byte packet, 40 linear,
 * maps 0 (array[2] of 16 bytes), 1 (hash u32 -> u32), 2 (read-only
 * array), 3 (prog array) */
static unsigned char pkt[64];
static struct ip_map maps[4];
static struct ip_map *mapp[4] = { &maps[0], &maps[1], &maps[2], &maps[3] };

static void world(struct ip_env *e)
{
	__u32 k = 7, v = 77;

	for (int i = 0; i < 4; i++)
		ip_map_free(&maps[i]);
	ip_map_init(&maps[0], BPF_MAP_TYPE_ARRAY, 4, 16, 2, 0);
	ip_map_init(&maps[1], BPF_MAP_TYPE_HASH, 4, 4, 8, 0);
	ip_map_init(&maps[2], BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_RDONLY_PROG);
	ip_map_init(&maps[3], BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0);
	ip_map_update(&maps[1], &k, &v);
	for (int i = 0; i < 64; i++)
		pkt[i] = (unsigned char)i;
	memset(e, 0, sizeof(*e));
	e->ctx = IP_CTX_TC;
	e->pkt = pkt;
	e->pkt_len = 64;
	e->headlen = 40;
	e->skb.protocol = 0x0008;
	e->skb.ifindex = 3;
	e->skb.cb[1] = 14;
	e->budget = 10000;
}

/* run and check: @err NULL = must succeed with @want, else the error must
 * contain @err */
static void check(const char *name, struct ip_env *e, const struct bpf_insn *in,
		  size_t n, __u64 want, const char *err)
{
	struct ip_prog p = { name, in, n, mapp, 4 };
	__u64 r = 0;
	int rc = ip_run(e, &p, &r);
	bool ok = err ? rc < 0 && strstr(e->err, err) : rc == 0 && r == want;

	if (ok)
		passed++;
	else
		failed++;
	printf("%s %s", ok ? "PASS" : "FAIL", name);
	if (!ok)
		printf(": rc %d ret %#llx (want %#llx) err \"%s\" (want \"%s\")", rc,
		       (unsigned long long)r, (unsigned long long)want, e->err,
		       err ? err : "");
	printf("\n");
}

#define RUN(name, want, err, ...) do { \
	struct ip_env e_; world(&e_); \
	check(name, &e_, P(__VA_ARGS__), N(__VA_ARGS__), want, err); } while (0)
#define RUN_ENV(name, env, want, err, ...) \
	check(name, env, P(__VA_ARGS__), N(__VA_ARGS__), want, err)

static void alu(void)
{
	RUN("alu64 arithmetic", 0x1dULL, NULL,
	    BPF_MOV64_IMM(R0, 7), BPF_ALU64_IMM(BPF_MUL, R0, 6),	/* 42 */
	    BPF_ALU64_IMM(BPF_SUB, R0, 2), BPF_ALU64_IMM(BPF_DIV, R0, 3),	/* 13 */
	    BPF_MOV64_IMM(R1, 16), BPF_ALU64_REG(BPF_OR, R0, R1),	/* 29 */
	    BPF_ALU64_IMM(BPF_MOD, R0, 32), BPF_EXIT_INSN());
	RUN("alu64 shifts, neg, xor, and", 0xffffffffffffff00ULL, NULL,
	    BPF_MOV64_IMM(R0, 1), BPF_ALU64_IMM(BPF_LSH, R0, 63),
	    BPF_ALU64_IMM(BPF_ARSH, R0, 55),	/* 0xffffffffffffff00 */
	    BPF_MOV64_IMM(R1, 5), BPF_NEG64(R1), BPF_ALU64_IMM(BPF_XOR, R1, -1),	/* 4 */
	    BPF_ALU64_IMM(BPF_RSH, R1, 2), BPF_ALU64_IMM(BPF_AND, R1, 1),	/* 1 */
	    BPF_ALU64_IMM(BPF_SUB, R1, 1), BPF_ALU64_REG(BPF_OR, R0, R1), BPF_EXIT_INSN());
	RUN("alu32 wraps and zero-extends", 0x2ULL, NULL,
	    BPF_MOV64_IMM(R0, -1), BPF_ALU32_IMM(BPF_ADD, R0, 3), BPF_EXIT_INSN());
	RUN("alu32 shifts and arsh", 0xfffffff0ULL + 0x10, NULL,
	    BPF_MOV64_IMM(R0, -256), BPF_ALU32_IMM(BPF_ARSH, R0, 4),	/* 0xfffffff0 */
	    BPF_MOV64_IMM(R1, 1), BPF_ALU32_IMM(BPF_LSH, R1, 4),
	    BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_EXIT_INSN());
	RUN("mov32 zero-extends", 0xffffffffULL, NULL,
	    BPF_MOV64_IMM(R1, -1), BPF_MOV32_REG(R0, R1), BPF_EXIT_INSN());
	RUN("byte swaps", 0x7856ULL + 0x78563412ULL, NULL,
	    BPF_MOV64_IMM(R0, 0x12345678), BPF_MOV64_REG(R1, R0),
	    BPF_ENDIAN_BE(R0, 16), BPF_ENDIAN_BE(R1, 32),
	    BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_EXIT_INSN());
	RUN("ld_imm64", 0x123456789abcdef0ULL, NULL,
	    BPF_LD_IMM64_RAW(R0, 0, 0x123456789abcdef0ULL), BPF_EXIT_INSN());
	RUN("division by zero", 0, "division by zero",
	    BPF_MOV64_IMM(R0, 1), BPF_MOV64_IMM(R1, 0),
	    BPF_ALU64_REG(BPF_DIV, R0, R1), BPF_EXIT_INSN());
	RUN("modulo by zero", 0, "division by zero",
	    BPF_MOV64_IMM(R0, 1), BPF_ALU32_IMM(BPF_MOD, R0, 0), BPF_EXIT_INSN());
	RUN("uninitialized register", 0, "r3 read before",
	    BPF_MOV64_IMM(R0, 1), BPF_ALU64_REG(BPF_ADD, R0, R3), BPF_EXIT_INSN());
	RUN("uninitialized r0 at exit", 0, "r0 unset", BPF_EXIT_INSN());
	RUN("shift too far", 0, "shift by 64",
	    BPF_MOV64_IMM(R0, 1), BPF_MOV64_IMM(R1, 64),
	    BPF_ALU64_REG(BPF_LSH, R0, R1), BPF_EXIT_INSN());
	RUN("unknown opcode", 0, "unknown opcode",
	    BPF_MOV64_IMM(R0, 1), ((struct bpf_insn){ .code = 0x06 }), BPF_EXIT_INSN());
	RUN("pointer arithmetic", 0, "prohibited pointer arithmetic",
	    BPF_MOV64_REG(R0, FP), BPF_ALU64_IMM(BPF_AND, R0, 7), BPF_EXIT_INSN());
}

static void jumps(void)
{
	/* r0 counts the taken branches: 11 conditions, each taken once */
	RUN("conditional jumps", 11, NULL,
	    BPF_MOV64_IMM(R0, 0), BPF_MOV64_IMM(R1, 5), BPF_MOV64_IMM(R2, -3),
	    BPF_JMP_IMM(BPF_JEQ, R1, 5, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JNE, R1, 4, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JGT, R2, 5, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JGE, R1, 5, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JLT, R1, 6, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JLE, R1, 5, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JSGT, R1, -3, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JSGE, R2, -3, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JSLT, R2, 0, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_REG(BPF_JSLE, R2, R1, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_IMM(BPF_JSET, R1, 4, 1), BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, R0, 1),
	    BPF_JMP_A(1), BPF_MOV64_IMM(R0, 99), BPF_EXIT_INSN());
	RUN("jmp32 compares the low words", 1, NULL,
	    BPF_LD_IMM64_RAW(R1, 0, 0x100000005ULL), BPF_MOV64_IMM(R0, 0),
	    ((struct bpf_insn){ .code = BPF_JMP32 | BPF_JEQ | BPF_K, .dst_reg = R1,
				.imm = 5, .off = 1 }),
	    BPF_EXIT_INSN(), BPF_MOV64_IMM(R0, 1), BPF_EXIT_INSN());
	RUN("jmp32 register compare, signed", 1, NULL,
	    BPF_LD_IMM64_RAW(R1, 0, 0x1ffffffffULL), BPF_MOV64_IMM(R2, 0), BPF_MOV64_IMM(R0, 0),
	    ((struct bpf_insn){ .code = BPF_JMP32 | BPF_JSLT | BPF_X, .dst_reg = R1,
				.src_reg = R2, .off = 1 }),
	    BPF_EXIT_INSN(), BPF_MOV64_IMM(R0, 1), BPF_EXIT_INSN());
	RUN("infinite loop hits the budget", 0, "budget",
	    BPF_MOV64_IMM(R0, 0), BPF_JMP_A(-1), BPF_EXIT_INSN());
	RUN("jump out of the program", 0, "jump out",
	    BPF_MOV64_IMM(R0, 0), BPF_JMP_A(5), BPF_EXIT_INSN());
	RUN("fall off the end", 0, "fell off", BPF_MOV64_IMM(R0, 0));
	RUN("jump into ld_imm64", 0, "middle of an LD_IMM64",
	    BPF_JMP_A(1), BPF_LD_IMM64_RAW(R0, 0, 1), BPF_EXIT_INSN());
}

static void memory(void)
{
	RUN("stack stores and loads of every size", 0x11223344ULL + 0x5566 + 0x77 + 9, NULL,
	    BPF_ST_MEM(BPF_DW, FP, -8, 9), BPF_ST_MEM(BPF_W, FP, -16, 0x11223344),
	    BPF_MOV64_IMM(R1, 0x5566), BPF_STX_MEM(BPF_H, FP, R1, -18),
	    BPF_MOV64_IMM(R1, 0x77), BPF_STX_MEM(BPF_B, FP, R1, -19),
	    BPF_LDX_MEM(BPF_DW, R0, FP, -8), BPF_LDX_MEM(BPF_W, R1, FP, -16),
	    BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_LDX_MEM(BPF_H, R1, FP, -18),
	    BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_LDX_MEM(BPF_B, R1, FP, -19),
	    BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_EXIT_INSN());
	RUN("pointer spill and fill", 5, NULL,
	    BPF_ST_MEM(BPF_DW, FP, -16, 5), BPF_MOV64_REG(R1, FP),
	    BPF_ALU64_IMM(BPF_ADD, R1, -16), BPF_STX_MEM(BPF_DW, FP, R1, -8),
	    BPF_LDX_MEM(BPF_DW, R2, FP, -8), BPF_LDX_MEM(BPF_DW, R0, R2, 0), BPF_EXIT_INSN());
	RUN("uninitialized stack read", 0, "uninitialized stack fp-16",
	    BPF_LDX_MEM(BPF_DW, R0, FP, -16), BPF_EXIT_INSN());
	RUN("stack out of bounds", 0, "out of bounds",
	    BPF_ST_MEM(BPF_DW, FP, -520, 1), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("stack above fp", 0, "out of bounds",
	    BPF_ST_MEM(BPF_W, FP, 0, 1), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("misaligned stack access", 0, "misaligned",
	    BPF_ST_MEM(BPF_W, FP, -6, 1), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("wild access through a scalar", 0, "wild access",
	    BPF_MOV64_IMM(R1, 4096), BPF_LDX_MEM(BPF_W, R0, R1, 0), BPF_EXIT_INSN());
	RUN("atomic add to a map value (counters)", 3, NULL,
	    MAP_IDX_VALUE(R1, 0, 0), BPF_MOV64_IMM(R2, 1),
	    BPF_ATOMIC_ADD64(R1, R2, 0), BPF_ATOMIC_ADD64(R1, R2, 0),
	    BPF_MOV64_IMM(R2, 1), BPF_ATOMIC_ADD64(R1, R2, 8),
	    BPF_LDX_MEM(BPF_DW, R0, R1, 0), BPF_LDX_MEM(BPF_DW, R2, R1, 8),
	    BPF_ALU64_REG(BPF_ADD, R0, R2), BPF_EXIT_INSN());
	RUN("map value out of bounds", 0, "out of bounds",
	    MAP_IDX_VALUE(R1, 0, 8), BPF_LDX_MEM(BPF_DW, R0, R1, 8), BPF_EXIT_INSN());
	RUN("direct value offset past the value", 0, "beyond the value",
	    MAP_IDX_VALUE(R1, 0, 16), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("write to a read-only map", 0, "read-only",
	    MAP_IDX_VALUE(R1, 2, 0), BPF_ST_MEM(BPF_DW, R1, 0, 1),
	    BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("pointer stored in a map", 0, "pointer outside the stack",
	    MAP_IDX_VALUE(R1, 0, 0), BPF_STX_MEM(BPF_DW, R1, FP, 0),
	    BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	{
		struct ip_env e;
		struct ip_map pc, *fds[4] = { NULL, NULL, NULL, NULL };
		__u32 k = 0;
		__u64 v = 41;

		world(&e);
		ip_map_init(&pc, BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1, 0);
		ip_map_update(&pc, &k, &v);
		fds[3] = &pc;
		e.fd_maps = fds;
		e.nfd = 4;
		RUN_ENV("map by fd, per-CPU array lookup", &e, 42, NULL,
			BPF_ST_MEM(BPF_W, FP, -4, 0), BPF_LD_MAP_FD(R1, 3), BPF_MOV64_REG(R2, FP),
			BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JNE, R0, 0, 1), BPF_EXIT_INSN(),
			BPF_LDX_MEM(BPF_DW, R0, R0, 0), BPF_ALU64_IMM(BPF_ADD, R0, 1), BPF_EXIT_INSN());
		RUN_ENV("unknown map fd", &e, 0, "unknown map fd 2",
			BPF_LD_MAP_FD(R1, 2), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
		ip_map_free(&pc);
	}
	RUN("bad map index", 0, "map index 9",
	    MAP_IDX(R1, 9), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
}

static void helpers(void)
{
	RUN("hash lookup hit", 77, NULL,
	    BPF_ST_MEM(BPF_W, FP, -4, 7), MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_JMP_IMM(BPF_JEQ, R0, 0, 1), BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	RUN("hash lookup miss then NULL dereference", 0, "wild access",
	    BPF_ST_MEM(BPF_W, FP, -4, 8), MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	RUN("lookup result used without a NULL test", 0, "not tested against NULL",
	    BPF_ST_MEM(BPF_W, FP, -4, 7), MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_LDX_MEM(BPF_W, R0, R0, 0), BPF_EXIT_INSN());
	RUN("a NULL test covers the copies", 77, NULL,
	    BPF_ST_MEM(BPF_W, FP, -4, 7), MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_MOV64_REG(R6, R0), BPF_JMP_IMM(BPF_JNE, R0, 0, 1), BPF_EXIT_INSN(),
	    BPF_LDX_MEM(BPF_W, R0, R6, 0), BPF_EXIT_INSN());
	RUN("lookup with an uninitialized key", 0, "uninitialized stack",
	    MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP), BPF_ALU64_IMM(BPF_ADD, R2, -4),
	    BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem), BPF_EXIT_INSN());
	RUN("args are clobbered by a call", 0, "r2 read before",
	    BPF_ST_MEM(BPF_W, FP, -4, 7), MAP_IDX(R1, 1), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_MOV64_REG(R0, R2), BPF_EXIT_INSN());
	RUN("array lookup out of range", 0, NULL,
	    BPF_ST_MEM(BPF_W, FP, -4, 2), MAP_IDX(R1, 0), BPF_MOV64_REG(R2, FP),
	    BPF_ALU64_IMM(BPF_ADD, R2, -4), BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    BPF_EXIT_INSN());
	RUN("unknown helper", 0, "unknown helper 7",
	    BPF_CALL_HELPER(7), BPF_EXIT_INSN());
	RUN("skb_load_bytes past the linear data", 0x2b2a2928ULL, NULL,
	    BPF_MOV64_IMM(R2, 40), BPF_MOV64_REG(R3, FP), BPF_ALU64_IMM(BPF_ADD, R3, -8),
	    BPF_MOV64_IMM(R4, 4), BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes),
	    BPF_JMP_IMM(BPF_JNE, R0, 0, 1), BPF_LDX_MEM(BPF_W, R0, FP, -8), BPF_EXIT_INSN());
	RUN("skb_load_bytes past the end fails, zeroes", 0, NULL,
	    BPF_MOV64_REG(R6, R1), BPF_MOV64_IMM(R2, 62), BPF_MOV64_REG(R3, FP),
	    BPF_ALU64_IMM(BPF_ADD, R3, -8), BPF_MOV64_IMM(R4, 4),
	    BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes), BPF_JMP_IMM(BPF_JEQ, R0, 0, 1),
	    BPF_LDX_MEM(BPF_W, R0, FP, -8), BPF_EXIT_INSN());
	RUN("skb_load_bytes needs the ctx", 0, "not the ctx",
	    BPF_MOV64_REG(R1, FP), BPF_MOV64_IMM(R2, 0), BPF_MOV64_REG(R3, FP),
	    BPF_ALU64_IMM(BPF_ADD, R3, -8), BPF_MOV64_IMM(R4, 4),
	    BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes), BPF_EXIT_INSN());
	RUN("probe_read_kernel copies init state", 0, "uninitialized stack fp-12",
	    BPF_ST_MEM(BPF_W, FP, -16, 1), BPF_MOV64_REG(R1, FP),
	    BPF_ALU64_IMM(BPF_ADD, R1, -16), BPF_MOV64_IMM(R2, 8), BPF_MOV64_REG(R3, R1),
	    BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel),
	    BPF_LDX_MEM(BPF_W, R0, FP, -16), BPF_LDX_MEM(BPF_W, R0, FP, -12), BPF_EXIT_INSN());
}

static void ctx_tc(void)
{
	RUN("tc ctx fields", 0x0008 + 3 + 14 + 64, NULL,
	    BPF_LDX_MEM(BPF_W, R0, R1, offsetof(struct __sk_buff, protocol)),
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, ifindex)),
	    BPF_ALU64_REG(BPF_ADD, R0, R2),
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, cb[1])),
	    BPF_ALU64_REG(BPF_ADD, R0, R2),
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, len)),
	    BPF_ALU64_REG(BPF_ADD, R0, R2), BPF_EXIT_INSN());
	RUN("tc cb write then read", 42, NULL,
	    BPF_MOV64_IMM(R2, 42), BPF_STX_MEM(BPF_W, R1, R2, offsetof(struct __sk_buff, cb[0])),
	    BPF_LDX_MEM(BPF_W, R0, R1, offsetof(struct __sk_buff, cb[0])), BPF_EXIT_INSN());
	RUN("tc ctx write to len", 0, "not writable",
	    BPF_ST_MEM(BPF_W, R1, offsetof(struct __sk_buff, len), 1),
	    BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("tc unemulated ctx field", 0, "not emulated",
	    BPF_LDX_MEM(BPF_W, R0, R1, offsetof(struct __sk_buff, tstamp)), BPF_EXIT_INSN());
	RUN("direct packet access in bounds", 0x27262524ULL, NULL,
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, data)),
	    BPF_LDX_MEM(BPF_W, R3, R1, offsetof(struct __sk_buff, data_end)),
	    BPF_MOV64_REG(R4, R2), BPF_ALU64_IMM(BPF_ADD, R4, 40),
	    BPF_MOV64_IMM(R0, 0), BPF_JMP_REG(BPF_JGT, R4, R3, 1),
	    BPF_LDX_MEM(BPF_W, R0, R2, 36), BPF_EXIT_INSN());
	RUN("direct packet access past data_end", 0, "out of bounds",
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, data)),
	    BPF_LDX_MEM(BPF_W, R3, R1, offsetof(struct __sk_buff, data_end)),
	    BPF_MOV64_REG(R4, R2), BPF_ALU64_IMM(BPF_ADD, R4, 40),
	    BPF_MOV64_IMM(R0, 0), BPF_JMP_REG(BPF_JGT, R4, R3, 1),
	    BPF_LDX_MEM(BPF_W, R0, R2, 38), BPF_EXIT_INSN());
	RUN("direct packet access without a data_end test", 0, "only 0 proven",
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, data)),
	    BPF_LDX_MEM(BPF_W, R0, R2, 0), BPF_EXIT_INSN());
	RUN("direct packet access past the tested bound", 0, "only 20 proven",
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, data)),
	    BPF_LDX_MEM(BPF_W, R3, R1, offsetof(struct __sk_buff, data_end)),
	    BPF_MOV64_REG(R4, R2), BPF_ALU64_IMM(BPF_ADD, R4, 20),
	    BPF_MOV64_IMM(R0, 0), BPF_JMP_REG(BPF_JLT, R3, R4, 1),
	    BPF_LDX_MEM(BPF_W, R0, R2, 20), BPF_EXIT_INSN());
	RUN("data_end is not dereferenceable", 0, "data_end pointer",
	    BPF_LDX_MEM(BPF_W, R2, R1, offsetof(struct __sk_buff, data_end)),
	    BPF_LDX_MEM(BPF_B, R0, R2, -1), BPF_EXIT_INSN());
	RUN("modified ctx pointer", 0, "arithmetic on the ctx",
	    BPF_ALU64_IMM(BPF_ADD, R1, 4), BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
}

static int fib_fwd(void *arg, struct bpf_fib_lookup *f)
{
	(void)arg;
	f->ifindex = 9;
	return BPF_FIB_LKUP_RET_SUCCESS;
}

static void fib(void)
{
	struct ip_env e;

	world(&e);
	e.fib_lookup = fib_fwd;
	RUN_ENV("fib_lookup forwards", &e, 9 + 0x100 * BPF_FIB_LKUP_RET_SUCCESS, NULL,
		BPF_ST_MEM(BPF_DW, FP, -64, 2), BPF_ST_MEM(BPF_DW, FP, -56, 0),
		BPF_ST_MEM(BPF_DW, FP, -48, 0), BPF_ST_MEM(BPF_DW, FP, -40, 0),
		BPF_ST_MEM(BPF_DW, FP, -32, 0), BPF_ST_MEM(BPF_DW, FP, -24, 0),
		BPF_ST_MEM(BPF_DW, FP, -16, 0), BPF_ST_MEM(BPF_DW, FP, -8, 0),
		BPF_MOV64_REG(R2, FP), BPF_ALU64_IMM(BPF_ADD, R2, -64), BPF_MOV64_IMM(R3, 64),
		BPF_MOV64_IMM(R4, 0), BPF_CALL_HELPER(BPF_FUNC_fib_lookup),
		BPF_ALU64_IMM(BPF_LSH, R0, 8), BPF_LDX_MEM(BPF_W, R1, FP, -64 + 8),
		BPF_ALU64_REG(BPF_ADD, R0, R1), BPF_EXIT_INSN());
	RUN("fib_lookup with unset params", 0, "uninitialized stack",
	    BPF_MOV64_REG(R2, FP), BPF_ALU64_IMM(BPF_ADD, R2, -64), BPF_MOV64_IMM(R3, 64),
	    BPF_MOV64_IMM(R4, 0), BPF_CALL_HELPER(BPF_FUNC_fib_lookup), BPF_EXIT_INSN());
}

static void calls(void)
{
	RUN("bpf-to-bpf call keeps r6-r9, own stack", 7 + 100 + 1, NULL,
	    BPF_MOV64_IMM(R6, 7), BPF_ST_MEM(BPF_DW, FP, -8, 100),
	    BPF_MOV64_REG(R1, FP), BPF_ALU64_IMM(BPF_ADD, R1, -8),
	    BPF_CALL_REL(3),
	    BPF_ALU64_REG(BPF_ADD, R0, R6), BPF_EXIT_INSN(), BPF_EXIT_INSN(),
	    /* callee: r0 = *(r1) + 1 via its own stack; clobbers r6 */
	    BPF_LDX_MEM(BPF_DW, R0, R1, 0), BPF_ST_MEM(BPF_DW, FP, -8, 1),
	    BPF_LDX_MEM(BPF_DW, R6, FP, -8), BPF_ALU64_REG(BPF_ADD, R0, R6),
	    BPF_EXIT_INSN());
	RUN("callee reads the caller's r6", 0, "r6 read before",
	    BPF_MOV64_IMM(R6, 7), BPF_CALL_REL(1), BPF_EXIT_INSN(),
	    BPF_MOV64_REG(R0, R6), BPF_EXIT_INSN());
	RUN("caller reads r1 after a call", 0, "r1 read before",
	    BPF_MOV64_IMM(R1, 7), BPF_CALL_REL(2), BPF_MOV64_REG(R0, R1), BPF_EXIT_INSN(),
	    BPF_MOV64_IMM(R0, 0), BPF_EXIT_INSN());
	RUN("recursion past 8 frames", 0, "call depth",
	    BPF_MOV64_IMM(R0, 0), BPF_CALL_REL(-1), BPF_EXIT_INSN());
	RUN("combined stack above 512 bytes", 0, "combined stack",
	    BPF_ST_MEM(BPF_DW, FP, -400, 0), BPF_CALL_REL(2), BPF_MOV64_IMM(R0, 0),
	    BPF_EXIT_INSN(), BPF_ST_MEM(BPF_DW, FP, -200, 0), BPF_MOV64_IMM(R0, 0),
	    BPF_EXIT_INSN());
	RUN("returned frame's stack", 0, "returned frame",
	    BPF_CALL_REL(2), BPF_LDX_MEM(BPF_DW, R0, R0, 0), BPF_EXIT_INSN(),
	    BPF_ST_MEM(BPF_DW, FP, -8, 0), BPF_MOV64_REG(R0, FP), BPF_EXIT_INSN());
}

static void tail_calls(void)
{
	static const struct bpf_insn t[] = { BPF_MOV64_IMM(R0, 55), BPF_EXIT_INSN() };
	static const struct ip_prog target = { "target", t, 2, NULL, 0 };
	struct ip_env e;

	world(&e);
	maps[3].progs[1] = &target;
	RUN_ENV("tail call into a slot", &e, 55, NULL,
		MAP_IDX(R2, 3), BPF_MOV64_IMM(R3, 1), BPF_CALL_HELPER(BPF_FUNC_tail_call),
		BPF_MOV64_IMM(R0, 2), BPF_EXIT_INSN());
	world(&e);
	RUN_ENV("tail call to an empty slot falls through", &e, 2, NULL,
		MAP_IDX(R2, 3), BPF_MOV64_IMM(R3, 1), BPF_CALL_HELPER(BPF_FUNC_tail_call),
		BPF_MOV64_IMM(R0, 2), BPF_EXIT_INSN());
}

#include "selftest_nf.h"

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alu();
	jumps();
	memory();
	helpers();
	ctx_tc();
	fib();
	calls();
	tail_calls();
	netfilter();
	for (int i = 0; i < 4; i++)
		ip_map_free(&maps[i]);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
