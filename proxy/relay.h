/* SPDX-License-Identifier: ISC */
/*
 * The tunnel relay: moves bytes both ways between a client and an upstream
 * socket once a connection is decided: read/write through a shared buffer
 * while a direction is small, splice(2) through a pipe of its own (zero
 * copy) once it carries bulk, bounded either way (backpressure), half-close
 * propagated each way. Stays with read/write when no pipe can be had.
 */
#ifndef EGRESSD_RELAY_H
#define EGRESSD_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct relay;

enum relay_end {
	RELAY_END_CLOSED,       /* both sides finished cleanly */
	RELAY_END_CLIENT_ERR,   /* read/write error on the client side */
	RELAY_END_UPSTREAM_ERR, /* ... on the upstream side */
};

/*
 * Starts relaying between client_fd and upstream_fd (both non-blocking,
 * owned by the caller, not closed here). With hold_up, only upstream ->
 * client flows until relay_release_up(): the caller is still inspecting the
 * client's first bytes (server-speaks-first protocols work meanwhile). done
 * runs once, from the loop, when the relay ends; the caller then calls
 * relay_free() and closes the fds.
 */
struct relay *relay_start(struct event_base *base, int client_fd,
    int upstream_fd, bool hold_up,
    void (*done)(struct relay *r, enum relay_end end, void *arg), void *arg);
/*
 * Lets client -> upstream flow: first[0..len) (client bytes read during the
 * inspection, copied) go upstream before anything else.
 */
void relay_release_up(struct relay *r, const uint8_t *first, size_t len);
void relay_free(struct relay *r);

/* Bytes moved client->upstream and upstream->client so far. */
void relay_bytes(const struct relay *r, uint64_t *up, uint64_t *down);
/* Monotonic milliseconds of the last byte moved (for idle timeouts). */
uint64_t relay_last_active_ms(const struct relay *r);

/* What a direction's pipe grows to once it has carried bulk (F_SETPIPE_SZ,
 * within the system's pipe limits); 0 keeps the system default (64 KiB). */
#define RELAY_BULK_PIPE_DEFAULT (1u << 20)
void relay_set_pipe_size(size_t bytes);

#endif
