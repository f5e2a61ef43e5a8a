// SPDX-License-Identifier: GPL-2.0
/* The fake kernel's struct cg_kernel (fake_kernel.h). */
#include "fake_kernel.h"

const struct cg_kernel host_kernel = {
	.kf_dynptr_from_skb = KF_FROM_SKB, .kf_dynptr_slice = KF_SLICE,
	.off_state_in = STATE_IN, .off_state_out = STATE_OUT,
	.off_dev_name = DEV_NAME, .off_skb_len = SKB_LEN, .off_skb_nfct = SKB_NFCT,
	.off_ct_status = CT_STATUS, .direct = true, .kf_rdonly_cast = KF_CAST,
	.off_skb_data = SKB_DATA, .off_skb_data_len = SKB_DATA_LEN,
	.btf_iphdr = BTF_IPHDR, .btf_tcphdr = BTF_TCPHDR,
	.btf_nf_hook_state = BTF_STATE,
};
