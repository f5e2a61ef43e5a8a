#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code generation with BPF_PROG_TEST_RUN on crafted packets
# (tests/codegen/cgtest.c): every match and target, chains, hotdrop,
# counters; classified runs against linear code on random rule sets; 10,000
# rules load.  Every mechanism the kernel has (6.12: netfilter and tc;
# 6.1: tc).  The guest is strict: a WARN or BUG in the verifier fails it.
# run-all-timeout: 900
# run-all-cost: 45
set -eu
. tests/vm/lib.sh
require_guest

cg=tests/codegen/cgtest
[ -x "$cg" ] || fail "$cg not built (make -C tests/codegen)"
out=$("$cg" 2>&1) || { echo "$out"; fail "cgtest failed"; }
echo "$out" | grep -E '^(mechanism|FAIL|[0-9]+ passed)'
echo "$out" | tail -n1 | grep -Eq '^[1-9][0-9]* passed, 0 failed$' || fail "cgtest: no pass line"
note "ok"
