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

#include <bpf/bpf.h>

#include "load/bpf_enforce.h"

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

int enf_load(enum cg_mech mech, const struct cg_prog *p, const char *name,
	     int *fd, char *err, size_t err_len)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	enum bpf_prog_type type = mech == CG_NETFILTER ?
				  BPF_PROG_TYPE_NETFILTER :
				  BPF_PROG_TYPE_SCHED_CLS;
	char *log;
	int e;

	if (mech == CG_NETFILTER)
		o.expected_attach_type = BPF_NETFILTER;
	*fd = bpf_prog_load(type, name, "GPL", p->insns, p->n, &o);
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
		*fd = bpf_prog_load(type, name, "GPL", p->insns, p->n, &o);
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
				 p->n, strerror(-e), line);
		} else {
			snprintf(err, err_len, "loading %zu insns: %s", p->n,
				 strerror(-e));
		}
		free(log);
	} else {
		snprintf(err, err_len, "loading %zu insns: %s", p->n,
			 strerror(-e));
	}
	return e;
}

int enf_load_hook(const struct ir_table *ir, const struct enf_kernel *ek,
		  enum cg_hook hook, int counters_fd, int ifinfo_fd,
		  int *fd, char *err, size_t err_len)
{
	static const char *const names[] = { "ebpf_input", "ebpf_forward",
					     "ebpf_output" };
	struct cg_opts o = {
		.mech = ek->mech, .hook = hook, .counters_fd = counters_fd,
		.ifinfo_fd = ifinfo_fd, .k = ek->have_btf ? &ek->k : NULL,
		.no_classify = ek->no_classify,
	};
	struct cg_prog p;
	int r;

	r = codegen_hook(ir, &o, &p, err, err_len);
	if (r)
		return r;
	r = enf_load(ek->mech, &p, names[hook], fd, err, err_len);
	cg_prog_free(&p);	/* the program holds its set maps */
	return r;
}

int enf_counters_create(unsigned int n)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ebpf_ctr", 4,
				(n ? n : 1) * sizeof(struct cg_counter), 1, &o);

	return fd < 0 ? -errno : fd;
}

int enf_counters_add(int counters_fd, struct xt_counters *c, unsigned int n)
{
	size_t len = (size_t)(n ? n : 1) * sizeof(struct cg_counter);
	const struct cg_counter *v;
	unsigned int i;

	v = mmap(NULL, len, PROT_READ, MAP_SHARED, counters_fd, 0);
	if (v == MAP_FAILED)
		return -errno;
	for (i = 0; i < n; i++) {
		c[i].pcnt += __atomic_load_n(&v[i].pkts, __ATOMIC_RELAXED);
		c[i].bcnt += __atomic_load_n(&v[i].bytes, __ATOMIC_RELAXED);
	}
	munmap((void *)v, len);
	return 0;
}
