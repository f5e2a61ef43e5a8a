#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part sockopt-fuzz6: sockopt-fuzz.sh's cases for IPv6, against
# ip6_tables and then ebpfilter with ipv6=1.
SOAK_FUZZ_FAMILY=6 exec bash tests/soak/guest/sockopt-fuzz.sh
