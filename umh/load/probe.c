// SPDX-License-Identifier: GPL-2.0
/*
 * Probing the running kernel: which hook mechanisms it supports (mechs[],
 * in order of preference) and the facts their programs need.  Raw
 * instructions have no CO-RE, so for netfilter programs the offsets of
 * the kernel structures they read are looked up in its BTF here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/netfilter.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgen/bpf_insn.h"
#include "load/bpf_enforce.h"
#include "load/mech.h"

/* In order of preference: the first available one is used. */
static const struct enf_mech_ops *const mechs[] = {
	&enf_mech_kmod,
	&enf_mech_netfilter,
	&enf_mech_tc,
};

#define N_MECHS	(sizeof(mechs) / sizeof(mechs[0]))

const struct enf_mech_ops *enf_mech_at(unsigned int i)
{
	return i < N_MECHS ? mechs[i] : NULL;
}

bool enf_mech_available(const struct enf_mech_ops *m)
{
	return !m->available || m->available();
}

bool enf_mech_is_auto(const char *want)
{
	return !want || !*want || !strcmp(want, "auto");
}

/* Byte offset of member @name in struct @sname (looking through anonymous
 * struct/union members), or -1. */
static int member_off_in(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i, n;

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	n = btf_vlen(t);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bit = btf_member_bit_offset(t, i);

		if (mn && !strcmp(mn, name))
			return (int)(bit / 8);
		if (!mn || !*mn) {
			int o = member_off_in(btf, m->type, name);

			if (o >= 0)
				return (int)(bit / 8) + o;
		}
	}
	return -1;
}

static int member_off(const struct btf *btf, const char *sname,
		      const char *name)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	return id < 0 ? -1 : member_off_in(btf, (__u32)id, name);
}

bool probe_netfilter_progs(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, NF_ACCEPT),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_NETFILTER);
	int fd = bpf_prog_load(BPF_PROG_TYPE_NETFILTER, "ebpf_probe", "GPL",
			       insns, sizeof(insns) / sizeof(insns[0]), &o);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int probe_netfilter_btf(struct cg_kernel *k, char *err, size_t len)
{
	struct btf *vm, *ctbtf = NULL;

	vm = btf__load_vmlinux_btf();
	if (!vm) {
		snprintf(err, len, "netfilter programs need the kernel's BTF: %s",
			 strerror(errno));
		return -ENOENT;
	}
	k->kf_dynptr_from_skb = btf__find_by_name_kind(vm, "bpf_dynptr_from_skb",
						       BTF_KIND_FUNC);
	k->kf_dynptr_slice = btf__find_by_name_kind(vm, "bpf_dynptr_slice",
						    BTF_KIND_FUNC);
	k->off_state_in = member_off(vm, "nf_hook_state", "in");
	k->off_state_out = member_off(vm, "nf_hook_state", "out");
	k->off_dev_name = member_off(vm, "net_device", "name");
	k->off_skb_len = member_off(vm, "sk_buff", "len");
	k->off_skb_nfct = member_off(vm, "sk_buff", "_nfct");
	k->off_ct_status = member_off(vm, "nf_conn", "status");
	if (k->off_ct_status < 0) {
		/* struct nf_conn lives in nf_conntrack.ko's BTF */
		ctbtf = btf__load_module_btf("nf_conntrack", vm);
		if (ctbtf)
			k->off_ct_status = member_off(ctbtf, "nf_conn", "status");
		btf__free(ctbtf);
	}
	/* reading the headers in place needs bpf_rdonly_cast() (6.2) */
	k->kf_rdonly_cast = btf__find_by_name_kind(vm, "bpf_rdonly_cast",
						   BTF_KIND_FUNC);
	k->off_skb_data = member_off(vm, "sk_buff", "data");
	k->off_skb_data_len = member_off(vm, "sk_buff", "data_len");
	k->btf_iphdr = btf__find_by_name_kind(vm, "iphdr", BTF_KIND_STRUCT);
	k->btf_tcphdr = btf__find_by_name_kind(vm, "tcphdr", BTF_KIND_STRUCT);
	k->btf_nf_hook_state = btf__find_by_name_kind(vm, "nf_hook_state",
						      BTF_KIND_STRUCT);
	k->direct = k->kf_rdonly_cast > 0 && k->off_skb_data >= 0 &&
		    k->off_skb_data_len >= 0 && k->btf_iphdr > 0 &&
		    k->btf_tcphdr > 0 && k->btf_nf_hook_state > 0;
	btf__free(vm);
	if (k->kf_dynptr_from_skb <= 0 || k->kf_dynptr_slice <= 0 ||
	    k->off_state_in < 0 || k->off_state_out < 0 ||
	    k->off_dev_name < 0 || k->off_skb_len < 0) {
		snprintf(err, len,
			 "kernel BTF lacks what netfilter programs need (dynptr kfuncs, nf_hook_state, sk_buff)");
		return -ENOENT;
	}
	return 0;
}

int enf_probe(struct enf_kernel *ek, const char *want, char *err, size_t len)
{
	const struct enf_mech_ops *m = NULL;
	struct cg_kernel *k = &ek->k;
	bool any = enf_mech_is_auto(want);
	size_t i;
	int r;

	memset(ek, 0, sizeof(*ek));
	k->off_skb_nfct = k->off_ct_status = -1;
	for (i = 0; i < N_MECHS && !m; i++) {
		if (!any && strcmp(mechs[i]->name, want))
			continue;
		if (enf_mech_available(mechs[i]))
			m = mechs[i];
		else if (!any)
			break;
	}
	if (!m) {
		if (any)
			snprintf(err, len, "no hook mechanism works on this kernel");
		else if (i < N_MECHS)
			snprintf(err, len, "mechanism %s is not available here",
				 want);
		else
			snprintf(err, len, "no mechanism is called %s", want);
		return -EOPNOTSUPP;
	}
	ek->ops = m;
	ek->mech = m->cg;
	if (!m->kernel)
		return 0;
	r = m->kernel(k, err, len);
	if (r)
		return r;
	ek->have_btf = true;
	return 0;
}
