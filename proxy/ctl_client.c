/* SPDX-License-Identifier: ISC */
/*
 * The client end of egressd's control socket. Owns connecting, the request
 * line, timeouts and the advice printed when egressd cannot be reached;
 * leaves the answers' meaning to the subcommands.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_client.h"
#include "strbuf.h"

const char *
ctl_client_path(const char *opt)
{
	const char *env;

	if (opt && *opt)
		return opt;
	if ((env = getenv("EGRESSD_CONTROL")) != NULL && *env)
		return env;
	return CTL_CLIENT_DEFAULT_PATH;
}

int
ctl_client_connect(
    const char *path, const char *offline, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	const char *advice;
	int fd, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen,
		    "cannot reach egressd at %s: the path is longer than a Unix socket address allows (%zu bytes)",
		    path, sizeof(sun.sun_path) - 1);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "cannot reach egressd at %s: socket: %s",
		    path, strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return fd;
	e = errno;
	close(fd);
	switch (e) {
	case EACCES:
	case EPERM:
		advice =
		    "the control socket is for root only: run egressctl as root";
		break;
	default:
		advice =
		    "is egressd running? start it, or point egressctl at its socket with --control PATH or EGRESSD_CONTROL";
		break;
	}
	snprintf(err, errlen, "cannot reach egressd at %s: %s (%s%s)", path,
	    strerror(e), advice, offline ? offline : "");
	return -1;
}

bool
ctl_client_send(int fd, const char *request, char *err, size_t errlen)
{
	char line[CTL_CLIENT_REQUEST_MAX];
	size_t len = strlen(request), off = 0;

	if (len + 1 > sizeof(line) || memchr(request, '\n', len)) {
		snprintf(err, errlen,
		    "request too long for the control socket (at most %d bytes)",
		    CTL_CLIENT_REQUEST_MAX);
		return false;
	}
	memcpy(line, request, len);
	line[len++] = '\n';
	while (off < len) {
		ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "sending to egressd: %s",
			    n < 0 ? strerror(errno) : "connection closed");
			return false;
		}
		off += (size_t)n;
	}
	return true;
}

/* Waits for input; false after timeout_ms of silence or an error. */
static bool
wait_readable(int fd, int timeout_ms, char *err, size_t errlen)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	int r;

	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		snprintf(
		    err, errlen, "waiting for egressd: %s", strerror(errno));
		return false;
	}
	if (r == 0) {
		snprintf(err, errlen, "egressd did not answer within %d s",
		    timeout_ms / 1000);
		return false;
	}
	return true;
}

/* One read; returns bytes, 0 at the end, -1 with err set. */
static ssize_t
read_some(
    int fd, char *buf, size_t len, int timeout_ms, char *err, size_t errlen)
{
	ssize_t n;

	for (;;) {
		if (!wait_readable(fd, timeout_ms, err, errlen))
			return -1;
		n = read(fd, buf, len);
		if (n >= 0)
			return n;
		if (errno != EINTR && errno != EAGAIN) {
			snprintf(err, errlen, "reading from egressd: %s",
			    strerror(errno));
			return -1;
		}
	}
}

bool
ctl_client_read_all(
    int fd, struct strbuf *out, int timeout_ms, char *err, size_t errlen)
{
	char buf[16384];
	ssize_t n;

	while ((n = read_some(fd, buf, sizeof(buf), timeout_ms, err, errlen)) >
	    0) {
		if (out->len + (size_t)n > CTL_CLIENT_REPLY_MAX) {
			snprintf(err, errlen,
			    "egressd's answer is larger than %u MiB",
			    CTL_CLIENT_REPLY_MAX >> 20);
			return false;
		}
		strbuf_add(out, buf, (size_t)n);
	}
	return n == 0;
}

bool
ctl_client_read_lines(int fd, int timeout_ms,
    bool (*line)(const char *s, size_t len, bool too_long, void *arg),
    void *arg, char *err, size_t errlen)
{
	char *buf = malloc(CTL_CLIENT_LINE_MAX);
	size_t have = 0;
	bool skipping = false, ok = false;

	if (buf == NULL) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (;;) {
		ssize_t n = read_some(fd, buf + have,
		    CTL_CLIENT_LINE_MAX - have, timeout_ms, err, errlen);
		size_t start = 0, i;

		if (n < 0)
			goto out;
		if (n == 0) {
			/* a last line without a newline counts too */
			if (have && !skipping)
				line(buf, have, false, arg);
			goto done;
		}
		for (i = have; i < have + (size_t)n; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skipping &&
			    !line(buf + start, i - start, false, arg))
				goto done;
			skipping = false;
			start = i + 1;
		}
		have += (size_t)n;
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == CTL_CLIENT_LINE_MAX) {
			/* an over-long line: report it once, drop the rest */
			if (!skipping && !line(buf, have, true, arg))
				goto done;
			skipping = true;
			have = 0;
		}
	}
done:
	ok = true;
out:
	free(buf);
	return ok;
}

bool
ctl_client_call(const char *path, const char *offline, const char *request,
    struct strbuf *reply, char *err, size_t errlen)
{
	int fd = ctl_client_connect(path, offline, err, errlen);
	bool ok;

	if (fd == -1)
		return false;
	ok = ctl_client_send(fd, request, err, errlen) &&
	    ctl_client_read_all(fd, reply, CTL_CLIENT_TIMEOUT_MS, err, errlen);
	close(fd);
	if (ok && reply->len == 0) {
		snprintf(err, errlen,
		    "egressd at %s closed the connection without an answer to '%s' (an older egressd?)",
		    path, request);
		return false;
	}
	return ok;
}

void
ctl_client_pct_encode(struct strbuf *out, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)value; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/:", *p))
			strbuf_putc(out, (char)*p);
		else
			strbuf_printf(
			    out, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}
