# SPDX-License-Identifier: GPL-2.0
#
# kbuild's quiet/verbose convention, for ebpfilter's own Makefiles (the top
# one, umh/, tests/).  A step prints one short line,
#   $(call quiet,TAG,FILE)     "  CC      umh/main.c" (FILE relative to the
#                              top of the tree), followed by its command;
# $(Q) hides a command that prints nothing of its own.  V=1 prints the
# full commands instead.

EBPF_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)

ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-7s %s\n' '$(1)' '$(patsubst $(EBPF_TOP)/%,%,$(2))';
endif
