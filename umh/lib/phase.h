/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a request's time goes (bench/calls.md, "Where a call's time
 * goes"): off unless the module was loaded with phase_timing=1, which the
 * handshake tells the helper (EBPF_HELLO_PHASE_TIMING).  The time from
 * one phase_to() to the next is charged to the phase named by the first;
 * the totals are logged after every change.
 */
#ifndef UMH_PHASE_H
#define UMH_PHASE_H

#include <stdbool.h>

enum phase {
	PH_NONE,	/* not in a request: not counted */
	PH_GET,		/* GET_INFO, GET_ENTRIES */
	PH_VALIDATE,	/* SET_REPLACE: translate, checks, old counters */
	PH_IR,		/* ir_build */
	PH_CODEGEN,	/* codegen_hook */
	PH_MAPS,	/* map creation and fill */
	PH_VERIFY,	/* BPF_PROG_LOAD (the verifier) */
	PH_INSTALL,	/* the mechanism's install (EBPF_IOC_INSTALL) */
	PH_AFTER,	/* after the switch: the replaced rules' counters */
	PH_ADDCTR,	/* ADD_COUNTERS */
	PH_VAULT,	/* state_store */
	PH_REPLY,	/* the reply on the channel */
	PH_N
};

extern bool phase_on;

void phase_switch(enum phase p);
void phase_report(void);

/* a no-op, without even a clock read, unless timing is on */
static inline void phase_to(enum phase p)
{
	if (phase_on)
		phase_switch(p);
}

#endif
