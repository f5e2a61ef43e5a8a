/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction builders for raw BPF (the kernel's include/linux/filter.h
 * macros, which are not uapi), plus the few uapi constants that the 6.1
 * userspace headers lack.
 */
#ifndef UMH_BPF_INSN_H
#define UMH_BPF_INSN_H

#include <linux/bpf.h>

#define BPF_ALU64_REG(OP, DST, SRC) ((struct bpf_insn){ \
	.code = BPF_ALU64 | BPF_OP(OP) | BPF_X, .dst_reg = DST, .src_reg = SRC })
#define BPF_ALU32_REG(OP, DST, SRC) ((struct bpf_insn){ \
	.code = BPF_ALU | BPF_OP(OP) | BPF_X, .dst_reg = DST, .src_reg = SRC })
#define BPF_ALU64_IMM(OP, DST, IMM) ((struct bpf_insn){ \
	.code = BPF_ALU64 | BPF_OP(OP) | BPF_K, .dst_reg = DST, .imm = IMM })
#define BPF_ALU32_IMM(OP, DST, IMM) ((struct bpf_insn){ \
	.code = BPF_ALU | BPF_OP(OP) | BPF_K, .dst_reg = DST, .imm = IMM })
#define BPF_NEG64(DST) ((struct bpf_insn){ \
	.code = BPF_ALU64 | BPF_NEG, .dst_reg = DST })
#define BPF_ENDIAN_BE(DST, LEN) ((struct bpf_insn){ \
	.code = BPF_ALU | BPF_END | BPF_TO_BE, .dst_reg = DST, .imm = LEN })
#define BPF_MOV64_REG(DST, SRC) ((struct bpf_insn){ \
	.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = DST, .src_reg = SRC })
#define BPF_MOV32_REG(DST, SRC) ((struct bpf_insn){ \
	.code = BPF_ALU | BPF_MOV | BPF_X, .dst_reg = DST, .src_reg = SRC })
#define BPF_MOV64_IMM(DST, IMM) ((struct bpf_insn){ \
	.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = DST, .imm = IMM })
#define BPF_MOV32_IMM(DST, IMM) ((struct bpf_insn){ \
	.code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = DST, .imm = IMM })
/* two instructions */
#define BPF_LD_IMM64_RAW(DST, SRC, IMM) \
	((struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = DST, \
			    .src_reg = SRC, .imm = (__u32)(IMM) }), \
	((struct bpf_insn){ .imm = (__u32)(((__u64)(IMM)) >> 32) })
#define BPF_LD_MAP_FD(DST, FD) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_FD, FD)
#define BPF_LDX_MEM(SZ, DST, SRC, OFF) ((struct bpf_insn){ \
	.code = BPF_LDX | BPF_SIZE(SZ) | BPF_MEM, .dst_reg = DST, \
	.src_reg = SRC, .off = OFF })
#define BPF_STX_MEM(SZ, DST, SRC, OFF) ((struct bpf_insn){ \
	.code = BPF_STX | BPF_SIZE(SZ) | BPF_MEM, .dst_reg = DST, \
	.src_reg = SRC, .off = OFF })
#define BPF_ST_MEM(SZ, DST, OFF, IMM) ((struct bpf_insn){ \
	.code = BPF_ST | BPF_SIZE(SZ) | BPF_MEM, .dst_reg = DST, \
	.off = OFF, .imm = IMM })
#define BPF_JMP_REG(OP, DST, SRC, OFF) ((struct bpf_insn){ \
	.code = BPF_JMP | BPF_OP(OP) | BPF_X, .dst_reg = DST, \
	.src_reg = SRC, .off = OFF })
#define BPF_JMP_IMM(OP, DST, IMM, OFF) ((struct bpf_insn){ \
	.code = BPF_JMP | BPF_OP(OP) | BPF_K, .dst_reg = DST, \
	.off = OFF, .imm = IMM })
#define BPF_JMP_A(OFF) ((struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = OFF })
#define BPF_CALL_HELPER(FN) ((struct bpf_insn){ \
	.code = BPF_JMP | BPF_CALL, .imm = FN })
/* bpf-to-bpf call; imm = relative target, patched by the code generator */
#define BPF_CALL_REL(IMM) ((struct bpf_insn){ \
	.code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = IMM })
#define BPF_CALL_KFUNC(BTF_ID) ((struct bpf_insn){ \
	.code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, \
	.imm = BTF_ID })
#define BPF_ATOMIC_ADD64(DST, SRC, OFF) ((struct bpf_insn){ \
	.code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = DST, \
	.src_reg = SRC, .off = OFF, .imm = BPF_ADD })
#define BPF_EXIT_INSN() ((struct bpf_insn){ .code = BPF_JMP | BPF_EXIT })

#endif
