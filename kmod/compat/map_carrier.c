// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_map_get() for a kernel that does not export it to modules (5.10;
 * compat.h's ebpf_map_get()).  The helper loads a program, never run, that
 * uses its maps (EBPF_CTL_FEAT_MAPS_PROG): the verifier resolved their fds
 * and holds them in the program's used_maps.  A map fd names one of those
 * maps when its file's private_data is that map, as bpf_map_new_fd() made
 * it; nothing else is dereferenced before that match.  The checks the
 * caller makes on the map (type, sizes) stay the caller's.
 */
#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/mutex.h>

#ifdef EBPF_HAVE_MAP_CARRIER
struct bpf_map *ebpf_map_get(int fd, struct bpf_prog *carrier)
{
	struct bpf_prog_aux *aux;
	struct bpf_map *map;
	struct fd f;
	u32 i;

	if (!carrier)
		return ERR_PTR(-EINVAL);
	f = fdget(fd);
	if (!f.file)
		return ERR_PTR(-EBADF);
	aux = carrier->aux;
	map = ERR_PTR(-EINVAL);
	mutex_lock(&aux->used_maps_mutex);
	for (i = 0; i < aux->used_map_cnt; i++) {
		if (aux->used_maps[i] == f.file->private_data) {
			map = aux->used_maps[i];
			bpf_map_inc(map);
			break;
		}
	}
	mutex_unlock(&aux->used_maps_mutex);
	fdput(f);
	return map;
}
#endif
