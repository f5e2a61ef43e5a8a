/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The iptables control ABI as the helper serves it: the stored tables and
 * the sockopt handlers main.c dispatches to (implemented in the files
 * beside this one).
 */
#ifndef UMH_IPT_H
#define UMH_IPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* Create the initial tables (filter: INPUT/FORWARD/OUTPUT, ACCEPT policies)
 * and, unless a RESTORE request will bring the previous state,
 * commit them to the enforcement backend (ipt_set_backend() first).
 * 0 or -errno. */
int ipt_init(bool restore_follows);

/**
 * ipt_sockopt_get() - serve an IPT_SO_GET_* request
 * @optname:  IPT_SO_GET_INFO, _ENTRIES (revision queries are the module's)
 * @in:       the first @in_len bytes of the caller's buffer
 * @user_len: the caller's *optlen (the size of its whole buffer)
 * @out:      filled with the bytes to copy back (at most @user_len)
 *
 * Return: 0 or the negative errno ip_tables would return.
 */
/*
 * ipt_use_netns() - serve the next requests in network namespace @netns
 * (the module's number, ebpfilter/proto.h), on its tables of family
 * @nfproto (NFPROTO_IPV4: ip_tables'; NFPROTO_IPV6: ip6_tables', struct
 * ip6t_* in the requests), which are made on first use.  0; -ENOENT when
 * the backend serves only the initial namespace, or not IPv6; -EINVAL for
 * another family; -ENOMEM.
 */
int ipt_use_netns(uint64_t netns, unsigned int nfproto);

/*
 * ipt_netns_gone() - namespace @netns died: its tables (both families')
 * are forgotten, and the backend lets go of what it kept for them.  1 if
 * there were any (the saved state changes), else 0.
 */
int ipt_netns_gone(uint64_t netns);

int ipt_sockopt_get(unsigned int optname, const void *in, size_t in_len,
		    size_t user_len, struct buf *out);

/**
 * ipt_sockopt_set() - serve an IPT_SO_SET_* request
 * @in, @in_len: the caller's whole buffer (in_len == optlen)
 * @out:     for IPT_SO_SET_REPLACE: the old table's counters,
 *           struct xt_counters[num_counters]; else left empty
 * @changed: set true when the committed state changed (a snapshot is due)
 *
 * Return: 0 or the negative errno ip_tables would return.  On error the
 * previous state is untouched.
 */
int ipt_sockopt_set(unsigned int optname, const void *in, size_t in_len,
		    struct buf *out, bool *changed);

/*
 * Serialize the committed tables and their counters (state.c): a
 * snapshot is the tables part followed by the counters part, which can be
 * saved apart (ADD_COUNTERS changes only the counters).  0 or -errno.
 */
int ipt_state_save(struct buf *out);
int ipt_state_save_tables(struct buf *out);
int ipt_state_save_counters(struct buf *out);
/*
 * The tables part piece by piece, for a store that keeps each table apart
 * (vault/state_store.c): ipt_state_save_header() and then each table's
 * ipt_state_save_table(), in ipt_state_for_each_table()'s order (the
 * counters part's), is what ipt_state_save_tables() writes.  @fn's error
 * stops the walk and is returned.
 */
struct ipt_stored_table;
int ipt_state_save_header(uint32_t num_tables, struct buf *out);
int ipt_state_save_table(const struct ipt_stored_table *t, struct buf *out);
int ipt_state_for_each_table(int (*fn)(const struct ipt_stored_table *t,
				       void *arg), void *arg);
/*
 * Lending: a committed table's entries are the same bytes as its record
 * in the tables part the vault keeps (ipt_state_save_table()); the
 * helper then serves them from there instead of keeping a copy of its
 * own.  @rec_of(@k, @len, @arg) gives the k-th table's record
 * (ipt_state_for_each_table()'s order) and its length, NULL for none;
 * a table whose record it is (its header says so, and with @verify its
 * entries compare equal) lends its entries from it.  The record must stay
 * where it is, unchanged, as long as the table's blob is the one in it:
 * the store frees a record only when no kept state holds it, and the
 * latest state holds every committed table's.  ipt_state_own_tables()
 * copies lent entries back (before the records move: a store adopted
 * from a previous helper); 0 or -ENOMEM.
 */
void ipt_state_lend_tables(const unsigned char *(*rec_of)(size_t k, size_t *len,
							 void *arg),
			   void *arg, bool verify);
int ipt_state_own_tables(void);
/* Is @rec (@len bytes) the record @t's entries are lent from? */
bool ipt_state_lends_from(const struct ipt_stored_table *t,
			  const unsigned char *rec, size_t len);
/* Replace the tables with a snapshot from ipt_state_save(); 0 or -errno. */
int ipt_state_restore(const void *data, size_t len);
/* Changes with every commit of a table: whether a saved tables part is
 * still the tables in force. */
unsigned long ipt_tables_generation(void);

#endif
