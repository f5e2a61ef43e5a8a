/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only fault injection (tests/soak/): a helper built with
 * -DEBPF_TEST_FAULTS (ebpfilter-umh-faults) reads one fault point from
 * /run/ebpfilter-fault at its start, removes the file (one helper is
 * armed per write: its restarted successor is not), and dies at that
 * point.  In every other build test_fault() is nothing and the code is
 * not compiled.
 */
#ifndef EBPF_UMH_TEST_FAULTS_H
#define EBPF_UMH_TEST_FAULTS_H

#ifdef EBPF_TEST_FAULTS
/* Read and remove the fault file; before the helper confines itself. */
void test_faults_arm(void);
/* Die here (_exit(134)) if @point is the armed one and its count is up. */
void test_fault(const char *point);
#else
static inline void test_faults_arm(void) { }
static inline void test_fault(const char *point) { (void)point; }
#endif

#endif
