/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of load/ shared by its files and tests/codegen: the kernel
 * probe (probe.c) and the mechanism's choice (choose.c), loading programs and counters (program.c), the
 * mechanisms (mech.h).
 */
#ifndef UMH_BPF_ENFORCE_H
#define UMH_BPF_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>

#include "cgen/codegen.h"
#include "ir/ir.h"
#include "load/mech.h"

struct enf_kernel {
	const struct enf_mech_ops *ops;	/* the mechanism in use */
	enum cg_mech mech;		/* ops->cg */
	bool have_btf;		/* cg_kernel below is filled in */
	struct cg_kernel k;
	bool no_classify;	/* tests: compile runs as linear code */
};

/* The mechanism called @want ("kmod", "netfilter", "tc"), or for NULL,
 * "" or "auto" the first available in order of preference (probe.c), and
 * the kernel facts its programs need (NETFILTER: from BTF).  0, or
 * -EOPNOTSUPP (not available, no such name) or another -errno with a
 * reason in @err. */
int enf_probe(struct enf_kernel *ek, const char *want, char *err, size_t len);
/* The mechanism the module asks for (@want: a name, or "" or "auto": the
 * first available; EBPFILTER_FORCE_TC then still says "tc"), from what
 * enforce_probe() found (choose.c): 0 with *@ek set, or -errno (logged). */
int enf_choose(const char *want, struct enf_kernel *ek);
/* Does @want ask for no mechanism in particular (NULL, "", "auto")? */
bool enf_mech_is_auto(const char *want);
/* The mechanisms in order of preference (NULL past the last); can the
 * running kernel do @m? */
const struct enf_mech_ops *enf_mech_at(unsigned int i);
bool enf_mech_available(const struct enf_mech_ops *m);

/* The shared objects a generated program may reference (-1: none). */
struct enf_map_keep;

struct enf_maps {
	int counters, ifinfo, gen, progs;
	int resume;	/* kmod: CG_MAP_RESUME */
	/* the table's own maps of its last commit, to reuse (NULL: none) */
	struct enf_map_keep *keep;
};

/* A program's instructions with its map references resolved to fds, its
 * own maps created and filled (tests load them in their own ways). */
struct enf_resolved {
	struct bpf_insn *insns;	/* p->n of them */
	int *fds;		/* per map of p */
	const struct cg_prog *p;
};

int enf_resolve(const struct cg_prog *p, const struct enf_maps *shared,
		struct enf_resolved *out, char *err, size_t err_len);
/* Close the own maps (a loaded program holds its references). */
void enf_resolved_free(struct enf_resolved *r);

/* Load generated instructions: create and fill the program's own maps,
 * resolve its map references (@shared for the shared ones); *fd gets the
 * program, which holds its own maps.  On failure, @err gets the verifier's
 * last line.  0 or -errno. */
int enf_load(enum cg_mech mech, const struct cg_prog *p,
	     const struct enf_maps *shared, const char *name,
	     int *fd, char *err, size_t err_len);

/* Generate and load the table program of @hook. */
int enf_load_hook(const struct ir_table *ir, const struct enf_kernel *ek,
		  enum cg_hook hook, int counters_fd, int ifinfo_fd,
		  int *fd, char *err, size_t err_len);
/* The same with the resume map a kmod program that hands packets to the
 * module's walk writes (*@resume_fd; made here if -1 and the program
 * needs it, the caller closes it; NULL: none, such a hook is refused),
 * and the table's kept maps (@keep, map_keep.h; NULL: every map made
 * anew). */
int enf_load_hook_resume(const struct ir_table *ir,
			 const struct enf_kernel *ek, enum cg_hook hook,
			 int counters_fd, int ifinfo_fd, int *resume_fd,
			 struct enf_map_keep *keep, int *fd, char *err,
			 size_t err_len);
/* kmod's resume map (CG_MAP_RESUME: a per-CPU array of one struct
 * ebpf_resume), or -errno. */
int enf_resume_create(void);

/* A zeroed per-CPU counters map for @n entries, or -errno. */
int enf_counters_create(unsigned int n);
/* Sum counters_fd[0..n-1] over CPUs and add to @c. */
int enf_counters_add(int counters_fd, struct xt_counters *c, unsigned int n);

#endif
