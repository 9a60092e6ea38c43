/* SPDX-License-Identifier: ISC */
/*
 * SHA-256 of the executables behind connections, computed on a worker
 * thread (hashing a 100 MB binary must not stall the event loop) and cached
 * by (dev, inode, size, mtime, ctime): a replaced or rewritten file gets a
 * new key, the same file is hashed once.
 */
#ifndef EGRESSD_EXEHASH_H
#define EGRESSD_EXEHASH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct event_base;
struct exehash;
struct exehash_req;

struct exehash_key {
	uint64_t dev, ino;
	int64_t size;
	struct timespec mtime, ctime;
};

struct exehash *exehash_new(struct event_base *base, char *err, size_t errlen);
void exehash_free(struct exehash *h);

/* A cached digest for key, without waiting. */
bool exehash_lookup(
    struct exehash *h, const struct exehash_key *key, uint8_t out[32]);

/*
 * Hashes the file open at fd (taken over: closed when done) for key. cb runs
 * from the loop with ok false when the file could not be read (or changed
 * while being read). Returns NULL when out of memory (fd closed).
 */
struct exehash_req *exehash_start(struct exehash *h, int fd,
    const struct exehash_key *key,
    void (*cb)(bool ok, const uint8_t digest[32], void *arg), void *arg);
/* The callback will not run; the hash is still cached when it completes. */
void exehash_cancel(struct exehash_req *req);

/* Trust on first use: the first digest seen for a path is remembered, and
 * later digests of the same path are compared with it. Returns false on a
 * mismatch. */
bool exehash_tofu_check(
    struct exehash *h, const char *path, const uint8_t digest[32]);

#endif
