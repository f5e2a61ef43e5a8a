// SPDX-License-Identifier: GPL-2.0
/*
 * The control file (include/ebpfilter/ctl.h): an anonymous inode installed
 * as fd EBPF_CTL_FD in every helper the module starts, and nowhere else.
 * Its ioctls run in the helper's own process, where the BPF fds it passes
 * resolve.
 *
 * The file holds no reference on this module (fops.owner is NULL): a
 * reference held by the helper's fd table would keep rmmod from ever
 * reaching the exit that stops the helper.  The exit stops and reaps the
 * helper, the only holder, before the module's text goes away.
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "ebpfilter.h"
#include "xt_engine.h"

static long ctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ebpf_ctl_install req;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	switch (cmd) {
	case EBPF_IOC_INSTALL:
		if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
			return -EFAULT;
		return ebpf_xt_install(&req);
	case EBPF_IOC_FEATURES:
		return put_user((u32)(EBPF_MAPS_NEED_CARRIER ?
				      EBPF_CTL_FEAT_MAPS_PROG : 0) |
				(serve_ipv6 && compile_ipv6 ?
				 EBPF_CTL_FEAT_IP6_PROGS : 0),
				(u32 __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ctl_fops = {
	.unlocked_ioctl = ctl_ioctl,
	.llseek = noop_llseek,
};

struct file *ebpf_ctl_file_create(void)
{
	return anon_inode_getfile("[ebpfilter-ctl]", &ctl_fops, NULL, O_RDWR);
}
