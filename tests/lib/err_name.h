/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An errno as the guest tools print it in their per-case lines: "ok" for
 * 0, else the errno's name ("EINVAL"), which the scripts compare between
 * ip_tables and ebpfilter.  One definition for ipt-badblob and soak-tool.
 */
#ifndef TESTS_ERR_NAME_H
#define TESTS_ERR_NAME_H

const char *err_name(int err);

#endif
