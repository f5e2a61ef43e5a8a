/* SPDX-License-Identifier: GPL-2.0 */
/* The committed tables, kept in the vault across helper restarts. */
#ifndef UMH_STATE_STORE_H
#define UMH_STATE_STORE_H

#include <stdint.h>

/* Save the tables as the state committed by request @id; 0 or -errno. */
int state_store(uint32_t id);
/*
 * Restore the state saved under @id (EBPF_MSG_RESTORE).  0, or -errno with
 * the initial tables in force when that state is missing or unusable.
 */
int state_restore(uint32_t id);

#endif
