// SPDX-License-Identifier: GPL-2.0
/*
 * Loading generated programs into the kernel (with the verifier's reason
 * when it refuses one) and the counters map they update.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "lib/log.h"
#include "lib/phase.h"
#include "load/bpf_enforce.h"
#include "load/map_keep.h"

static void last_line(const char *log, char *out, size_t len)
{
	const char *end = log + strlen(log), *s;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	/* skip the "processed N insns" summary if present */
	s = end;
	while (s > log && s[-1] != '\n')
		s--;
	if (!strncmp(s, "processed ", 10) && s > log) {
		end = s - 1;
		s = end;
		while (s > log && s[-1] != '\n')
			s--;
	}
	snprintf(out, len, "%.*s", (int)(end - s), s);
}

/*
 * @m's elements, in order, each with BPF_ANY (see struct cg_map): in one
 * syscall where the kernel has batch updates (5.6+; they apply the
 * records in order too), else one at a time.
 */
static int fill_map(int fd, const struct cg_map *m)
{
	size_t rec = (size_t)m->key_size + m->value_size;
	unsigned char *keys, *vals;
	__u32 i, count = m->nelems;
	int r = 0;

	if (!m->nelems)
		return 0;
	keys = malloc((size_t)m->nelems * m->key_size);
	vals = malloc((size_t)m->nelems * m->value_size);
	if (keys && vals) {
		for (i = 0; i < m->nelems; i++) {
			memcpy(keys + (size_t)i * m->key_size, m->elems + i * rec,
			       m->key_size);
			memcpy(vals + (size_t)i * m->value_size,
			       m->elems + i * rec + m->key_size, m->value_size);
		}
		if (!bpf_map_update_batch(fd, keys, vals, &count, NULL))
			goto out;
	}
	for (i = 0; i < m->nelems && !r; i++) {
		const unsigned char *e = m->elems + i * rec;

		if (bpf_map_update_elem(fd, e, e + m->key_size, BPF_ANY))
			r = -errno;
	}
out:
	free(keys);
	free(vals);
	return r;
}

/* A CG_MAP_OWN map: created from its description and filled. */
static int create_own_map(const struct cg_map *m, char *err, size_t err_len)
{
	/* the programs only read them: map_keep.c shares them between an
	 * old program and a new one on that ground */
	LIBBPF_OPTS(bpf_map_create_opts, o,
		    .map_flags = m->map_flags | BPF_F_RDONLY_PROG);
	int fd, e;

	fd = bpf_map_create(m->type, m->name, m->key_size, m->value_size,
			    m->max_entries ? m->max_entries : 1, &o);
	if (fd < 0) {
		e = -errno;
		snprintf(err, err_len, "creating map %s (%u entries): %s",
			 m->name, m->max_entries, strerror(-e));
		return e;
	}
	e = fill_map(fd, m);
	if (e) {
		snprintf(err, err_len, "filling map %s: %s", m->name,
			 strerror(-e));
		close(fd);
		return e;
	}
	return fd;
}

static int shared_fd(const struct cg_map *m, const struct enf_maps *shared)
{
	switch (m->source) {
	case CG_MAP_COUNTERS:
		return shared->counters;
	case CG_MAP_IFINFO:
		return shared->ifinfo;
	case CG_MAP_GEN:
		return shared->gen;
	case CG_MAP_PROGS:
		return shared->progs;
	case CG_MAP_RESUME:
		return shared->resume;
	default:
		return -1;
	}
}

int enf_resolve(const struct cg_prog *p, const struct enf_maps *shared,
		struct enf_resolved *out, char *err, size_t err_len)
{
	struct bpf_insn *in;
	unsigned int i;
	size_t k;
	int r;

	memset(out, 0, sizeof(*out));
	out->fds = malloc((p->nmaps ? p->nmaps : 1) * sizeof(*out->fds));
	out->insns = in = malloc((p->n ? p->n : 1) * sizeof(*in));
	if (!out->fds || !in) {
		r = -ENOMEM;
		snprintf(err, err_len, "out of memory");
		goto fail;
	}
	for (i = 0; i < p->nmaps; i++)
		out->fds[i] = -1;
	out->p = p;
	for (i = 0; i < p->nmaps; i++) {
		const struct cg_map *m = &p->maps[i];

		if (m->source == CG_MAP_OWN) {
			r = shared->keep ? enf_keep_find(shared->keep, m) : -1;
			if (r < 0) {
				r = create_own_map(m, err, err_len);
				if (r < 0)
					goto fail;
				if (shared->keep)
					enf_keep_add(shared->keep, m, r);
			}
			out->fds[i] = r;
			continue;
		}
		out->fds[i] = shared_fd(m, shared);
		if (out->fds[i] < 0) {
			r = -EINVAL;
			snprintf(err, err_len, "no %s map to give the program",
				 m->name);
			goto fail;
		}
	}
	memcpy(in, p->insns, p->n * sizeof(*in));
	for (k = 0; k + 1 < p->n; k++) {
		struct bpf_insn *ld = &in[k];

		if (ld->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (ld->src_reg == BPF_PSEUDO_MAP_IDX ||
		    ld->src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
			if ((__u32)ld->imm >= p->nmaps) {
				r = -EFAULT;
				snprintf(err, err_len,
					 "internal error: map %d of %u", ld->imm,
					 p->nmaps);
				goto fail;
			}
			ld->src_reg = ld->src_reg == BPF_PSEUDO_MAP_IDX ?
				      BPF_PSEUDO_MAP_FD : BPF_PSEUDO_MAP_VALUE;
			ld->imm = out->fds[ld->imm];
		}
		k++;	/* the second half */
	}
	return 0;
fail:
	enf_resolved_free(out);
	return r;
}

void enf_resolved_free(struct enf_resolved *r)
{
	unsigned int i;

	for (i = 0; r->p && i < r->p->nmaps; i++)
		if (r->p->maps[i].source == CG_MAP_OWN && r->fds[i] >= 0)
			close(r->fds[i]);
	free(r->fds);
	free(r->insns);
	memset(r, 0, sizeof(*r));
}

static int load_insns(enum cg_mech mech, const struct bpf_insn *insns,
		      size_t n, const char *name, int *fd,
		      char *err, size_t err_len)
{
	const struct cg_flavor_ops *fl = cg_flavor(mech);
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = fl->expected_attach_type);
	enum bpf_prog_type type = fl->prog_type;
	char *log;
	int e;

	char stats[512];

	/* with phase timing, the verifier's own figures for each program
	 * (BPF_LOG_STATS: insns processed, states, its time) */
	if (phase_on) {
		stats[0] = 0;
		o.log_buf = stats;
		o.log_size = sizeof(stats);
		o.log_level = 4;
	}
	*fd = bpf_prog_load(type, name, "GPL", insns, n, &o);
	if (phase_on) {
		char *nl;

		for (nl = stats; (nl = strchr(nl, '\n')); )
			*nl = ' ';
		log_info("verifier: %s, %zu insns: %s\n", name, n, stats);
		o.log_buf = NULL;
		o.log_size = 0;
		o.log_level = 0;
	}
	if (*fd >= 0)
		return 0;
	e = -errno;
	/* again, with the verifier log, for the reason */
	log = malloc(1 << 20);
	if (log) {
		log[0] = 0;
		o.log_buf = log;
		o.log_size = 1 << 20;
		o.log_level = 1;
		*fd = bpf_prog_load(type, name, "GPL", insns, n, &o);
		if (*fd >= 0) {	/* passed with a log?  take it */
			free(log);
			return 0;
		}
		if (log[0] && getenv("EBPFILTER_VERIFIER_LOG"))
			fprintf(stderr, "%s\n", log);
		if (log[0]) {
			char line[200];

			last_line(log, line, sizeof(line));
			snprintf(err, err_len, "verifier (%zu insns): %s: %s",
				 n, strerror(-e), line);
		} else {
			snprintf(err, err_len, "loading %zu insns: %s", n,
				 strerror(-e));
		}
		free(log);
	} else {
		snprintf(err, err_len, "loading %zu insns: %s", n,
			 strerror(-e));
	}
	return e;
}

int enf_load(enum cg_mech mech, const struct cg_prog *p,
	     const struct enf_maps *shared, const char *name,
	     int *fd, char *err, size_t err_len)
{
	struct enf_resolved res;
	int r;

	*fd = -1;
	phase_to(PH_MAPS);
	r = enf_resolve(p, shared, &res, err, err_len);
	if (r)
		return r;
	phase_to(PH_VERIFY);
	r = load_insns(mech, res.insns, p->n, name, fd, err, err_len);
	phase_to(PH_MAPS);
	enf_resolved_free(&res);	/* the program holds its own maps */
	return r;
}

static bool prog_uses(const struct cg_prog *p, enum cg_map_source source)
{
	unsigned int k;

	for (k = 0; k < p->nmaps; k++)
		if (p->maps[k].source == source)
			return true;
	return false;
}

int enf_load_hook(const struct ir_table *ir, const struct enf_kernel *ek,
		  enum cg_hook hook, int counters_fd, int ifinfo_fd,
		  int *fd, char *err, size_t err_len)
{
	return enf_load_hook_resume(ir, ek, hook, counters_fd, ifinfo_fd, NULL,
				    NULL, fd, err, err_len);
}

int enf_load_hook_resume(const struct ir_table *ir,
			 const struct enf_kernel *ek, enum cg_hook hook,
			 int counters_fd, int ifinfo_fd, int *resume_fd,
			 struct enf_map_keep *keep, int *fd, char *err,
			 size_t err_len)
{
	static const char *const names[CG_ALL_HOOKS] = {
		"ebpf_input", "ebpf_forward", "ebpf_output", "ebpf_prerouting",
		"ebpf_postrouting" };
	struct cg_opts o = {
		.mech = ek->mech, .hook = hook,
		.k = ek->have_btf ? &ek->k : NULL,
		.no_classify = ek->no_classify,
	};
	struct enf_maps shared = { .counters = counters_fd,
				   .ifinfo = ifinfo_fd, .gen = -1,
				   .progs = -1, .resume = -1,
				   .keep = keep };
	struct cg_prog p;
	int r;

	phase_to(PH_CODEGEN);
	r = codegen_hook(ir, &o, &p, err, err_len);	/* checks @hook */
	if (r)
		return r;
	if (resume_fd && *resume_fd < 0 && prog_uses(&p, CG_MAP_RESUME)) {
		/* a kmod program that hands some packets over (a kernel
		 * rule, a classified run's hotdrop) though the caller did
		 * not expect it: the table's map, made on first use */
		*resume_fd = enf_resume_create();
		if (*resume_fd < 0) {
			r = *resume_fd;
			*resume_fd = -1;
			snprintf(err, err_len, "resume map: %s", strerror(-r));
			cg_prog_free(&p);
			return r;
		}
	}
	shared.resume = resume_fd ? *resume_fd : -1;
	r = enf_load(ek->mech, &p, &shared, names[hook], fd, err, err_len);
	phase_to(PH_CODEGEN);
	cg_prog_free(&p);
	return r;
}

int enf_counters_create(unsigned int n)
{
	LIBBPF_OPTS(bpf_map_create_opts, o,
		    .map_flags = cg_counters_map_flags(n));
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ebpf_ctr", 4,
				(n ? n : 1) * sizeof(struct cg_counter), 1, &o);

	return fd < 0 ? -errno : fd;
}

int enf_resume_create(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ebpf_resume", 4,
				CG_RESUME_SIZE, 1, NULL);

	return fd < 0 ? -errno : fd;
}

/*
 * The map's value: mapped if it is mmap-able (cg_counters_map_flags()),
 * else copied into @copy; NULL with errno set on failure.
 */
static const struct cg_counter *counters_view(int fd, const struct bpf_map_info *info,
					      void **copy)
{
	__u32 key = 0;
	void *v;

	*copy = NULL;
	if (info->map_flags & BPF_F_MMAPABLE) {
		v = mmap(NULL, info->value_size, PROT_READ, MAP_SHARED, fd, 0);
		return v == MAP_FAILED ? NULL : v;
	}
	v = malloc(info->value_size);
	if (!v || bpf_map_lookup_elem(fd, &key, v)) {
		free(v);
		return NULL;
	}
	*copy = v;
	return v;
}

int enf_counters_add(int counters_fd, struct xt_counters *c, unsigned int n)
{
	struct bpf_map_info info = { 0 };
	__u32 info_len = sizeof(info);
	const struct cg_counter *v;
	unsigned int i;
	void *copy;

	if (bpf_map_get_info_by_fd(counters_fd, &info, &info_len))
		return -errno;
	if (info.value_size / sizeof(*v) < n)
		return -EINVAL;
	v = counters_view(counters_fd, &info, &copy);
	if (!v)
		return -errno;
	for (i = 0; i < n; i++) {
		c[i].pcnt += __atomic_load_n(&v[i].pkts, __ATOMIC_RELAXED);
		c[i].bcnt += __atomic_load_n(&v[i].bytes, __ATOMIC_RELAXED);
	}
	if (copy)
		free(copy);
	else
		munmap((void *)v, info.value_size);
	return 0;
}
