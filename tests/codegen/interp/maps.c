// SPDX-License-Identifier: GPL-2.0
/* The interpreter's maps and its disassembler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

static bool is_hash(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_HASH || t == BPF_MAP_TYPE_PERCPU_HASH;
}

static bool is_array(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY;
}

int ip_map_init(struct ip_map *m, enum bpf_map_type type, __u32 key_size,
		__u32 value_size, __u32 max_entries, __u32 map_flags)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->key_size = key_size;
	m->value_size = value_size;
	m->max_entries = max_entries;
	m->map_flags = map_flags;
	if (!max_entries || !key_size)
		return -1;
	if (is_array(type)) {
		if (key_size != 4 || !value_size)
			return -1;
		m->vals = calloc(max_entries, value_size);
		return m->vals ? 0 : -1;
	}
	if (type == BPF_MAP_TYPE_PROG_ARRAY) {
		if (key_size != 4 || value_size != 4)
			return -1;
		m->progs = calloc(max_entries, sizeof(*m->progs));
		return m->progs ? 0 : -1;
	}
	if (!is_hash(type) || !value_size)
		return -1;
	/* open addressing, at most half full */
	for (m->cap = 16; m->cap < 2 * max_entries; m->cap *= 2)
		;
	m->keys = calloc(m->cap, key_size);
	m->vals = calloc(m->cap, value_size);
	m->used = calloc(m->cap, 1);
	return m->keys && m->vals && m->used ? 0 : -1;
}

void ip_map_free(struct ip_map *m)
{
	free(m->vals);
	free(m->keys);
	free(m->used);
	free(m->progs);
	memset(m, 0, sizeof(*m));
}

static __u32 slot_of(const struct ip_map *m, const void *key)
{
	const unsigned char *k = key;
	__u32 h = 2166136261u;

	for (__u32 i = 0; i < m->key_size; i++)
		h = (h ^ k[i]) * 16777619u;
	return h & (m->cap - 1);
}

/* the slot holding @key, or the free slot where it would go */
static __u32 find_slot(const struct ip_map *m, const void *key)
{
	__u32 s = slot_of(m, key);

	while (m->used[s] &&
	       memcmp(m->keys + (size_t)s * m->key_size, key, m->key_size))
		s = (s + 1) & (m->cap - 1);
	return s;
}

void *ip_map_lookup(const struct ip_map *m, const void *key)
{
	__u32 s, idx;

	if (is_array(m->type)) {
		memcpy(&idx, key, 4);
		return idx < m->max_entries ?
		       m->vals + (size_t)idx * m->value_size : NULL;
	}
	if (!is_hash(m->type))
		return NULL;
	s = find_slot(m, key);
	return m->used[s] ? m->vals + (size_t)s * m->value_size : NULL;
}

int ip_map_update(struct ip_map *m, const void *key, const void *val)
{
	__u32 s;

	if (is_array(m->type)) {
		void *v = ip_map_lookup(m, key);

		if (!v)
			return -1;
		memcpy(v, val, m->value_size);
		return 0;
	}
	if (!is_hash(m->type))
		return -1;
	s = find_slot(m, key);
	if (!m->used[s]) {
		if (m->n >= m->max_entries)
			return -1;	/* E2BIG, as the kernel */
		m->used[s] = 1;
		m->n++;
		memcpy(m->keys + (size_t)s * m->key_size, key, m->key_size);
	}
	memcpy(m->vals + (size_t)s * m->value_size, val, m->value_size);
	return 0;
}

/* ----- disassembler ----------------------------------------------------- */

static const char *const alu_op[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=",
	"=", "s>>=", "end", "?", "?",
};
static const char *const jmp_op[16] = {
	"ja", "==", ">", ">=", "&", "!=", "s>", "s>=", "call", "exit", "<",
	"<=", "s<", "s<=", "?", "?",
};
static const char *const size_name[4] = { "u32", "u16", "u8", "u64" };

void ip_disasm(const struct bpf_insn *i, char *buf, size_t len)
{
	unsigned int cls = BPF_CLASS(i->code), op = BPF_OP(i->code) >> 4;
	const char *sz = size_name[BPF_SIZE(i->code) >> 3];
	bool x = BPF_SRC(i->code) == BPF_X;
	char src[24];

	if (x)
		snprintf(src, sizeof(src), "%sr%d", cls == BPF_ALU || cls == BPF_JMP32 ? "w" : "",
			 i->src_reg);
	else
		snprintf(src, sizeof(src), "%d", i->imm);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64: {
		char r = cls == BPF_ALU ? 'w' : 'r';

		if (op == BPF_NEG >> 4)
			snprintf(buf, len, "%c%d = -%c%d", r, i->dst_reg, r, i->dst_reg);
		else if (op == BPF_END >> 4)
			snprintf(buf, len, "r%d = %s%d r%d", i->dst_reg,
				 x ? "be" : "le", i->imm, i->dst_reg);
		else
			snprintf(buf, len, "%c%d %s %s", r, i->dst_reg, alu_op[op], src);
		break;
	}
	case BPF_LDX:
		snprintf(buf, len, "r%d = *(%s *)(r%d %+d)", i->dst_reg, sz,
			 i->src_reg, i->off);
		break;
	case BPF_ST:
		snprintf(buf, len, "*(%s *)(r%d %+d) = %d", sz, i->dst_reg, i->off,
			 i->imm);
		break;
	case BPF_STX:
		if (BPF_MODE(i->code) == BPF_ATOMIC)
			snprintf(buf, len, "lock *(%s *)(r%d %+d) op%#x r%d", sz,
				 i->dst_reg, i->off, i->imm, i->src_reg);
		else
			snprintf(buf, len, "*(%s *)(r%d %+d) = r%d", sz, i->dst_reg,
				 i->off, i->src_reg);
		break;
	case BPF_LD:
		snprintf(buf, len, "r%d = ld_imm64 src%d %#x (code %#x)", i->dst_reg,
			 i->src_reg, (unsigned int)i->imm, i->code);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_CALL >> 4)
			snprintf(buf, len, "call %s%d", i->src_reg == BPF_PSEUDO_CALL ?
				 "pc+" : i->src_reg == BPF_PSEUDO_KFUNC_CALL ?
				 "kfunc#" : "helper#", i->imm);
		else if (op == BPF_EXIT >> 4)
			snprintf(buf, len, "exit");
		else if (op == BPF_JA >> 4)
			snprintf(buf, len, "goto pc%+d", i->off);
		else
			snprintf(buf, len, "if %c%d %s %s goto pc%+d",
				 cls == BPF_JMP32 ? 'w' : 'r', i->dst_reg,
				 jmp_op[op], src, i->off);
		break;
	default:
		snprintf(buf, len, "?? code %#x", i->code);
	}
}
