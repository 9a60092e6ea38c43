/* SPDX-License-Identifier: ISC */
/*
 * A client connection from accept to close: caller identity bound at accept,
 * the request (CONNECT, forwarded HTTP, or a transparent connection), the
 * target pipeline, the reply, the inspection of the first client bytes, and
 * the relay. One owner closes it, once, with a reason that goes into the
 * close record.
 */
#ifndef EGRESSD_SESSION_H
#define EGRESSD_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "audit.h"
#include "caller.h"
#include "decide.h"
#include "hostname.h"
#include "relay.h"

struct daemon;
struct listener;
struct relay;
struct target;
struct policy;
struct session_setup;
struct forward;
struct transparent;

enum session_state {
	SESSION_HEAD,      /* reading the request head */
	SESSION_TARGET,    /* deciding, resolving, connecting */
	SESSION_REPLY,     /* writing the reply to a denied/failed request */
	SESSION_PEEK,      /* holding client bytes until they are inspected */
	SESSION_RELAY,     /* tunnel established */
	SESSION_FORWARD,   /* plain HTTP forward proxying */
	SESSION_INTERCEPT, /* TLS terminated, requests decided one by one */
	SESSION_CLOSING,
};

struct session {
	struct session *prev, *next; /* the daemon's list */
	struct daemon *d;
	struct listener *l;
	uint64_t id;
	int cfd, ufd;
	enum session_state state;
	const char *ingress;
	struct caller caller;
	struct addr src;
	uint16_t src_port;
	char *host; /* as decided (normalized), for logs */
	uint16_t port;
	enum decide_source source; /* how host was learned */
	/* the decision in force (re-checked on reload) */
	struct policy *policy;
	enum verdict verdict;
	enum reason reason;
	enum policy_enforcement mode;
	const char *policy_key; /* points into policy */
	bool decided;
	struct addr dst;
	bool dialed;
	uint64_t start_ms;
	struct relay *relay;
	struct session_setup *setup; /* NULL once relaying */
	struct forward *fwd;
	struct transparent *tp; /* transparent.c's state before relaying */
	struct intercept *ic;   /* intercept.c's state (protocol: rest) */
	bool reset;             /* close the client with a TCP reset */
	uint64_t fwd_bytes_up, fwd_bytes_down;
	struct event *reaper; /* frees the session from the loop */
};

/* Takes over an accepted socket; peer is its address as accept(2) gave it
 * (unused for a Unix listener). */
struct sockaddr;
void session_accept(struct listener *l, int fd, const struct sockaddr *peer);
/* A new session for an accepted socket, linked into the daemon. */
struct session *session_new(struct listener *l, int fd);
/*
 * Switches an allowed connection whose endpoints inspect requests
 * (protocol: rest) to interception; held[0..len) are client bytes already
 * read; tls false for plain HTTP (nothing to terminate, requests decided
 * all the same). Returns false when interception could not start (s is
 * then closed).
 */
bool session_intercept(struct session *s, const struct hostname *host,
    const uint8_t *held, size_t len, bool tls);
/* Binds the caller of s (sock_diag + /proc, or SO_PEERCRED for Unix
 * sockets): peer is the client socket's own address (NULL: unknown, no
 * caller), local the destination as the client sees it. */
void session_bind_identity(struct session *s, const struct sockaddr *peer,
    const struct sockaddr *local);
/* Starts the relay between the client and upstream sockets, client bytes
 * held until relay_release_up(); false when it could not (s is closed). */
bool session_start_relay(struct session *s);
/*
 * Decides an established connection again under policy p (after a reload):
 * still allowed: untouched; newly denied: closed in enforce mode (counted in
 * *revoked), flagged in audit mode (*flagged); each outcome logged.
 */
struct policy;
void session_recheck(
    struct session *s, struct policy *p, unsigned *revoked, unsigned *flagged);
/* Closes every session idle for longer than the idle timeout. */
void session_sweep(struct daemon *d);
/* Closes every session now (end of a drain). */
void session_close_all(struct daemon *d);
/* Keeps the decision of a target result as the one the session runs under
 * (takes the policy reference) and counts it. */
struct target_result;
void session_adopt(struct session *s, struct target_result *res);
struct strbuf;
/* Starts the JSON body of an error response of ours in body (initialized
 * here): error class by status, reason code, reason text (text, or the
 * reason's own). The caller adds its fields and the closing brace. */
void session_error_body(struct strbuf *body, bool *first, int status,
    enum reason why, const char *text);
/* Appends a whole HTTP error response with its JSON body to out. */
void session_error_response(const struct session *s, int status,
    enum reason why, const char *reason_str, const char *hint,
    const char *detail, struct strbuf *out);
/* Starts a log record about s: its id, ingress, source, destination as far
 * as known (the address dialed, once dialed) and caller; the rest is zero. */
void session_record(
    const struct session *s, enum audit_activity act, struct audit_record *r);
/* Asks the target pipeline for host:port on behalf of s. */
struct target_req;
void session_target_req(const struct session *s, const struct hostname *host,
    uint16_t port, enum decide_source source, struct target_req *tr);
/* Closes s with reason why (may be REASON_ALLOWED for a normal end). */
void session_close(struct session *s, enum reason why);

#endif
