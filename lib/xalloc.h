/* SPDX-License-Identifier: ISC */
/*
 * Allocation that cannot fail: out of memory is fatal (fatal(), exit 2).
 */
#ifndef EGRESSD_XALLOC_H
#define EGRESSD_XALLOC_H

#include <stddef.h>

/* Zeroed; never NULL, also for n == 0. */
void *xcalloc(size_t n, size_t size);
/* p resized to n elements of size; an overflowing product is fatal too. */
void *xreallocarray(void *p, size_t n, size_t size);
/* A copy of s; NULL for NULL. */
char *xstrdup(const char *s);

#endif
