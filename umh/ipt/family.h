/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two families' entries: struct ipt_entry (ip_tables) and struct
 * ip6t_entry (ip6_tables) differ only in their leading IP part (struct
 * ipt_ip, struct ip6t_ip6); nfcache, target_offset, next_offset,
 * comefrom, counters and the matches follow in the same order, at
 * offsets of their own (ip6t_entry pads before its counters).  A family
 * descriptor says where, so that translate_table(), the stored tables and
 * the snapshot are written once for both.
 */
#ifndef UMH_IPT_FAMILY_H
#define UMH_IPT_FAMILY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netfilter/x_tables.h>

/**
 * struct ipt_family - what differs between ip_tables' and ip6_tables' entries
 * @nfproto:      NFPROTO_IPV4 or NFPROTO_IPV6
 * @tool:         "iptables" or "ip6tables": what dmesg lines about its
 *                tables start with
 * @entry_size:   sizeof(struct ipt_entry) or sizeof(struct ip6t_entry):
 *                where the matches begin
 * @ip_size:      the leading IP part's size (what unconditional() compares)
 * @target_off, @next_off, @comefrom_off, @counters_off: offsetof() the
 *                fields of the same names in the entry
 * @ip_ok:        ip_checkentry() / ip6_checkentry() on the IP part
 */
struct ipt_family {
	unsigned int nfproto;
	const char *tool;
	unsigned int entry_size, ip_size;
	unsigned int target_off, next_off, comefrom_off, counters_off;
	bool (*ip_ok)(const void *ip);
};

extern const struct ipt_family ipt_family_ipv4;
extern const struct ipt_family ipt_family_ipv6;

/* The descriptor of NFPROTO_IPV4 or NFPROTO_IPV6; NULL for another. */
const struct ipt_family *ipt_family_of(unsigned int nfproto);

/*
 * The fields of an entry of family @f.  An entry is read only once its
 * start is known to be 8-aligned and its header inside the blob (as the
 * kernel reads it), so the fields are at their natural alignment.
 */
static inline uint16_t ipt_e_target_offset(const struct ipt_family *f,
					   const void *e)
{
	return *(const uint16_t *)((const unsigned char *)e + f->target_off);
}

static inline uint16_t ipt_e_next_offset(const struct ipt_family *f,
					 const void *e)
{
	return *(const uint16_t *)((const unsigned char *)e + f->next_off);
}

static inline void ipt_e_set_offsets(const struct ipt_family *f, void *e,
				     uint16_t target_offset,
				     uint16_t next_offset)
{
	*(uint16_t *)((unsigned char *)e + f->target_off) = target_offset;
	*(uint16_t *)((unsigned char *)e + f->next_off) = next_offset;
}

static inline unsigned int *ipt_e_comefrom(const struct ipt_family *f,
					   void *e)
{
	return (unsigned int *)((unsigned char *)e + f->comefrom_off);
}

static inline struct xt_counters *ipt_e_counters(const struct ipt_family *f,
						 void *e)
{
	return (struct xt_counters *)((unsigned char *)e + f->counters_off);
}

/* The entry's target (see any_target in validate.c for its alignment). */
static inline const void *ipt_e_target(const struct ipt_family *f,
				       const void *e)
{
	return (const unsigned char *)e + ipt_e_target_offset(f, e);
}

#endif
