/*
 * loader_pages.h — gives back the pages the dynamic loader read to link the process and nothing
 * reads while it idles (issue 23, idle RSS).
 *
 * Owns: the first read-only segment of each loaded object (the ELF header, the dynamic symbol
 * and string tables, their hash table and the relocation tables, up to the first code). The
 * loader reads all of it once to relocate: libduckdb.so exports DuckDB's whole C++ API, so that
 * is 8.3 MB of its 14 MB of RSS at start-up, before DuckDB is ever opened. Does not own: any
 * segment that is or was writable (RELRO, data) or that holds code or constants.
 *
 * The pages are dropped with MADV_DONTNEED. The segment is a private, read-only file mapping
 * that nothing ever writes, so a later read (a lazy symbol binding, dlsym, dl_iterate_phdr)
 * finds the same bytes again from the file: a minor fault while the file is in the page cache.
 */
#ifndef SLUICE_CORE_LOADER_PAGES_H
#define SLUICE_CORE_LOADER_PAGES_H

#include <stddef.h>

/* Drops those pages of every loaded object; returns how many bytes it asked the kernel to drop
 * (resident or not). Call once start-up is done; never fails (a refused madvise keeps them). */
size_t sluice_loader_pages_release(void);

#endif
