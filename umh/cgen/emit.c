// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction buffer and the program's map descriptions (struct
 * cg_prog): everything an emitter appends goes through here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgen/emit.h"
#include "lib/vec.h"

void cg_fail(struct cg *c, int e, const char *fmt, ...)
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

/* out of memory: the program is marked failed, the caller sees it */
void cg_emit(struct cg_prog *p, struct bpf_insn i)
{
	if (vec_reserve(&p->insns, &p->cap, p->n + 1)) {
		p->failed = true;
		return;
	}
	p->insns[p->n++] = i;
}

/* the two halves of a BPF_LD_IMM64 */
static void emit_ld_imm64(struct cg *c, int reg, int src, __u64 v)
{
	struct bpf_insn i[2] = { BPF_LD_IMM64_RAW(reg, src, v) };

	EM(c, i[0]);
	EM(c, i[1]);
}

void emit_ld64(struct cg *c, int reg, __u64 v)
{
	emit_ld_imm64(c, reg, 0, v);
}

void emit_ld_map(struct cg *c, int reg, int map)
{
	emit_ld_imm64(c, reg, BPF_PSEUDO_MAP_IDX, (__u32)map);
}

void emit_ld_map_value(struct cg *c, int reg, int map, __u32 off)
{
	emit_ld_imm64(c, reg, BPF_PSEUDO_MAP_IDX_VALUE,
		      (__u32)map | (__u64)off << 32);
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

/* the sizes are those of the loader's objects (load/enforce.c) */
int cg_shared_map(struct cg *c, enum cg_map_source source)
{
	struct cg_prog *p = c->p;
	unsigned int nrules = c->ir ? c->ir->nrules : 0;
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
		m.map_flags = cg_counters_map_flags(nrules);
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
	case CG_MAP_RESUME:	/* struct ebpf_resume */
		m.name = "ebpf_resume";
		m.type = BPF_MAP_TYPE_PERCPU_ARRAY;
		m.value_size = CG_RESUME_SIZE;
		break;
	default:
		p->failed = true;
		return -1;
	}
	return cg_prog_add_map(p, &m);
}

void emit_kfunc(struct cg *c, int btf_id)
{
	EM(c, BPF_CALL_KFUNC(btf_id));
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
