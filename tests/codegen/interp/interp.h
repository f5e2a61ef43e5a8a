/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict user-space eBPF interpreter for the instruction subset the code
 * generator emits: the host-side stand-in for the kernel's verifier and
 * BPF_PROG_TEST_RUN.  Every memory access is checked against the region the
 * pointer was derived from (its provenance, tracked per register and per
 * spilled stack slot), stack bytes and registers must be written before
 * they are read, and anything unknown (opcode, helper, kfunc, ctx field)
 * fails the run with the pc and a disassembly of the instruction.
 *
 * Nothing here touches the running kernel.
 */
#ifndef CG_INTERP_H
#define CG_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

struct ip_prog;

/* A map: arrays (also per-CPU: one CPU), hashes (also per-CPU), prog
 * arrays.  The caller owns it (ip_map_init()/ip_map_free()). */
struct ip_map {
	const char *name;
	enum bpf_map_type type;
	__u32 key_size, value_size, max_entries, map_flags;
	unsigned char *vals;	/* array: max_entries values; hash: slots */
	unsigned char *keys;	/* hash: cap keys */
	unsigned char *used;	/* hash: slot in use */
	__u32 n, cap;		/* hash: elements, slots */
	const struct ip_prog **progs;	/* prog array: max_entries slots */
};

int ip_map_init(struct ip_map *m, enum bpf_map_type type, __u32 key_size,
		__u32 value_size, __u32 max_entries, __u32 map_flags);
void ip_map_free(struct ip_map *m);
/* 0, or -1 (hash full, index out of range) */
int ip_map_update(struct ip_map *m, const void *key, const void *val);
/* the value, or NULL */
void *ip_map_lookup(const struct ip_map *m, const void *key);

/* A program: LD_IMM64 with BPF_PSEUDO_MAP_IDX(_VALUE) indexes @maps; with
 * BPF_PSEUDO_MAP_FD(_VALUE) the fd is looked up in ip_env.fd_maps. */
struct ip_prog {
	const char *name;
	const struct bpf_insn *insns;
	size_t n;
	struct ip_map **maps;
	unsigned int nmaps;
};

/* A fake kernel object (struct sk_buff, nf_hook_state, net_device,
 * nf_conn): read-only bytes; the 8-byte fields at @ptr_offs hold pointers
 * the program may follow (to other objects, or NULL: then probe loads
 * through them read 0, as the kernel's exception table makes them). */
struct ip_kobj {
	void *p;
	size_t size;
	int ptr_offs[4];
	int nptr;
};

/* a BTF type bpf_rdonly_cast() may be given: its id and size */
struct ip_btf_type {
	int id;
	size_t size;
};

enum ip_ctx { IP_CTX_TC, IP_CTX_NF };

#define IP_MAX_KOBJ 8
#define IP_MAX_BTF 8

struct ip_env {
	enum ip_ctx ctx;
	/* the packet: all @pkt_len bytes (what skb_load_bytes() and a
	 * dynptr see), the first @headlen linear (tc: data..data_end) */
	unsigned char *pkt;
	__u32 pkt_len, headlen;
	/* tc: the __sk_buff fields the program may read (len, data and
	 * data_end come from the packet above); cb[] may be written */
	struct __sk_buff skb;
	/* netfilter: struct bpf_nf_ctx { state; skb; } points at these
	 * (each must be one of @kobj) */
	void *nf_state, *nf_skb;
	struct ip_kobj kobj[IP_MAX_KOBJ];
	int nkobj;
	int kf_dynptr_from_skb, kf_dynptr_slice, kf_rdonly_cast;
	struct ip_btf_type btf[IP_MAX_BTF];
	int nbtf;
	bool slice_copy;	/* dynptr slices always copy to the buffer */
	/* maps by fd for BPF_PSEUDO_MAP_FD (index = fd) */
	struct ip_map **fd_maps;
	int nfd;
	/* bpf_fib_lookup(): fills @p, returns BPF_FIB_LKUP_RET_*; NULL:
	 * always BPF_FIB_LKUP_RET_NOT_FWDED */
	int (*fib_lookup)(void *arg, struct bpf_fib_lookup *p);
	void *fib_arg;
	unsigned long budget;	/* instructions; 0: 1,000,000 */
	bool any_ret;		/* netfilter: allow any return value (tests of
				 * the interpreter return data) */

	/* out */
	unsigned long insns_run;
	unsigned long calls[__BPF_FUNC_MAX_ID];	/* helper calls, by id */
	int tail_calls, max_frames;
	char err[1024];		/* why the run failed */
};

/* Run @p on @e's context.  0 with *ret, or -1 with e->err. */
int ip_run(struct ip_env *e, const struct ip_prog *p, __u64 *ret);

/* "r2 = *(u32 *)(r6 +16)" and the like; @buf of 64 bytes or more */
void ip_disasm(const struct bpf_insn *i, char *buf, size_t len);

#endif
