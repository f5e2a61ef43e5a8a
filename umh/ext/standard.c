// SPDX-License-Identifier: GPL-2.0
/*
 * The two targets of ip_tables.c: the standard target (an absolute
 * verdict, RETURN or a jump offset) and ERROR (a user chain's head,
 * dropping the packet if ever reached).  No payload check here: the
 * verdicts are checked with the chains (ipt/validate.c); ir/ir.c decodes
 * them into a rule's verdict.
 */
#include <linux/netfilter/x_tables.h>

#include "ext/ext.h"

const struct ext_desc ext_standard = {
	.name = XT_STANDARD_TARGET,
	.target = true,
	.nrevs = 1,
	.revs = { { 0, sizeof(int) } },
};

const struct ext_desc ext_error = {
	.name = XT_ERROR_TARGET,
	.target = true,
	.nrevs = 1,
	.revs = { { 0, XT_FUNCTION_MAXNAMELEN } },
};
