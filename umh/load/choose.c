// SPDX-License-Identifier: GPL-2.0
/*
 * Which hook mechanism enforces the rules.  Every mechanism the helper
 * has (probe.c's order of preference) is probed once at start, before
 * the helper confines itself (enforce_probe(): whether the kernel can do
 * it, and the facts its programs need from the kernel's BTF); the
 * handshake then takes the one the module asks for, or the first that
 * works (enf_choose()), and a refusal says why in dmesg.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "load/bpf_enforce.h"
#include "load/enforce.h"
#include "load/mech.h"

#define ENF_MAX_MECHS	4

/* enforce_probe()'s findings for one mechanism, kept for the handshake */
struct enf_probed {
	bool available;
	int err;		/* enf_probe()'s result, if available */
	char why[192];
	struct enf_kernel ek;
};

static bool probed;
static struct enf_probed probe[ENF_MAX_MECHS];	/* enf_mech_at() order */

void enforce_probe(void)
{
	const struct enf_mech_ops *m;
	unsigned int i;

	if (probed)
		return;
	probed = true;
	for (i = 0; i < ENF_MAX_MECHS && (m = enf_mech_at(i)); i++) {
		struct enf_probed *p = &probe[i];

		p->available = enf_mech_available(m);
		if (p->available)
			p->err = enf_probe(&p->ek, m->name, p->why,
					   sizeof(p->why));
	}
}

int enf_choose(const char *want, struct enf_kernel *ek)
{
	const struct enf_mech_ops *m;
	unsigned int i;

	if (enf_mech_is_auto(want) && getenv("EBPFILTER_FORCE_TC"))
		want = "tc";
	for (i = 0; i < ENF_MAX_MECHS && (m = enf_mech_at(i)); i++) {
		const struct enf_probed *p = &probe[i];

		if (enf_mech_is_auto(want) ? !p->available : strcmp(m->name, want))
			continue;
		if (!p->available) {
			log_err("enforcement: the module asked for %s, which needs %s\n",
				want, m->needs ? m->needs : "what this kernel lacks");
			return -EOPNOTSUPP;
		}
		if (p->err) {
			log_err("enforcement: %s: %s\n", m->name, p->why);
			return p->err;
		}
		*ek = p->ek;
		return 0;
	}
	if (enf_mech_is_auto(want))
		log_err("enforcement: no hook mechanism works on this kernel\n");
	else
		log_err("enforcement: the module asked for \"%s\", a mechanism the helper does not have\n",
			want);
	return -EOPNOTSUPP;
}
