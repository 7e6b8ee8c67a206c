/*
 * loader_pages.c — see loader_pages.h.
 */
#include "core/loader_pages.h"

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* True when [start, end) overlaps a segment that is or was writable (RELRO is read-only after
 * relocation but holds written pages: dropping those would lose the relocations). */
static bool overlaps_written(const struct dl_phdr_info *info, ElfW(Addr) start, ElfW(Addr) end)
{
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        bool written = p->p_type == PT_GNU_RELRO || (p->p_type == PT_LOAD && (p->p_flags & PF_W));
        if (written && p->p_vaddr < end && p->p_vaddr + p->p_memsz > start)
            return true;
    }
    return false;
}

static int release_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    size_t *released = data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        /* Only the segment at file offset 0 that is read-only and not code: the loader's own. */
        if (p->p_type != PT_LOAD || p->p_offset != 0 || p->p_flags != PF_R || p->p_filesz == 0)
            continue;
        if (overlaps_written(info, p->p_vaddr, p->p_vaddr + p->p_memsz))
            continue;
        uintptr_t start = (uintptr_t)(info->dlpi_addr + p->p_vaddr);
        uintptr_t end = start + p->p_filesz;
        /* Whole pages only, and only those the file backs (never a page shared with .bss). */
        start = (start + page - 1) & ~(page - 1);
        end &= ~(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) == 0)
            *released += end - start;
    }
    return 0;
}

size_t sluice_loader_pages_release(void)
{
    size_t released = 0;
    dl_iterate_phdr(release_one, &released);
    return released;
}
