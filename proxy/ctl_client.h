/* SPDX-License-Identifier: ISC */
/*
 * egressctl's side of the control socket (docs/control.md): finding the
 * socket, connecting with an error message an operator can act on, sending
 * one request line and reading the answer whole or line by line. What the
 * answers mean is the subcommands' business.
 */
#ifndef EGRESSD_CTL_CLIENT_H
#define EGRESSD_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define CTL_CLIENT_DEFAULT_PATH "/run/egressd/control.sock"
#define CTL_CLIENT_REQUEST_MAX  4096 /* docs/control.md: one line, 4 KiB */
#define CTL_CLIENT_REPLY_MAX    (16u << 20) /* a whole one-object answer */
#define CTL_CLIENT_LINE_MAX     (64u << 10) /* one record line */
#define CTL_CLIENT_TIMEOUT_MS   30000       /* silence that ends a request */

/* The socket path: opt when given, else $EGRESSD_CONTROL when set and not
 * empty, else CTL_CLIENT_DEFAULT_PATH. */
const char *ctl_client_path(const char *opt);

/*
 * Connects to the control socket at path. On failure returns -1 and writes
 * "cannot reach egressd at PATH: REASON (ADVICE)" into err, where ADVICE says
 * what to do (start egressd, run as root, ...) and ends with offline when it
 * is not NULL (", or use --log FILE").
 */
int ctl_client_connect(
    const char *path, const char *offline, char *err, size_t errlen);

/* Sends request plus "\n" in full (at most CTL_CLIENT_REQUEST_MAX bytes). */
bool ctl_client_send(int fd, const char *request, char *err, size_t errlen);

/* Reads until egressd closes the connection, into out (capped at
 * CTL_CLIENT_REPLY_MAX). timeout_ms bounds each wait; -1 waits forever. */
bool ctl_client_read_all(
    int fd, struct strbuf *out, int timeout_ms, char *err, size_t errlen);

/*
 * Reads lines until egressd closes the connection or line() returns false,
 * calling line() for each one without its newline (a last line without one
 * counts too). A line longer than CTL_CLIENT_LINE_MAX is passed truncated
 * with too_long set.
 */
bool ctl_client_read_lines(int fd, int timeout_ms,
    bool (*line)(const char *s, size_t len, bool too_long, void *arg),
    void *arg, char *err, size_t errlen);

/* Connects, sends request and reads the whole answer; on failure err says
 * why (the connect message above, or the exchange that failed). */
bool ctl_client_call(const char *path, const char *offline, const char *request,
    struct strbuf *reply, char *err, size_t errlen);

/* Appends value percent-encoded (RFC 3986 §2.1): every byte but letters,
 * digits and "-._~/:" becomes %XX, so a value never holds a space, '=' or
 * '%' of its own. */
void ctl_client_pct_encode(struct strbuf *out, const char *value);

#endif
