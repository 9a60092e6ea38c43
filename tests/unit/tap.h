/* SPDX-License-Identifier: ISC */
/*
 * A minimal TAP producer for the unit tests, plus the guard-page helper that
 * places a parser's input so that one byte of over-read faults. Header-only:
 * each test binary includes it once.
 */
#ifndef EGRESSD_TAP_H
#define EGRESSD_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int tap_n, tap_failed;

static inline bool tap_ok(bool cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline bool
tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

static inline void tap_diag(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static inline void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define tap_is_int(got, want, ...) \
	do { \
		long long tap_g_ = (long long)(got), \
		          tap_w_ = (long long)(want); \
		if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__)) \
			tap_diag("got %lld, want %lld", tap_g_, tap_w_); \
	} while (0)

#define tap_is_str(got, want, ...) \
	do { \
		const char *tap_g_ = (got), *tap_w_ = (want); \
		bool tap_eq_ = (tap_g_ == NULL && tap_w_ == NULL) || \
		    (tap_g_ && tap_w_ && strcmp(tap_g_, tap_w_) == 0); \
		if (!tap_ok(tap_eq_, __VA_ARGS__)) \
			tap_diag("got \"%s\", want \"%s\"", \
			    tap_g_ ? tap_g_ : "(null)", \
			    tap_w_ ? tap_w_ : "(null)"); \
	} while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/*
 * Guard page: returns a copy of p[0..len) that ends exactly at the start of
 * an inaccessible page, so reading one byte past the end faults. Release with
 * tap_guard_free(). Reused across calls to keep the tests fast.
 */
struct tap_guard {
	unsigned char *base;
	size_t size;
};

static inline const unsigned char *
tap_guard_copy(struct tap_guard *g, const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t need = ((len + pg - 1) / pg + 1) * pg;

	if (g->size < need) {
		if (g->base)
			munmap(g->base, g->size);
		g->base = mmap(NULL, need, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->base == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		g->size = need;
		mprotect(g->base + need - pg, pg, PROT_NONE);
	}
	unsigned char *dst = g->base + g->size - pg - len;
	if (len)
		memcpy(dst, p, len);
	return dst;
}

static inline void
tap_guard_free(struct tap_guard *g)
{
	if (g->base)
		munmap(g->base, g->size);
	g->base = NULL;
	g->size = 0;
}

#endif
