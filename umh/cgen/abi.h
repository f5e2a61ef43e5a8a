/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generated code's ABI: what every emitter of umh/cgen/ and umh/ext/
 * relies on (register use, the packet info block, main's stack).
 *
 * ===================== Generated code: conventions =====================
 *
 * One "table program" per hook (INPUT, FORWARD, OUTPUT), of type NETFILTER
 * (6.12 and later) or SCHED_CLS (TC, 6.1).  It consists of:
 *
 *  main        the context-specific prologue, then the chain evaluation
 *              and the mapping of the internal verdict to the program's
 *              return value (NF_ACCEPT/NF_DROP, TC_ACT_UNSPEC/TC_ACT_SHOT).
 *              The chain evaluation takes one of two layouts of the same
 *              rule code (program.c, chain_inline()):
 *                - inline, where nothing reachable from the hook entry
 *                  needs a frame: no jump, no goto, no RETURN (a kernel
 *                  rule's verdict aside: it hands over), as in a built-in
 *                  chain of terminal verdicts falling through to its
 *                  policy.  F(hook_entry)'s code is emitted in main, after
 *                  main's end (the prologue's jumps to its exits stay
 *                  short), and runs on into the function starts it reaches
 *                  (the underflow) instead of calling them; its "return
 *                  v" is "r0 = v; goto back to the mapping", or to an
 *                  earlier return's goto once the mapping is out of half a
 *                  jump's reach (a hop per 16K instructions).  The program
 *                  is one BPF function: no bpf-to-bpf call, and the kernel
 *                  keeps one bpf_prog for it, not one per function plus
 *                  the one it verified (bench/netns.md: a vmalloc'd page
 *                  and a bpf_prog_aux each);
 *                - functions, every other hook:
 *                r0 = F(hook_entry); if r0 == RETURN: r0 = F(underflow)
 *              Both test the verdict opaquely (below) before the mapping.
 *  F(s)        one static BPF subprogram per "function start" s reachable
 *              from the hook (the hook entry, the underflow, and every
 *              jump/goto target; see ir.h).  F(s) evaluates entries s, s+1,
 *              ... in blob order, exactly like ipt_do_table():
 *                - a jump is "r0 = F(target); if r0 != RETURN return r0";
 *                - a goto is "return F(target)" (the frame is replaced, so
 *                  a RETURN in the target returns from the goto's caller);
 *                - reaching another function start falls through into it
 *                  ("return F(next)"); an unconditional terminal verdict
 *                  ends the function (the rest is unreachable);
 *                - a RETURN at the top level (F(hook_entry) returns RETURN)
 *                  continues at the underflow (the policy), as ip_tables.
 *              User-chain nesting is thus BPF call depth: the kernel allows
 *              8 frames, main + the hook's function + 6 nested chains.
 *
 * The packet info ("pi"): main's prologue (the flavor's, prologue_nf.c or
 * prologue_tc.c) extracts what the hook's reachable rules test
 * (scan_needs() in program.c, from each extension's needs: transport
 * header, device names, or only the length when no rule tests anything)
 * into a fixed block on main's stack (pi at fp + PI_BASE, all fields u64
 * slots; the fields no rule of the hook reads may be left unset, absent
 * transport fields are 0), so rule code is the same for both hook
 * mechanisms.  Each F gets a pointer to it in r1.  The headers are read
 * where they lie when the skb's linear data holds them (NETFILTER: loads
 * through bpf_rdonly_cast() of skb->data; TC: direct packet access), else
 * through a dynptr (NETFILTER) or skb_load_bytes() (TC).  On TC the
 * ingress dispatcher passes the table program l2len in skb->cb[1] and, for
 * FORWARD, the output ifindex in cb[0].  48 bytes past pi (the prologue's
 * scratch space, dead by then) hold a classifier group's or a set's lookup
 * key (an IPv6 set-like run's 16 bytes; not F's own stack, so that F's code
 * can run on main's frame too, where fp - 8 is the prologue's dynptr).
 *
 * Registers inside F:
 *   r6  pointer to pi (callee-saved, set from r1 on entry)
 *   r7  the rule's mismatch accumulator: every condition ORs in a value that
 *       is non-zero iff that condition fails; one "if r7 != 0 goto next"
 *       per rule.  Branch-free matching keeps one conditional jump per rule
 *       (the verifier's 8192-pending-branches limit; see bpf-facts.md).
 *   r8  the rule's hotdrop accumulator (tcp/udp/icmp/multiport on a packet
 *       whose transport header is missing: ip_tables drops it at once)
 *   r9  in a classified run: the smallest map value found so far (r8:
 *       its rule's offset, in a run with kernel rules)
 *   r0-r5 scratch.  F has no stack of its own.
 *   Return value: CG_V_DROP, CG_V_ACCEPT, CG_V_RETURN or (KMOD) CG_V_WALK.
 *
 * No dead code: the verifier removes every instruction range it never
 * visits (and every branch it proves constant, turned into "ja 0") with one
 * memmove of the rest of the program each: one range per rule made a
 * 10,000-rule load spend most of a minute there (soft lockups).  So nothing
 * the verifier can constant-fold is ever tested: a function's verdict is
 * made opaque (r0 += pi.zero, a slot that is 0 but unknown to the
 * verifier) before the caller tests it, since the verifier follows each
 * call and knows which verdicts a chain returns (an empty chain: always
 * RETURN); a "never matches" condition ORs in pi.zero + 1, not 1.
 *
 * Counters: after a rule matched, counters[idx] (one array value holding a
 * struct cg_counter per entry, atomic adds) gets +1 packet and +pi.len
 * bytes (skb->len at the IP layer on NETFILTER; the IP total length on
 * TC), before the verdict, as ipt_do_table() counts.
 *
 * Maps: a program references maps by index into its struct cg_prog maps[]
 * (BPF_PSEUDO_MAP_IDX, codegen.h); the loader turns them into fds.
 *
 * Set-like runs: a run of >= CG_SET_MIN consecutive rules that differ only
 * in the source or destination address (same mask) or in a single tcp/udp
 * port, with the same verdict, is compiled as one hash-map lookup whose
 * value is the first rule's index (for its counter); see runs_set.c.
 * IPv6 runs key a 128-bit address under the run's mask; their jumps stay
 * linear, as every jump of a program that may hand a packet over.
 *
 * Classified runs: consecutive ACCEPT/DROP (or, KMOD, kernel-target)
 * rules testing only masked addresses, interface names, the protocol and
 * exact ports are looked up,
 * one hash map per group of rules with the same masks, and the smallest
 * rule index found wins (tuple-space search; classify.c explains why this
 * is ip_tables' first match, hotdrop included); see runs_classified.c.
 * They are tried before set-like runs.  On KMOD, where the run is in main
 * or the hook may hand packets over anyway, a packet with a tcp/udp
 * header missing (l4state 2) in a run with tcp/udp rules is handed to
 * the module's walk at the run's first rule (in main of a hook that hands
 * nothing else over, the record is written into the resume map there and
 * main returns EBPF_PROG_WALK); elsewhere the maps hold hotdrop twins.
 *
 * Kernel rules (KMOD only; ir.h's ->kernel: a match or target no emitter
 * serves, or a jump into a chain the kernel walks whole): what the program
 * can test of the rule is tested as any rule's (all its conditions when
 * only its target is the kernel's, else its ipt_ip part); if it matches,
 * F writes the rule's blob offset into the resume record in pi
 * (PI_RESUME, depth 0) and returns CG_V_WALK, uncounted.  In a classified
 * run the lookup finds such a rule like any other (its map value carries
 * the offset) and hands over the same way.  Every jump site
 * that gets CG_V_WALK back pushes its own rule's offset (the record's
 * stack shifted up one, the new one at stack[0], so the outermost jump,
 * pushed last, ends up first, as the module wants it; constant stack
 * offsets only) and returns CG_V_WALK; gotos and fall-throughs pass it on
 * unchanged (ipt_do_table() pushes only on jumps).  main copies the
 * record into the resume map and returns EBPF_PROG_WALK: the module walks
 * from there with the kernel's extensions.
 * ======================================================================
 */
#ifndef UMH_CGEN_ABI_H
#define UMH_CGEN_ABI_H

#include "cgen/bpf_insn.h"

/* packet-info layout (offsets from pi's base) */
enum {
	PI_SADDR = 0,	/* u32, network order as in the header */
	PI_DADDR = 8,
	PI_SADDR_H = 16,	/* host order */
	PI_DADDR_H = 24,
	PI_PROTO = 32,
	PI_FRAGNZ = 40,	/* fragment offset != 0 */
	PI_LEN = 48,	/* bytes for the counters */
	PI_SPORT = 56,	/* host order */
	PI_DPORT = 64,
	PI_TCPFL = 72,	/* byte 13 of the TCP header */
	PI_ICMPT = 80,
	PI_ICMPC = 88,
	PI_IN = 96,	/* 16 bytes: input device name, zeros if none */
	PI_OUT = 112,	/* 16 bytes */
	PI_CT = 128,	/* IR_CT_* bits of the packet */
	PI_BAD20 = 136,	/* a 20/8/4-byte transport header match is false */
	PI_BAD8 = 144,
	PI_BAD4 = 152,
	PI_HD20 = 160,	/* ... and drops the packet (hotdrop) */
	PI_HD8 = 168,
	PI_HD4 = 176,
	PI_L4LEN = 184,
	PI_FRAGOFF = 192,
	PI_ZERO = 200,	/* always 0, but unknown to the verifier (see above) */
	PI_PL4 = 208,	/* classifier: proto | l4state << 8 (classify.h) */
	PI_PORTS = 216,	/* classifier: sport << 16 | dport if l4state 1 */
	PI_SIZE = 224,
	/* IPv6 tables: the addresses as they lie in the header, over the
	 * IPv4 address slots (no IPv6 program reads those) */
	PI6_SADDR = 0,
	PI6_DADDR = 16,
	/* a classifier group's or a set's lookup key (48 bytes): beyond
	 * pi, over the prologue's scratch space (FP_TMP2 .. FP_BUF), dead by
	 * then; the stack is tight: main + 7 frames must fit in 512 bytes */
	PI_KEY = 224,
	/* KMOD: once a rule function returns CG_V_WALK no rule is evaluated
	 * any more, so the same bytes hold the resume record being built
	 * (struct ebpf_resume, 40 bytes) while the calls unwind, and 4 more
	 * the key main looks the resume map up with */
	PI_RESUME = 224,
	PI_RESUME_KEY = 264,
};

/* main's stack */
#define FP_DYNPTR	(-16)	/* struct bpf_dynptr (16 bytes) */
#define FP_BUF		(-48)	/* header buffer */
#define FP_BUF_SIZE	32
#define FP_TMP		(-56)
#define FP_TMP2		(-64)
#define PI_BASE		(-288)	/* pi: fp-288 .. fp-64 */

#define CG_SET_MIN	8	/* shortest run compiled to a map lookup */
#define CG_MAX_DEPTH	7	/* frames below main */
/* IPv6: the most extension headers the prologue follows to find the
 * transport header; a packet with more is handed to the module's walk */
#define CG_IP6_MAX_EXT	8
#define CG_OPAQUE_MIN_INSNS 4096	/* smaller: no opaque copy of pi */

/*
 * What the rules reachable from a hook test, so that the prologue extracts
 * only that: which transport header sizes a match needs (its BAD and HD
 * flags) and which of its fields.  Each extension says which it needs
 * (struct ext_match in ext/ext.h).
 */
enum {
	NEED_HDR20 = 1,		/* tcp: a 20-byte header */
	NEED_HDR8 = 2,		/* udp, icmp: 8 bytes */
	NEED_HDR4 = 4,		/* multiport: the ports */
	NEED_F_PORTS = 1,
	NEED_F_ICMP = 2,
	NEED_F_TCPFL = 4,
};

/* transport header sizes the matches read (xt_tcpudp, multiport) */
#define L4_TCP_LEN	20
#define L4_UDP_LEN	8
#define L4_PORTS_LEN	4

#define CG_UNUSED	__attribute__((unused))

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

#endif
