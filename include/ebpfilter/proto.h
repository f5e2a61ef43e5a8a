/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ebpfilter wire protocol: the private channel between ebpfilter.ko and its
 * embedded helper (ebpfilter-umh).
 *
 * The channel is a connected AF_UNIX SOCK_STREAM pair; the helper's end is
 * its fd 0 (and 1).  Every message, in both directions, is one fixed-width
 * header followed by exactly hdr.len payload bytes.  The kernel sends a
 * request, the helper answers it with a reply carrying the same id; there is
 * never more than one request in flight.  Both sides treat every field the
 * other side sends as untrusted: lengths are checked against the maximum
 * below and against what the request allows before anything is copied.
 *
 * All fields are in host byte order (both ends run on the same machine).
 * The layout has no implicit padding and is identical for 32- and 64-bit
 * builds.  Shared by kmod/ (kernel) and umh/ (musl userspace).
 */
#ifndef EBPFILTER_PROTO_H
#define EBPFILTER_PROTO_H

#include <linux/types.h>

#define EBPF_PROTO_MAGIC	0x46504245u	/* "EBPF" on little endian */
#define EBPF_PROTO_VERSION	4

/* Largest payload either side accepts in one message (64 MiB). */
#define EBPF_PROTO_MAX_PAYLOAD	(64u << 20)

/* Message types (hdr.type). */
enum ebpf_msg_type {
	/* kernel -> helper: payload struct ebpf_hello; reply: struct ebpf_hello */
	EBPF_MSG_HELLO		= 1,
	/*
	 * kernel -> helper: an iptables getsockopt.  Payload: struct
	 * ebpf_sockopt followed by the first `in_len` bytes the caller passed
	 * in.  Reply: status 0 and the bytes to copy back to the caller
	 * (at most ebpf_sockopt.user_len), or status -errno and no payload.
	 */
	EBPF_MSG_SOCKOPT_GET	= 2,
	/*
	 * kernel -> helper: an iptables setsockopt.  Payload: struct
	 * ebpf_sockopt followed by the caller's `in_len` bytes.  Reply: status
	 * 0 or -errno.  For IPT_SO_SET_REPLACE a successful reply's payload is
	 * the old counters (struct xt_counters[num_counters]) that the kernel
	 * writes to the caller's ipt_replace.counters pointer.
	 */
	EBPF_MSG_SOCKOPT_SET	= 3,
	/*
	 * kernel -> helper: payload struct ebpf_restore, naming the last
	 * state a previous helper committed (see EBPF_F_STATE); sent once,
	 * right after the handshake of a restarted helper.  Reply: status only.
	 */
	EBPF_MSG_RESTORE	= 4,
	/* kernel -> helper: release everything, then answer and exit. */
	EBPF_MSG_SHUTDOWN	= 5,
	/* kernel -> helper: no payload; reply: status 0.  Liveness probe. */
	EBPF_MSG_PING		= 6,
	/*
	 * kernel -> helper: network namespaces that died.  Payload: __u64
	 * ids (struct ebpf_sockopt.netns), at most EBPF_NETNS_GONE_MAX.  The
	 * module has already unhooked and freed their tables; the helper
	 * forgets them.  Reply: status only (EBPF_F_STATE when it saved).
	 */
	EBPF_MSG_NETNS_GONE	= 7,
};

/*
 * Network namespaces.  The module numbers every namespace it sees, from 1
 * (the initial one) up, and never gives a number twice while it is
 * loaded: the helper keys its tables by that number, so a namespace made
 * after another died never meets the dead one's rules.  The helper's state
 * lives no longer than the module (the vault is the module's).
 */
#define EBPF_NETNS_INIT		1
#define EBPF_NETNS_GONE_MAX	512

/* hdr.flags */
#define EBPF_F_REPLY	0x0001	/* set on every helper -> kernel message */
/*
 * A successful reply with EBPF_F_STATE says: this request changed the
 * helper's tables, and the helper has saved the new state under this
 * request's id.  The helper keeps its saved states (the latest two) in the
 * vault, the datagram socket pair the module holds across helper restarts
 * (umh/vault/vault.c), so no table image crosses the channel.  The kernel only
 * remembers the id of the last reply with this flag: that is the state the
 * caller was told is committed, and a restarted helper is asked to restore
 * exactly that one (EBPF_MSG_RESTORE), not a newer one saved by a helper
 * that died before it could answer.
 */
#define EBPF_F_STATE	0x0002

/*
 * Connection tracking.  ip_tables enables conntrack in a namespace only
 * while a rule needs it (nf_ct_netns_get at rule check time, before the
 * rule is live); the module does the same on the helper's behalf:
 *  - kernel -> helper, on every request: EBPF_F_CONNTRACK_ON while the
 *    module holds the initial namespace's conntrack reference;
 *  - helper -> kernel: EBPF_F_WANT_CONNTRACK (status -EAGAIN, nothing
 *    changed) when the request needs conntrack and it is not on: the
 *    module takes the reference and sends the same request again;
 *  - helper -> kernel: EBPF_F_CONNTRACK_UNUSED when the tables now in
 *    force no longer need it: the module drops the reference.
 */
#define EBPF_F_CONNTRACK_ON	0x0004
#define EBPF_F_WANT_CONNTRACK	0x0008
#define EBPF_F_CONNTRACK_UNUSED	0x0010

/**
 * struct ebpf_msg_hdr - header of every message on the channel
 * @magic:   EBPF_PROTO_MAGIC
 * @version: EBPF_PROTO_VERSION of the sender
 * @type:    enum ebpf_msg_type; a reply repeats the request's type
 * @flags:   EBPF_F_*
 * @id:      request id chosen by the kernel; a reply repeats it
 * @status:  replies: 0 or a negative errno; requests: 0
 * @len:     number of payload bytes that follow the header
 * @reserved2: 0
 */
struct ebpf_msg_hdr {
	__u32 magic;
	__u16 version;
	__u16 type;
	__u16 flags;
	__u16 reserved;
	__u32 id;
	__s32 status;
	__u32 len;
	__u32 reserved2;
	__u32 pad;
};

/* Kernel's ebpf_hello.features: a RESTORE request follows the handshake. */
#define EBPF_HELLO_RESTORE_FOLLOWS	0x0001
/* Kernel's ebpf_hello.features: log phase timings (module phase_timing). */
#define EBPF_HELLO_PHASE_TIMING		0x0002

/* Features a helper announces in ebpf_hello.features. */
#define EBPF_FEAT_IPT_FILTER	0x0001	/* serves the iptables filter table */
#define EBPF_FEAT_BPF_ENFORCE	0x0002	/* compiles rules to BPF */
#define EBPF_FEAT_IP6T		0x0004	/* serves ip6_tables' tables too */

/**
 * struct ebpf_hello - handshake, both directions
 * @proto_version: EBPF_PROTO_VERSION of the sender
 * @features:      kernel: EBPF_HELLO_*; helper: EBPF_FEAT_* it provides
 * @pid:           helper: its own pid as it sees it; kernel: 0
 * @version:       NUL-terminated version string of the sender
 * @mechanism:     kernel: NUL-terminated name of the enforcement hook the
 *                 helper reports back ("netfilter", "tc", ...); helper
 *                 fills it in its reply
 */
struct ebpf_hello {
	__u32 proto_version;
	__u32 features;
	__u32 pid;
	__u32 reserved;
	char version[32];
	char mechanism[32];
};

/**
 * struct ebpf_restore - payload of EBPF_MSG_RESTORE
 * @state_id: id of the request whose reply last carried EBPF_F_STATE
 * @reserved: 0
 */
struct ebpf_restore {
	__u32 state_id;
	__u32 reserved;
};

/**
 * struct ebpf_sockopt - an iptables socket option being proxied
 * @optname:  IPT_SO_* value (@family NFPROTO_IPV4, level SOL_IP) or
 *            IP6T_SO_* value (NFPROTO_IPV6, level SOL_IPV6): the same
 *            numbers for the four requests the helper sees (the revision
 *            queries differ, IP6T_BASE_CTL + 4/5, and the module answers
 *            those itself)
 * @user_len: the length the caller gave (set: optlen; get: *optlen)
 * @in_len:   how many bytes of the caller's buffer follow this struct
 * @family:   NFPROTO_IPV4 (2): ip_tables' ABI (struct ipt_replace,
 *            ipt_entry...); NFPROTO_IPV6 (10): ip6_tables' (ip6t_replace,
 *            ip6t_entry...).  The two families' tables are separate, as
 *            ip_tables' and ip6_tables' are.
 * @netns:    the caller's network namespace (EBPF_NETNS_INIT: the initial
 *            one); its tables are the ones the request reads or changes
 */
struct ebpf_sockopt {
	__u32 optname;
	__u32 user_len;
	__u32 in_len;
	__u32 family;
	__u64 netns;
};

#endif /* EBPFILTER_PROTO_H */
