/* SPDX-License-Identifier: ISC */
/*
 * Bidirectional relay. Each direction owns a pipe (created on first use) and
 * two events: readable on its source, writable on its sink. Data waits in the
 * pipe when the sink is slow, and the source is not read again until the pipe
 * drains: memory per tunnel is bounded by the pipe, and a client that never
 * reads holds at most one pipe of data.
 *
 *   client --splice--> pipe[UP]   --splice--> upstream
 *   client <--splice-- pipe[DOWN] <--splice-- upstream
 *
 * EOF on a source is passed on as shutdown(SHUT_WR) on its sink once the pipe
 * is empty; the relay ends when both directions have ended.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "relay.h"

#define RELAY_CHUNK        (256u << 10)
#define RELAY_ROUND_BYTES  (1u << 20) /* per callback, for fairness */
#define RELAY_FALLBACK_BUF (16u << 10)

enum { DIR_UP, DIR_DOWN };

struct relay_dir {
	int from, to;
	int pipe_r, pipe_w; /* -1 until first used */
	size_t in_pipe;     /* bytes waiting in the pipe (or buf) */
	uint8_t *buf;       /* fallback buffer, or the first bytes */
	size_t buf_off;
	bool use_buf; /* no pipe: read/write through buf */
	bool eof, ended;
	struct event *rd, *wr;
	uint64_t bytes;
};

struct relay {
	struct event_base *base;
	struct relay_dir dir[2];
	struct event *finish; /* runs done() from the loop */
	enum relay_end end;
	bool ending;
	uint64_t last_ms;
	void (*done)(struct relay *, enum relay_end, void *);
	void *arg;
};

static size_t relay_pipe_size;

void
relay_set_pipe_size(size_t bytes)
{
	relay_pipe_size = bytes;
}

static void
relay_end(struct relay *r, enum relay_end end)
{
	int i;

	if (r->ending)
		return;
	r->ending = true;
	r->end = end;
	for (i = 0; i < 2; i++) {
		event_del(r->dir[i].rd);
		event_del(r->dir[i].wr);
	}
	event_active(r->finish, 0, 0);
}

static void
finish_cb(evutil_socket_t fd, short what, void *arg)
{
	struct relay *r = arg;

	(void)fd;
	(void)what;
	r->done(r, r->end, r->arg);
}

static bool
dir_pipe(struct relay_dir *d)
{
	int p[2];

	if (d->pipe_r != -1 || d->use_buf)
		return true;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1) {
		/* fd pressure: carry on through a small buffer */
		d->use_buf = true;
		return false;
	}
	if (relay_pipe_size)
		(void)fcntl(p[1], F_SETPIPE_SZ, (int)relay_pipe_size);
	d->pipe_r = p[0];
	d->pipe_w = p[1];
	return true;
}

static void
dir_close_pipe(struct relay_dir *d)
{
	if (d->pipe_r != -1) {
		close(d->pipe_r);
		close(d->pipe_w);
		d->pipe_r = d->pipe_w = -1;
	}
}

/* Direction finished: pass the EOF on. */
static void
dir_ended(struct relay *r, struct relay_dir *d)
{
	d->ended = true;
	event_del(d->rd);
	event_del(d->wr);
	shutdown(d->to, SHUT_WR);
	dir_close_pipe(d);
	free(d->buf);
	d->buf = NULL;
	if (r->dir[DIR_UP].ended && r->dir[DIR_DOWN].ended)
		relay_end(r, RELAY_END_CLOSED);
}

static enum relay_end
err_side(int di, bool reading)
{
	/* UP reads the client and writes upstream; DOWN the reverse. */
	if (di == DIR_UP)
		return reading ? RELAY_END_CLIENT_ERR : RELAY_END_UPSTREAM_ERR;
	return reading ? RELAY_END_UPSTREAM_ERR : RELAY_END_CLIENT_ERR;
}

/* Flushes what waits for the sink. Returns 1 when empty, 0 when the sink
 * would block, -1 on error. */
static int
dir_flush(struct relay *r, struct relay_dir *d)
{
	while (d->in_pipe > 0) {
		ssize_t n;

		if (d->buf)
			n = write(d->to, d->buf + d->buf_off, d->in_pipe);
		else
			n = splice(d->pipe_r, NULL, d->to, NULL, d->in_pipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			d->in_pipe -= (size_t)n;
			d->buf_off += (size_t)n;
			d->bytes += (uint64_t)n;
			r->last_ms = clock_ms();
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		return -1;
	}
	d->buf_off = 0;
	if (d->buf && !d->use_buf) {
		/* the first bytes are out: from now on, splice */
		free(d->buf);
		d->buf = NULL;
	}
	return 1;
}

/* Moves data from source to sink until either would block. */
static void
dir_pump(struct relay *r, int di)
{
	struct relay_dir *d = &r->dir[di];
	size_t moved = 0;

	for (;;) {
		ssize_t n;
		int f = dir_flush(r, d);

		if (f < 0) {
			relay_end(r, err_side(di, false));
			return;
		}
		if (f == 0) {
			/* sink full: stop reading until it drains */
			event_del(d->rd);
			event_add(d->wr, NULL);
			return;
		}
		event_del(d->wr);
		if (d->eof) {
			dir_ended(r, d);
			return;
		}
		if (moved >= RELAY_ROUND_BYTES) {
			event_add(d->rd, NULL);
			return;
		}
		if (!dir_pipe(d) || d->use_buf) {
			if (d->buf == NULL &&
			    (d->buf = malloc(RELAY_FALLBACK_BUF)) == NULL) {
				relay_end(r, err_side(di, true));
				return;
			}
			n = read(d->from, d->buf, RELAY_FALLBACK_BUF);
		} else {
			n = splice(d->from, NULL, d->pipe_w, NULL, RELAY_CHUNK,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		}
		if (n > 0) {
			d->in_pipe = (size_t)n;
			moved += (size_t)n;
			continue;
		}
		if (n == 0) {
			d->eof = true;
			continue;
		}
		if (errno == EAGAIN || errno == EINTR) {
			event_add(d->rd, NULL);
			return;
		}
		relay_end(r, err_side(di, true));
		return;
	}
}

static void
up_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dir_pump(arg, DIR_UP);
}

static void
down_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	dir_pump(arg, DIR_DOWN);
}

struct relay *
relay_start(struct event_base *base, int client_fd, int upstream_fd,
    bool hold_up, void (*done)(struct relay *r, enum relay_end end, void *arg),
    void *arg)
{
	struct relay *r = calloc(1, sizeof(*r));
	int i;

	if (r == NULL)
		return NULL;
	r->base = base;
	r->done = done;
	r->arg = arg;
	r->last_ms = clock_ms();
	r->dir[DIR_UP].from = client_fd;
	r->dir[DIR_UP].to = upstream_fd;
	r->dir[DIR_DOWN].from = upstream_fd;
	r->dir[DIR_DOWN].to = client_fd;
	for (i = 0; i < 2; i++) {
		struct relay_dir *d = &r->dir[i];
		void (*cb)(evutil_socket_t, short, void *) =
		    i == DIR_UP ? up_cb : down_cb;

		d->pipe_r = d->pipe_w = -1;
		d->rd = event_new(base, d->from, EV_READ | EV_PERSIST, cb, r);
		d->wr = event_new(base, d->to, EV_WRITE | EV_PERSIST, cb, r);
		if (d->rd == NULL || d->wr == NULL)
			goto fail;
	}
	if ((r->finish = event_new(base, -1, 0, finish_cb, r)) == NULL)
		goto fail;
	dir_pump(r, DIR_DOWN);
	if (!hold_up && !r->ending)
		dir_pump(r, DIR_UP);
	return r;
fail:
	relay_free(r);
	return NULL;
}

void
relay_release_up(struct relay *r, const uint8_t *first, size_t len)
{
	struct relay_dir *d = &r->dir[DIR_UP];

	if (r->ending)
		return;
	if (len) {
		if ((d->buf = malloc(len)) == NULL) {
			relay_end(r, RELAY_END_CLIENT_ERR);
			return;
		}
		memcpy(d->buf, first, len);
		d->in_pipe = len;
	}
	dir_pump(r, DIR_UP);
}

void
relay_free(struct relay *r)
{
	int i;

	if (r == NULL)
		return;
	for (i = 0; i < 2; i++) {
		if (r->dir[i].rd)
			event_free(r->dir[i].rd);
		if (r->dir[i].wr)
			event_free(r->dir[i].wr);
		dir_close_pipe(&r->dir[i]);
		free(r->dir[i].buf);
	}
	if (r->finish)
		event_free(r->finish);
	free(r);
}

void
relay_bytes(const struct relay *r, uint64_t *up, uint64_t *down)
{
	*up = r->dir[DIR_UP].bytes;
	*down = r->dir[DIR_DOWN].bytes;
}

uint64_t
relay_last_active_ms(const struct relay *r)
{
	return r->last_ms;
}
