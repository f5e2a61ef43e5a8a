// SPDX-License-Identifier: GPL-2.0
/* comment (xt_comment.c): text for the reader, matches every packet. */
#include <linux/netfilter/xt_comment.h>

#include "ext/ext.h"

static int comment_decode(const struct ext_decode *d EXT_UNUSED,
			  struct ir_match *m EXT_UNUSED)
{
	return EXT_MATCHES_ALL;
}

const struct ext_desc ext_comment = {
	.name = "comment",
	.unspec = true,
	.nrevs = 1,
	.revs = { { 0, sizeof(struct xt_comment_info) } },
	.decode = comment_decode,
};
