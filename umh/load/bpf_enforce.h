/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by enforce.c, enforce_tc.c and tests/codegen. */
#ifndef UMH_BPF_ENFORCE_H
#define UMH_BPF_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>

#include "cgen/codegen.h"
#include "ir/ir.h"

struct enf_kernel {
	enum cg_mech mech;
	bool have_btf;		/* cg_kernel below is filled in */
	struct cg_kernel k;
	bool no_classify;	/* tests: compile runs as linear code */
};

/* Which mechanism the running kernel supports (a NETFILTER program load
 * probe) and, for NETFILTER, the BTF facts the prologue needs.
 * @force_tc: use TC even where NETFILTER works (tests).  0 or -errno. */
int enf_probe(struct enf_kernel *ek, bool force_tc, char *err, size_t len);

/* The shared objects a generated program may reference (-1: none). */
struct enf_maps {
	int counters, ifinfo, gen, progs;
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

/* A zeroed per-CPU counters map for @n entries, or -errno. */
int enf_counters_create(unsigned int n);
/* Sum counters_fd[0..n-1] over CPUs and add to @c. */
int enf_counters_add(int counters_fd, struct xt_counters *c, unsigned int n);

/* TC (enforce_tc.c): attach the dispatchers to every interface of the
 * initial netns and keep doing so for new ones (a netlink thread); keeps
 * @ifinfo_fd (ifindex -> struct cg_ifinfo) up to date. */
int enf_tc_start(int ingress_fd, int egress_fd, int ifinfo_fd);
/* Stop the thread; with @detach, remove our filters from every interface. */
void enf_tc_stop(bool detach);
/* The ifinfo record for a link (ARPHRD type -> l2len). */
void enf_tc_ifinfo(struct cg_ifinfo *v, const char *name, unsigned int type);

#define ENF_TC_HANDLE	0xeb0f
#define ENF_TC_PRIO	1

#endif
