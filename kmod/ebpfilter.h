/* SPDX-License-Identifier: GPL-2.0 */
/* Module-wide declarations shared by the kmod/ files. */
#ifndef EBPFILTER_H
#define EBPFILTER_H

#include <linux/init.h>
#include <linux/types.h>

struct ebpf_exchange;
struct ebpf_net;
struct net;

/*
 * max_table_bytes' ceiling (60 MiB): a rule blob travels to the helper in
 * one channel message, whose payload is at most EBPF_PROTO_MAX_PAYLOAD
 * (64 MiB) including struct ipt_replace and the message's own fields.
 */
#define EBPF_MAX_TABLE_BYTES_CEILING	(60u << 20)

/* Module parameters (main.c). */
extern unsigned int handshake_timeout_ms;
extern unsigned int request_timeout_ms;
extern unsigned int max_table_bytes;
extern unsigned int max_netns_bytes;
extern unsigned int max_total_bytes;
extern bool init_userns_only;
extern char *mechanism;
extern bool phase_timing;
extern bool serve_ipv6;		/* the ipv6 parameter */
extern bool ipv6_given;		/* it was given (else the helper decides) */
extern bool compile_ipv6;	/* the ipv6_bpf parameter */

/* The embedded helper image (helper_blob.S; init data). */
extern const char ebpf_helper_image_start[];
extern const char ebpf_helper_image_end[];

/* supervisor.c: one helper, one request at a time. */
int __init ebpf_sup_init(void);
void ebpf_sup_exit(void);
int ebpf_sup_call(struct ebpf_exchange *x);
int ebpf_sup_helper_pid(void);
void ebpf_sup_netns_gone(u64 id);

/* sockopt.c: the iptables (IPv4) sockopt range, and ip6tables' (IPv6)
 * with serve_ipv6.
 */
int ebpf_sockopt_register(void);
void ebpf_sockopt_unregister(void);

/* netns.c: what the module keeps per network namespace. */
int __init ebpf_netns_init(void);
void ebpf_netns_exit(void);

/* procfs.c: /proc/net/ip_tables_names (ip6_tables_names), per namespace. */
int ebpf_procfs_init(void);
void ebpf_procfs_exit(void);

/*
 * xt_*.c: the rule sets the helper installs (ctl.c), run at this module's
 * own netfilter hooks with the kernel's x_tables extensions.
 */
int __init ebpf_xt_init(void);
void ebpf_xt_exit(void);
void ebpf_xt_drop_ipv6(void);
struct file *ebpf_ctl_file_create(void);

#endif
