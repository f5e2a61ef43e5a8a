/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fake kernel of the host tools (cghost, cgbench): struct cg_kernel's
 * BTF ids, kfunc ids and offsets, for generating the netfilter flavor's
 * programs without a kernel.
 */
#ifndef EBPF_TESTS_FAKE_KERNEL_H
#define EBPF_TESTS_FAKE_KERNEL_H

#include "cgen/codegen.h"

/*
 * The fake kernel's layout: offsets unlike any real kernel's on purpose
 * (nothing may depend on them but through struct cg_kernel), each object
 * as large as its offsets need and no larger, so a wrong offset is an
 * out-of-bounds access.
 */
enum {
	SKB_SIZE = 208, SKB_NFCT = 24, SKB_LEN = 140, SKB_DATA_LEN = 144,
	SKB_DATA = 200,
	STATE_SIZE = 40, STATE_IN = 8, STATE_OUT = 32,
	DEV_SIZE = 80, DEV_NAME = 48,
	CT_SIZE = 192, CT_STATUS = 184,
	KF_FROM_SKB = 70001, KF_SLICE = 70002, KF_CAST = 70003,
	BTF_IPHDR = 80001, BTF_TCPHDR = 80002, BTF_STATE = 80003,
};

extern const struct cg_kernel host_kernel;	/* BTF ids, offsets */

#endif
