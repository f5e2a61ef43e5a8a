/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helper's ELF image, embedded in the module so that the module's
 * signature covers it and no file on disk can be swapped for it.  It only
 * needs to be read once, at load, into the private shmem copy that every
 * (re)start executes: so it lives in init data and is freed after init.
 */
	.section .init.rodata, "a"
	.balign 8
	.global ebpf_helper_image_start
ebpf_helper_image_start:
	.incbin EBPF_HELPER_PATH
	.global ebpf_helper_image_end
ebpf_helper_image_end:
