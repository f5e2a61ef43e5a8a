// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables and ip6tables sockopts on the stored tables (table.c):
 * GET_INFO, GET_ENTRIES, SET_REPLACE and SET_ADD_COUNTERS, answered as
 * ip_tables answers them (net/ipv4/netfilter/ip_tables.c: get_info(),
 * get_entries(), do_replace(), __do_replace(), do_add_counters(),
 * do_ipt_get_ctl()) and ip6_tables the same (ip6_tables.c: the same
 * functions, on struct ip6t_* of the same layouts; the entries differ,
 * family.h).  The revision queries are the module's.
 *
 * The module has already made the length checks that precede any copy
 * from user memory; they are repeated here because the request comes
 * over a channel and every field in it is checked where it is used.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ipt/ipt.h"
#include "ipt/table.h"

/* get_info() */
static int get_info(const void *in, size_t in_len, size_t user_len,
		    struct buf *out)
{
	char name[XT_TABLE_MAXNAMELEN];
	struct ipt_stored_table *t;
	struct ipt_getinfo *info;
	int err;

	if (user_len != sizeof(struct ipt_getinfo))
		return -EINVAL;
	if (in_len < sizeof(name))
		return -EINVAL;		/* the module sends the name */
	memcpy(name, in, sizeof(name));
	name[sizeof(name) - 1] = '\0';

	err = ipt_table_use(name, &t);
	if (err)
		return err;
	info = buf_append_zero(out, sizeof(*info));
	if (!info)
		return -ENOMEM;
	strcpy(info->name, name);
	info->valid_hooks = t->valid_hooks;
	memcpy(info->hook_entry, t->blob.hook_entry, sizeof(info->hook_entry));
	memcpy(info->underflow, t->blob.underflow, sizeof(info->underflow));
	info->num_entries = t->blob.num_entries;
	info->size = t->blob.size;
	return 0;
}

/*
 * get_entries().  The reply is the entry table only: the module copies it
 * behind the caller's struct ipt_get_entries, which ip_tables does not
 * rewrite either.
 */
static int get_entries(const void *in, size_t in_len, size_t user_len,
		       struct buf *out)
{
	struct ipt_stored_table *t;
	struct ipt_get_entries get;
	struct xt_counters *c;
	unsigned char *p;
	unsigned int off, i;
	int err;

	if (user_len < sizeof(get) || in_len < sizeof(get))
		return -EINVAL;
	memcpy(&get, in, sizeof(get));
	if (user_len != sizeof(get) + (unsigned long long)get.size)
		return -EINVAL;
	get.name[sizeof(get.name) - 1] = '\0';

	err = ipt_table_use(get.name, &t);
	if (err)
		return err;
	if (get.size != t->blob.size)
		return -EAGAIN;

	c = calloc(t->blob.num_entries, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = ipt_table_read_counters(t, c);
	if (err)
		goto out;
	p = buf_append_zero(out, t->blob.size);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	err = ipt_blob_copy(&t->blob, p);
	if (err)
		goto out;
	for (off = 0, i = 0; off < t->blob.size; i++) {
		memcpy(ipt_e_counters(t->family, p + off), &c[i], sizeof(c[i]));
		off += ipt_e_next_offset(t->family, p + off);
	}
out:
	free(c);
	return err;
}

int ipt_sockopt_get(unsigned int optname, const void *in, size_t in_len,
		    size_t user_len, struct buf *out)
{
	switch (optname) {
	case IPT_SO_GET_INFO:
		return get_info(in, in_len, user_len, out);
	case IPT_SO_GET_ENTRIES:
		return get_entries(in, in_len, user_len, out);
	default:
		return -EINVAL;
	}
}

/* do_replace() and __do_replace() */
static int replace(const void *in, size_t in_len, struct buf *out)
{
	size_t out_len = out->len;
	struct ipt_stored_table *t;
	struct ipt_replace repl;
	struct xt_counters *old;
	struct ipt_blob nb;
	int err;

	if (in_len < sizeof(repl))
		return -EINVAL;
	memcpy(&repl, in, sizeof(repl));
	if (repl.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (repl.num_counters == 0)
		return -EINVAL;
	if ((unsigned long long)in_len < (unsigned long long)repl.size +
					 sizeof(repl))
		return -EINVAL;
	repl.name[sizeof(repl.name) - 1] = '\0';

	err = ipt_translate_family(ipt_current_family(), &repl,
				   (const unsigned char *)in + sizeof(repl),
				   &nb);
	if (err)
		return err;

	/* __do_replace(): xt_counters_alloc() refuses more than
	 * XT_MAX_TABLE_SIZE (512 MiB) of counters, before the table is looked
	 * up and the counters' number compared (make soak's sockopt fuzzer) */
	if ((unsigned long long)repl.num_counters * sizeof(struct xt_counters) >
	    512ULL << 20) {
		err = -ENOMEM;
		goto fail;
	}
	err = ipt_table_use(repl.name, &t);
	if (err)
		goto fail;
	/* "You lied!" */
	if (repl.valid_hooks != t->valid_hooks) {
		err = -EINVAL;
		goto fail;
	}
	/* xt_replace_table(): the caller read an older table; libiptc retries. */
	if (repl.num_counters != t->blob.num_entries) {
		err = -EAGAIN;
		goto fail;
	}
	old = buf_append_zero(out, repl.num_counters * sizeof(*old));
	if (!old) {
		err = -ENOMEM;
		goto fail;
	}
	err = ipt_table_commit(t, &nb, NULL, old);
	if (err)
		goto fail;
	return 0;
fail:
	out->len = out_len;
	ipt_blob_free(&nb);
	return err;
}

/* do_add_counters() with xt_copy_counters() */
static int add_counters(const void *in, size_t in_len)
{
	const unsigned char *add = (const unsigned char *)in +
				   sizeof(struct xt_counters_info);
	struct ipt_stored_table *t;
	struct xt_counters_info info;
	unsigned int i;
	int err;

	if (in_len <= sizeof(info))
		return -EINVAL;
	memcpy(&info, in, sizeof(info));
	info.name[sizeof(info.name) - 1] = '\0';
	if ((unsigned long long)info.num_counters * sizeof(struct xt_counters) !=
	    in_len - sizeof(info))
		return -EINVAL;

	err = ipt_table_use(info.name, &t);
	if (err)
		return err;
	if (t->blob.num_entries != info.num_counters)
		return -EINVAL;
	for (i = 0; i < info.num_counters; i++) {
		struct xt_counters c;

		memcpy(&c, add + i * sizeof(c), sizeof(c));
		t->base[i].bcnt += c.bcnt;
		t->base[i].pcnt += c.pcnt;
	}
	return 0;
}

int ipt_sockopt_set(unsigned int optname, const void *in, size_t in_len,
		    struct buf *out, bool *changed)
{
	int err;

	switch (optname) {
	case IPT_SO_SET_REPLACE:
		err = replace(in, in_len, out);
		break;
	case IPT_SO_SET_ADD_COUNTERS:
		err = add_counters(in, in_len);
		break;
	default:
		return -EINVAL;
	}
	if (!err)
		*changed = true;
	return err;
}
