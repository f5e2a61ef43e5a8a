// SPDX-License-Identifier: GPL-2.0
/* The table of extensions (ext.h) and the lookups every stage uses. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>

#include "ext/ext.h"

static const struct ext_desc *const registry[] = {
	&ext_tcp, &ext_udp, &ext_icmp, &ext_multiport, &ext_iprange,
	&ext_comment, &ext_conntrack, &ext_state,
	&ext_standard, &ext_error,
};

#define N_EXT (sizeof(registry) / sizeof(registry[0]))

unsigned int ext_count(void)
{
	return N_EXT;
}

const struct ext_desc *ext_at(unsigned int i)
{
	return i < N_EXT ? registry[i] : NULL;
}

const struct ext_desc *ext_find(const char *name, bool target)
{
	unsigned int i;

	if (strnlen(name, XT_EXTENSION_MAXNAMELEN) == XT_EXTENSION_MAXNAMELEN)
		return NULL;
	for (i = 0; i < N_EXT; i++)
		if (registry[i]->target == target &&
		    !strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

const struct ext_rev *ext_rev(const struct ext_desc *x, uint8_t rev)
{
	unsigned int i;

	for (i = 0; i < x->nrevs; i++)
		if (x->revs[i].revision == rev)
			return &x->revs[i];
	return NULL;
}

const struct ext_desc *ext_of_kind(int kind)
{
	unsigned int i;

	for (i = 0; kind && i < N_EXT; i++)
		if (registry[i]->ir_kind == kind)
			return registry[i];
	if (kind && kind == ext_icmp6.ir_kind)
		return &ext_icmp6;
	return NULL;
}

bool ext_ipv6_ok(const struct ext_desc *x)
{
	return x == &ext_tcp || x == &ext_udp || x == &ext_comment ||
	       x == &ext_multiport || x == &ext_state || x == &ext_conntrack;
}

int ext_fail(char *err, size_t err_len, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && err_len) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return e;
}
