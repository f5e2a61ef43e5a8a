// SPDX-License-Identifier: GPL-2.0
/* err_name(): tests/lib/err_name.h */
#define _GNU_SOURCE
#include <string.h>

#include "err_name.h"

const char *err_name(int err)
{
	const char *n;

	if (!err)
		return "ok";
	n = strerrorname_np(err);
	return n ? n : "E?";
}
