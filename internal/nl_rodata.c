/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_rodata.c — the main program's read-only segments (see nl_rodata.h). */
#define _GNU_SOURCE
#include "nl_rodata.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>

#define RO_MAX 8

static struct {
    uintptr_t lo, hi;
} ro[RO_MAX];
static int nro;
static pthread_once_t ro_once = PTHREAD_ONCE_INIT;

/* glibc reports the main program first; its loadable segments without write permission
 * are the ones whose bytes never change. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && nro < RO_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W)) continue;
        ro[nro].lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
        ro[nro].hi = ro[nro].lo + ph->p_memsz;
        nro++;
    }
    return 1; /* the main program only */
}

static void find_ro(void) { dl_iterate_phdr(first_object, NULL); }

int nl__rodata_holds(const char *p, size_t len)
{
    pthread_once(&ro_once, find_ro);
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < nro; i++)
        if (a >= ro[i].lo && a < ro[i].hi && len < ro[i].hi - a) return 1;
    return 0;
}
