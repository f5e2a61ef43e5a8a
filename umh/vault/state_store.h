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
/*
 * Save the restored tables again as state @id, alone: a restore added
 * counts to their base counters that the saved one lacks (load/'s parked
 * counters).  0 or -errno.
 */
int state_resave(uint32_t id);
/*
 * The id of the newest saved state if the last change was saved (0: none,
 * or the tables in force are not a saved state): the state a restore goes
 * back to if the change being made now is never acknowledged.
 */
uint32_t state_latest(void);

#endif
